/*****************************************************************************\
 *  rlft_place.h - select/rlft's part: which nodes a job gets, and what the
 *  job is told. select_rlft.c forwards everything else to cons_tres.
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/
#ifndef QFT_SELECT_RLFT_PLACE_H
#define QFT_SELECT_RLFT_PLACE_H

#include "src/slurmctld/slurmctld.h"

/* rlft_job_test's answer besides a Slurm error code. */
#define RLFT_PASS 0       /* let cons_tres decide on the bitmap as it is */
#define RLFT_RESTRICTED 1 /* bitmap narrowed to the chosen nodes */

/* (Re)load qft.conf and the fabric, map nodes to hosts, take in the running
 * jobs of `jobs` (NULL: slurmctld's job_list). Fatal at start-up on a bad
 * fabric, an error keeping the old one afterwards. */
extern void rlft_node_init(List jobs);
extern void rlft_fini(void);
extern int rlft_job_test(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes,
			 uint16_t mode, List preemptee_candidates);
/* The job now holds its nodes: track it, give it its environment. */
extern void rlft_job_begin(job_record_t *job_ptr);
extern void rlft_job_fini(job_record_t *job_ptr);
/* How long cons_tres's job_test took for a job rlft placed (for the log). */
extern void rlft_base_time(job_record_t *job_ptr, long usec);
/* Its nodes changed (resized, expanded). */
extern void rlft_job_update(job_record_t *job_ptr);

#endif
