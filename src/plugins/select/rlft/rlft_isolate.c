/*****************************************************************************\
 *  rlft_isolate.c - isolation in slurmctld's job records (rlft_isolate.h).
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

#include <pthread.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"

#include "src/plugins/select/rlft/rlft_env.h"
#include "src/plugins/select/rlft/rlft_isolate.h"

#define PFX "select/rlft"
#define ISOLATED "QFT_ISOLATED"
#define REASON "QftIsolation: "

extern list_t *job_list; /* slurmctld's (rlft_state.c defines it weak) */
/* lock_slurmctld() and unlock_slurmctld() are slurmctld's: called, never
 * taken by address, so that srun and slurmd (and on 24.11 slurmd's
 * topology/qft, which links this file) load the plugin without them
 * (lazy binding); only slurmctld starts the thread (rlft_node_init). */

extern bool rlft_isolated(const job_record_t *job_ptr)
{
	const char *v = job_ptr->details ? rlft_getenv(job_ptr, ISOLATED) : NULL;

	return v && !strcmp(v, "1");
}

extern void rlft_isolation_tell(job_record_t *job_ptr, bool isolated)
{
	if (!job_ptr->details)
		return;
	if (isolated)
		rlft_setenv(job_ptr, ISOLATED, "1");
	else
		rlft_unsetenv(job_ptr, ISOLATED); /* a requeued job's old one */
}

/* The jobs waiting for isolation and their reasons: a few at a time in
 * practice (those the schedulers reached), at most WAITING. */
#define WAITING 256
static struct {
	uint32_t job_id;
	char *why;
	bool fresh; /* its last RUN_NOW test declined it for isolation */
} waiting[WAITING];
static unsigned next_slot;
static unsigned fresh_cnt; /* slots fresh: the thread has work */

static int _slot_of(uint32_t job_id)
{
	for (int i = 0; i < WAITING; i++)
		if (waiting[i].job_id == job_id)
			return i;
	return -1;
}

static void _give(job_record_t *job_ptr, const char *why)
{
	if (job_ptr->state_desc && !strcmp(job_ptr->state_desc, why))
		return;
	/* only over the scheduler's plain "Resources": any other reason
	 * (a hold, a limit, a dependency) is slurmctld's to show */
	if (job_ptr->state_reason != WAIT_RESOURCES && job_ptr->state_reason != WAIT_NO_REASON)
		return;
	xfree(job_ptr->state_desc);
	job_ptr->state_desc = xstrdup(why);
	job_ptr->state_reason = WAIT_RESOURCES;
}

extern void rlft_isolation_wait(job_record_t *job_ptr, const char *why)
{
	int i = _slot_of(job_ptr->job_id);
	char *text = xstrdup_printf(REASON "%s", why);

	if (i < 0) {
		i = (int) (next_slot++ % WAITING);
		fresh_cnt -= waiting[i].fresh;
		waiting[i].fresh = false;
		xfree(waiting[i].why);
		waiting[i].job_id = job_ptr->job_id;
		verbose("%s: %pJ waits: %s", PFX, job_ptr, text);
	} else if (xstrcmp(waiting[i].why, text)) {
		debug("%s: %pJ waits: %s", PFX, job_ptr, text);
	}
	xfree(waiting[i].why);
	waiting[i].why = text;
	fresh_cnt += !waiting[i].fresh;
	waiting[i].fresh = true;
	_give(job_ptr, text);
}

extern void rlft_isolation_say(void)
{
	for (int i = 0; i < WAITING; i++) {
		job_record_t *job_ptr;

		if (!waiting[i].job_id)
			continue;
		job_ptr = find_job_record(waiting[i].job_id);
		if (!job_ptr || !IS_JOB_PENDING(job_ptr)) {
			fresh_cnt -= waiting[i].fresh;
			waiting[i].fresh = false;
			waiting[i].job_id = 0;
			xfree(waiting[i].why);
			continue;
		}
		if (waiting[i].fresh)
			_give(job_ptr, waiting[i].why);
	}
}

extern void rlft_isolation_clear(job_record_t *job_ptr, bool forget)
{
	int i = _slot_of(job_ptr->job_id);

	if (i < 0)
		return;
	if (job_ptr->state_desc && !strcmp(job_ptr->state_desc, waiting[i].why))
		xfree(job_ptr->state_desc);
	/* kept (stale) until it starts: a decline for the same reason again
	 * is not logged again */
	fresh_cnt -= waiting[i].fresh;
	waiting[i].fresh = false;
	if (forget) {
		waiting[i].job_id = 0;
		xfree(waiting[i].why);
	}
}

static int _clear_nodes(void *x, void *arg)
{
	job_record_t *job_ptr = x;

	if (job_ptr->node_bitmap && (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)) &&
	    rlft_isolated(job_ptr))
		bit_and_not(arg, job_ptr->node_bitmap);
	return 0;
}

extern void rlft_isolated_nodes_clear(bitstr_t *bitmap)
{
	if (job_list && bitmap)
		list_for_each(job_list, _clear_nodes, bitmap);
}

/*
 * The scheduler frees state_desc after every declined test, and in a quiet
 * cluster nothing calls select/rlft again until a job starts or ends
 * (backfill skips cycles with no change): this thread gives the waiting
 * jobs their reason back once a second, under the job write lock (a loop
 * over at most WAITING slots, a few microseconds), and only while some
 * job waits for isolation.
 */
static pthread_t reasons_thread;
static pthread_mutex_t reasons_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t reasons_cond = PTHREAD_COND_INITIALIZER;
static bool reasons_running, reasons_stop;

static void *_reasons(void *arg)
{
	slurmctld_lock_t job_write = { .job = WRITE_LOCK };

	(void) arg;
	pthread_mutex_lock(&reasons_mutex);
	while (!reasons_stop) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&reasons_cond, &reasons_mutex, &until);
		if (reasons_stop)
			break;
		pthread_mutex_unlock(&reasons_mutex);
		lock_slurmctld(job_write);
		/* no job list: slurmctld is shutting down (MEMORY_LEAK_DEBUG
		 * frees it before select_g_fini) */
		if (fresh_cnt && job_list)
			rlft_isolation_say();
		unlock_slurmctld(job_write);
		pthread_mutex_lock(&reasons_mutex);
	}
	pthread_mutex_unlock(&reasons_mutex);
	return NULL;
}

extern void rlft_isolation_start(void)
{
	if (reasons_running)
		return;
	reasons_stop = false;
	if (pthread_create(&reasons_thread, NULL, _reasons, NULL)) {
		error("%s: no thread for the isolation reasons: squeue shows them only after select/rlft's tests",
		      PFX);
		return;
	}
	reasons_running = true;
}

extern void rlft_isolation_stop(void)
{
	if (!reasons_running)
		return;
	pthread_mutex_lock(&reasons_mutex);
	reasons_stop = true;
	pthread_cond_signal(&reasons_cond);
	pthread_mutex_unlock(&reasons_mutex);
	pthread_join(reasons_thread, NULL);
	reasons_running = false;
	for (int i = 0; i < WAITING; i++) {
		waiting[i].job_id = 0;
		waiting[i].fresh = false;
		xfree(waiting[i].why);
	}
	fresh_cnt = 0;
}
