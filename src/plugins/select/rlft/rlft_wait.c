/*****************************************************************************\
 *  rlft_wait.c - ShapeWait= from slurmctld's job records (rlft_wait.h).
 *
 *  The search for the shape itself is libqft's (qft_placer_shape_ahead);
 *  this file only reads what slurmctld knows: time limits and the running
 *  jobs' end times, the estimates its backfill plans with too.
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

#include <math.h>
#include <stdlib.h>

#include "slurm/slurm.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "src/plugins/select/rlft/rlft_wait.h"

extern double rlft_shape_horizon(const job_record_t *job_ptr, uint32_t shape_wait,
				 uint32_t shape_wait_max)
{
	uint32_t limit = job_ptr->time_limit;
	const part_record_t *part = job_ptr->part_ptr;
	double h = INFINITY;

	if (!shape_wait)
		return 0;
	if ((limit == NO_VAL || limit == 0) && part)
		limit = (part->default_time != NO_VAL && part->default_time) ? part->default_time :
									       part->max_time;
	if (limit != NO_VAL && limit != INFINITE && limit)
		h = limit * 60.0 * shape_wait / 100.0;
	if (shape_wait_max && h > shape_wait_max)
		h = shape_wait_max;
	return isinf(h) ? 0 : h;
}

typedef struct {
	double *at;
	const int *host_of_node;
	int host_of_node_cnt;
	time_t now;
} free_at_arg_t;

/* Raises the free time of the job's hosts to its end. */
static int _job_end(void *x, void *arg)
{
	job_record_t *job_ptr = x;
	free_at_arg_t *a = arg;
	double end;
	int last;

	if (!job_ptr->node_bitmap || !(IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)))
		return 0;
	end = IS_JOB_SUSPENDED(job_ptr) ? INFINITY : difftime(job_ptr->end_time, a->now);
	if (end < 0) /* past its limit (OverTimeLimit): ending any moment */
		end = 0;
	last = bit_fls(job_ptr->node_bitmap);
	for (int i = bit_ffs(job_ptr->node_bitmap); i >= 0 && i <= last; i++) {
		int h;

		if (i >= a->host_of_node_cnt)
			break;
		h = a->host_of_node[i];
		if (h >= 0 && bit_test(job_ptr->node_bitmap, i) && a->at[h] < end &&
		    !isinf(a->at[h]))
			a->at[h] = end;
	}
	return 0;
}

extern double *rlft_free_at(const uint8_t *eligible, size_t hosts, const int *host_of_node,
			    int host_of_node_cnt, time_t now)
{
	double *at = xcalloc(hosts ? hosts : 1, sizeof(double));
	free_at_arg_t a = { at, host_of_node, host_of_node_cnt, now };

	for (size_t h = 0; h < hosts; h++)
		at[h] = INFINITY;
	/* eligible hosts start free now; the jobs on them raise that (a busy
	 * node that no running job holds is completing: free soon) */
	for (int i = 0; i < host_of_node_cnt; i++) {
		int h = host_of_node[i];

		if (h >= 0 && (size_t)h < hosts && eligible[h])
			at[h] = 0;
	}
	if (job_list)
		list_for_each(job_list, _job_end, &a);
	return at;
}

static int _cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

extern double rlft_count_fits(const double *free_at, const uint8_t *eligible, size_t hosts,
			      uint32_t count)
{
	double *t = xcalloc(hosts ? hosts : 1, sizeof(double)), fits = INFINITY;
	size_t n = 0;

	for (size_t h = 0; h < hosts; h++)
		if (eligible[h] && !isinf(free_at[h]))
			t[n++] = free_at[h];
	if (count && n >= count) {
		qsort(t, n, sizeof(*t), _cmp_double);
		fits = t[count - 1];
	}
	xfree(t);
	return fits;
}
