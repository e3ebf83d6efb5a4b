/*****************************************************************************\
 *  rlft_chosen.h - what job_test chose for a job, kept until job_begin
 *  tells the job (rlft_tell.c).
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/
#ifndef QFT_SELECT_RLFT_CHOSEN_H
#define QFT_SELECT_RLFT_CHOSEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/plugins/common/qft_slurm.h"
#include "src/slurmctld/slurmctld.h"

/*
 * Keyed by the job's record, not its id: an array task gets its own id
 * between job_test and job_begin (select_nodes: job_array_post_sched
 * splits the task off the pending array record, which keeps the id
 * job_test saw). Strings are xmalloc()ed and owned by the list.
 */
typedef struct {
	const job_record_t *job;
	uint32_t job_id; /* at job_test: the array's id for an array task */
	char *label;
	char *kind;     /* qft_placement_t's kind */
	char *shape;    /* and shape, "" unless a product */
	bool congestion_free; /* and whether it is provably */
	size_t shared_links;  /* switch links running jobs use too */
	size_t candidates;
	bool isolated;  /* placed apart (--qft-isolate): job_begin marks it */
	long usec;      /* time the placement took */
	long base_usec; /* time cons_tres's job_test took after it */
} rlft_chosen_t;

/* Keeps `c` (xmalloc()ed, taken over) as the choice for c->job, in place of
 * any before; drops choices whose jobs are gone once more than 64 wait. */
extern void rlft_chosen_put(rlft_chosen_t *c);
/* The choice for the job as it is now, or NULL. */
extern rlft_chosen_t *rlft_chosen_for(const job_record_t *job_ptr);
/* Forgets what rlft_job_test() chose for the job: also for a caller with no
 * job_begin to come (topology/qft's eval_nodes on Slurm 24.11). */
extern void rlft_forget_choice(const job_record_t *job_ptr);
/* How long cons_tres's job_test took for a job rlft placed (for the log). */
extern void rlft_base_time(const job_record_t *job_ptr, long usec);
extern void rlft_chosen_fini(void);

#endif
