/*****************************************************************************\
 *  rlft_state.h - what select/rlft places with: qft.conf, the fabric and
 *  libqft's placer in use, slurmctld's nodes as fabric hosts, and the
 *  running jobs the placer tracks. A reconfigure replaces them.
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/
#ifndef QFT_SELECT_RLFT_STATE_H
#define QFT_SELECT_RLFT_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/plugins/common/qft_slurm.h"
#include "src/slurmctld/slurmctld.h"

#include "qft/qft.h"
#include "src/plugins/common/qft_conf.h"

#define PFX "select/rlft"

typedef struct {
	const qft_ops_t *lib;  /* libqft's calls on fabric and placer (held->ops) */
	qft_fabric_t *fabric;
	qft_placer_t *placer;  /* NULL until rlft_node_init() (not slurmctld) */
	const qft_conf_t *conf;
	const int *host_of_node; /* node index -> host ordinal, -1 */
	int host_of_node_cnt;
	node_record_t *const *node_of_host; /* host ordinal -> node */
} rlft_state_t;

/* The one in use; valid until the next rlft_node_init() or rlft_fini(). */
extern const rlft_state_t *rlft_state(void);

/* (Re)reads qft.conf and takes topology/qft's fabric (or, with another
 * TopologyPlugin, loads its own), maps nodes to hosts, takes in the running
 * jobs of `jobs` (NULL: slurmctld's job_list). Called with `jobs` right
 * after a call without (select_p_job_init after select_p_node_init), it
 * keeps what that call took. Fatal at start-up on a bad fabric, an error
 * keeping the old one afterwards. */
extern void rlft_node_init(list_t *jobs);
extern void rlft_fini(void);

/* Tracks the running jobs of slurmctld's job_list and forgets the ended
 * ones: for a caller that no job_begin or job_fini reaches (topology/qft's
 * eval_nodes on Slurm 24.11 without select/rlft). RET whether any came or
 * went. */
extern bool rlft_sync_jobs(void);
/* Its nodes changed (resized, expanded), or slurmctld recovered it. */
extern void rlft_job_update(job_record_t *job_ptr);
/* A job started: recovery from a restart is over, and it holds no nodes
 * for a shape any more. */
extern void rlft_started(uint32_t job_id);
/* The placer tracks the job on `hosts` from now on (job_begin: even on
 * the hosts it is known on, so the prediction asked next plays it). */
extern void rlft_track_started(job_record_t *job_ptr, const size_t *hosts, size_t n);
extern void rlft_untrack(uint32_t job_id);
/* Ids of the tracked jobs all of whose nodes are in `bitmap`, and their
 * number; xfree() them. */
extern uint32_t *rlft_running_within(bitstr_t *bitmap, size_t *n);

/* Host ordinals of a bitmap's nodes in the fabric, in tree order; xfree()
 * them. */
extern size_t *rlft_job_hosts(bitstr_t *bitmap, size_t *count);
/* Waiting jobs holding nodes for a shape in backfill's plan (ShapeHolds=);
 * NULL: every waiting job holds. */
extern qft_holders_t *rlft_holders(void);
/* Pattern=, or libqft's default named for the job and the log. */
extern const char *rlft_pattern(void);

#endif
