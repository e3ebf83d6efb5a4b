/*****************************************************************************\
 *  rlft_count.h - how many nodes select/rlft places for a job: the count
 *  cons_tres would need for the job's tasks, CPUs and memory on these
 *  nodes, inside the job's node range. Plain C, no Slurm header, so that
 *  the cmocka test needs no slurmctld.
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#ifndef RLFT_COUNT_H
#define RLFT_COUNT_H

#include <stdbool.h>
#include <stdint.h>

/* What the job asks, in slurmctld's terms (job_details, select_g_job_test). */
typedef struct rlft_demand {
	uint32_t min_nodes;       /* select_g_job_test's min_nodes */
	uint32_t max_nodes;       /* its max_nodes (partition and limits applied) */
	uint32_t req_nodes;       /* its req_nodes: max_nodes unless --use-min-nodes */
	bool range_given;         /* details->max_nodes != 0: -N a-b or -N a */
	uint32_t num_tasks;       /* -n; 0: not given */
	uint32_t min_cpus;        /* details->min_cpus */
	uint16_t cpus_per_task;   /* -c; 0: 1 */
	uint16_t ntasks_per_node; /* 0: not given */
	uint64_t mem_per_cpu;     /* MB, --mem-per-cpu; 0: not given */
	bool overcommit;          /* -O: tasks may outnumber CPUs */
	const char *cannot_tell;  /* set by the caller: a request this model
				   * does not cover (sockets, cores, threads,
				   * GPUs per task, ...), or NULL */
} rlft_demand_t;

/* What one eligible node offers; the caller checks the nodes agree. */
typedef struct rlft_node_cap {
	uint32_t cpus;            /* usable CPUs (specialised ones excluded) */
	uint64_t memory;          /* usable MB */
} rlft_node_cap_t;

typedef struct rlft_count {
	uint32_t lo, hi;          /* node counts that hold the job */
	uint32_t want;            /* the one to try first (Slurm's req_nodes) */
	const char *why_not;      /* when rlft_count() is false: why the job
				   * goes to cons_tres unchanged */
} rlft_count_t;

/*
 * Fills `out` with the node counts that hold the job on nodes like `cap`.
 * RET false (out->why_not says why) when rlft cannot tell, the job fits
 * on one node (no fabric traffic to place), or no count fits: the job then
 * goes to cons_tres as it came.
 */
extern bool rlft_count(const rlft_demand_t *d, const rlft_node_cap_t *cap,
		       rlft_count_t *out);

/*
 * CPUs the job takes on each of `nodes` nodes when cons_tres spreads it
 * evenly (at least one task's): what a partly used node must still have
 * free to count as free for the placer.
 */
extern uint32_t rlft_cpus_per_node(const rlft_demand_t *d, uint32_t nodes);

#endif
