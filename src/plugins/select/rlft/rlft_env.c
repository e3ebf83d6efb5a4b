/*****************************************************************************\
 *  rlft_env.c - a job's environments as select/rlft reads and sets them
 *  (rlft_env.h).
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

#include "config.h"
#include "src/common/slurm_xlator.h"

#include <stdlib.h>
#include <string.h>

#include "src/common/env.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "src/plugins/select/rlft/rlft_env.h"

#define PFX "select/rlft"

/* Where NAME=... is in the job's supplementary environment, or -1. */
static int _env_index(const job_details_t *d, const char *name)
{
	size_t len = strlen(name);

	for (uint16_t i = 0; i < d->env_cnt; i++)
		if (!strncmp(d->env_sup[i], name, len) && d->env_sup[i][len] == '=')
			return i;
	return -1;
}

extern void rlft_setenv(job_record_t *job_ptr, const char *name, const char *value)
{
	job_details_t *d = job_ptr->details;
	int i = _env_index(d, name);

	if (i >= 0) {
		xfree(d->env_sup[i]);
		d->env_sup[i] = xstrdup_printf("%s=%s", name, value);
		return;
	}
	xrecalloc(d->env_sup, d->env_cnt + 1, sizeof(char *));
	d->env_sup[d->env_cnt++] = xstrdup_printf("%s=%s", name, value);
}

extern const char *rlft_getenv(const job_record_t *job_ptr, const char *name)
{
	int i = _env_index(job_ptr->details, name);

	return i < 0 ? NULL : job_ptr->details->env_sup[i] + strlen(name) + 1;
}

extern void rlft_unsetenv(job_record_t *job_ptr, const char *name)
{
	job_details_t *d = job_ptr->details;
	int i = _env_index(d, name);

	if (i < 0)
		return;
	xfree(d->env_sup[i]);
	d->env_sup[i] = d->env_sup[--d->env_cnt];
	d->env_sup[d->env_cnt] = NULL;
}

extern const char *rlft_spank_getenv(const job_record_t *job_ptr, const char *name)
{
	return job_ptr->spank_job_env ? getenvp(job_ptr->spank_job_env, name) : NULL;
}

/* Whether `name` is in the comma-separated `list`. */
static bool _listed(const char *list, const char *name)
{
	size_t len = name ? strlen(name) : 0;

	if (!list || !len)
		return false;
	for (const char *p = list; *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t) (end - p) : strlen(p);

		if (n == len && !strncmp(p, name, len))
			return true;
		if (!end)
			break;
		p = end + 1;
	}
	return false;
}

/* Says once per job that one of its values is malformed (the SPANK plugin
 * checks them in sbatch: this is a job submitted around it). */
static void _bad_once(const job_record_t *job_ptr, const char *name, const char *v,
		      const char *expected)
{
	static uint32_t said[64];
	static unsigned next;

	for (unsigned i = 0; i < 64; i++)
		if (said[i] == job_ptr->job_id)
			return;
	said[next++ % 64] = job_ptr->job_id;
	error("%s: %pJ: %s=%s in its SPANK environment, expected %s: ignored", PFX, job_ptr,
	      name, v, expected);
}

extern rlft_request_t rlft_request_of(const job_record_t *job_ptr,
				      const char *isolate_partitions)
{
	rlft_request_t r = { 0 };
	const char *v = rlft_spank_getenv(job_ptr, "QFT_ISOLATE");
	char *end;

	if (v && (!strcmp(v, "1") || !strcmp(v, "0"))) {
		r.isolate = v[0] == '1';
		r.isolate_from = "--qft-isolate";
	} else {
		if (v)
			_bad_once(job_ptr, "QFT_ISOLATE", v, "1 or 0");
		r.isolate = job_ptr->part_ptr &&
			    _listed(isolate_partitions, job_ptr->part_ptr->name);
		r.isolate_from = r.isolate ? "IsolatePartitions=" : NULL;
	}
	v = rlft_spank_getenv(job_ptr, "QFT_SHAPE_WAIT");
	if (v) {
		long long m = strtoll(v, &end, 10);

		if (*v && !*end && m >= 0 && m <= 525600) {
			r.shape_wait_set = true;
			r.shape_wait = (uint32_t) m;
		} else {
			_bad_once(job_ptr, "QFT_SHAPE_WAIT", v, "minutes, 0 to 525600");
		}
	}
	return r;
}
