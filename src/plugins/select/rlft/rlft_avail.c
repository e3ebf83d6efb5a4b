/*****************************************************************************\
 *  rlft_avail.c - what a job asks and which fabric hosts offer it now:
 *  slurmctld's records and cons_tres's counts in libqft's terms.
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

#include "config.h"
#include "src/common/slurm_xlator.h"

#include <string.h>

#include "slurm/slurm.h"
#include "src/common/bitstring.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "src/plugins/select/rlft/rlft_avail.h"
#include "src/plugins/select/rlft/rlft_state.h"

extern rlft_share_need_t rlft_share_need_of(job_record_t *job_ptr, const rlft_demand_t *dm,
					    uint32_t nodes)
{
	job_details_t *d = job_ptr->details;
	rlft_share_need_t n = {
		/* a flag on 24.11, a value on 22.05 (where MCS's 3 has it too:
		 * idle nodes only, the cautious side) */
		.may_share = !(d->whole_node & WHOLE_NODE_REQUIRED) &&
			     !(job_ptr->part_ptr && job_ptr->part_ptr->max_share == 0),
		.cpus = rlft_cpus_per_node(dm, nodes),
	};

	if ((slurm_conf.select_type_param & CR_MEMORY) && d->pn_min_memory != NO_VAL64 &&
	    d->pn_min_memory)
		n.memory = (d->pn_min_memory & MEM_PER_CPU) ?
				   (d->pn_min_memory & ~MEM_PER_CPU) * n.cpus :
				   d->pn_min_memory;
	return n;
}

/*
 * Whether a node running other jobs still has what the job needs: from
 * cons_tres's own counts of allocated CPUs and memory. A node that does
 * not is busy for the placer; one that does is free, as it is for
 * cons_tres, which checks the cores themselves when it allocates.
 */
static bool _has_room(node_record_t *node_ptr, const rlft_share_need_t *need, bool *counted)
{
	uint16_t alloc_cpus = 0;
	uint64_t alloc_mem = 0, mem;
	uint32_t cpus = node_ptr->cpus_efctv ? node_ptr->cpus_efctv : node_ptr->cpus;

	if (!need->may_share || !node_ptr->select_nodeinfo)
		return false;
	if (!*counted) {
		/* a no-op unless a node changed since its last call */
		select_g_select_nodeinfo_set_all();
		*counted = true;
	}
	if (select_g_select_nodeinfo_get(node_ptr->select_nodeinfo, SELECT_NODEDATA_SUBCNT,
					 NODE_STATE_ALLOCATED, &alloc_cpus) ||
	    select_g_select_nodeinfo_get(node_ptr->select_nodeinfo, SELECT_NODEDATA_MEM_ALLOC,
					 NODE_STATE_ALLOCATED, &alloc_mem))
		return false;
	if (alloc_cpus >= cpus || cpus - alloc_cpus < need->cpus)
		return false;
	mem = node_ptr->real_memory > node_ptr->mem_spec_limit ?
		      node_ptr->real_memory - node_ptr->mem_spec_limit : 0;
	return !need->memory || (alloc_mem <= mem && mem - alloc_mem >= need->memory);
}

extern void rlft_avail_of(job_record_t *job_ptr, bitstr_t *bitmap,
			  const rlft_share_need_t *need, rlft_avail_t *a)
{
	const rlft_state_t *st = rlft_state();
	size_t hosts = st->lib->fabric_host_count(st->fabric);
	bitstr_t *req_bitmap = job_ptr->details ? job_ptr->details->req_node_bitmap : NULL;
	bool counted = false;

	memset(a, 0, sizeof(*a));
	a->eligible = xcalloc(MAX(hosts, 1), 1);
	a->busy = xcalloc(MAX(hosts, 1), 1);
	a->req = xcalloc(MAX(hosts, 1), sizeof(size_t));
	for (int i = 0; i < bit_size(bitmap) && i < st->host_of_node_cnt; i++) {
		int h = st->host_of_node[i];
		if (h < 0 || !bit_test(bitmap, i))
			continue;
		a->eligible[h] = 1;
		a->eligible_cnt++;
		if (!bit_test(idle_node_bitmap, i)) {
			bool room = _has_room(st->node_of_host[h], need, &counted);

			/* the placer holds such a node for its running
			 * jobs: tell it the job fits beside them */
			a->busy[h] = room ? QFT_HOST_SHARED : 1;
			a->partly_used += room;
		}
		a->free_cnt += !a->busy[h] || a->busy[h] == QFT_HOST_SHARED;
		if (req_bitmap && bit_test(req_bitmap, i))
			a->req[a->nreq++] = h;
	}
}

