/*****************************************************************************\
 *  rlft_file.h - the job files in HostFileDir= (job_<id>.hosts,
 *  job_<id>.lid), written so that no one but slurmctld's user and root can
 *  steer the write: their names are predictable, and slurmctld often runs
 *  as root. Plain C, no Slurm header, so that the cmocka test needs no
 *  slurmctld.
 *
 *  The rule for the directory (qft.conf(5), HostFileDir=), checked on each
 *  write and removal:
 *   - it is a directory, not a symbolic link to one;
 *   - it and every directory above it (symbolic links above it resolved)
 *     is owned by root or by slurmctld's effective uid, and is not
 *     writable by group or others unless sticky (as /tmp is: there no one
 *     renames or removes another user's entry).
 *  A missing HostFileDir (its parent there) is created, mode 0755. A file
 *  is written under a new name in the directory (O_EXCL, O_NOFOLLOW), mode
 *  0644 (the job's tasks read it, whatever slurmctld's umask), and renamed
 *  over its name: a symbolic link planted there is replaced, never
 *  followed, and a reader sees the old file or the new one whole.
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#ifndef RLFT_FILE_H
#define RLFT_FILE_H

/* Writes `text` to dir/name (name: one path component). 0, or -1 with *err
 * a message naming the path and the reason (malloc'ed: free() it, not
 * xfree()). */
extern int rlft_file_write(const char *dir, const char *name, const char *text, char **err);

/* Publishes `text` as dir/name only if no file has that name yet: written
 * under a new name, then link()ed to `name` (link never replaces). Of all
 * writers of one name exactly one wins, and a reader never sees the file
 * in part. 0 published; 1 the name was taken (nothing changed); -1 with
 * *err as rlft_file_write(). */
extern int rlft_file_publish(const char *dir, const char *name, const char *text, char **err);

/* Removes dir/name; 0 also when it or the directory is not there, -1 with
 * *err as rlft_file_write(). A symbolic link there is removed itself. */
extern int rlft_file_remove(const char *dir, const char *name, char **err);

#endif
