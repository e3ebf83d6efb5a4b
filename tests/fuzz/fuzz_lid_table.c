/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the LID-table reader (contribs/verbs/lid_table.c),
 * which runs inside every MPI process of a job with a table, on a file
 * another host wrote. A refusal with its message is the expected answer to
 * bad input; a crash, a sanitizer report, a hang, or an accepted table
 * that breaks the format's promises (docs/lid-table.md) is a bug. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "contribs/verbs/lid_table.h"

static void check(int ok)
{
	if (!ok)
		__builtin_trap();
}

/* What the interposer relies on once a table is accepted. */
static void check_table(const struct lid_table *t)
{
	const unsigned lids = 1u << t->lmc;

	check(t->lmc <= LID_LMC_MAX && t->n >= 1);
	check(t->n <= (LID_UNICAST_END >> t->lmc) - 1);
	for (size_t b = 0; b < t->n; b++) {
		check(t->name[b] && *t->name[b]);
		check(t->base[b] && t->base[b] % lids == 0 &&
		      (unsigned)t->base[b] + lids <= LID_UNICAST_END);
		check(t->dest[b] < lids);
		for (size_t a = 0; a < b; a++)
			check(t->base[a] != t->base[b] && strcmp(t->name[a], t->name[b]));
	}
	check((t->choice == LID_CHOICE_PAIR) == (t->pair != NULL));
	/* every o(a, b) the interposer reads, and BASE | o a LID of b */
	for (size_t a = 0; a < t->n && a < 64; a++)
		for (size_t b = 0; b < t->n && b < 64; b++) {
			unsigned o = lid_table_offset(t, a, b);

			check(o < lids && (a != b || t->choice != LID_CHOICE_PAIR || o == 0));
			check(((t->base[b] | o) & ~(lids - 1)) == t->base[b]);
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lid_table t = {0};
	char why[512] = "";
	uint64_t h;
	FILE *f;

	if (size > 1 << 16)
		return 0;
	/* fmemopen refuses a zero-length buffer in some libcs: an empty
	 * file is read from /dev/null instead */
	f = size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "r");
	if (!f)
		return 0;
	if (lid_table_read(f, "fuzz.lid", &t, why, sizeof(why)) == 0) {
		check_table(&t);
		/* an accepted table was read to its end: the digest covers
		 * every byte, as select/rlft's of the text it wrote */
		h = lid_digest(LID_DIGEST_INIT, data, size);
		check(t.digest == h);
	} else {
		check(!strncmp(why, "fuzz.lid:", 9) && strstr(why, ": expected "));
	}
	lid_table_free(&t);
	fclose(f);
	return 0;
}
