/*****************************************************************************\
 *  topology_qft.c - topology/qft: the fat-tree (PGFT / RLFT) topology of
 *  an InfiniBand fabric; the part shared by Slurm 22.05 and 24.11, whose
 *  plugin interfaces are in topology_qft_22.c and topology_qft_24.c.
 *
 *  In slurmctld: reads the fabric named in qft.conf (beside slurm.conf)
 *  when slurmctld ranks its nodes, once per start or reconfigure, ranks
 *  them in tree order so that every node bitmap is in tree order, and
 *  fills Slurm's switch table from the same fabric; select/rlft borrows
 *  that fabric (qft_conf.h). A fabric that fails to load on reconfigure
 *  leaves the one in use for all three.
 *
 *  In slurmd and the clients (which rank no nodes): no fabric, as
 *  configless slurmd gets no qft.conf; the node's switch path, its
 *  topology address, comes from slurmctld's switch table.
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
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"
#include "src/common/bitstring.h"
#include "src/common/hostlist.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/parse_config.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "qft/qft.h"
#include "src/plugins/common/qft_conf.h"
#include "src/plugins/common/qft_slurm.h"
#include "src/plugins/topology/qft/topology_qft.h"

const char plugin_name[] = "topology QFT plugin";
const char plugin_type[] = "topology/qft";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* slurmctld's fabric in use, shared with select/rlft; replaced only by a
 * fabric that loaded completely. `fabric` is shared->fabric. Only node
 * ranking loads it, so it stays NULL in slurmd. (No running_in_slurmctld():
 * it compares the program name, and Debian's is slurmctld-wlm.) */
static qft_shared_fabric_t *shared = NULL;
static qft_fabric_t *fabric = NULL;

/* For `qft status` (_write_status): how the fabric in use was read, and
 * the last load, refused or not. */
static time_t loaded_at = 0, attempted_at = 0;
static char *loaded_format = NULL, *loaded_regex = NULL;
static char *attempt_file = NULL, *refused = NULL;

extern qft_shared_fabric_t *qft_topology_fabric_get(uint32_t abi, uint32_t size,
						    const char *libqft);

static int _load_fabric(void);
static void _log_report(const char *report);
static void _write_status(const char *cut_off, int cut_off_count, const char *ignored,
			  int ignored_count);
static void _note_refusal(const char *why);

/* libqft's errors where no status reaches us (its copy in this plugin,
 * which select/rlft calls too when it shares the fabric), in the log. */
static void _libqft_error(const char *func, const char *msg)
{
	error("libqft: %s: %s", func, msg);
}

