/*****************************************************************************\
 *  rlft_tell.h - what a job is told when it starts (its environment, its
 *  files in HostFileDir=, its LID table, a log line), and what is taken
 *  back when it ends.
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/
#ifndef QFT_SELECT_RLFT_TELL_H
#define QFT_SELECT_RLFT_TELL_H

#include "src/slurmctld/slurmctld.h"

/* The job now holds its nodes: track it, give it its environment. */
extern void rlft_job_begin(job_record_t *job_ptr);
extern void rlft_job_fini(job_record_t *job_ptr);

#endif
