/*****************************************************************************\
 *  rlft_cache.h - what select/rlft keeps between tests of slurmctld's job
 *  list, so that a test under its locks does not walk the list again: when
 *  each host is free (ShapeWait=), whether the view still holds, and the
 *  hosts of each job the placer tracks. Plain data, no slurmctld:
 *  rlft_jobs.c and rlft_state.c fill them, tests/unit checks them. The
 *  rules that use them are libqft's (lib/place/wait.hpp).
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/
#ifndef QFT_SELECT_RLFT_CACHE_H
#define QFT_SELECT_RLFT_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/*
 * When each host is free, kept between tests: the latest end time of the
 * running jobs on it. Walking slurmctld's job list for it in every test
 * costs O(jobs) under its locks (thousands of pending jobs, each tested by
 * backfill); rlft_jobs.c builds this once and again only when the job
 * list changed (rlft_stamp_fresh).
 */
#define RLFT_ENDS_NEVER ((time_t) -1) /* a suspended job: no end */
typedef struct {
	time_t *end; /* 0: no running job on the host */
	size_t hosts;
} rlft_ends_t;

/* Every host without a job, for `hosts` hosts; false when out of memory. */
extern bool rlft_ends_reset(rlft_ends_t *ends, size_t hosts);
/* A running job (never: suspended) holds the host until `end`. */
extern void rlft_ends_raise(rlft_ends_t *ends, size_t host, time_t end, bool never);
/* at[h] for each host, as rlft_free_at gives it: INFINITY unless
 * eligible[h]; else 0 when no job holds it, INFINITY when a suspended one
 * does, else seconds from now to the latest end (0 once past it). */
extern void rlft_ends_free_at(const rlft_ends_t *ends, const uint8_t *eligible, time_t now,
			      double *at);
extern void rlft_ends_free(rlft_ends_t *ends);

/*
 * What a view of the job list was built from: slurmctld's last_job_update
 * (seconds), a count of job events that is exact (starts and ends the
 * plugin saw, slurmctld's count of starts) and when it was built.
 */
typedef struct {
	time_t job_update, built;
	uint64_t events;
	bool valid;
} rlft_stamp_t;

extern rlft_stamp_t rlft_stamp(time_t job_update, uint64_t events, time_t now);
/* Whether a view stamped `s` still holds: no event counted since, the
 * same last_job_update, and not built in the second of that update (a
 * change after the build in the same second leaves last_job_update as it
 * was: such a view is trusted for the rest of that second only). */
extern bool rlft_stamp_fresh(const rlft_stamp_t *s, time_t job_update, uint64_t events,
			     time_t now);

/*
 * The hosts of each job the placer tracks, as a signature: re-adding a
 * job on the same hosts replays its prediction for nothing, and slurmctld
 * asks for it after every start and for every job at a reconfigure.
 * Open addressing on the job id (0 is no job).
 */
typedef struct {
	uint32_t id;
	uint64_t sig;
} rlft_seen_slot_t;

typedef struct {
	rlft_seen_slot_t *slot;
	size_t count, size; /* size: 0 or a power of two */
} rlft_seen_t;

/* The signature of a job's hosts (ordinals, in their order). */
extern uint64_t rlft_hosts_sig(const size_t *hosts, size_t n);
/* Whether job `id` is known with signature `sig`. */
extern bool rlft_seen_same(const rlft_seen_t *seen, uint32_t id, uint64_t sig);
/* Records it (replacing); false when out of memory (then it is unknown). */
extern bool rlft_seen_put(rlft_seen_t *seen, uint32_t id, uint64_t sig);
extern void rlft_seen_del(rlft_seen_t *seen, uint32_t id);
/* Calls drop(id) for each known job that keep(id) refuses, and forgets it. */
extern void rlft_seen_sweep(rlft_seen_t *seen, bool (*keep)(uint32_t id, void *arg),
			    void (*drop)(uint32_t id, void *arg), void *arg);
extern void rlft_seen_free(rlft_seen_t *seen);

#endif
