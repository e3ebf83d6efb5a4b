/*****************************************************************************\
 *  rlft_jobs.c - ShapeWait='s view of slurmctld's job records (rlft_jobs.h):
 *  time limits, when a job's wait began and the running jobs' end times, the
 *  estimates slurmctld's backfill plans with too.
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
#include <stdio.h>
#include <stdlib.h>

#include "slurm/slurm.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "src/plugins/select/rlft/rlft_jobs.h"
#include "src/plugins/select/rlft/rlft_env.h"

/*
 * slurmctld's (src/slurmctld/state_save.h): weak, so that slurmd and srun,
 * which load select plugins too and have no state to save, still load it.
 */
extern void schedule_job_save(void) __attribute__((weak));

/* Minutes, 0 for Slurm's "none" (NO_VAL) and "unlimited" (INFINITE). */
static uint32_t _minutes(uint32_t m)
{
	return m == NO_VAL || m == INFINITE ? 0 : m;
}

/* The first declined start, as seconds since the epoch, in the job's
 * supplementary environment: slurmctld packs env_sup into its job state,
 * so the time survives a restart (a crash too: rlft_declined asks for a save)
 * without a state file of ours; rlft_wait_ended removes it before the
 * job runs. */
#define WAIT_SINCE "QFT_SHAPE_WAIT_SINCE"

static time_t _declined_at(const job_record_t *job_ptr)
{
	const char *v = job_ptr->details ? rlft_getenv(job_ptr, WAIT_SINCE) : NULL;
	char *end;
	long long t;

	if (!v)
		return 0;
	t = strtoll(v, &end, 10);
	return *end || t <= 0 ? 0 : (time_t) t;
}

extern qft_wait_job_t rlft_wait_job_of(const job_record_t *job_ptr, bool from_decline)
{
	const part_record_t *part = job_ptr->part_ptr;
	const job_details_t *d = job_ptr->details;
	qft_wait_job_t j = { .limit = _minutes(job_ptr->time_limit) };

	if (part) {
		j.part_default = _minutes(part->default_time);
		j.part_max = _minutes(part->max_time);
	}
	if (from_decline)
		j.since = _declined_at(job_ptr);
	else if (d)
		j.since = d->begin_time ? d->begin_time : d->submit_time;
	return j;
}

extern void rlft_declined(job_record_t *job_ptr, time_t now)
{
	char buf[32];

	if (!job_ptr->details || _declined_at(job_ptr))
		return;
	snprintf(buf, sizeof(buf), "%lld", (long long) now);
	rlft_setenv(job_ptr, WAIT_SINCE, buf);
	last_job_update = now;
	/*
	 * A decline is no event of slurmctld's: without this the time would
	 * reach the state file only with the next job event or the periodic
	 * save (5 min), and a crash before that would restart the wait.
	 * Safe under slurmctld's job write lock: it takes only state_save_lock,
	 * which the save thread never holds while it waits for those locks.
	 */
	if (schedule_job_save)
		schedule_job_save();
}

extern void rlft_wait_ended(job_record_t *job_ptr, time_t now)
{
	time_t since = _declined_at(job_ptr);
	char buf[32];

	if (!since)
		return;
	rlft_unsetenv(job_ptr, WAIT_SINCE);
	/* An array task split off its pending array record after job_test
	 * (job_array_post_sched copies the record, environment and all): the
	 * tasks still pending have not been declined yet. */
	if (job_ptr->array_task_id != NO_VAL && job_ptr->array_job_id != job_ptr->job_id) {
		job_record_t *array_ptr = find_job_record(job_ptr->array_job_id);

		if (array_ptr && array_ptr != job_ptr && IS_JOB_PENDING(array_ptr) &&
		    array_ptr->details)
			rlft_unsetenv(array_ptr, WAIT_SINCE);
	}
	snprintf(buf, sizeof(buf), "%.0f", difftime(now, since) > 0 ? difftime(now, since) : 0.0);
	rlft_setenv(job_ptr, "QFT_SHAPE_WAITED", buf);
}

/*
 * slurmctld's count of job starts (both schedulers and job_allocate): an
 * exact event where last_job_update has only seconds. Weak, as
 * schedule_job_save: slurmd and srun have none.
 */
extern diag_stats_t slurmctld_diag_stats __attribute__((weak));

static uint64_t events;          /* rlft_jobs_changed() */
static rlft_ends_t ends;         /* rlft_free_at's view of the job list */
static rlft_stamp_t ends_stamp;
static const int *ends_map;      /* the node -> host map it was built on */

extern void rlft_jobs_changed(void)
{
	events++;
}

extern uint64_t rlft_job_events(void)
{
	return events + (&slurmctld_diag_stats ? (uint64_t) slurmctld_diag_stats.jobs_started : 0);
}

typedef struct {
	const int *host_of_node;
	int host_of_node_cnt;
} ends_arg_t;

/* Raises the end time of the job's hosts to its own. */
static int _job_end(void *x, void *arg)
{
	job_record_t *job_ptr = x;
	ends_arg_t *a = arg;
	bool never;
	int last;

	if (!job_ptr->node_bitmap || !(IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)))
		return 0;
	never = IS_JOB_SUSPENDED(job_ptr);
	last = bit_fls(job_ptr->node_bitmap);
	for (int i = bit_ffs(job_ptr->node_bitmap); i >= 0 && i <= last; i++) {
		int h;

		if (i >= a->host_of_node_cnt)
			break;
		h = a->host_of_node[i];
		if (h >= 0 && bit_test(job_ptr->node_bitmap, i))
			rlft_ends_raise(&ends, h, job_ptr->end_time, never);
	}
	return 0;
}

/* The walk of the job list, once per change of it (rlft_stamp_fresh): a
 * time limit changed (scontrol update TimeLimit: a new end_time, and
 * last_job_update) shows at once, or, when it came in the second the view
 * was built, in the next second. */
static bool _ends(size_t hosts, const int *host_of_node, int host_of_node_cnt, time_t now)
{
	ends_arg_t a = { host_of_node, host_of_node_cnt };
	uint64_t ev = rlft_job_events();

	if (ends_map == host_of_node && ends.hosts == hosts &&
	    rlft_stamp_fresh(&ends_stamp, last_job_update, ev, now))
		return true;
	ends_stamp.valid = false;
	if (!rlft_ends_reset(&ends, hosts))
		return false;
	if (job_list)
		list_for_each(job_list, _job_end, &a);
	ends_stamp = rlft_stamp(last_job_update, ev, now);
	ends_map = host_of_node;
	return true;
}

extern double *rlft_free_at(const uint8_t *eligible, size_t hosts, const int *host_of_node,
			    int host_of_node_cnt, time_t now)
{
	double *at = xcalloc(hosts ? hosts : 1, sizeof(double));

	if (!_ends(hosts, host_of_node, host_of_node_cnt, now)) {
		/* out of memory: no host is free for a shape */
		for (size_t h = 0; h < hosts; h++)
			at[h] = INFINITY;
		return at;
	}
	rlft_ends_free_at(&ends, eligible, now, at);
	return at;
}

extern void rlft_jobs_fini(void)
{
	rlft_ends_free(&ends);
	ends_stamp.valid = false;
	ends_map = NULL;
}
