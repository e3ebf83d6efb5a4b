/*****************************************************************************\
 *  topology_qft.c - topology/qft: the fat-tree (PGFT / RLFT) topology of
 *  an InfiniBand fabric, for Slurm 22.05.
 *
 *  In slurmctld: reads the fabric named in qft.conf (beside slurm.conf)
 *  when slurmctld ranks its nodes, once per start or reconfigure, ranks
 *  them in tree order so that every node bitmap is in tree order, and
 *  fills Slurm's switch table from the same fabric; select/rlft borrows
 *  that fabric (qft_conf.h). A fabric that fails to load on reconfigure
 *  leaves the one in use for all three.
 *
 *  In slurmd (which ranks no nodes): no fabric, as configless slurmd gets
 *  no qft.conf; the node's switch path, its topology address, comes from
 *  slurmctld's switch table.
 *
 *  All fabric work is libqft's; this file translates.
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *
 *  This program is free software; you can redistribute it and/or modify it
 *  under the terms of the GNU General Public License as published by the
 *  Free Software Foundation; either version 2 of the License, or (at your
 *  option) any later version.
 *
 *  This program is distributed in the hope that it will be useful, but
 *  WITHOUT ANY WARRANTY; without even the implied warranty of
 *  MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 *  General Public License for more details.
 *
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

/* Slurm's config.h, then slurm_xlator.h before any other Slurm header. */
#include "config.h"
#include "src/common/slurm_xlator.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"
#include "src/common/bitstring.h"
#include "src/common/hostlist.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/parse_config.h"
#include "src/common/read_config.h"
#include "src/common/slurm_topology.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "qft/qft.h"
#include "src/plugins/common/qft_conf.h"