extern int init(void)
{
	qft_set_error_handler(_libqft_error);
	verbose("%s: %s loaded (libqft %s)", plugin_type, plugin_name,
		qft_version());
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	qft_set_error_handler(NULL);
	qft_topo_fini_placement();
	qft_topo_free_table();
	/* select/rlft may still hold it: the last holder frees it */
	qft_shared_fabric_release(shared);
	shared = NULL;
	fabric = NULL;
	xfree(loaded_format);
	xfree(loaded_regex);
	xfree(attempt_file);
	xfree(refused);
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

extern qft_fabric_t *qft_topo_fabric(void)
{
	return fabric;
}

extern const char *qft_topo_source(void)
{
	return shared ? shared->source : NULL;
}

/* Slurm calls it in slurmctld at start and on every reconfigure, before
 * it builds the switch table: slurmctld then orders its node table, and so
 * every node bitmap, by node_rank. */
extern bool qft_topo_rank_nodes(void)
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

/* Reads qft.conf and the fabric it names. A failure keeps the fabric in
 * use and is an error. With no fabric yet (slurmctld's start-up: only node
 * ranking loads) qft_conf_load_fabric() falls back on the copy of the last
 * fabric that loaded, kept in StateSaveLocation; without a usable copy, or
 * with a broken qft.conf, it is fatal, as a broken topology.conf is for
 * topology/tree. */
static int _load_fabric(void)
{
	qft_conf_t conf;
	qft_fabric_t *fresh = NULL;
	char *why = NULL;

	attempted_at = time(NULL);
	xfree(refused);
	xfree(attempt_file);
	if (qft_conf_read(&conf, &why) != SLURM_SUCCESS ||
	    qft_conf_load_fabric(&conf, &fresh, &why) != SLURM_SUCCESS) {
		attempt_file = xstrdup(conf.fabric_file ? conf.fabric_file : conf.path);
		qft_conf_free(&conf);
		if (!shared) {
			_note_refusal(why);
			fatal("%s: %s", plugin_type, why);
		}
		error("%s: %s; keeping the fabric loaded from %s",
		      plugin_type, why, shared->source);
		refused = why;
		return SLURM_ERROR;
	}
	attempt_file = xstrdup(conf.fabric_file);
	/* started on the kept copy: `qft status` says FabricFile= was refused */
	refused = xstrdup(conf.fabric_refused);
	loaded_at = attempted_at;
	xfree(loaded_format);
	xfree(loaded_regex);
	loaded_format = xstrdup(conf.format == QFT_FORMAT_IBNETDISCOVER ? "ibnetdiscover" : "json");
	loaded_regex = xstrdup(conf.host_name_regex);
	qft_shared_fabric_release(shared); /* select/rlft may hold it still */
	shared = qft_shared_fabric_create(fresh, conf.fabric_source);
	fabric = shared->fabric;
	info("%s: fabric %s: %s, %zu hosts, %zu switch groups, routing %s",
	     plugin_type, shared->source, qft_fabric_tree_name(fabric),
	     qft_fabric_host_count(fabric), qft_fabric_group_count(fabric),
	     qft_fabric_routing(fabric));
	_log_report(qft_fabric_report(fabric));
	qft_conf_free(&conf);
	return SLURM_SUCCESS;
}

extern int qft_topo_fabric_addr(char *node_name, char **paddr, char **ppattern)
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

extern void qft_topo_records_addr(const topo_info_t *recs, uint32_t count, char *node_name,
				  char **paddr, char **ppattern)
{
	const topo_info_t *rec = NULL;
	char *addr = NULL, *pattern = NULL;
	uint32_t steps = 0;

	for (uint32_t i = 0; i < count; i++) {
		const topo_info_t *r = &recs[i];
		qft_hostlist_t hl;

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
	while (rec && steps++ <= count) {
		const topo_info_t *parent = NULL;
		char *tmp = xstrdup_printf("%s.%s", rec->name, addr);

		xfree(addr);
		addr = tmp;
		tmp = xstrdup_printf("switch.%s", pattern);
		xfree(pattern);
		pattern = tmp;
		for (uint32_t i = 0; i < count && !parent; i++) {
			const topo_info_t *r = &recs[i];
			qft_hostlist_t hl;

			if (!r->switches || r == rec)
				continue;
			hl = hostlist_create(r->switches);
			if (hl && hostlist_find(hl, rec->name) >= 0)
				parent = r;
			hostlist_destroy(hl);
		}
		rec = parent;
	}
	if (count && !steps)
		debug("%s: slurmctld's switch table does not hold %s: topology address is its name",
		      plugin_type, node_name);
	*paddr = addr;
	*ppattern = pattern;
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

/* As topology/tree warns about nodes outside every switch; and the same
 * for `qft status`. */
extern void qft_topo_report_mismatch(void)
{
	node_record_t *node_ptr;
	qft_hostlist_t missing = hostlist_create(NULL);
	qft_hostlist_t extra = hostlist_create(NULL);
	qft_hostlist_t cut_off = hostlist_create(NULL);
	char *names, *cut_off_names, *extra_names;

	for (int i = 0; (node_ptr = next_node(&i)); i++) {
		size_t ord = qft_fabric_find_host(fabric, node_ptr->name);
		if (ord == QFT_NONE)
			hostlist_push_host(missing, node_ptr->name);
		/* absent, or present without a cable into the tree */
		if (ord == QFT_NONE || !qft_fabric_host_attached(fabric, ord))
			hostlist_push_host(cut_off, node_ptr->name);
	}
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
	cut_off_names = hostlist_ranged_string_xmalloc(cut_off);
	extra_names = hostlist_ranged_string_xmalloc(extra);
	_write_status(cut_off_names, hostlist_count(cut_off), extra_names, hostlist_count(extra));
	xfree(cut_off_names);
	xfree(extra_names);
	hostlist_destroy(missing);
	hostlist_destroy(extra);
	hostlist_destroy(cut_off);
}

/* StateSaveLocation/qft-status.json (xfree it), NULL without one */
static char *_status_path(void)
{
	if (!slurm_conf.state_save_location)
		return NULL;
	return xstrdup_printf("%s/qft-status.json", slurm_conf.state_save_location);
}

/* StateSaveLocation/qft-status.json, read by `qft status`: replaced whole
 * (libqft writes a temporary file and renames it). A failure costs only
 * the record, so it is an error in the log and nothing more. */
static void _write_status(const char *cut_off, int cut_off_count, const char *ignored,
			  int ignored_count)
{
	qft_controller_status_t st = {
		.slurm_version = SLURM_VERSION_STRING,
		.source = shared ? shared->source : NULL,
		.format = loaded_format,
		.host_name_regex = loaded_regex,
		.loaded = loaded_at,
		.attempted = attempted_at,
		.attempt_file = attempt_file,
		.refused = refused,
		.cut_off = cut_off,
		.cut_off_count = cut_off_count,
		.ignored = ignored,
		.ignored_count = ignored_count,
	};
	char *path = _status_path(), *err = NULL;
	struct timespec t0, t1;

	if (!path)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (qft_status_write(path, fabric, &st, &err) != QFT_OK) {
		error("%s: cannot write the status for 'qft status': %s", plugin_type,
		      err ? err : "?");
	} else {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		verbose("%s: status written to %s in %ld us", plugin_type, path,
			(long) ((t1.tv_sec - t0.tv_sec) * 1000000 +
				(t1.tv_nsec - t0.tv_nsec) / 1000));
	}
	qft_free(err);
	xfree(path);
}

/* A load failed with no fabric in this process: slurmctld is about to
 * stop (its start: no fabric in use), or Slurm 24.11's reconfigure, a new
 * slurmctld (SLURMCTLD_RECONF in its environment), fails and the old one
 * resumes with its fabric, which the record keeps. */
static void _note_refusal(const char *why)
{
	char *path = _status_path(), *err = NULL;
	int keep = getenv("SLURMCTLD_RECONF") != NULL;

	if (!path)
		return;
	if (qft_status_note_refusal(path, keep, attempted_at, attempt_file, why, &err) != QFT_OK)
		error("%s: cannot write the status for 'qft status': %s", plugin_type,
		      err ? err : "?");
	qft_free(err);
	xfree(path);
}

extern uint32_t qft_topo_group_distance(size_t a, size_t b)
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

extern bitstr_t *qft_topo_group_nodes(size_t g)
{
	const qft_group_t *grp = qft_fabric_group(fabric, g);
	bitstr_t *bitmap = bit_alloc(node_record_count);

	for (size_t h = 0; h < grp->host_count; h++) {
		node_record_t *node_ptr = find_node_record2(
			(char *) qft_fabric_host_name(fabric, grp->hosts[h]));
		if (node_ptr)
			bit_set(bitmap, node_ptr->index);
	}
	return bitmap;
}
