/*****************************************************************************\
 *  rlft_file.c - the job files in HostFileDir= (rlft_file.h): the rule
 *  on the directory, and a write that replaces a name without following
 *  what is there.
 *
 *  Every step after the checks works on directory descriptors (openat,
 *  renameat, unlinkat), so that the directory checked is the one written:
 *  a path looked up again could have been swapped in between.
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *
 *  This program is free software; you can redistribute it and/or modify it
 *  under the terms of the GNU General Public License as published by the
 *  Free Software Foundation; either version 2 of the License, or (at your
 *  option) any later version.
 *
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include "src/plugins/select/rlft/rlft_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Temporary names tried before giving up: another writer's O_EXCL
 * collisions (a sticky directory lets others create names) are not worth
 * more. */
#define TMP_TRIES 64

/* Sets *err to the message; always -1, for `return _fail(...)`. */
__attribute__((format(printf, 2, 3)))
static int _fail(char **err, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	*err = n < 0 ? NULL : malloc(n + 1);
	if (*err) {
		va_start(ap, fmt);
		vsnprintf(*err, n + 1, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Why directory `st` breaks the rule (rlft_file.h), or NULL. */
static const char *_unsafe(const struct stat *st)
{
	if (!S_ISDIR(st->st_mode))
		return "is not a directory";
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return "is owned by neither root nor slurmctld's user";
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
		return "is writable by group or others and not sticky";
	return NULL;
}

static int _check_one(const char *dir, const char *path, char **err)
{
	struct stat st;
	const char *why;

	if (stat(path, &st))
		return _fail(err, "HostFileDir %s: cannot check %s: %s", dir, path,
			     strerror(errno));
	if ((why = _unsafe(&st)))
		return _fail(err, "HostFileDir %s: %s above it %s", dir, path, why);
	return 0;
}

/* Every directory from / down to `real` (a path realpath() gave: no
 * links, no "." or ".."). Whoever may change one of them could put
 * another directory in HostFileDir's place. */
static int _check_above(const char *dir, const char *real, char **err)
{
	char *p = strdup(real);
	size_t len;
	int rc;

	if (!p)
		return _fail(err, "HostFileDir %s: out of memory", dir);
	len = strlen(p);
	rc = _check_one(dir, "/", err);
	for (size_t i = 1; len > 1 && i <= len && !rc; i++) {
		char c = p[i];

		if (c && c != '/')
			continue;
		p[i] = '\0';
		rc = _check_one(dir, p, err);
		p[i] = c;
	}
	free(p);
	return rc;
}

/* Opens HostFileDir `dir` once it passes the rule (rlft_file.h); with
 * `create`, makes it first when missing. 1 (and *fd -1) when it is
 * missing and not to be created. */
static int _open_dir(const char *dir, bool create, int *fd, char **err)
{
	char *copy = strdup(dir), *slash, *base, *real = NULL;
	const char *parent;
	int pfd = -1, rc = -1;
	bool made = false;
	struct stat st;
	const char *why;

	*fd = -1;
	if (!copy)
		return _fail(err, "HostFileDir %s: out of memory", dir);
	/* "a/b/" is "a/b"; "/" stays */
	for (size_t n = strlen(copy); n > 1 && copy[n - 1] == '/'; n--)
		copy[n - 1] = '\0';
	slash = strrchr(copy, '/');
	if (!*copy) {
		_fail(err, "HostFileDir is empty");
		goto out;
	} else if (!slash) {
		parent = ".";
		base = copy;
	} else if (slash == copy) {
		parent = "/";
		base = slash[1] ? slash + 1 : ".";
	} else {
		*slash = '\0';
		parent = copy;
		base = slash + 1;
	}
	if (!(real = realpath(parent, NULL))) {
		_fail(err, "HostFileDir %s: cannot resolve %s: %s", dir, parent, strerror(errno));
		goto out;
	}
	if (_check_above(dir, real, err))
		goto out;
	pfd = open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0) {
		_fail(err, "HostFileDir %s: cannot open %s: %s", dir, real, strerror(errno));
		goto out;
	}
	if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT) {
			_fail(err, "HostFileDir %s: %s", dir, strerror(errno));
			goto out;
		}
		if (!create) {
			rc = 1;
			goto out;
		}
		if (mkdirat(pfd, base, 0755) && errno != EEXIST) {
			_fail(err, "HostFileDir %s: cannot create it: %s", dir, strerror(errno));
			goto out;
		}
		made = true;
	} else if (S_ISLNK(st.st_mode)) {
		_fail(err, "HostFileDir %s is a symbolic link: give the directory itself", dir);
		goto out;
	}
	*fd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0) {
		_fail(err, "HostFileDir %s: cannot open it: %s", dir,
		      errno == ELOOP ? "it is a symbolic link" : strerror(errno));
		goto out;
	}
	if (fstat(*fd, &st)) {
		_fail(err, "HostFileDir %s: %s", dir, strerror(errno));
		goto out;
	}
	if ((why = _unsafe(&st))) {
		_fail(err, "HostFileDir %s %s", dir, why);
		goto out;
	}
	/* mkdirat's mode went through the umask; the tasks must read it */
	if (made && (st.st_mode & 07777) != 0755 && fchmod(*fd, 0755)) {
		_fail(err, "HostFileDir %s: cannot make it mode 0755: %s", dir, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (rc && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	if (pfd >= 0)
		close(pfd);
	free(real);
	free(copy);
	return rc;
}

static bool _file_name(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

static int _write_all(int fd, const char *text)
{
	size_t left = strlen(text);

	while (left) {
		ssize_t n = write(fd, text, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		text += n;
		left -= n;
	}
	return 0;
}

/* A new file ".<name>.<random>" in dfd, mode 0644; its name in tmp. */
static int _create_tmp(int dfd, const char *name, char *tmp, size_t size)
{
	static unsigned counter;
	struct timespec ts;

	for (int i = 0; i < TMP_TRIES; i++) {
		int fd;

		/* unguessable enough that a sticky directory's other users
		 * rarely collide; O_EXCL makes a collision harmless */
		clock_gettime(CLOCK_REALTIME, &ts);
		snprintf(tmp, size, ".%s.%08lx%04x", name,
			 (unsigned long) (ts.tv_nsec ^ ((long) getpid() << 12)),
			 __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED) & 0xffff);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0) {
			if (fchmod(fd, 0644)) { /* the umask may have taken the tasks' read */
				int e = errno;

				close(fd);
				unlinkat(dfd, tmp, 0);
				errno = e;
				return -1;
			}
			return fd;
		}
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

/* A new file in dfd holding `text` whole, closed; its name in tmp. */
static int _write_tmp(const char *dir, int dfd, const char *name, const char *text, char *tmp,
		      size_t size, char **err)
{
	int fd = _create_tmp(dfd, name, tmp, size);

	if (fd < 0)
		return _fail(err, "HostFileDir %s: cannot create a file in it: %s", dir,
			     strerror(errno));
	/* No fsync: a job file matters while its job runs, and close()
	 * flushes to an NFS server, where the tasks read it. */
	if (_write_all(fd, text)) {
		_fail(err, "cannot write %s/%s: %s", dir, tmp, strerror(errno));
		close(fd);
		unlinkat(dfd, tmp, 0);
		return -1;
	}
	if (close(fd)) {
		_fail(err, "cannot write %s/%s: %s", dir, tmp, strerror(errno));
		unlinkat(dfd, tmp, 0);
		return -1;
	}
	return 0;
}

/* rlft_file_publish() and rlft_file_write(): `text` whole in a temporary
 * file of `dir` (its name in tmp), ready to take `name`; the directory's
 * descriptor, or -1 and *err. */
static int _staged(const char *dir, const char *name, const char *text, char *tmp,
		   size_t tmp_size, char **err)
{
	int dfd;

	*err = NULL;
	if (!_file_name(name))
		return _fail(err, "HostFileDir %s: \"%s\" is not a file name", dir, name);
	if (strlen(name) + 16 > NAME_MAX)
		return _fail(err, "HostFileDir %s: file name %s too long", dir, name);
	if (_open_dir(dir, true, &dfd, err))
		return -1;
	if (_write_tmp(dir, dfd, name, text, tmp, tmp_size, err)) {
		close(dfd);
		return -1;
	}
	return dfd;
}

extern int rlft_file_publish(const char *dir, const char *name, const char *text, char **err)
{
	char tmp[NAME_MAX + 1];
	int dfd, rc = -1;

	dfd = _staged(dir, name, text, tmp, sizeof(tmp), err);
	if (dfd < 0)
		return -1;
	/* link() never replaces: of all the writers of this name (the
	 * worker, every node of the job) exactly one succeeds, and the
	 * file is whole from the moment it has the name */
	if (!linkat(dfd, tmp, dfd, name, 0))
		rc = 0;
	else if (errno == EEXIST)
		rc = 1;
	else
		_fail(err, "cannot link %s/%s to %s: %s", dir, tmp, name, strerror(errno));
	unlinkat(dfd, tmp, 0);
	close(dfd);
	return rc;
}

extern int rlft_file_write(const char *dir, const char *name, const char *text, char **err)
{
	char tmp[NAME_MAX + 1];
	int dfd, rc = -1;

	dfd = _staged(dir, name, text, tmp, sizeof(tmp), err);
	if (dfd < 0)
		return -1;
	/* rename() replaces the entry `name`, whatever it is (a planted
	 * link too), and never what it points at */
	if (renameat(dfd, tmp, dfd, name)) {
		_fail(err, "cannot rename %s/%s to %s: %s", dir, tmp, name, strerror(errno));
		unlinkat(dfd, tmp, 0);
		goto out;
	}
	rc = 0;
out:
	close(dfd);
	return rc;
}

extern int rlft_file_remove(const char *dir, const char *name, char **err)
{
	int dfd, rc;

	*err = NULL;
	if (!_file_name(name))
		return _fail(err, "HostFileDir %s: \"%s\" is not a file name", dir, name);
	rc = _open_dir(dir, false, &dfd, err);
	if (rc)
		return rc > 0 ? 0 : -1;
	rc = 0;
	if (unlinkat(dfd, name, 0) && errno != ENOENT)
		rc = _fail(err, "cannot remove %s/%s: %s", dir, name, strerror(errno));
	close(dfd);
	return rc;
}
