/*****************************************************************************\
 *  qft_conf_lines.h - the lines of qft.conf that its errors name: Slurm's
 *  parser says that a key is unknown or a value bad, but not where.
 *  Plain C, no Slurm: tests/unit/test_qft_conf_lines.c checks it.
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/
#ifndef QFT_CONF_LINES_H
#define QFT_CONF_LINES_H

/* What a key's value must be for Slurm's parser (S_P_UINT32, S_P_BOOLEAN;
 * anything else is a word, which the parser takes as it is). */
typedef enum { QFT_CONF_WORD, QFT_CONF_NUMBER, QFT_CONF_BOOLEAN } qft_conf_kind_t;

typedef struct {
	const char *key;
	qft_conf_kind_t kind;
} qft_conf_key_t;

/* The last line of `path` that sets `key` (case-insensitive): the value
 * the parser keeps. 0 when none does (or the file cannot be read). */
extern int qft_conf_line_of(const char *path, const char *key);

/* The first line of `path` with a key not in `keys` (ended by a NULL key),
 * or a number or yes/no the parser cannot read: RET its number and *what
 * (malloc()ed, free() it) says what is wrong and what was expected; 0 and
 * *what NULL when there is none. */
extern int qft_conf_first_bad(const char *path, const qft_conf_key_t *keys, char **what);

#endif
