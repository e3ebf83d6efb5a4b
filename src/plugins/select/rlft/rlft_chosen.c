/*****************************************************************************\
 *  rlft_chosen.c - what job_test chose for a job, until job_begin.
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

#include "src/common/list.h"
#include "src/plugins/common/qft_slurm.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "src/plugins/select/rlft/rlft_chosen.h"

static list_t *chosen = NULL;

static void _chosen_free(void *x)
{
	rlft_chosen_t *c = x;
	xfree(c->label);
	xfree(c->kind);
	xfree(c->shape);
	xfree(c);
}

/* Any choice made for the record (to replace or forget). */
static int _chosen_of(void *x, void *key)
{
	return ((rlft_chosen_t *) x)->job == key;
}

/* A choice whose job no longer has the id it had: its start failed after
 * job_test and it was purged, or its record holds another job now. */
static int _chosen_stale(void *x, void *key)
{
	const rlft_chosen_t *c = x;

	return find_job_record(c->job_id) != c->job;
}

/* The choice for the job as it is now: same record, and the id job_test
 * saw is its own or, for an array task split off since, its array's (a
 * record freed and reused by another job matches neither). */
static int _chosen_now(void *x, void *key)
{
	const rlft_chosen_t *c = x;
	const job_record_t *job_ptr = key;

	return c->job == job_ptr &&
	       (c->job_id == job_ptr->job_id ||
		(job_ptr->array_task_id != NO_VAL && c->job_id == job_ptr->array_job_id));
}

extern void rlft_chosen_put(rlft_chosen_t *c)
{
	if (!chosen)
		chosen = list_create(_chosen_free);
	list_delete_all(chosen, _chosen_of, (void *) c->job);
	if (list_count(chosen) > 64) /* choices no job_begin took */
		list_delete_all(chosen, _chosen_stale, NULL);
	list_append(chosen, c);
}

extern rlft_chosen_t *rlft_chosen_for(const job_record_t *job_ptr)
{
	return chosen ? list_find_first(chosen, _chosen_now, (void *) job_ptr) : NULL;
}

extern void rlft_forget_choice(const job_record_t *job_ptr)
{
	if (chosen)
		list_delete_all(chosen, _chosen_of, (void *) job_ptr);
}

extern void rlft_base_time(const job_record_t *job_ptr, long usec)
{
	rlft_chosen_t *c = rlft_chosen_for(job_ptr);

	if (c)
		c->base_usec = usec;
}

extern void rlft_chosen_fini(void)
{
	FREE_NULL_LIST(chosen);
}