extern void rlft_avail_free(rlft_avail_t *a)
{
	xfree(a->eligible);
	xfree(a->busy);
	xfree(a->req);
}

static bool _set16(uint16_t v)
{
	return v && v != NO_VAL16 && v != INFINITE16;
}

/* Whether TRES per task names only CPUs: Slurm 24.11 writes -c N there
 * too ("cpu=N"), besides details->cpus_per_task, which the count uses. */
static bool _only_cpus(const char *tres_per_task)
{
	for (const char *p = tres_per_task; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, "cpu=", 4))
			return false;
	return true;
}

/* A request the node count model does not cover, or NULL. */
static const char *_cannot_tell(job_record_t *job_ptr)
{
	job_details_t *d = job_ptr->details;
	multi_core_data_t *mc = d->mc_ptr;

	if (mc && (_set16(mc->sockets_per_node) || _set16(mc->cores_per_socket) ||
		   _set16(mc->threads_per_core) || _set16(mc->ntasks_per_socket) ||
		   _set16(mc->ntasks_per_core) || _set16(mc->ntasks_per_board)))
		return "sockets, cores or threads requested";
	if (job_ptr->cpus_per_tres || !_only_cpus(job_ptr->tres_per_task) || job_ptr->tres_per_job ||
	    _set16(d->ntasks_per_tres))
		return "GPUs or other TRES per job, task or CPU requested";
	return NULL;
}

/* What every node of the bitmap in the fabric offers; false if they differ
 * (cons_tres would need a count that depends on which nodes it picks). */
static bool _node_cap(bitstr_t *bitmap, rlft_node_cap_t *cap)
{
	const rlft_state_t *st = rlft_state();
	bool first = true;
	node_record_t *node_ptr;

	for (int i = 0; (node_ptr = next_node(&i)); i++) {
		rlft_node_cap_t c;

		if (i >= bit_size(bitmap) || !bit_test(bitmap, i) || i >= st->host_of_node_cnt ||
		    st->host_of_node[i] < 0)
			continue;
		c.cpus = node_ptr->cpus_efctv ? node_ptr->cpus_efctv : node_ptr->cpus;
		c.memory = node_ptr->real_memory > node_ptr->mem_spec_limit ?
				   node_ptr->real_memory - node_ptr->mem_spec_limit : 0;
		if (first)
			*cap = c;
		else if (c.cpus != cap->cpus || c.memory != cap->memory)
			return false;
		first = false;
	}
	return !first;
}

extern rlft_demand_t rlft_demand_of(job_record_t *job_ptr, uint32_t min_nodes,
				    uint32_t max_nodes, uint32_t req_nodes)
{
	job_details_t *d = job_ptr->details;
	rlft_demand_t dm = {
		.min_nodes = min_nodes,
		.max_nodes = max_nodes,
		.req_nodes = req_nodes,
		.range_given = d->max_nodes != 0,
		.num_tasks = d->num_tasks == NO_VAL ? 0 : d->num_tasks,
		.min_cpus = d->min_cpus == NO_VAL ? 0 : d->min_cpus,
		.cpus_per_task = _set16(d->cpus_per_task) ? d->cpus_per_task : 1,
		.ntasks_per_node = _set16(d->ntasks_per_node) ? d->ntasks_per_node : 0,
		.mem_per_cpu = (d->pn_min_memory & MEM_PER_CPU) && d->pn_min_memory != NO_VAL64 ?
				       d->pn_min_memory & ~MEM_PER_CPU : 0,
		.overcommit = d->overcommit && d->overcommit != NO_VAL8,
		.cannot_tell = _cannot_tell(job_ptr),
	};
	return dm;
}

extern bool rlft_count_on(const rlft_demand_t *dm, bitstr_t *bitmap, rlft_count_t *out)
{
	rlft_demand_t d = *dm;
	rlft_node_cap_t cap;

	if (!d.cannot_tell && !_node_cap(bitmap, &cap))
		d.cannot_tell = "the nodes differ in CPUs or memory";
	return rlft_count(&d, &cap, out);
}
