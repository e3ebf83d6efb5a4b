/*****************************************************************************\
 *  topology_qft_24.c - topology/qft's Slurm 24.11 interface: the fourteen
 *  topology_p_* calls. Since 23.02 the switch table is private to each
 *  topology plugin, so this one keeps its own (one record per switch
 *  group of the fabric, record index == group index), serves it to
 *  `scontrol show topology` through pack/unpack/print, and answers
 *  switch{NAME} and exclusive=topo requests from it.
 *
 *  cons_tres asks the plugin to choose a job's nodes (eval_nodes). Under
 *  select/rlft its placer has narrowed them already. Under stock cons_tres
 *  the same placer (rlft_place.c, built in here too) narrows them here.
 *  Either way Slurm's common choice (src/plugins/topology/common, built
 *  into this plugin) then picks cores, memory and GRES on those nodes.
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

#include <errno.h>

#include "src/plugins/common/qft_slurm.h"

#include "src/common/bitstring.h"
#include "src/common/core_array.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/pack.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/plugins/topology/common/common_topo.h"

#include "src/plugins/select/rlft/rlft_env.h"
#include "src/plugins/select/rlft/rlft_chosen.h"
#include "src/plugins/select/rlft/rlft_place.h"
#include "src/plugins/select/rlft/rlft_state.h"
#include "src/plugins/topology/qft/topology_qft.h"

/*
 * plugin_id: what topology_g_topology_pack() writes in front of the
 * switch table and the receiving side (scontrol, slurmd) checks against
 * its own plugin. Slurm's are 100-103; 2000 above topology/tree's, as
 * select/rlft is 2000 above cons_tres.
 */
const uint32_t plugin_id = 2102;

/* What `scontrol show topology` receives: the switch records. */
typedef struct {
	uint32_t count;
	topo_info_t *recs;
} qft_topoinfo_t;

/* The placer chooses nodes here: slurmctld with a fabric, and a
 * SelectType other than select/rlft (which places in its job_test). */
static bool placing = false;
static void _forget_last(void);

/* slurmctld's switch table, the nodes below each record, and below any. */
static topo_info_t *recs = NULL;
static bitstr_t **rec_nodes = NULL;
static uint32_t rec_cnt = 0;
static bitstr_t *fabric_nodes = NULL;

static void _free_recs(topo_info_t *r, uint32_t count)
{
	for (uint32_t i = 0; r && i < count; i++) {
		xfree(r[i].name);
		xfree(r[i].nodes);
		xfree(r[i].switches);
	}
	xfree(r);
}

extern void qft_topo_free_table(void)
{
	for (uint32_t i = 0; rec_nodes && i < rec_cnt; i++)
		FREE_NULL_BITMAP(rec_nodes[i]);
	xfree(rec_nodes);
	FREE_NULL_BITMAP(fabric_nodes);
	_free_recs(recs, rec_cnt);
	recs = NULL;
	rec_cnt = 0;
}

static void _build_table(qft_fabric_t *fabric)
{
	size_t count = qft_fabric_group_count(fabric);
	uint16_t levels = 0;

	qft_topo_free_table();
	recs = xcalloc(MAX(count, 1), sizeof(topo_info_t));
	rec_nodes = xcalloc(MAX(count, 1), sizeof(bitstr_t *));
	rec_cnt = count;
	for (size_t i = 0; i < count; i++) {
		const qft_group_t *g = qft_fabric_group(fabric, i);
		qft_hostlist_t hl = hostlist_create(NULL);

		recs[i].level = g->level - 1; /* Slurm: leaf switches are level 0 */
		levels = MAX(levels, recs[i].level + 1);
		recs[i].link_speed = g->link_gbps;
		recs[i].name = xstrdup(g->name);
		rec_nodes[i] = qft_topo_group_nodes(i);
		if (!fabric_nodes)
			fabric_nodes = bit_alloc(node_record_count);
		bit_or(fabric_nodes, rec_nodes[i]);
		/* all nodes below, as topology/tree shows them */
		recs[i].nodes = bitmap2node_name(rec_nodes[i]);
		for (size_t c = 0; c < g->child_count; c++)
			hostlist_push_host(hl, qft_fabric_group(fabric, g->children[c])->name);
		if (g->child_count)
			recs[i].switches = hostlist_ranged_string_xmalloc(hl);
		hostlist_destroy(hl);
	}
	info("%s: switch table of %u records on %u levels", plugin_type, rec_cnt, levels);
}

