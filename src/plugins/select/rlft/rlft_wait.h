/*****************************************************************************\
 *  rlft_wait.h - ShapeWait=: how long a job waits for a congestion-free
 *  shape, and when each host is free, from slurmctld's job records
 *  (docs/product-shapes.md section 11).
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/
#ifndef QFT_SELECT_RLFT_WAIT_H
#define QFT_SELECT_RLFT_WAIT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "src/plugins/common/qft_slurm.h"
#include "src/slurmctld/slurmctld.h"

/* Seconds the job may wait for a congestion-free shape: ShapeWait= percent
 * of its time limit (the partition's default or maximum when it gave
 * none), at most ShapeWaitMax= seconds; 0 when it may not wait (ShapeWait=0,
 * or no finite limit and no ShapeWaitMax=). */
extern double rlft_shape_horizon(const job_record_t *job_ptr, uint32_t shape_wait,
				 uint32_t shape_wait_max);

/* When each host is free, in seconds from `now`, for the hosts with
 * eligible[h]: 0 when its node is idle, else the latest end time of the
 * running jobs on it (slurmctld's end_time: start plus time limit; a
 * suspended job's never); INFINITY for the others. host_of_node maps node
 * index to host ordinal (-1: none). xfree() the result. */
extern double *rlft_free_at(const uint8_t *eligible, size_t hosts, const int *host_of_node,
			    int host_of_node_cnt, time_t now);

/* The time by which `count` of the eligible hosts are free (seconds from
 * now), INFINITY if never: when the job's node count first fits. */
extern double rlft_count_fits(const double *free_at, const uint8_t *eligible, size_t hosts,
			      uint32_t count);

#endif
