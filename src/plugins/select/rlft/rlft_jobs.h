/*****************************************************************************\
 *  rlft_jobs.h - what ShapeWait= reads of slurmctld's job records: a job's
 *  limits and when its wait began, and when each host is free
 *  (docs/product-shapes.md section 11).
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/
#ifndef QFT_SELECT_RLFT_JOBS_H
#define QFT_SELECT_RLFT_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "src/plugins/common/qft_slurm.h"
#include "src/slurmctld/slurmctld.h"

#include "qft/qft.h"
#include "src/plugins/select/rlft/rlft_cache.h"

/* The job's limits (its own, its partition's) and when its wait began:
 * its eligible time (scontrol's EligibleTime; the submit time before it
 * has one), or with `from_decline` its first declined start (0: none
 * yet). */
extern qft_wait_job_t rlft_wait_job_of(const job_record_t *job_ptr, bool from_decline);

/* A start of the job was declined for a shape at `now`: the first such
 * time is kept in the job's own record, which slurmctld saves with the
 * job, so that a restart keeps it. */
extern void rlft_declined(job_record_t *job_ptr, time_t now);
/* The job starts at `now`: QFT_SHAPE_WAITED tells it how long it waited
 * for a shape since its first declined start (absent: it never did). */
extern void rlft_wait_ended(job_record_t *job_ptr, time_t now);

/* The running jobs changed in a way the job list shows (started, ended,
 * other nodes) or the node -> host map did: rlft_free_at walks the list
 * again. */
extern void rlft_jobs_changed(void);
/* Those changes, and slurmctld's count of job starts: one number that
 * moves with each. */
extern uint64_t rlft_job_events(void);

/* When each host is free, in seconds from `now`, for the hosts with
 * eligible[h]: 0 when its node is idle, else the latest end time of the
 * running jobs on it (slurmctld's end_time: start plus time limit; a
 * suspended job's never); INFINITY for the others. host_of_node maps node
 * index to host ordinal (-1: none); a new map is a change
 * (rlft_jobs_changed). xfree() the result. */
extern double *rlft_free_at(const uint8_t *eligible, size_t hosts, const int *host_of_node,
			    int host_of_node_cnt, time_t now);
/* Frees rlft_free_at's view of the job list, which it keeps from one call
 * to the next and builds again only when the list changed (rlft_cache.h's
 * rlft_stamp_fresh). */
extern void rlft_jobs_fini(void);

#endif
