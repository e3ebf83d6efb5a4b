/*****************************************************************************\
 *  rlft_place.h - select/rlft's part: which nodes a job gets, and what the
 *  job is told. select_rlft.c forwards everything else to cons_tres.
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

/* (Re)reads qft.conf and takes topology/qft's fabric (or, with another
 * TopologyPlugin, loads its own), maps nodes to hosts, takes in the running
 * jobs of `jobs` (NULL: slurmctld's job_list). Called with `jobs` right
 * after a call without (select_p_job_init after select_p_node_init), it
 * keeps what that call took. Fatal at start-up on a bad fabric, an error
 * keeping the old one afterwards. */
extern void rlft_node_init(list_t *jobs);
extern void rlft_fini(void);
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
/* Forgets what rlft_job_test() chose for the job, for a caller with no
 * job_begin to come (topology/qft's eval_nodes on Slurm 24.11). */
extern void rlft_forget_choice(job_record_t *job_ptr);
/* Tracks the running jobs of slurmctld's job_list and forgets the ended
 * ones: for a caller that no job_begin or job_fini reaches (topology/qft's
 * eval_nodes on Slurm 24.11 without select/rlft). RET whether any came or
 * went. */
extern bool rlft_sync_jobs(void);
/* The job now holds its nodes: track it, give it its environment. */
extern void rlft_job_begin(job_record_t *job_ptr);
extern void rlft_job_fini(job_record_t *job_ptr);
/* How long cons_tres's job_test took for a job rlft placed (for the log). */
extern void rlft_base_time(job_record_t *job_ptr, long usec);
/* Its nodes changed (resized, expanded). */
extern void rlft_job_update(job_record_t *job_ptr);

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
