/* SPDX-License-Identifier: GPL-2.0-or-later */
/* select/rlft's job files in HostFileDir= (src/plugins/select/rlft/
 * rlft_file.c): a user who can plant a name there, or the directory
 * itself, must not get slurmctld (often root) to write or remove a file
 * of their choosing. Issue 30 item 8. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cmocka.h>

#include "src/plugins/select/rlft/rlft_file.h"

/* Run as root, the unwritable directory is one of root's, written as this
 * uid (nobody's on most systems). */
#define UNPRIVILEGED 65534

static char base[256];

static char *path_of(const char *a, const char *b)
{
	static char buf[16][512];
	static int next;
	char *p = buf[next++ % 16], joined[sizeof(buf[0])];

	/* through `joined`: `a` is often an earlier result, in buf */
	snprintf(joined, sizeof(joined), "%s/%s", a, b);
	memcpy(p, joined, sizeof(joined));
	return p;
}

static void put(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

static const char *text_of(const char *path)
{
	static char buf[4096];
	FILE *fp = fopen(path, "r");
	size_t n;

	if (!fp)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

/* A directory of `mode` whatever the umask. */
static char *dir_of(const char *name, mode_t mode)
{
	char *p = path_of(base, name);

	assert_int_equal(mkdir(p, 0700), 0);
	assert_int_equal(chmod(p, mode), 0);
	return p;
}

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void expect_error(const char *err, const char *a, const char *b)
{
	if (!err || !strstr(err, a) || (b && !strstr(err, b)))
		fail_msg("error \"%s\", wanted one with \"%s\"%s%s%s", err ? err : "(none)", a,
			 b ? " and \"" : "", b ? b : "", b ? "\"" : "");
}

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	(void) state;
	snprintf(base, sizeof(base), "%s/rlft_file.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(base) || chmod(base, 0755))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	char cmd[512];

	(void) state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) ? -1 : 0;
}

/* The issue: fopen("w") followed a link planted at job_<id>.hosts. */
static void link_at_the_name_is_replaced(void **state)
{
	char *dir = dir_of("hf", 0755), *victim = path_of(base, "victim");
	char *job = path_of(dir, "job_7.hosts");
	char *err = NULL;
	struct stat st;

	(void) state;
	put(victim, "precious\n");
	assert_int_equal(symlink(victim, job), 0);
	assert_int_equal(rlft_file_write(dir, "job_7.hosts", "n1\nn2\n", &err), 0);
	assert_null(err);
	assert_string_equal(text_of(victim), "precious\n");
	assert_int_equal(lstat(job, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_string_equal(text_of(job), "n1\nn2\n");
	assert_int_equal(entries(dir), 1); /* no temporary file left */

	/* written again (a requeued job): replaced whole */
	assert_int_equal(rlft_file_write(dir, "job_7.hosts", "n3\n", &err), 0);
	assert_string_equal(text_of(job), "n3\n");
	assert_int_equal(entries(dir), 1);
}

/* A job's LID decision (rlft_lid.c, docs/lid-table.md): link() never
 * replaces, so the first writer wins and the others are told so; a name
 * planted there (a link) is neither followed nor replaced. */
static void publish_first_one_wins(void **state)
{
	char *dir = dir_of("hf", 0755), *victim = path_of(base, "victim");
	char *name = path_of(dir, "job_7.0123456789abcdef.lid");
	char *err = NULL;
	struct stat st;

	(void) state;
	assert_int_equal(rlft_file_publish(dir, "job_7.0123456789abcdef.lid", "table\n", &err), 0);
	assert_null(err);
	assert_int_equal(lstat(name, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(rlft_file_publish(dir, "job_7.0123456789abcdef.lid", "base\n", &err), 1);
	assert_null(err);
	assert_string_equal(text_of(name), "table\n");
	assert_int_equal(entries(dir), 1); /* no temporary file left */
	put(victim, "precious\n");
	assert_int_equal(symlink(victim, path_of(dir, "job_8.lid")), 0);
	assert_int_equal(rlft_file_publish(dir, "job_8.lid", "table\n", &err), 1);
	assert_string_equal(text_of(victim), "precious\n");
	assert_int_equal(entries(dir), 2);
	assert_int_equal(rlft_file_publish(dir, "a/b", "x", &err), -1);
	expect_error(err, "is not a file name", NULL);
	free(err);
}

/* HostFileDir itself a link (its parent writable by the user who planted
 * it): the files would land wherever it points. */
static void link_at_the_directory_is_refused(void **state)
{
	char *real = dir_of("real", 0755), *link = path_of(base, "link");
	char *err = NULL;

	(void) state;
	assert_int_equal(symlink(real, link), 0);
	assert_int_equal(rlft_file_write(link, "job_7.hosts", "n1\n", &err), -1);
	expect_error(err, link, "symbolic link");
	free(err);
	assert_int_equal(entries(real), 0);

	put(path_of(real, "job_7.lid"), "x\n");
	assert_int_equal(rlft_file_remove(link, "job_7.lid", &err), -1);
	expect_error(err, link, "symbolic link");
	free(err);
	assert_string_equal(text_of(path_of(real, "job_7.lid")), "x\n");
}

/* Anyone who may write the directory may plant links; sticky, they may
 * not replace slurmctld's. */
static void open_directory_is_refused_unless_sticky(void **state)
{
	char *err = NULL;
	char *world = dir_of("world", 0777), *group = dir_of("group", 0775);
	char *sticky = dir_of("sticky", 01777), *below;

	(void) state;
	assert_int_equal(rlft_file_write(world, "job_7.hosts", "n1\n", &err), -1);
	expect_error(err, world, "writable by group or others");
	free(err);
	assert_int_equal(entries(world), 0);

	assert_int_equal(rlft_file_write(group, "job_7.hosts", "n1\n", &err), -1);
	expect_error(err, group, "writable by group or others");
	free(err);
	assert_int_equal(entries(group), 0);

	assert_int_equal(rlft_file_write(sticky, "job_7.hosts", "n1\n", &err), 0);
	assert_string_equal(text_of(path_of(sticky, "job_7.hosts")), "n1\n");

	/* a safe directory below an open one: the open one is swapped as
	 * easily */
	below = path_of(world, "hf");
	assert_int_equal(mkdir(below, 0755), 0);
	assert_int_equal(rlft_file_write(below, "job_7.hosts", "n1\n", &err), -1);
	expect_error(err, world, "writable by group or others");
	free(err);
}

static void missing_directory_is_created_0755(void **state)
{
	char *dir = path_of(base, "new"), *err = NULL;
	mode_t old = umask(077); /* slurmctld's may be strict */
	struct stat st;
	int rc = rlft_file_write(dir, "job_7.hosts", "n1\n", &err);

	(void) state;
	umask(old);
	assert_int_equal(rc, 0);
	assert_null(err);
	assert_int_equal(lstat(dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(stat(path_of(dir, "job_7.hosts"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_string_equal(text_of(path_of(dir, "job_7.hosts")), "n1\n");
}

static void unwritable_directory_says_why(void **state)
{
	char *dir, *err = NULL;
	int rc;

	(void) state;
	if (geteuid()) {
		dir = dir_of("ro", 0555);
		rc = rlft_file_write(dir, "job_7.hosts", "n1\n", &err);
	} else {
		/* root writes anywhere: root's directory, written as another
		 * user (a SlurmUser= that is not root) */
		dir = dir_of("ro", 0755);
		assert_int_equal(seteuid(UNPRIVILEGED), 0);
		rc = rlft_file_write(dir, "job_7.hosts", "n1\n", &err);
		assert_int_equal(seteuid(0), 0);
	}
	assert_int_equal(rc, -1);
	expect_error(err, dir, strerror(EACCES));
	free(err);
	assert_int_equal(entries(dir), 0);
}

static void remove_takes_the_link_not_its_target(void **state)
{
	char *dir = dir_of("rm", 0755), *victim = path_of(base, "victim2");
	char *err = NULL;

	(void) state;
	put(victim, "precious\n");
	assert_int_equal(symlink(victim, path_of(dir, "job_7.lid")), 0);
	assert_int_equal(rlft_file_remove(dir, "job_7.lid", &err), 0);
	assert_string_equal(text_of(victim), "precious\n");
	assert_int_equal(entries(dir), 0);
	/* nothing there, or no directory: nothing to do */
	assert_int_equal(rlft_file_remove(dir, "job_7.lid", &err), 0);
	assert_int_equal(rlft_file_remove(path_of(base, "none"), "job_7.lid", &err), 0);
	assert_null(err);
}

static void names_are_one_component(void **state)
{
	char *dir = dir_of("names", 0755), *err = NULL;
	const char *bad[] = {"", ".", "..", "../victim3", "a/b"};

	(void) state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(rlft_file_write(dir, bad[i], "x\n", &err), -1);
		expect_error(err, dir, "not a file name");
		free(err);
	}
	assert_int_equal(entries(dir), 0);
	assert_null(text_of(path_of(base, "victim3")));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(link_at_the_name_is_replaced, setup, teardown),
		cmocka_unit_test_setup_teardown(link_at_the_directory_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(open_directory_is_refused_unless_sticky, setup,
						teardown),
		cmocka_unit_test_setup_teardown(missing_directory_is_created_0755, setup, teardown),
		cmocka_unit_test_setup_teardown(unwritable_directory_says_why, setup, teardown),
		cmocka_unit_test_setup_teardown(remove_takes_the_link_not_its_target, setup,
						teardown),
		cmocka_unit_test_setup_teardown(names_are_one_component, setup, teardown),
		cmocka_unit_test_setup_teardown(publish_first_one_wins, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
