/*****************************************************************************\
 *  rlft_avail.h - what a job asks (slurmctld's records in rlft_count.h's
 *  terms) and which fabric hosts offer it now, for libqft's placer.
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/
#ifndef QFT_SELECT_RLFT_AVAIL_H
#define QFT_SELECT_RLFT_AVAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/slurmctld/slurmctld.h"

#include "src/plugins/select/rlft/rlft_count.h"

/* The hosts the job may have (eligible), of those the ones held now
 * (busy: 1, or QFT_HOST_SHARED when it fits beside their jobs), and its
 * required ones; host ordinals. */
typedef struct {
	uint8_t *eligible, *busy;
	size_t *req, nreq, eligible_cnt, free_cnt, partly_used;
} rlft_avail_t;

/* What the job needs free on a node it shares with running jobs. */
typedef struct {
	bool may_share; /* not --exclusive, not OverSubscribe=EXCLUSIVE */
	uint32_t cpus;
	uint64_t memory; /* MB; 0: not asked or not tracked */
} rlft_share_need_t;

/* What the job asks, from slurmctld's records. */
extern rlft_demand_t rlft_demand_of(job_record_t *job_ptr, uint32_t min_nodes,
				    uint32_t max_nodes, uint32_t req_nodes);
/* Node counts for the job (rlft_count.h) on the nodes of the bitmap. */
extern bool rlft_count_on(const rlft_demand_t *dm, bitstr_t *bitmap, rlft_count_t *out);
/* What the job needs on each of `nodes` nodes it would share. */
extern rlft_share_need_t rlft_share_need_of(job_record_t *job_ptr, const rlft_demand_t *dm,
					    uint32_t nodes);
/* The fabric hosts of the bitmap, as the placer needs them; free with
 * rlft_avail_free(). */
extern void rlft_avail_of(job_record_t *job_ptr, bitstr_t *bitmap,
			  const rlft_share_need_t *need, rlft_avail_t *a);
extern void rlft_avail_free(rlft_avail_t *a);

#endif
