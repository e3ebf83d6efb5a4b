/*****************************************************************************\
 *  rlft_lid.h - select/rlft's LID choice: for a job that starts, which of
 *  its hosts' 2^LMC LIDs its senders use (lib/lid), and what the job is
 *  told (qft.conf(5), LidChoice= and JOB ENVIRONMENT; docs/lid-table.md).
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/
#ifndef QFT_SELECT_RLFT_LID_H
#define QFT_SELECT_RLFT_LID_H

#include <stdbool.h>

#include "src/slurmctld/slurmctld.h"

#include "qft/qft.h"
#include "src/plugins/common/qft_conf.h"

typedef struct {
	const qft_ops_t *lib;
	qft_placer_t *placer;
	const qft_conf_t *conf;
	unsigned lmc;           /* the fabric's */
} rlft_lid_ctx_t;

/*
 * rlft_tell_lids - the job's LID choice (job_begin, under slurmctld's
 *	locks): job at once (QFT_LID_PATH_BITS); dest and pair as a request
 *	to the worker thread, the job told where its decision will be
 *	(QFT_LID_TABLE; docs/lid-choice.md "Off the locks")
 * IN hosts, n - the job's host ordinals, rank order
 * IN congestion_free - its placement is congestion-free by shape: "auto"
 *	leaves it on one LID
 * IN one_lid - its predicted HSD on one LID, NULL if none
 */
extern void rlft_tell_lids(const rlft_lid_ctx_t *ctx, job_record_t *job_ptr,
			   const size_t *hosts, size_t n, bool congestion_free,
			   const qft_prediction_t *one_lid);

/*
 * rlft_lid_resume - at slurmctld's start, a recovered running job whose
 *	table was pending when slurmctld stopped: chosen again, or base LIDs
 *	once LidTableWait= from its start has passed
 */
extern void rlft_lid_resume(const rlft_lid_ctx_t *ctx, job_record_t *job_ptr,
			    const size_t *hosts, size_t n);

/* The worker thread: started with the first request; stopped (joined) in
 * fini, after base LIDs are decided for the jobs still waiting. Not at a
 * reconfigure: a request holds all it reads. */
extern void rlft_lid_start(void);
extern void rlft_lid_stop(void);

/*
 * rlft_lid_take_done - under slurmctld's locks: the offsets of the tables
 *	the worker published since the last call, recorded in `placer` (for
 *	the jobs it still runs), so that later choices are made beside them
 * RET how many were recorded
 */
extern size_t rlft_lid_take_done(const qft_ops_t *lib, qft_placer_t *placer);

/* job_fini: the job's request leaves the queue (or its choice, in progress,
 * will not be published) and its decision file is removed. */
extern void rlft_lid_forget(job_record_t *job_ptr);

#endif
