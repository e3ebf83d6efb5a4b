/*****************************************************************************\
 *  rlft_isolate.h - isolation (--qft-isolate, IsolatePartitions=; docs/
 *  isolation.md) as slurmctld's job records carry it: which running jobs
 *  are isolated (QFT_ISOLATED=1 in the job's environment, kept in its
 *  state across restarts), and the pending reason of a job that waits for
 *  it. The rule itself is libqft's (lib/place: Placer::isolate_running).
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/
#ifndef QFT_SELECT_RLFT_ISOLATE_H
#define QFT_SELECT_RLFT_ISOLATE_H

#include <stdbool.h>

#include "src/plugins/common/qft_slurm.h"
#include "src/slurmctld/slurmctld.h"

/* Whether the running job is isolated (its QFT_ISOLATED). */
extern bool rlft_isolated(const job_record_t *job_ptr);
/* job_begin: QFT_ISOLATED=1 for an isolated job, none otherwise. */
extern void rlft_isolation_tell(job_record_t *job_ptr, bool isolated);

/* The job waits for isolation: `why` becomes its pending reason
 * (state_desc, "QftIsolation: ..."), said once in slurmctld's log. The
 * scheduler clears state_desc after each declined test (WAIT_RESOURCES):
 * rlft_isolation_say() gives it back in every later job_test, so that
 * squeue shows it between scheduling passes. */
extern void rlft_isolation_wait(job_record_t *job_ptr, const char *why);
/* Gives the waiting jobs their reason again; forgets those that started,
 * ended or wait for something else now. Under the job write lock. */
extern void rlft_isolation_say(void);
/* In slurmctld: a thread that calls rlft_isolation_say() once a second
 * while a job waits for isolation (start: idempotent; stop: in fini, with
 * no slurmctld lock held). */
extern void rlft_isolation_start(void);
extern void rlft_isolation_stop(void);
/* The job is tested again (forget false), or started (true): its reason is
 * slurmctld's again. */
extern void rlft_isolation_clear(job_record_t *job_ptr, bool forget);

/* Clears the isolated running jobs' nodes from `bitmap`: what a job that
 * cons_tres places (one node, no switch link) must keep off. */
extern void rlft_isolated_nodes_clear(bitstr_t *bitmap);

#endif
