/*****************************************************************************\
 *  qft_conf_lines.c - where qft.conf says what its errors are about.
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

#include "src/plugins/common/qft_conf_lines.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One KEY=VALUE of a line, as Slurm's parser reads them (its
 * keyvalue_pattern): blanks allowed around '=' and an operator before it
 * (+=, -=), a value maybe in double quotes. */
typedef struct {
	const char *key, *value;
	size_t key_len, value_len;
} pair_t;

static bool _key_char(char c)
{
	return isalnum((unsigned char) c) || c == '_' || c == '.';
}

static const char *_blanks(const char *s)
{
	while (*s && isspace((unsigned char) *s))
		s++;
	return s;
}

/* The next KEY=VALUE from *p on, advancing *p; false at the line's end or
 * its comment. Anything else (Include, a bare word) is skipped: the parser
 * handles or names it. */
static bool _next_pair(const char **p, pair_t *out)
{
	const char *s = *p;

	for (;;) {
		const char *k;

		s = _blanks(s);
		if (!*s || *s == '#')
			return false;
		k = s;
		while (_key_char(*s))
			s++;
		out->key = k;
		out->key_len = (size_t) (s - k);
		s = _blanks(s);
		if (*s && strchr("-*+/", *s) && s[1] == '=')
			s++;
		if (!out->key_len || *s != '=') { /* not a pair: the next word */
			s = k;
			while (*s && !isspace((unsigned char) *s))
				s++;
			continue;
		}
		s = _blanks(s + 1);
		if (*s == '"') {
			out->value = ++s;
			while (*s && *s != '"')
				s++;
			out->value_len = (size_t) (s - out->value);
			if (*s)
				s++;
		} else {
			out->value = s;
			while (*s && !isspace((unsigned char) *s) && *s != '#')
				s++;
			out->value_len = (size_t) (s - out->value);
		}
		*p = s;
		return true;
	}
}

/* Calls `fn` on each KEY=VALUE of the file with its line number until it
 * returns true: RET that line, else 0. A line longer than the buffer is
 * read on as the same line. */
typedef bool (*pair_fn)(const pair_t *pair, int line, void *arg);

static int _each_pair(const char *path, pair_fn fn, void *arg)
{
	FILE *f = fopen(path, "r");
	char buf[4096];
	int line = 0, found = 0;
	bool fresh = true;

	if (!f)
		return 0;
	while (!found && fgets(buf, sizeof(buf), f)) {
		const char *p = buf;
		pair_t pair;

		line += fresh;
		fresh = strchr(buf, '\n') != NULL;
		while (!found && _next_pair(&p, &pair))
			if (fn(&pair, line, arg))
				found = line;
	}
	fclose(f);
	return found;
}

static bool _is_key(const pair_t *pair, const char *key)
{
	return strlen(key) == pair->key_len && !strncasecmp(pair->key, key, pair->key_len);
}

typedef struct {
	const char *key;
	int last;
} last_t;

static bool _note_last(const pair_t *pair, int line, void *arg)
{
	last_t *l = arg;

	if (_is_key(pair, l->key))
		l->last = line;
	return false;
}

extern int qft_conf_line_of(const char *path, const char *key)
{
	last_t l = { key, 0 };

	_each_pair(path, _note_last, &l);
	return l.last;
}

/* As Slurm's s_p_handle_uint32 reads it: base 0, an optional k, or
 * UNLIMITED or INFINITE. */
static bool _number(const char *v)
{
	char *end;
	unsigned long long n;

	if (!strcasecmp(v, "UNLIMITED") || !strcasecmp(v, "INFINITE"))
		return true;
	errno = 0;
	n = strtoull(v, &end, 0);
	if (*end == 'k' || *end == 'K') {
		n *= 1024;
		end++;
	}
	return end != v && !*end && !errno && v[0] != '-' && n <= UINT32_MAX;
}

/* As s_p_handle_boolean reads it. */
static bool _boolean(const char *v)
{
	static const char *const words[] = { "yes", "up", "true", "1",
					     "no", "down", "false", "0", NULL };

	for (int i = 0; words[i]; i++)
		if (!strcasecmp(v, words[i]))
			return true;
	return false;
}

typedef struct {
	const qft_conf_key_t *keys;
	char *what;
} bad_t;

/* `before` KEY=VALUE `after`, malloc()ed. */
static char *_say(const char *before, const pair_t *pair, const char *after)
{
	size_t len = strlen(before) + pair->key_len + 1 + pair->value_len + strlen(after) + 1;
	char *out = malloc(len);

	if (out)
		snprintf(out, len, "%s%.*s=%.*s%s", before, (int) pair->key_len, pair->key,
			 (int) pair->value_len, pair->value, after);
	return out;
}

static bool _note_bad(const pair_t *pair, int line, void *arg)
{
	bad_t *b = arg;
	char value[128];
	const qft_conf_key_t *k = b->keys;

	(void) line;
	while (k->key && !_is_key(pair, k->key))
		k++;
	if (!k->key) {
		b->what = _say("unknown key ", pair, ", expected one of the keys of qft.conf(5)");
		return true;
	}
	snprintf(value, sizeof(value), "%.*s", (int) pair->value_len, pair->value);
	if (k->kind == QFT_CONF_NUMBER && !_number(value)) {
		b->what = _say("", pair, ", expected a whole number");
		return true;
	}
	if (k->kind == QFT_CONF_BOOLEAN && !_boolean(value)) {
		b->what = _say("", pair, ", expected yes or no");
		return true;
	}
	return false;
}

extern int qft_conf_first_bad(const char *path, const qft_conf_key_t *keys, char **what)
{
	bad_t b = { keys, NULL };
	int line = _each_pair(path, _note_bad, &b);

	*what = b.what;
	return b.what ? line : 0;
}
