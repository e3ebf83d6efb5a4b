/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qft_request.h - the placement requests of spank/qft_lid: --qft-isolate
 * and --qft-shape-wait, handed to select/rlft in the job's SPANK
 * environment (QFT_ISOLATE=1|0, QFT_SHAPE_WAIT=MINUTES), which slurmctld
 * keeps with the job (docs/isolation.md, qft.conf(5)).
 */
#ifndef QFT_SPANK_REQUEST_H
#define QFT_SPANK_REQUEST_H

#include <slurm/spank.h>

/* slurm_spank_init, local and allocator context: registers the options.
 * RET 0 or -1 (logged). */
int qft_request_register(spank_t sp);
/* slurm_spank_init_post_opt, local and allocator context: the options
 * given go to slurmctld. RET 0 or -1 (logged: the command stops). */
int qft_request_send(spank_t sp);
/* slurm_spank_exit. */
void qft_request_reset(void);

#endif
