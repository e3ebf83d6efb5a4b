/*****************************************************************************\
 *  lid_table.c - the reader of a job's LID table (docs/lid-table.md).
 *
 *  Runs in every process of a job step that touches verbs, on a file that
 *  another host wrote: it trusts nothing in it, keeps no limit it does not
 *  check, and is fuzzed (tests/fuzz/fuzz_lid_table.c).
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "contribs/verbs/lid_table.h"

const char *const lid_choice_names[] = {"pair", "dest", "job", "base"};

struct reader {
	FILE *f;
	const char *path;
	unsigned line;		/* number of the line in buf */
	char *buf;
	size_t cap;
	uint64_t digest;
	char *why;
	size_t why_len;
};

/* Refuses the table at the reader's line. Returns -1. */
__attribute__((format(printf, 2, 3)))
static int refuse(struct reader *r, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(r->why, r->why_len, "%s:%u: expected %s", r->path, r->line, what);
	return -1;
}

/* The next line that is neither blank nor a comment, trailing blanks cut;
 * NULL at the end of the file (r->line then counts one past the last).
 * Every byte read goes into the digest as it was in the file. */
static char *next_line(struct reader *r)
{
	ssize_t len;
	char *s;

	for (;;) {
		r->line++;
		len = getline(&r->buf, &r->cap, r->f);
		if (len < 0)
			return NULL;
		r->digest = lid_digest(r->digest, r->buf, (size_t)len);
		/* A NUL inside a line would hide the rest of it from the
		 * checks below: such a line is no line of the format. */
		if (strlen(r->buf) != (size_t)len) {
			r->buf[0] = '\0';
			return r->buf;
		}
		while (len > 0 && strchr(" \t\r\n\v\f", r->buf[len - 1]))
			r->buf[--len] = '\0';
		s = r->buf + strspn(r->buf, " \t");
		if (*s && *s != '#')
			return s;
	}
}

/* Splits `s` in place at blanks into at most `max` tokens; returns how many
 * there were (max + 1 when there were more). */
static int split(char *s, char **tok, int max)
{
	char *save;
	int n = 0;

	for (s = strtok_r(s, " \t", &save); s; s = strtok_r(NULL, " \t", &save)) {
		if (n == max)
			return max + 1;
		tok[n++] = s;
	}
	return n;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A decimal number, or hexadecimal after 0x, no sign, at most `max`. */
static bool parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	unsigned long v = 0, radix = 10;
	int d;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		radix = 16;
		s += 2;
	}
	if (!*s)
		return false;
	for (; *s; s++) {
		d = hex_digit(*s);
		if (d < 0 || (unsigned long)d >= radix)
			return false;
		v = v * radix + (unsigned long)d;
		if (v > max)
			return false;
	}
	*out = v;
	return true;
}

/* The line "KEY N" with N in min..max. */
static int parse_keyed(struct reader *r, const char *key, unsigned long min, unsigned long max,
		       unsigned long *out)
{
	char *line = next_line(r), *tok[2];

	if (!line || split(line, tok, 2) != 2 || strcmp(tok[0], key) ||
	    !parse_uint(tok[1], max, out) || *out < min) {
		if (min == max)
			return refuse(r, "\"%s %lu\"", key, min);
		return refuse(r, "\"%s N\" with N %lu..%lu", key, min, max);
	}
	return 0;
}

/* choice pair|dest|job. */
static int parse_choice(struct reader *r, struct lid_table *t)
{
	char *line = next_line(r), *tok[2];

	if (line && split(line, tok, 2) == 2 && !strcmp(tok[0], "choice"))
		for (size_t i = 0; i < 3; i++)
			if (!strcmp(tok[1], lid_choice_names[i])) {
				t->choice = (enum lid_choice)i;
				return 0;
			}
	return refuse(r, "\"choice pair\", \"choice dest\" or \"choice job\"");
}

/* qft-lid 1, lmc L, choice C, hosts N; N at most the hosts 2^L LIDs each
 * leave room for among the unicast LIDs. Or qft-lid 1, choice base: a
 * decision to use base LIDs (t->n 0). */
static int parse_header(struct reader *r, struct lid_table *t)
{
	unsigned long v;
	char *line, *tok[2];
	int n;

	if (parse_keyed(r, "qft-lid", 1, 1, &v))
		return -1;
	line = next_line(r);
	n = line ? split(line, tok, 2) : 0;
	if (n == 2 && !strcmp(tok[0], "choice") && !strcmp(tok[1], "base")) {
		t->choice = LID_CHOICE_BASE;
		t->n = 0;
		return 0;
	}
	if (n != 2 || strcmp(tok[0], "lmc") || !parse_uint(tok[1], LID_LMC_MAX, &v))
		return refuse(r, "\"lmc N\" with N 0..%u, or \"choice base\"", LID_LMC_MAX);
	t->lmc = (unsigned)v;
	t->lmc_line = r->line;
	if (parse_choice(r, t) || parse_keyed(r, "hosts", 1, (LID_UNICAST_END >> t->lmc) - 1, &v))
		return -1;
	t->n = v;
	return 0;
}

