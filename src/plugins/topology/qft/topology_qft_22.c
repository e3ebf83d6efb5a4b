/*****************************************************************************\
 *  topology_qft_22.c - topology/qft's Slurm 22.05 interface: three calls,
 *  and Slurm's own switch table (switch_record_table, src/common), which
 *  cons_tres reads for --switches and `scontrol show topology` lists.
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
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "src/plugins/topology/qft/topology_qft.h"

static int _build_switch_table(void);

/*
 * topo_generate_node_ranking - load the fabric (slurmctld, at start and
 *	on every reconfigure, before topo_build_config) and rank the nodes
 *	in tree order (qft_topo_rank_nodes)
 * RET true if node_rank was set
 */
extern bool topo_generate_node_ranking(void)
{
	return qft_topo_rank_nodes();
}

/*
 * topo_build_config - build or rebuild the switch table after start-up or
 *	reconfiguration, from the fabric the nodes were ranked with
 *	(slurmctld ranks them first). slurmd ranks no nodes: it keeps no
 *	switch table and needs no fabric.
 */
extern int topo_build_config(void)
{
	static bool said = false;

	if (!qft_topo_fabric()) {
		if (!said)
			info("%s: no fabric in this daemon (it ranks no nodes: slurmd); topology addresses come from slurmctld's switch table",
			     plugin_type);
		said = true;
		return SLURM_SUCCESS;
	}
	if (!node_record_count)
		return SLURM_SUCCESS;
	qft_topo_report_mismatch();
	return _build_switch_table();
}

/*
 * topo_get_node_addr - the node's switch path, top first: from the fabric
 *	in slurmctld, from slurmctld's switch table in slurmd
 *	(SLURM_TOPOLOGY_ADDR); just the node name if slurmctld cannot tell
 * RET SLURM_ERROR for a name that is no node of slurm.conf
 */
extern int topo_get_node_addr(char *node_name, char **paddr, char **ppattern)
{
	topo_info_response_msg_t *msg = NULL;

	if (!node_name || !find_node_record2(node_name))
		return SLURM_ERROR;
	if (qft_topo_fabric())
		return qft_topo_fabric_addr(node_name, paddr, ppattern);
	if (slurm_load_topo(&msg) != SLURM_SUCCESS) {
		debug("%s: no switch table from slurmctld (%s): topology address of %s is its name",
		      plugin_type, slurm_strerror(errno), node_name);
		msg = NULL;
	}
	qft_topo_records_addr(msg ? msg->topo_array : NULL, msg ? msg->record_count : 0,
			      node_name, paddr, ppattern);
	if (msg)
		slurm_free_topo_info_msg(msg);
	return SLURM_SUCCESS;
}

/* select/rlft places on 22.05: nothing to release here. */
extern void qft_topo_fini_placement(void)
{
}

extern void qft_topo_free_table(void)
{
	for (int i = 0; i < switch_record_cnt; i++) {
		switch_record_t *s = &switch_record_table[i];
		xfree(s->name);
		xfree(s->nodes);
		xfree(s->switches);
		xfree(s->switches_dist);
		xfree(s->switch_desc_index);
		xfree(s->switch_index);
		FREE_NULL_BITMAP(s->node_bitmap);
	}
	xfree(switch_record_table);
	switch_record_cnt = 0;
	switch_levels = 0;
}

static void _add_descendants(switch_record_t *s, size_t group)
{
	const qft_group_t *g = qft_fabric_group(qft_topo_fabric(), group);
	for (size_t c = 0; c < g->child_count; c++) {
		s->switch_desc_index[s->num_desc_switches++] = g->children[c];
		_add_descendants(s, g->children[c]);
	}
}

/* One switch record per group, in the library's order (leaves first), so
 * that record index == group index. */
static int _build_switch_table(void)
{
	qft_fabric_t *fabric = qft_topo_fabric();
	size_t count = qft_fabric_group_count(fabric);
	qft_hostlist_t hl;

	qft_topo_free_table();
	if (count >= UINT16_MAX) {
		error("%s: %zu switch groups, Slurm's switch table holds at most %u",
		      plugin_type, count, UINT16_MAX - 1);
		return SLURM_ERROR;
	}
	switch_record_table = xcalloc(count, sizeof(switch_record_t));
	switch_record_cnt = count;
	for (size_t i = 0; i < count; i++) {
		const qft_group_t *g = qft_fabric_group(fabric, i);
		switch_record_t *s = &switch_record_table[i];

		s->level = g->level - 1; /* Slurm: leaf switches are level 0 */
		switch_levels = MAX(switch_levels, s->level);
		s->name = xstrdup(g->name);
		s->link_speed = g->link_gbps;
		/* a root is its own parent: cons_tres climbs while parent != i */
		s->parent = g->parent == QFT_NONE ? i : g->parent;
		s->node_bitmap = qft_topo_group_nodes(i);
		/* all nodes below, as topology/tree shows them */
		s->nodes = bitmap2node_name(s->node_bitmap);
		s->num_switches = g->child_count;
		s->switch_index = xcalloc(g->child_count + 1, sizeof(uint16_t));
		hl = hostlist_create(NULL);
		for (size_t c = 0; c < g->child_count; c++) {
			s->switch_index[c] = g->children[c];
			hostlist_push_host(hl, qft_fabric_group(fabric, g->children[c])->name);
		}
		if (g->child_count)
			s->switches = hostlist_ranged_string_xmalloc(hl);
		hostlist_destroy(hl);
		s->switch_desc_index = xcalloc(count, sizeof(uint16_t));
		_add_descendants(s, i);
		s->switches_dist = xcalloc(count, sizeof(uint32_t));
		for (size_t j = 0; j < count; j++)
			s->switches_dist[j] = qft_topo_group_distance(i, j);
		debug2("%s: switch %s level %d nodes %s switches %s, physical: %s",
		       plugin_type, s->name, s->level, s->nodes, s->switches,
		       g->switches);
	}
	info("%s: switch table of %d records on %d levels", plugin_type,
	     switch_record_cnt, switch_levels + 1);
	return SLURM_SUCCESS;
}
