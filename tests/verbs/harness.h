/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Runs each case of a test program in a child process of its own with
 * libqft-lid.so preloaded: the interposer reads its environment once per
 * process, and LD_PRELOAD only counts when a process starts. */
#ifndef QFT_TESTS_VERBS_HARNESS_H
#define QFT_TESTS_VERBS_HARNESS_H

#include <stddef.h>

struct harness_case {
	const char *name;
	/* In the child: the number of failed checks. */
	int (*run)(const void *arg);
	const void *arg;
	/* Leave the library path alone: the system's libibverbs, if any. */
	int system_verbs;
};

/* The program's main: without QFT_TEST_CASE, runs every case in a child
 * (this program again, the interposer preloaded, the test double of
 * libibverbs first on the library path, no QFT_LID_* or
 * SLURMD_NODENAME) and returns 0 when all passed, 1 otherwise; with it,
 * checks the interposer is in place and runs that case. */
int harness_main(const struct harness_case *cases, size_t n, char **argv);

/* Writes `text` as the LID table into a private directory, points
 * QFT_LID_TABLE at it and returns its path. */
const char *harness_table(const char *text);

/* Sends stderr to a file until harness_said(), which returns what was
 * written meanwhile. */
void harness_listen(void);
const char *harness_said(void);

/* How many times `needle` occurs in `text`. */
unsigned harness_count(const char *text, const char *needle);

#endif
