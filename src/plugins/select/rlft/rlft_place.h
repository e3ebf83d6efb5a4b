/*****************************************************************************\
 *  rlft_place.h - select/rlft's part of job_test: which nodes a job gets.
 *  select_rlft.c forwards everything else to cons_tres; rlft_state.h holds
 *  what it places with, rlft_tell.h what the job is told.
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/
#ifndef QFT_SELECT_RLFT_PLACE_H
#define QFT_SELECT_RLFT_PLACE_H

#include <time.h>

#include "src/plugins/common/qft_slurm.h"
#include "src/slurmctld/slurmctld.h"

/* rlft_job_test's answer besides a Slurm error code. */
#define RLFT_PASS 0       /* let cons_tres decide on the bitmap as it is */
#define RLFT_RESTRICTED 1 /* bitmap narrowed to the chosen nodes */
#define RLFT_APART 2      /* isolation in play, the placer cannot place it:
			   * cons_tres chooses inside a subtree apart */

/* Narrows `bitmap` to the nodes libqft's placer chose for the job and sets
 * *count to their number (RLFT_RESTRICTED), or leaves it to cons_tres
 * (RLFT_PASS), or answers a Slurm error code ("not now" or "never"). The
 * count is the one cons_tres needs for the job's tasks, CPUs and memory
 * (rlft_count.h); in a node range, the largest that can be placed now. */
extern int rlft_job_test(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes,
			 uint32_t max_nodes, uint32_t req_nodes, uint16_t mode,
			 list_t *preemptee_candidates, uint32_t *count);
/* cons_tres could not allocate the nodes rlft chose: the choice is
 * forgotten; RLFT_PASS, cons_tres may choose from `bitmap` (restored), or
 * RLFT_APART, or SLURM_ERROR, the job waits (isolation). */
extern int rlft_not_placed(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t max_nodes,
			   uint16_t mode);

/* RLFT_APART: narrows `bitmap` to the nodes of `offered` in the next
 * subtree apart (docs/isolation.md), at a level above *level (0: from the
 * leaves, the smallest first), which it sets; false when there is none.
 * cons_tres then tries the job there, and a job that asked isolation is
 * marked isolated at job_begin. */
extern bool rlft_apart_zone(job_record_t *job_ptr, bitstr_t *bitmap, bitstr_t *offered,
			    uint32_t min_nodes, unsigned *level);
/* No subtree apart fits the job: it waits, saying so; SLURM_ERROR. */
extern int rlft_apart_none(job_record_t *job_ptr);

/* qft.conf PlanBusyFirst= (select_rlft.c, WILL_RUN). */
extern bool rlft_plan_busy_first(void);

#endif
