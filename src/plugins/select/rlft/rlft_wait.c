/*****************************************************************************\
 *  rlft_wait.c - ShapeWait='s arithmetic on times (rlft_wait.h).
 *
 *  The search for the shape itself is libqft's (qft_placer_shape_ahead);
 *  what slurmctld knows (limits, eligible and end times) comes from
 *  rlft_jobs.c.
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

#include "src/plugins/select/rlft/rlft_wait.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

extern double rlft_shape_wait(const rlft_wait_job_t *job, uint32_t shape_wait,
			      uint32_t shape_wait_max)
{
	uint32_t limit = job->limit;
	double w = INFINITY;

	if (!shape_wait)
		return 0;
	if (!limit)
		limit = job->part_default ? job->part_default : job->part_max;
	if (limit)
		w = limit * 60.0 * shape_wait / 100.0;
	if (shape_wait_max && w > shape_wait_max)
		w = shape_wait_max;
	return isinf(w) ? 0 : w;
}

extern double rlft_shape_left(const rlft_wait_job_t *job, double wait, time_t now)
{
	double waited = job->since ? difftime(now, job->since) : 0;

	return waited > 0 ? wait - waited : wait;
}

static int _cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

extern double rlft_count_fits(const double *free_at, const uint8_t *eligible, size_t hosts,
			      uint32_t count)
{
	double *t, fits = INFINITY;
	size_t n = 0;

	if (!count || !(t = malloc((hosts ? hosts : 1) * sizeof(double))))
		return fits;
	for (size_t h = 0; h < hosts; h++)
		if (eligible[h] && !isinf(free_at[h]))
			t[n++] = free_at[h];
	if (n >= count) {
		qsort(t, n, sizeof(*t), _cmp_double);
		fits = t[count - 1];
	}
	free(t);
	return fits;
}

/* True when a ranks above b: a higher priority, or the same and a lower
 * id (the order slurmctld's schedulers try them in, within a partition). */
static bool _above(const rlft_holder_t *a, uint32_t id, uint32_t priority)
{
	return a->priority > priority || (a->priority == priority && a->id < id);
}

extern bool rlft_may_hold(rlft_holders_t *holders, uint32_t id, uint32_t priority, uint32_t limit,
			  bool (*pending)(uint32_t id, uint32_t *priority))
{
	size_t kept = 0, above = 0;

	for (size_t k = 0; k < holders->count; k++) {
		rlft_holder_t h = holders->at[k];

		if (h.id != id && !pending(h.id, &h.priority))
			continue;
		holders->at[kept++] = h;
		if (h.id != id && _above(&h, id, priority))
			above++;
	}
	holders->count = kept;
	return !limit || above < limit;
}

extern void rlft_hold(rlft_holders_t *holders, uint32_t id, uint32_t priority)
{
	for (size_t k = 0; k < holders->count; k++)
		if (holders->at[k].id == id) {
			holders->at[k].priority = priority;
			return;
		}
	if (holders->count == holders->size) {
		size_t size = holders->size ? 2 * holders->size : 16;
		rlft_holder_t *at = realloc(holders->at, size * sizeof(*at));

		if (!at) /* no room: it plans as if it did not hold */
			return;
		holders->at = at;
		holders->size = size;
	}
	holders->at[holders->count++] = (rlft_holder_t){ id, priority };
}

extern void rlft_unhold(rlft_holders_t *holders, uint32_t id)
{
	for (size_t k = 0; k < holders->count; k++)
		if (holders->at[k].id == id) {
			holders->at[k] = holders->at[--holders->count];
			return;
		}
}

extern void rlft_holders_free(rlft_holders_t *holders)
{
	free(holders->at);
	*holders = (rlft_holders_t){ 0 };
}
