/*****************************************************************************\
 *  lid_table.h - the reader of a job's LID table (docs/lid-table.md) and
 *  the table's digest (QFT_LID_DIGEST).
 *
 *  Apart from the interposer (qft_lid.c) so that the fuzz target
 *  (tests/fuzz/fuzz_lid_table.c) links it without libibverbs, and so that
 *  select/rlft (which writes QFT_LID_DIGEST) and the SPANK plugin (which
 *  checks it on every node) compute the same digest.
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/
#ifndef QFT_CONTRIBS_VERBS_LID_TABLE_H
#define QFT_CONTRIBS_VERBS_LID_TABLE_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The unicast LIDs (IBA 4.1.3): 0x0001 .. 0xbfff. */
#define LID_UNICAST_END 0xc000u
#define LID_LMC_MAX 7u

/* LID_CHOICE_BASE: no table, the job's decision to run on base LIDs on
 * every node ("choice base", docs/lid-table.md "Base LIDs"): no host, no
 * lmc. */
enum lid_choice { LID_CHOICE_PAIR, LID_CHOICE_DEST, LID_CHOICE_JOB, LID_CHOICE_BASE };

/* The whole file of a base-LID decision: REASON (one line, no newline) in a
 * comment; "%s" takes it. */
#define LID_BASE_FMT "qft-lid 1\nchoice base\n# %s\nend\n"

/* The table as the file says it. The line numbers are for messages that
 * name what a live port contradicts. */
struct lid_table {
	unsigned lmc;
	unsigned lmc_line;
	enum lid_choice choice;
	size_t n;
	char **name;
	uint16_t *base;
	uint8_t *dest;		/* DEST_OFFSET of each host */
	unsigned *line;		/* the line of each host */
	uint8_t *pair;		/* n * n, row a = source a; choice pair only */
	uint64_t digest;	/* lid_digest of every byte read */
};

extern const char *const lid_choice_names[];

/*
 * lid_table_read - reads a whole table from f
 * IN path - the file's name, for the message
 * OUT why - on failure "PATH:LINE: expected WHAT"
 * RET 0, or -1 (t holds what was read: lid_table_free it either way)
 */
int lid_table_read(FILE *f, const char *path, struct lid_table *t, char *why, size_t len);
void lid_table_free(struct lid_table *t);

/* o(a, b): row a column b under pair, DEST_OFFSET of b under dest and job. */
unsigned lid_table_offset(const struct lid_table *t, size_t a, size_t b);

/*
 * FNV-1a, 64 bits, over the file's bytes: it tells a table that differs
 * from the one select/rlft wrote (stale, cut short, another job's) on the
 * node that reads it. Not a defence against someone who can write
 * HostFileDir=: they could write a table that matches.
 * http://www.isthe.com/chongo/tech/comp/fnv/ (offset basis, prime)
 */
#define LID_DIGEST_INIT UINT64_C(0xcbf29ce484222325)
#define LID_DIGEST_FMT "fnv1a64:%016" PRIx64

static inline uint64_t lid_digest(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * UINT64_C(0x100000001b3);
	return h;
}

#endif