/*
 * topology_p_build_config - the switch table after start-up or
 *	reconfiguration, from the fabric the nodes were ranked with
 *	(slurmctld ranks them first). slurmd and the clients rank no nodes:
 *	they keep no table and need no fabric.
 */
extern int topology_p_build_config(void)
{
	static bool said = false;
	qft_fabric_t *fabric = qft_topo_fabric();

	if (!fabric) {
		/* daemons say it; clients (which load the plugin too) only
		 * with -v, as info() would go to their stderr */
		if (!said && running_in_daemon())
			info("%s: no fabric in this daemon (it ranks no nodes: slurmd); topology addresses come from slurmctld's switch table",
			     plugin_type);
		else if (!said)
			verbose("%s: no fabric in this process (it ranks no nodes); topology addresses come from slurmctld's switch table",
				plugin_type);
		said = true;
		return SLURM_SUCCESS;
	}
	if (!node_record_count)
		return SLURM_SUCCESS;
	qft_topo_report_mismatch();
	_build_table(fabric);
	placing = qft_in_slurmctld() && xstrcmp(slurm_conf.select_type, "select/rlft");
	_forget_last(); /* node indexes may have changed */
	if (placing) {
		info("%s: SelectType=%s: topology/qft places jobs in eval_nodes (select/rlft would also give them their QFT_* environment and LID choice)",
		     plugin_type, slurm_conf.select_type);
		rlft_node_init(NULL); /* (re)reads qft.conf, takes this fabric */
	}
	return SLURM_SUCCESS;
}

extern void qft_topo_fini_placement(void)
{
	_forget_last();
	if (placing)
		rlft_fini();
	placing = false;
}

/* The last decision: cons_tres evaluates a job several times in one
 * job_test (nodes free now, then with shared and preemptable ones) and
 * every pending job in each scheduling cycle; while no job started or
 * ended, the same job on the same nodes gets the same answer. */
static struct {
	uint32_t job_id, min, max, req;
	bitstr_t *offered, *chosen; /* chosen: NULL unless placed */
	uint32_t count;
} last;

static void _forget_last(void)
{
	last.job_id = 0;
	FREE_NULL_BITMAP(last.offered);
	FREE_NULL_BITMAP(last.chosen);
}

/* The placer's answer for the job on te->node_map, or the last one. */
static int _choose(topology_eval_t *te, uint32_t *count)
{
	bool changed = rlft_sync_jobs();
	int rc;

	if (!changed && last.offered && last.job_id == te->job_ptr->job_id &&
	    last.min == te->min_nodes && last.max == te->max_nodes && last.req == te->req_nodes &&
	    bit_equal(last.offered, te->node_map)) {
		if (!last.chosen)
			return SLURM_ERROR;
		bit_copybits(te->node_map, last.chosen);
		*count = last.count;
		return RLFT_RESTRICTED;
	}
	_forget_last();
	last.job_id = te->job_ptr->job_id;
	last.min = te->min_nodes;
	last.max = te->max_nodes;
	last.req = te->req_nodes;
	last.offered = bit_copy(te->node_map);
	rc = rlft_job_test(te->job_ptr, te->node_map, te->min_nodes, te->max_nodes,
			   te->req_nodes, SELECT_MODE_RUN_NOW, NULL, count);
	if (rc == RLFT_RESTRICTED) {
		last.chosen = bit_copy(te->node_map);
		last.count = *count;
	}
	return rc;
}

