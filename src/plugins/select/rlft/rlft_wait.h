/*****************************************************************************\
 *  rlft_wait.h - ShapeWait=: how long a job may wait for a congestion-free
 *  shape (docs/product-shapes.md section 11). Plain arithmetic on times,
 *  no slurmctld: rlft_jobs.c reads the job records, tests/unit checks this.
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/
#ifndef QFT_SELECT_RLFT_WAIT_H
#define QFT_SELECT_RLFT_WAIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* What ShapeWait= needs of a job. Limits in minutes, 0 for none (the
 * caller turns Slurm's NO_VAL and INFINITE into 0). */
typedef struct {
	uint32_t limit;        /* the job's --time */
	uint32_t part_default; /* its partition's DefaultTime */
	uint32_t part_max;     /* its partition's MaxTime */
	time_t since;          /* when its wait began to count: its eligible
				* time, or with ShapeWaitFrom=decline its
				* first declined start (0: not yet) */
} rlft_wait_job_t;

/* Seconds the job may wait for a congestion-free shape, in all: ShapeWait=
 * percent of its time limit (the partition's default, else maximum, when
 * it gave none), at most ShapeWaitMax= seconds; 0 when it may not wait
 * (ShapeWait=0, or no limit and no ShapeWaitMax=). */
extern double rlft_shape_wait(const rlft_wait_job_t *job, uint32_t shape_wait,
			      uint32_t shape_wait_max);

/* Seconds from `now` within which a shape must come for the job to wait
 * for it: `wait` counted from job->since, so that waiting for shapes
 * never delays a start past since + wait, whatever the tests in between
 * saw (and a restart of slurmctld keeps that: both times are in its job
 * state). <= 0: the job may wait no longer. */
extern double rlft_shape_left(const rlft_wait_job_t *job, double wait, time_t now);

/* The time by which `count` of the eligible hosts are free (seconds from
 * now; free_at[h] as rlft_free_at gives it), INFINITY if never: when the
 * job's node count first fits. */
extern double rlft_count_fits(const double *free_at, const uint8_t *eligible, size_t hosts,
			      uint32_t count);

/* The waiting jobs that hold nodes for their shape in backfill's plan
 * (ShapeHolds=): job id and priority, as last seen. */
typedef struct {
	uint32_t id;
	uint32_t priority;
} rlft_holder_t;

typedef struct {
	rlft_holder_t *at;
	size_t count, size;
} rlft_holders_t;

/* Whether the job (id, priority) may hold nodes for its shape: fewer than
 * `limit` other holders rank above it (a higher priority, or the same and
 * a lower id); limit 0: any number may hold. First each other holder is
 * asked of `pending` (its current priority, false: it no longer waits, and
 * is dropped), so the holders are always jobs still pending. */
extern bool rlft_may_hold(rlft_holders_t *holders, uint32_t id, uint32_t priority, uint32_t limit,
			  bool (*pending)(uint32_t id, uint32_t *priority));

/* The job holds (added, or its priority updated) / no longer holds. */
extern void rlft_hold(rlft_holders_t *holders, uint32_t id, uint32_t priority);
extern void rlft_unhold(rlft_holders_t *holders, uint32_t id);
extern void rlft_holders_free(rlft_holders_t *holders);

#endif