/* Host b's line: host NAME BASE_LID DEST_OFFSET. */
static int parse_host(struct reader *r, struct lid_table *t, size_t b)
{
	const unsigned long lids = 1ul << t->lmc;
	unsigned long base, off;
	char *line = next_line(r), *tok[4];

	if (!line || split(line, tok, 4) != 4 || strcmp(tok[0], "host"))
		return refuse(r, "\"host NAME BASE_LID DEST_OFFSET\" (host %zu of %zu)", b + 1, t->n);
	if (!parse_uint(tok[2], LID_UNICAST_END - lids, &base) || !base || base % lids)
		return refuse(r, "BASE_LID a multiple of %lu in 0x0001..0x%04lx, not %.16s", lids,
			      LID_UNICAST_END - lids, tok[2]);
	if (!parse_uint(tok[3], lids - 1, &off))
		return refuse(r, "DEST_OFFSET 0..%lu, not %.16s", lids - 1, tok[3]);
	for (size_t a = 0; a < b; a++) {
		if (!strcmp(t->name[a], tok[1]))
			return refuse(r, "a host not named before, not %.64s again", tok[1]);
		if (t->base[a] == base)
			return refuse(r, "a BASE_LID not given before, not 0x%04lx again", base);
	}
	if (t->choice == LID_CHOICE_JOB && b && t->dest[0] != off)
		return refuse(r, "DEST_OFFSET %u as on every host under choice job, not %lu",
			      t->dest[0], off);
	if (!(t->name[b] = strdup(tok[1])))
		return refuse(r, "memory for the table");
	t->base[b] = (uint16_t)base;
	t->dest[b] = (uint8_t)off;
	t->line[b] = r->line;
	return 0;
}

static int parse_hosts(struct reader *r, struct lid_table *t)
{
	t->name = calloc(t->n, sizeof(*t->name));
	t->base = calloc(t->n, sizeof(*t->base));
	t->dest = calloc(t->n, sizeof(*t->dest));
	t->line = calloc(t->n, sizeof(*t->line));
	if (!t->name || !t->base || !t->dest || !t->line)
		return refuse(r, "memory for %zu hosts", t->n);
	for (size_t b = 0; b < t->n; b++)
		if (parse_host(r, t, b))
			return -1;
	return 0;
}

/* pairs, then row a: one offset per destination b, one hexadecimal digit
 * each when L <= 4, two when L > 4. */
static int parse_pairs(struct reader *r, struct lid_table *t)
{
	const size_t width = t->lmc <= 4 ? 1 : 2, n = t->n;
	const unsigned lids = 1u << t->lmc;
	char *line = next_line(r);

	if (!line || strcmp(line, "pairs"))
		return refuse(r, "\"pairs\" after the %zu hosts under choice pair", n);
	if (!(t->pair = malloc(n * n)))
		return refuse(r, "memory for %zu x %zu offsets", n, n);
	for (size_t a = 0; a < n; a++) {
		line = next_line(r);
		if (!line || !strcmp(line, "end") || strlen(line) != n * width)
			return refuse(r, "row %zu of %zu: %zu hexadecimal digits", a + 1, n, n * width);
		for (size_t b = 0; b < n; b++) {
			const char *s = line + b * width;
			int hi = hex_digit(s[0]), lo = width == 2 ? hex_digit(s[1]) : 0;
			unsigned o = width == 2 ? (unsigned)(hi * 16 + lo) : (unsigned)hi;

			if (hi < 0 || lo < 0)
				return refuse(r, "hexadecimal digits, not \"%.*s\" (row %zu, column %zu)",
					      (int)width, s, a + 1, b + 1);
			if (o >= lids)
				return refuse(r, "offsets 0..%u, not %u (row %zu, column %zu)",
					      lids - 1, o, a + 1, b + 1);
			if (a == b && o)
				return refuse(r, "0 on the diagonal, not %u (row %zu)", o, a + 1);
			t->pair[a * n + b] = (uint8_t)o;
		}
	}
	return 0;
}

/* end, the last line: a table without it is a writer that died. */
static int parse_end(struct reader *r)
{
	char *line = next_line(r);

	if (!line)
		return refuse(r, "\"end\", not the end of the file");
	if (strcmp(line, "end"))
		return refuse(r, "\"end\"%s", strcmp(line, "pairs") ? "" :
			      " (\"pairs\" only under choice pair)");
	if (next_line(r))
		return refuse(r, "nothing after \"end\"");
	return 0;
}

void lid_table_free(struct lid_table *t)
{
	for (size_t b = 0; t->name && b < t->n; b++)
		free(t->name[b]);
	free(t->name);
	free(t->base);
	free(t->dest);
	free(t->line);
	free(t->pair);
	t->name = NULL;
	t->base = NULL;
	t->dest = NULL;
	t->line = NULL;
	t->pair = NULL;
}

int lid_table_read(FILE *f, const char *path, struct lid_table *t, char *why, size_t len)
{
	struct reader r = {.f = f, .path = path, .digest = LID_DIGEST_INIT, .why = why,
			   .why_len = len};
	int rc;

	rc = parse_header(&r, t);
	if (!rc && t->choice != LID_CHOICE_BASE)
		rc = parse_hosts(&r, t);
	if (!rc && t->choice == LID_CHOICE_PAIR)
		rc = parse_pairs(&r, t);
	if (!rc)
		rc = parse_end(&r);
	t->digest = r.digest;
	free(r.buf);
	return rc;
}

unsigned lid_table_offset(const struct lid_table *t, size_t a, size_t b)
{
	return t->choice == LID_CHOICE_PAIR ? t->pair[a * t->n + b] : t->dest[b];
}