/* Narrows the job to the nodes the placer chose and lets Slurm's common
 * choice pick resources there. A job the placer cannot place now, or
 * whose CPUs, memory or GRES do not fit the chosen nodes, gets the common
 * choice on every node offered: without select/rlft there is no scheduling
 * mode here to tell a start from a backfill estimate, so no job waits for
 * a shape. */
static int _place(topology_eval_t *te)
{
	struct timespec t0;
	uint32_t count = 0, min = te->min_nodes, max = te->max_nodes, req = te->req_nodes;
	bitstr_t *offered;
	bitstr_t **cores;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	offered = bit_copy(te->node_map);
	cores = copy_core_array(te->avail_core);
	/* anything but a placement (RLFT_PASS is 0, as SLURM_SUCCESS is):
	 * Slurm's own choice on every node offered */
	if (_choose(te, &count) == RLFT_RESTRICTED) {
		long placed_usec = rlft_usec_since(&t0);

		te->min_nodes = te->max_nodes = te->req_nodes = count;
		rc = common_topo_choose_nodes(te);
		log_flag(SELECT_TYPE, "%s: %pJ on %u nodes the placer chose: %s; placement %ld us, eval_nodes %ld us",
			 plugin_type, te->job_ptr, count,
			 rc == SLURM_SUCCESS ? "resources found" : "resources do not fit, common choice",
			 placed_usec, rlft_usec_since(&t0));
		if (rc == SLURM_SUCCESS)
			goto out;
		te->min_nodes = min;
		te->max_nodes = max;
		te->req_nodes = req;
		core_array_or(te->avail_core, cores);
	}
	bit_copybits(te->node_map, offered);
	rc = common_topo_choose_nodes(te);
out:
	rlft_forget_choice(te->job_ptr);
	FREE_NULL_BITMAP(offered);
	free_core_array(&cores);
	return rc;
}

/* As topology/tree: nodes outside every switch never join nodes inside
 * one in a job. A job that requires some of both is refused; one that
 * requires nodes outside gets only those; any other only fabric nodes. */
static int _one_side(topology_eval_t *te)
{
	bitstr_t *req = te->job_ptr && te->job_ptr->details ? te->job_ptr->details->req_node_bitmap : NULL;
	bool req_in = req && bit_overlap_any(req, fabric_nodes);
	bool req_out = req && bit_set_count(req) > bit_overlap(req, fabric_nodes);

	if (req_in && req_out) {
		log_flag(SELECT_TYPE, "%s: %pJ requires nodes inside and outside fabric %s: refused, as topology/tree refuses nodes in no common switch",
			 plugin_type, te->job_ptr, qft_topo_source());
		return SLURM_ERROR;
	}
	if (req_out)
		bit_and_not(te->node_map, fabric_nodes);
	else
		bit_and(te->node_map, fabric_nodes);
	return SLURM_SUCCESS;
}

/*
 * topology_p_eval_nodes - choose the job's nodes, cores and GRES inside
 *	topo_eval->node_map: the placer's nodes (under select/rlft the map
 *	holds just those already), then Slurm's common choice there (best fit
 *	in node order, which is tree order).
 */
extern int topology_p_eval_nodes(topology_eval_t *topo_eval)
{
	topo_eval->eval_nodes = NULL;
	topo_eval->trump_others = false;
	if (fabric_nodes && topo_eval->node_map && _one_side(topo_eval) != SLURM_SUCCESS)
		return SLURM_ERROR;
	if (placing && topo_eval->job_ptr && topo_eval->node_map)
		return _place(topo_eval);
	return common_topo_choose_nodes(topo_eval);
}

/* Widens node_mask to whole leaf switches (exclusive=topo jobs, and
 * switchwith{NODE} in node lists). */
