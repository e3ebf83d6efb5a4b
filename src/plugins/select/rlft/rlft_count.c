/*****************************************************************************\
 *  rlft_count.c - the node count of a job sized by tasks, CPUs, memory or
 *  a node range (rlft_count.h).
 *
 *  cons_tres gives a job whole CPUs on each node it picks and stops adding
 *  nodes once the job's tasks fit; select/rlft must narrow the node bitmap
 *  to exactly as many nodes, or cons_tres cannot fit the job (too few) or
 *  the job holds nodes it does not use (too many).
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *
 *  This program is free software; you can redistribute it and/or modify it
 *  under the terms of the GNU General Public License as published by the
 *  Free Software Foundation; either version 2 of the License, or (at your
 *  option) any later version.
 *
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include "src/plugins/select/rlft/rlft_count.h"

#include <stddef.h>

static uint32_t _min32(uint64_t a, uint64_t b)
{
	uint64_t m = a < b ? a : b;
	return m > UINT32_MAX ? UINT32_MAX : (uint32_t) m;
}

/* Tasks one node holds: its CPUs by -c, capped by --ntasks-per-node and
 * by --mem-per-cpu (which is per CPU: a task of -c CPUs needs c times). */
static uint64_t _tasks_per_node(const rlft_demand_t *d, const rlft_node_cap_t *cap)
{
	uint64_t cpt = d->cpus_per_task ? d->cpus_per_task : 1;
	uint64_t tasks = d->overcommit ? UINT32_MAX : cap->cpus / cpt;

	if (d->ntasks_per_node && d->ntasks_per_node < tasks)
		tasks = d->ntasks_per_node;
	if (d->mem_per_cpu && cap->memory / (d->mem_per_cpu * cpt) < tasks)
		tasks = cap->memory / (d->mem_per_cpu * cpt);
	return tasks;
}

extern bool rlft_count(const rlft_demand_t *d, const rlft_node_cap_t *cap,
		       rlft_count_t *out)
{
	uint64_t cpt = d->cpus_per_task ? d->cpus_per_task : 1;
	uint64_t tasks = d->num_tasks, per_node, need;

	out->lo = out->hi = out->want = 0;
	out->why_not = NULL;
	if (d->cannot_tell) {
		out->why_not = d->cannot_tell;
		return false;
	}
	/* -c alone: min_cpus counts CPUs, a task takes cpus_per_task */
	if (!tasks)
		tasks = (d->min_cpus + cpt - 1) / cpt;
	per_node = _tasks_per_node(d, cap);
	if (!per_node) {
		out->why_not = "one task does not fit on a node";
		return false;
	}
	need = tasks ? (tasks + per_node - 1) / per_node : 1;
	out->lo = _min32(need > d->min_nodes ? need : d->min_nodes, UINT32_MAX);
	/* Without a node range cons_tres stops at the count the tasks need;
	 * with one it takes up to req_nodes, never more nodes than tasks. */
	out->hi = d->range_given ? d->max_nodes : out->lo;
	if (d->range_given && d->num_tasks && !d->overcommit)
		out->hi = _min32(out->hi, d->num_tasks);
	if (out->hi < out->lo) {
		out->why_not = "the tasks need more nodes than the node range allows";
		return false;
	}
	out->want = d->range_given ? d->req_nodes : out->lo;
	if (out->want < out->lo)
		out->want = out->lo;
	if (out->want > out->hi)
		out->want = out->hi;
	if (out->hi == 1) {
		out->why_not = "one node: no fabric traffic to place";
		return false;
	}
	return true;
}

extern uint32_t rlft_cpus_per_node(const rlft_demand_t *d, uint32_t nodes)
{
	uint64_t cpt = d->cpus_per_task ? d->cpus_per_task : 1;
	uint64_t tasks = d->num_tasks ? d->num_tasks : (d->min_cpus + cpt - 1) / cpt;
	uint64_t per_node;

	if (d->ntasks_per_node)
		per_node = d->ntasks_per_node;
	else if (d->overcommit || !nodes)
		per_node = 1; /* -O: tasks share CPUs, one task's worth each */
	else
		per_node = (tasks + nodes - 1) / nodes;
	return _min32((per_node ? per_node : 1) * cpt, UINT32_MAX);
}