const char plugin_name[] = "topology QFT plugin";
const char plugin_type[] = "topology/qft";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* slurmctld's fabric in use, shared with select/rlft; replaced only by a
 * fabric that loaded completely. `fabric` is shared->fabric. Only node
 * ranking loads it, so it stays NULL in slurmd. (No running_in_slurmctld():
 * it compares the program name, and Debian's is slurmctld-wlm.) */
static qft_shared_fabric_t *shared = NULL;
static qft_fabric_t *fabric = NULL;

extern qft_shared_fabric_t *qft_topology_fabric_get(uint32_t abi, uint32_t size,
						    const char *libqft);

static int _load_fabric(void);
static int _fabric_addr(char *node_name, char **paddr, char **ppattern);
static int _controller_addr(char *node_name, char **paddr, char **ppattern);
static void _free_switch_table(void);
static int _build_switch_table(void);
static void _report_node_mismatch(void);
static void _log_report(const char *report);

extern int init(void)
{
	verbose("%s: %s loaded (libqft %s)", plugin_type, plugin_name,
		qft_version());
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	_free_switch_table();
	/* select/rlft may still hold it: the last holder frees it */
	qft_shared_fabric_release(shared);
	shared = NULL;
	fabric = NULL;
	return SLURM_SUCCESS;
}

/*
 * qft_topology_fabric_get - slurmctld's fabric for select/rlft
 *	(QFT_TOPOLOGY_FABRIC_SYM, see qft_conf.h)
 * IN abi, size, libqft - the caller's build
 * RET the fabric in use, held for the caller, or NULL if there is none
 *	or the caller is of another build
 */
extern qft_shared_fabric_t *qft_topology_fabric_get(uint32_t abi, uint32_t size,
						    const char *libqft)
{
	if (!qft_shared_fabric_compatible(abi, size, libqft)) {
		error("%s: a plugin of another build (libqft %s) asked for the fabric; this is libqft %s",
		      plugin_type, libqft ? libqft : "?", qft_version());
		return NULL;
	}
	return qft_shared_fabric_hold(shared);
}

/*
 * topo_generate_node_ranking - load the fabric (slurmctld, at start and
 *	on every reconfigure, before topo_build_config) and set node_rank of
 *	every node to its tree index, so that slurmctld orders its node table
 *	(and so every node bitmap) in tree order. Nodes the fabric lacks
 *	follow, in name order. A fabric that fails to load keeps the one in
 *	use: nodes are ranked, and the switch table built, from that one.
 * RET true if node_rank was set
 */
extern bool topo_generate_node_ranking(void)
{
	node_record_t *node_ptr;
	uint32_t rank_base = 0, unplaced = 0;
	uint64_t index;

	(void) _load_fabric(); /* on failure the fabric in use stays */
	if (!fabric)
		return false;

	for (int i = 0; (node_ptr = next_node(&i)); i++)
		if (qft_fabric_tree_index(fabric, node_ptr->name, &index,
					  NULL) == QFT_OK &&
		    index >= rank_base)
			rank_base = index + 1;
	for (int i = 0; (node_ptr = next_node(&i)); i++) {
		if (qft_fabric_tree_index(fabric, node_ptr->name, &index,
					  NULL) == QFT_OK)
			node_ptr->node_rank = index;
		else
			node_ptr->node_rank = rank_base + unplaced++;
	}
	debug("%s: ranked %d nodes in tree order, %u outside the fabric",
	      plugin_type, node_record_count, unplaced);
	return true;
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

	if (!fabric) {
		if (!said)
			info("%s: no fabric in this daemon (it ranks no nodes: slurmd); topology addresses come from slurmctld's switch table",
			     plugin_type);
		said = true;
		return SLURM_SUCCESS;
	}
	if (!node_record_count)
		return SLURM_SUCCESS;
	_report_node_mismatch();
	return _build_switch_table();
}

/*
 * topo_get_node_addr - the node's switch path, top first
 *	(e.g. "L3-0.L2-1.L1-20.n0380", pattern "switch.switch.switch.node"):
 *	from the fabric in slurmctld, from slurmctld's switch table in slurmd
 *	(slurmd, SLURM_TOPOLOGY_ADDR); just the node name if slurmctld cannot
 *	tell
 * RET SLURM_ERROR for a name that is no node of slurm.conf
 */
extern int topo_get_node_addr(char *node_name, char **paddr, char **ppattern)
{
	if (!node_name || !find_node_record2(node_name))
		return SLURM_ERROR;
	if (fabric)
		return _fabric_addr(node_name, paddr, ppattern);
	return _controller_addr(node_name, paddr, ppattern);
}

/* Reads qft.conf and the fabric it names. A failure keeps the fabric in
 * use and is an error; with no fabric yet (slurmctld's start-up: only node
 * ranking loads) it is fatal, as a broken topology.conf is for
 * topology/tree. */
static int _load_fabric(void)
{
	qft_conf_t conf;
	qft_fabric_t *fresh = NULL;
	char *why = NULL;

	if (qft_conf_read(&conf, &why) != SLURM_SUCCESS ||
	    qft_conf_load_fabric(&conf, &fresh, &why) != SLURM_SUCCESS) {
		qft_conf_free(&conf);
		if (!shared)
			fatal("%s: %s", plugin_type, why);
		error("%s: %s; keeping the fabric loaded from %s",
		      plugin_type, why, shared->source);
		xfree(why);
		return SLURM_ERROR;
	}
	qft_shared_fabric_release(shared); /* select/rlft may hold it still */
	shared = qft_shared_fabric_create(fresh, conf.fabric_file);
	fabric = shared->fabric;
	info("%s: fabric %s: PGFT(%s), %zu hosts, %zu switch groups, routing %s",
	     plugin_type, shared->source, qft_fabric_tuple(fabric),
	     qft_fabric_host_count(fabric), qft_fabric_group_count(fabric),
	     qft_fabric_routing(fabric));
	_log_report(qft_fabric_report(fabric));
	qft_conf_free(&conf);
	return SLURM_SUCCESS;
}

/* The node's switch path in the fabric. */
static int _fabric_addr(char *node_name, char **paddr, char **ppattern)
{
	size_t ord, group;
	char *addr = NULL, *pattern = NULL;

	ord = qft_fabric_find_host(fabric, node_name);
	group = ord == QFT_NONE ? QFT_NONE : qft_fabric_host_group(fabric, ord);
	/* Prepend each group from the leaf up: the address reads top first. */
	while (group != QFT_NONE) {
		const qft_group_t *g = qft_fabric_group(fabric, group);
		char *tmp = xstrdup_printf("%s.%s", g->name, addr ? addr : "");
		xfree(addr);
		addr = tmp;
		xstrcat(pattern, "switch.");
		group = g->parent;
	}
	xstrcat(addr, node_name);
	xstrcat(pattern, "node");
	*paddr = addr;
	*ppattern = pattern;
	return SLURM_SUCCESS;
}

/* The node's switch path from slurmctld's switch table (the records of
 * `scontrol show topology`): the lowest switch that lists the node, then
 * each switch that lists the one below, up to the top. slurmd has no
 * fabric: configless slurmd gets neither qft.conf nor the fabric file. */
static int _controller_addr(char *node_name, char **paddr, char **ppattern)
{
	topo_info_response_msg_t *msg = NULL;
	topo_info_t *rec = NULL;
	char *addr = NULL, *pattern = NULL;
	uint32_t steps = 0;

	if (slurm_load_topo(&msg) != SLURM_SUCCESS) {
		debug("%s: no switch table from slurmctld (%s): topology address of %s is its name",
		      plugin_type, slurm_strerror(slurm_get_errno()), node_name);
		msg = NULL;
	}
	for (uint32_t i = 0; msg && i < msg->record_count; i++) {
		topo_info_t *r = &msg->topo_array[i];
		hostlist_t hl;

		if (!r->nodes || (rec && r->level >= rec->level))
			continue;
		hl = hostlist_create(r->nodes);
		if (hl && hostlist_find(hl, node_name) >= 0)
			rec = r;
		hostlist_destroy(hl);
	}
	xstrcat(addr, node_name);
	xstrcat(pattern, "node");
	/* prepend each switch from the leaf up; a cycle stops at the count */
	while (rec && steps++ <= msg->record_count) {
		topo_info_t *parent = NULL;
		char *tmp = xstrdup_printf("%s.%s", rec->name, addr);

		xfree(addr);
		addr = tmp;
		tmp = xstrdup_printf("switch.%s", pattern);
		xfree(pattern);
		pattern = tmp;
		for (uint32_t i = 0; i < msg->record_count && !parent; i++) {
			topo_info_t *r = &msg->topo_array[i];
			hostlist_t hl;

			if (!r->switches || r == rec)
				continue;
			hl = hostlist_create(r->switches);
			if (hl && hostlist_find(hl, rec->name) >= 0)
				parent = r;
			hostlist_destroy(hl);
		}
		rec = parent;
	}
	if (msg && !steps)
		debug("%s: slurmctld's switch table does not hold %s: topology address is its name",
		      plugin_type, node_name);
	if (msg)
		slurm_free_topo_info_msg(msg);
	*paddr = addr;
	*ppattern = pattern;
	return SLURM_SUCCESS;
}

/* The recognition's findings (missing cables and switches, unnamed hosts),
 * a warning each: the admin sees what to re-cable. */
static void _log_report(const char *report)
{
	const char *line = report;
	int count = 0;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		int len = end ? (int) (end - line) : (int) strlen(line);
		if (count++ < 100)
			error("%s: WARNING: %.*s", plugin_type, len, line);
		line = end ? end + 1 : NULL;
	}
	if (count > 100)
		error("%s: WARNING: %d more findings; run 'qft recognise' on the fabric for all",
		      plugin_type, count - 100);
}