extern int topology_p_whole_topo(bitstr_t *node_mask)
{
	for (uint32_t i = 0; i < rec_cnt; i++)
		if (recs[i].level == 0 && bit_overlap_any(rec_nodes[i], node_mask))
			bit_or(node_mask, rec_nodes[i]);
	return SLURM_SUCCESS;
}

/* The nodes below switch NAME (switch{NAME} in node lists); not to be
 * freed. */
extern bitstr_t *topology_p_get_bitmap(char *name)
{
	for (uint32_t i = 0; i < rec_cnt; i++)
		if (!xstrcmp(recs[i].name, name))
			return rec_nodes[i];
	return NULL;
}

extern bool topology_p_generate_node_ranking(void)
{
	return qft_topo_rank_nodes();
}

/*
 * topology_p_get_node_addr - the node's switch path, top first: from the
 *	fabric in slurmctld, from slurmctld's switch table elsewhere
 *	(slurmd: SLURM_TOPOLOGY_ADDR); the node name if slurmctld cannot tell
 * RET SLURM_ERROR for a name that is no node of slurm.conf
 */
extern int topology_p_get_node_addr(char *node_name, char **paddr, char **ppattern)
{
	topo_info_response_msg_t *msg = NULL;
	qft_topoinfo_t *ti = NULL;

	if (!node_name || !find_node_record(node_name))
		return SLURM_ERROR;
	if (qft_topo_fabric())
		return qft_topo_fabric_addr(node_name, paddr, ppattern);
	if (slurm_load_topo(&msg) != SLURM_SUCCESS) {
		debug("%s: no switch table from slurmctld (%s): topology address of %s is its name",
		      plugin_type, slurm_strerror(errno), node_name);
		msg = NULL;
	}
	if (msg && msg->topo_info && msg->topo_info->plugin_id == plugin_id)
		ti = msg->topo_info->data;
	qft_topo_records_addr(ti ? ti->recs : NULL, ti ? ti->count : 0, node_name, paddr,
			      ppattern);
	if (msg)
		slurm_free_topo_info_msg(msg);
	return SLURM_SUCCESS;
}

/* Message fan-out (slurmctld to slurmd): by TreeWidth, as topology/tree
 * does unless TopologyParam=RouteTree. */
extern int topology_p_split_hostlist(hostlist_t *hl, hostlist_t ***sp_hl, int *count,
				     uint16_t tree_width)
{
	return common_topo_split_hostlist_treewidth(hl, sp_hl, count, tree_width);
}

extern int topology_p_topology_free(void *topoinfo_ptr)
{
	qft_topoinfo_t *ti = topoinfo_ptr;

	if (ti) {
		_free_recs(ti->recs, ti->count);
		xfree(ti);
	}
	return SLURM_SUCCESS;
}

extern int topology_p_get(topology_data_t type, void *data)
{
	switch (type) {
	case TOPO_DATA_TOPOLOGY_PTR: {
		dynamic_plugin_data_t **out = data;
		qft_topoinfo_t *ti = xmalloc(sizeof(*ti));

		ti->count = rec_cnt;
		ti->recs = xcalloc(MAX(rec_cnt, 1), sizeof(topo_info_t));
		for (uint32_t i = 0; i < rec_cnt; i++) {
			ti->recs[i] = recs[i];
			ti->recs[i].name = xstrdup(recs[i].name);
			ti->recs[i].nodes = xstrdup(recs[i].nodes);
			ti->recs[i].switches = xstrdup(recs[i].switches);
		}
		*out = xmalloc(sizeof(dynamic_plugin_data_t));
		(*out)->data = ti;
		(*out)->plugin_id = plugin_id;
		return SLURM_SUCCESS;
	}
	case TOPO_DATA_REC_CNT:
		*(int *) data = rec_cnt;
		return SLURM_SUCCESS;
	case TOPO_DATA_EXCLUSIVE_TOPO:
		*(int *) data = 0;
		return SLURM_SUCCESS;
	default:
		error("%s: no data of type %d", plugin_type, type);
		return SLURM_ERROR;
	}
}

