/*****************************************************************************\
 *  rlft_env.h - what select/rlft reads of a job and tells it through its
 *  environments: the supplementary environment (QFT_* variables: slurmctld
 *  packs it into its job state, so they survive a restart, and gives it to
 *  the job's steps) and the SPANK environment (what --qft-* asked, from
 *  the SPANK plugin's spank_job_control_setenv()).
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/
#ifndef QFT_SELECT_RLFT_ENV_H
#define QFT_SELECT_RLFT_ENV_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "src/plugins/common/qft_slurm.h"
#include "src/slurmctld/slurmctld.h"

/* NAME=value in the job's supplementary environment (replacing). */
extern void rlft_setenv(job_record_t *job_ptr, const char *name, const char *value);
extern void rlft_unsetenv(job_record_t *job_ptr, const char *name);
/* NAME's value there, NULL if unset. */
extern const char *rlft_getenv(const job_record_t *job_ptr, const char *name);

/* NAME's value in the job's SPANK environment, NULL if unset. The SPANK
 * plugin's options reach slurmctld unprefixed (QFT_LID=pair); Prolog and
 * Epilog see them as SPANK_QFT_LID. */
extern const char *rlft_spank_getenv(const job_record_t *job_ptr, const char *name);

/* What the job asked of select/rlft beyond its size (spank/qft_lid's
 * options, qft.conf's partition defaults): isolation, and its own wait for
 * a shape. Read in every job_test: a job's requests can change while it
 * pends (scontrol update of its partition). */
typedef struct {
	bool isolate;        /* --qft-isolate, or IsolatePartitions= */
	const char *isolate_from; /* "--qft-isolate", "IsolatePartitions=" */
	bool shape_wait_set; /* --qft-shape-wait given */
	uint32_t shape_wait; /* its minutes */
} rlft_request_t;

/* The job's request; `isolate_partitions` is qft.conf's list (NULL: none).
 * A malformed option value is logged once per job and ignored. */
extern rlft_request_t rlft_request_of(const job_record_t *job_ptr,
				      const char *isolate_partitions);

/* Microseconds since t0 (CLOCK_MONOTONIC): what a call held the locks. */
static inline long rlft_usec_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000000L + (t1.tv_nsec - t0->tv_nsec) / 1000;
}

#endif