/* Nodes of slurm.conf the fabric lacks, and fabric hosts slurm.conf lacks:
 * warnings, as topology/tree warns about nodes outside every switch. */
static void _report_node_mismatch(void)
{
	node_record_t *node_ptr;
	hostlist_t missing = hostlist_create(NULL);
	hostlist_t extra = hostlist_create(NULL);
	char *names;

	for (int i = 0; (node_ptr = next_node(&i)); i++)
		if (qft_fabric_find_host(fabric, node_ptr->name) == QFT_NONE)
			hostlist_push_host(missing, node_ptr->name);
	for (size_t h = 0; h < qft_fabric_host_count(fabric); h++) {
		const char *name = qft_fabric_host_name(fabric, h);
		if (!name[0] || !find_node_record2((char *) name))
			hostlist_push_host(extra, name[0] ? name : "(unnamed)");
	}
	if (hostlist_count(missing)) {
		names = hostlist_ranged_string_xmalloc(missing);
		error("%s: WARNING: %d nodes of slurm.conf are not in fabric %s, they join no switch and rank last: %s",
		      plugin_type, hostlist_count(missing), shared->source,
		      names);
		xfree(names);
	}
	if (hostlist_count(extra)) {
		names = hostlist_ranged_string_xmalloc(extra);
		info("%s: %d hosts of fabric %s are not nodes of slurm.conf and are ignored: %s",
		     plugin_type, hostlist_count(extra), shared->source, names);
		xfree(names);
	}
	hostlist_destroy(missing);
	hostlist_destroy(extra);
}

static void _free_switch_table(void)
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

/* Switch hops between two groups of the tree, through their common
 * ancestor. */
static uint32_t _group_distance(size_t a, size_t b)
{
	uint32_t da = 0, db;
	for (size_t x = a; x != QFT_NONE; x = qft_fabric_group(fabric, x)->parent, da++) {
		db = 0;
		for (size_t y = b; y != QFT_NONE; y = qft_fabric_group(fabric, y)->parent, db++)
			if (x == y)
				return da + db;
	}
	return INFINITE;
}

static void _add_descendants(switch_record_t *s, size_t group)
{
	const qft_group_t *g = qft_fabric_group(fabric, group);
	for (size_t c = 0; c < g->child_count; c++) {
		s->switch_desc_index[s->num_desc_switches++] = g->children[c];
		_add_descendants(s, g->children[c]);
	}
}

/* One switch record per group, in the library's order (leaves first), so
 * that record index == group index. */
static int _build_switch_table(void)
{
	size_t count = qft_fabric_group_count(fabric);
	hostlist_t hl;

	_free_switch_table();
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
		s->node_bitmap = bit_alloc(node_record_count);
		for (size_t h = 0; h < g->host_count; h++) {
			node_record_t *node_ptr = find_node_record2(
				(char *) qft_fabric_host_name(fabric, g->hosts[h]));
			if (node_ptr)
				bit_set(s->node_bitmap, node_ptr->index);
		}
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
			s->switches_dist[j] = _group_distance(i, j);
		debug2("%s: switch %s level %d nodes %s switches %s, physical: %s",
		       plugin_type, s->name, s->level, s->nodes, s->switches,
		       g->switches);
	}
	info("%s: switch table of %d records on %d levels", plugin_type,
	     switch_record_cnt, switch_levels + 1);
	return SLURM_SUCCESS;
}