extern int topology_p_topology_pack(void *topoinfo_ptr, buf_t *buffer,
				    uint16_t protocol_version)
{
	qft_topoinfo_t *ti = topoinfo_ptr;

	pack32(ti->count, buffer);
	for (uint32_t i = 0; i < ti->count; i++) {
		pack16(ti->recs[i].level, buffer);
		pack32(ti->recs[i].link_speed, buffer);
		packstr(ti->recs[i].name, buffer);
		packstr(ti->recs[i].nodes, buffer);
		packstr(ti->recs[i].switches, buffer);
	}
	return SLURM_SUCCESS;
}

extern int topology_p_topology_unpack(void **topoinfo_pptr, buf_t *buffer,
				      uint16_t protocol_version)
{
	qft_topoinfo_t *ti = xmalloc(sizeof(*ti));

	*topoinfo_pptr = ti;
	safe_unpack32(&ti->count, buffer);
	/* a record is at least 2 + 4 + 3 x 4 bytes: no allocation beyond
	 * what the buffer could hold */
	if (ti->count > remaining_buf(buffer) / 18)
		goto unpack_error;
	ti->recs = xcalloc(MAX(ti->count, 1), sizeof(topo_info_t));
	for (uint32_t i = 0; i < ti->count; i++) {
		safe_unpack16(&ti->recs[i].level, buffer);
		safe_unpack32(&ti->recs[i].link_speed, buffer);
		safe_unpackstr(&ti->recs[i].name, buffer);
		safe_unpackstr(&ti->recs[i].nodes, buffer);
		safe_unpackstr(&ti->recs[i].switches, buffer);
	}
	return SLURM_SUCCESS;

unpack_error:
	topology_p_topology_free(ti);
	*topoinfo_pptr = NULL;
	return SLURM_ERROR;
}

static void _print_rec(const topo_info_t *r, char **out)
{
	xstrfmtcat(*out, "SwitchName=%s Level=%u LinkSpeed=%u", r->name, r->level, r->link_speed);
	if (r->nodes)
		xstrfmtcat(*out, " Nodes=%s", r->nodes);
	if (r->switches)
		xstrfmtcat(*out, " Switches=%s", r->switches);
	xstrcat(*out, "\n");
}

static bool _holds(const topo_info_t *r, const char *node)
{
	qft_hostlist_t hl;
	bool found;

	if (!r->nodes || !r->nodes[0])
		return false;
	hl = hostlist_create(r->nodes);
	found = hl && hostlist_find(hl, node) >= 0;
	hostlist_destroy(hl);
	return found;
}

/* `scontrol show topology [NAME]`: every record, the switch NAME, or the
 * switches that hold node NAME; in topology/tree's format. */
extern int topology_p_topology_print(void *topoinfo_ptr, char *nodes_list, char **out)
{
	qft_topoinfo_t *ti = topoinfo_ptr;
	uint32_t shown = 0;

	*out = NULL;
	for (uint32_t i = 0; i < ti->count; i++)
		if (!nodes_list || !nodes_list[0]) {
			_print_rec(&ti->recs[i], out);
			shown++;
		} else if (!xstrcmp(ti->recs[i].name, nodes_list)) {
			_print_rec(&ti->recs[i], out);
			return SLURM_SUCCESS;
		}
	for (uint32_t i = 0; nodes_list && nodes_list[0] && i < ti->count; i++)
		if (_holds(&ti->recs[i], nodes_list)) {
			_print_rec(&ti->recs[i], out);
			shown++;
		}
	if (!shown)
		error("%s: the switch table holds no switch or node named %s", plugin_type,
		      nodes_list && nodes_list[0] ? nodes_list : "(any: slurmctld has no fabric)");
	return SLURM_SUCCESS;
}

/* Backfill's fragmentation score (TopologyParam=... block only). */
extern uint32_t topology_p_get_fragmentation(bitstr_t *node_mask)
{
	return 0;
}
