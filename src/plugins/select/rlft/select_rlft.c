/*****************************************************************************\
 *  select_rlft.c - select/rlft: fat-tree aware node choice for Slurm 22.05
 *  and 24.11,
 *  stacked on select/cons_tres.
 *
 *  select/rlft is the plugin that slurm.conf names (SelectType=select/rlft);
 *  it loads Debian's select_cons_tres.so through Slurm's own plugin loader
 *  and forwards every select_p_* call to it. Four calls are intercepted:
 *  node_init and job_init load the fabric and take in the running jobs
 *  (rlft_state.c); job_test narrows the candidate node bitmap to the nodes
 *  libqft's placer chose (rlft_place.c), before cons_tres picks cores,
 *  memory and GRES inside it; job_begin and job_fini track the job and
 *  give it its node order and predicted congestion (rlft_tell.c).
 *  cons_tres keeps all of its own state.
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

#include <errno.h>
#include <string.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"
#include "src/common/bitstring.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/plugin.h"
#include "src/common/run_in_daemon.h"
#include "src/plugins/common/qft_slurm.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "qft/qft.h"
#include "src/plugins/common/qft_conf.h"
#include "src/plugins/select/rlft/rlft_env.h"
#include "src/plugins/select/rlft/rlft_chosen.h"
#include "src/plugins/select/rlft/rlft_place.h"
#include "src/plugins/select/rlft/rlft_state.h"
#include "src/plugins/select/rlft/rlft_tell.h"

/*
 * plugin_id: every select plugin that a process loads must have its own id
 * (src/common/select.c: select_g_init() is fatal on a duplicate), and
 * slurmctld, srun, sinfo, squeue and scontrol load every select_*.so in
 * PluginDir, Debian's select_cons_tres.so (109) among them. The id is what
 * select_g_select_jobinfo_pack()/_nodeinfo_pack() write in front of the
 * plugin's data, and what the receiving side looks up again. It must be
 * >= 100, must not be one of Slurm's (101, 102, 106-110), and must fit
 * slurmdbd's cluster table column plugin_id_select (smallint unsigned).
 */
#define RLFT_PLUGIN_ID 2109

const char plugin_name[] = "RLFT fat-tree placement, stacked on cons_tres";
const char plugin_type[] = "select/rlft";
const uint32_t plugin_id = RLFT_PLUGIN_ID;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* The plugin that does the work underneath. */
#define RLFT_BASE_TYPE "select/cons_tres"

/*
 * The symbols taken from the base plugin, in the order of Slurm's own table
 * of select plugin symbols (src/common/select.c in 22.05,
 * src/interfaces/select.c in 24.11), and the members of base_ops_t below
 * in the same order. 24.11 has five fewer.
 */
static const char *base_syms[] = {
	"plugin_id",
	"select_p_state_save",
	"select_p_state_restore",
	"select_p_job_init",
	"select_p_node_init",
	"select_p_job_test",
	"select_p_job_begin",
	"select_p_job_ready",
	"select_p_job_expand",
	"select_p_job_resized",
#ifdef QFT_SLURM_22
	"select_p_job_signal",
#endif
	"select_p_job_fini",
	"select_p_job_suspend",
	"select_p_job_resume",
	"select_p_step_pick_nodes",
	"select_p_step_start",
	"select_p_step_finish",
	"select_p_select_nodeinfo_pack",
	"select_p_select_nodeinfo_unpack",
	"select_p_select_nodeinfo_alloc",
	"select_p_select_nodeinfo_free",
	"select_p_select_nodeinfo_set_all",
	"select_p_select_nodeinfo_set",
	"select_p_select_nodeinfo_get",
	"select_p_select_jobinfo_alloc",
	"select_p_select_jobinfo_free",
	"select_p_select_jobinfo_set",
	"select_p_select_jobinfo_get",
	"select_p_select_jobinfo_copy",
	"select_p_select_jobinfo_pack",
	"select_p_select_jobinfo_unpack",
#ifdef QFT_SLURM_22
	"select_p_select_jobinfo_sprint",
	"select_p_select_jobinfo_xstrdup",
#endif
	"select_p_get_info_from_plugin",
#ifdef QFT_SLURM_22
	"select_p_update_node_config",
#endif
	"select_p_reconfigure",
#ifdef QFT_SLURM_22
	"select_p_resv_test",
#endif
};

/* job_test's last arguments: the cores a reservation excludes (22.05), or
 * those and what WILL_RUN may simulate (24.11). */
#ifdef QFT_SLURM_24
#define RLFT_TEST_EXTRA_PARAMS resv_exc_t *resv_exc_ptr, will_run_data_t *will_run_ptr
#define RLFT_TEST_EXTRA_ARGS resv_exc_ptr, will_run_ptr
#else
#define RLFT_TEST_EXTRA_PARAMS bitstr_t *exc_core_bitmap
#define RLFT_TEST_EXTRA_ARGS exc_core_bitmap
#endif

/* One pointer per name above, in the same order: plugin_load_and_link()
 * fills them as an array. */
typedef struct {
	const uint32_t *plugin_id;
	int (*state_save)(char *dir_name);
	int (*state_restore)(char *dir_name);
	int (*job_init)(list_t *job_list);
	int (*node_init)(void);
	int (*job_test)(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes,
			uint32_t max_nodes, uint32_t req_nodes, uint16_t mode,
			list_t *preemptee_candidates, list_t **preemptee_job_list,
			RLFT_TEST_EXTRA_PARAMS);
	int (*job_begin)(job_record_t *job_ptr);
	int (*job_ready)(job_record_t *job_ptr);
	int (*job_expand)(job_record_t *from_job_ptr, job_record_t *to_job_ptr);
	int (*job_resized)(job_record_t *job_ptr, node_record_t *node_ptr);
#ifdef QFT_SLURM_22
	int (*job_signal)(job_record_t *job_ptr, int signal);
#endif
	int (*job_fini)(job_record_t *job_ptr);
	int (*job_suspend)(job_record_t *job_ptr, bool indf_susp);
	int (*job_resume)(job_record_t *job_ptr, bool indf_susp);
	bitstr_t *(*step_pick_nodes)(job_record_t *job_ptr, select_jobinfo_t *jobinfo,
				     uint32_t node_count, bitstr_t **avail_nodes);
	int (*step_start)(step_record_t *step_ptr);
	int (*step_finish)(step_record_t *step_ptr, bool killing_step);
	int (*nodeinfo_pack)(select_nodeinfo_t *nodeinfo, buf_t *buffer,
			     uint16_t protocol_version);
	int (*nodeinfo_unpack)(select_nodeinfo_t **nodeinfo, buf_t *buffer,
			       uint16_t protocol_version);
	select_nodeinfo_t *(*nodeinfo_alloc)(void);
	int (*nodeinfo_free)(select_nodeinfo_t *nodeinfo);
	int (*nodeinfo_set_all)(void);
	int (*nodeinfo_set)(job_record_t *job_ptr);
	int (*nodeinfo_get)(select_nodeinfo_t *nodeinfo, enum select_nodedata_type dinfo,
			    enum node_states state, void *data);
	select_jobinfo_t *(*jobinfo_alloc)(void);
	int (*jobinfo_free)(select_jobinfo_t *jobinfo);
	int (*jobinfo_set)(select_jobinfo_t *jobinfo, enum select_jobdata_type data_type,
			   void *data);
	int (*jobinfo_get)(select_jobinfo_t *jobinfo, enum select_jobdata_type data_type,
			   void *data);
	select_jobinfo_t *(*jobinfo_copy)(select_jobinfo_t *jobinfo);
	int (*jobinfo_pack)(select_jobinfo_t *jobinfo, buf_t *buffer,
			    uint16_t protocol_version);
	int (*jobinfo_unpack)(select_jobinfo_t **jobinfo, buf_t *buffer,
			      uint16_t protocol_version);
#ifdef QFT_SLURM_22
	char *(*jobinfo_sprint)(select_jobinfo_t *jobinfo, char *buf, size_t size, int mode);
	char *(*jobinfo_xstrdup)(select_jobinfo_t *jobinfo, int mode);
#endif
	int (*get_info_from_plugin)(enum select_plugindata_info dinfo, job_record_t *job_ptr,
				    void *data);
#ifdef QFT_SLURM_22
	int (*update_node_config)(int index);
#endif
	int (*reconfigure)(void);
#ifdef QFT_SLURM_22
	bitstr_t *(*resv_test)(resv_desc_msg_t *resv_desc_ptr, uint32_t node_cnt,
			       bitstr_t *avail_bitmap, bitstr_t **core_bitmap);
#endif
} base_ops_t;

static base_ops_t base;
_Static_assert(sizeof(base_ops_t) == sizeof(base_syms) / sizeof(base_syms[0]) * sizeof(void *),
	       "base_ops_t and base_syms must list the same symbols");
static plugin_handle_t base_handle = PLUGIN_INVALID_HANDLE;

static const char *_mode_str(uint16_t mode)
{
	switch (mode & SELECT_MODE_BASE) {
	case SELECT_MODE_RUN_NOW:
		return "RUN_NOW";
	case SELECT_MODE_TEST_ONLY:
		return "TEST_ONLY";
	case SELECT_MODE_WILL_RUN:
		return "WILL_RUN";
	case SELECT_MODE_RESV:
		return "RESV";
	default:
		return "?";
	}
}

/*
 * Slurm 24.11 gives SelectTypeParameters its default (CR_Core_Memory) only
 * when SelectType names cons_tres, and cons_tres's node_init() is fatal
 * without one: select/rlft gives the default cons_tres would have had,
 * each time slurm.conf is read (start, reconfigure).
 */
static void _default_select_type_param(void)
{
#ifdef QFT_SLURM_24
	static bool said = false;

	if (slurm_conf.select_type_param)
		return;
	slurm_conf.select_type_param = CR_CORE | CR_MEMORY;
	if (!said && running_in_daemon())
		info("select/rlft: SelectTypeParameters unset: CR_Core_Memory, cons_tres's default");
	said = true;
#endif
}

/*
 * init() runs in every process that loads the plugin: slurmctld, srun and
 * the other clients (which load all select plugins), slurmd and slurmstepd
 * (which load only the configured one). It loads cons_tres through Slurm's
 * plugin loader: PluginDir is searched in order, the file is opened
 * RTLD_LAZY (RTLD_LOCAL), its version is checked, and its init() runs.
 * A process that also loaded select_cons_tres.so itself gets the same
 * object back from the dynamic linker (one set of cons_tres globals); its
 * init() and fini() then run twice, which they tolerate.
 */
/* libqft's errors where no status reaches us (src/plugins/common: its
 * copy in this plugin), in slurmctld's log. */
static void _libqft_error(const char *func, const char *msg)
{
	error("libqft: %s: %s", func, msg);
}

extern int init(void)
{
	if (base_handle != PLUGIN_INVALID_HANDLE)
		return SLURM_SUCCESS;
	qft_set_error_handler(_libqft_error);
	_default_select_type_param();

	base_handle = plugin_load_and_link(RLFT_BASE_TYPE,
					   ARRAY_SIZE(base_syms), base_syms,
					   (void **) &base);
	if (base_handle == PLUGIN_INVALID_HANDLE) {
		error("%s: cannot load %s: %s", plugin_type, RLFT_BASE_TYPE,
		      QFT_PLUGIN_ERROR());
		return SLURM_ERROR;
	}
	if (*base.plugin_id != SELECT_PLUGIN_CONS_TRES) {
		error("%s: %s has plugin_id %u, expected %u", plugin_type,
		      RLFT_BASE_TYPE, *base.plugin_id,
		      SELECT_PLUGIN_CONS_TRES);
		plugin_unload(base_handle);
		base_handle = PLUGIN_INVALID_HANDLE;
		return SLURM_ERROR;
	}

	/* daemons log it; client commands only with -v (they load all
	 * select plugins, and info() would go to their stderr) */
	if (running_in_daemon())
		info("select/rlft: loaded (stacked on select/cons_tres)");
	else
		verbose("select/rlft: loaded (stacked on select/cons_tres)");
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	rlft_fini();
	qft_set_error_handler(NULL);
	if (base_handle != PLUGIN_INVALID_HANDLE) {
		/* runs cons_tres's fini() and drops our reference */
		plugin_unload(base_handle);
		base_handle = PLUGIN_INVALID_HANDLE;
	}
	memset(&base, 0, sizeof(base));
	return SLURM_SUCCESS;
}

extern int select_p_state_save(char *dir_name)
{
	return (*base.state_save)(dir_name);
}

extern int select_p_state_restore(char *dir_name)
{
	return (*base.state_restore)(dir_name);
}

extern int select_p_job_init(list_t *job_list)
{
	int rc = (*base.job_init)(job_list);

	if (qft_in_slurmctld())
		rlft_node_init(job_list); /* the recovered jobs hold nodes */
	return rc;
}

extern int select_p_node_init(void)
{
	int rc;

	_default_select_type_param(); /* slurm.conf was read again */
	rc = (*base.node_init)();

	if (qft_in_slurmctld())
		rlft_node_init(NULL);
	return rc;
}

/*
 * Backfill (WILL_RUN) plans a job that cannot start now on the nodes
 * cons_tres picks among those free at its planned start, idle ones
 * included, and no job behind it may use those idle nodes meanwhile. When
 * the same start is possible on nodes busy now, plan it there instead, so
 * that the idle nodes stay free for backfill (qft.conf PlanBusyFirst=;
 * issue 33: under rlft's layout more idle nodes went into such plans, 8.5
 * against 7.9 per planned job, the cause of its longer waits).
 */
static void _plan_busy_first(job_record_t *job_ptr, bitstr_t *node_bitmap,
			     bitstr_t *before, uint32_t min_nodes, uint32_t max_nodes,
			     uint32_t req_nodes, uint16_t mode, list_t *preemptee_candidates,
			     RLFT_TEST_EXTRA_PARAMS)
{
	time_t planned = job_ptr->start_time;
	bitstr_t *busy;
	int rc;

	if (!before || !idle_node_bitmap || planned <= time(NULL) ||
	    !bit_overlap_any(node_bitmap, idle_node_bitmap) ||
	    (preemptee_candidates && list_count(preemptee_candidates)))
		return;
	busy = bit_copy(before);
	bit_and_not(busy, idle_node_bitmap);
	if (bit_set_count(busy) < min_nodes) {
		FREE_NULL_BITMAP(busy);
		return;
	}
	rc = (*base.job_test)(job_ptr, busy, min_nodes, max_nodes, req_nodes, mode,
			      preemptee_candidates, NULL, RLFT_TEST_EXTRA_ARGS);
	if (rc == SLURM_SUCCESS && job_ptr->start_time <= planned) {
		log_flag(SELECT_TYPE, "%s: %pJ planned at %ld on nodes busy now, not idle ones",
			 plugin_type, job_ptr, (long) planned);
		bit_copybits(node_bitmap, busy);
	}
	job_ptr->start_time = planned;
	FREE_NULL_BITMAP(busy);
}

/*
 * Isolation in play for a job the placer cannot place itself (RLFT_APART:
 * it cannot size it, or cons_tres could not fit it where it chose): rather
 * than wait for every isolated job to end, cons_tres chooses inside a
 * subtree apart, the smallest first (rlft_apart_zone); none fits: the job
 * waits. `before` is the bitmap offered.
 */
static int _test_apart(job_record_t *job_ptr, bitstr_t *node_bitmap, bitstr_t *before,
		       uint32_t min_nodes, uint32_t max_nodes, uint32_t req_nodes, uint16_t mode,
		       list_t *preemptee_candidates, list_t **preemptee_job_list,
		       RLFT_TEST_EXTRA_PARAMS)
{
	unsigned level = 0;

	while (rlft_apart_zone(job_ptr, node_bitmap, before, min_nodes, &level))
		if ((*base.job_test)(job_ptr, node_bitmap, min_nodes, max_nodes, req_nodes, mode,
				     preemptee_candidates, preemptee_job_list,
				     RLFT_TEST_EXTRA_ARGS) == SLURM_SUCCESS)
			return SLURM_SUCCESS;
	bit_copybits(node_bitmap, before);
	return rlft_apart_none(job_ptr);
}

extern int select_p_job_test(job_record_t *job_ptr, bitstr_t *node_bitmap,
			     uint32_t min_nodes, uint32_t max_nodes,
			     uint32_t req_nodes, uint16_t mode,
			     list_t *preemptee_candidates,
			     list_t **preemptee_job_list,
			     RLFT_TEST_EXTRA_PARAMS)
{
	struct timespec t0;
	uint32_t count = 0;
	bitstr_t *before = node_bitmap ? bit_copy(node_bitmap) : NULL;
	int rc = rlft_job_test(job_ptr, node_bitmap, min_nodes, max_nodes, req_nodes, mode,
			       preemptee_candidates, &count);

	if (rc == RLFT_APART) {
		rc = _test_apart(job_ptr, node_bitmap, before, min_nodes, max_nodes, req_nodes, mode,
				 preemptee_candidates, preemptee_job_list, RLFT_TEST_EXTRA_ARGS);
		goto out;
	}
	if (rc != RLFT_PASS && rc != RLFT_RESTRICTED)
		goto out;
	log_flag(SELECT_TYPE, "%s: %pJ mode=%s: %s", plugin_type, job_ptr,
		 _mode_str(mode),
		 rc == RLFT_RESTRICTED ? "placed, cons_tres allocates" : "cons_tres decides");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (rc == RLFT_RESTRICTED) {
		/* exactly the chosen nodes: cons_tres must use all of them */
		rc = (*base.job_test)(job_ptr, node_bitmap, count, count, count, mode,
				      preemptee_candidates, preemptee_job_list,
				      RLFT_TEST_EXTRA_ARGS);
		if (rc == SLURM_SUCCESS) {
			rlft_base_time(job_ptr, rlft_usec_since(&t0));
			goto out;
		}
		/* The job's CPUs, memory or GRES do not fit there: a job
		 * never waits for rlft's choice, cons_tres picks from all. */
		bit_copybits(node_bitmap, before);
		rc = rlft_not_placed(job_ptr, node_bitmap, max_nodes, mode);
		if (rc == RLFT_APART) {
			/* SLURM_SUCCESS is RLFT_PASS: out, either way */
			rc = _test_apart(job_ptr, node_bitmap, before, min_nodes, max_nodes,
					 req_nodes, mode, preemptee_candidates,
					 preemptee_job_list, RLFT_TEST_EXTRA_ARGS);
			goto out;
		}
		if (rc != RLFT_PASS)
			goto out;
	}
	rc = (*base.job_test)(job_ptr, node_bitmap, min_nodes, max_nodes,
			      req_nodes, mode, preemptee_candidates,
			      preemptee_job_list, RLFT_TEST_EXTRA_ARGS);
	/* only where cons_tres chose: rlft's own plans (ShapeWait=, isolation)
	 * returned above */
	if (rc == SLURM_SUCCESS && (mode & SELECT_MODE_BASE) == SELECT_MODE_WILL_RUN &&
	    rlft_plan_busy_first())
		_plan_busy_first(job_ptr, node_bitmap, before, min_nodes, max_nodes, req_nodes,
				 mode, preemptee_candidates, RLFT_TEST_EXTRA_ARGS);
out:
	FREE_NULL_BITMAP(before);
	return rc;
}

extern int select_p_job_begin(job_record_t *job_ptr)
{
	int rc = (*base.job_begin)(job_ptr);

	if (rc == SLURM_SUCCESS)
		rlft_job_begin(job_ptr);
	return rc;
}

extern int select_p_job_ready(job_record_t *job_ptr)
{
	return (*base.job_ready)(job_ptr);
}

extern int select_p_job_expand(job_record_t *from_job_ptr,
			       job_record_t *to_job_ptr)
{
	int rc = (*base.job_expand)(from_job_ptr, to_job_ptr);

	rlft_job_fini(from_job_ptr);
	rlft_job_update(to_job_ptr);
	return rc;
}

extern int select_p_job_resized(job_record_t *job_ptr,
				node_record_t *node_ptr)
{
	int rc = (*base.job_resized)(job_ptr, node_ptr);

	rlft_job_update(job_ptr);
	return rc;
}

#ifdef QFT_SLURM_22
extern int select_p_job_signal(job_record_t *job_ptr, int signal)
{
	return (*base.job_signal)(job_ptr, signal);
}
#endif

extern int select_p_job_fini(job_record_t *job_ptr)
{
	rlft_job_fini(job_ptr);
	return (*base.job_fini)(job_ptr);
}

extern int select_p_job_suspend(job_record_t *job_ptr, bool indf_susp)
{
	return (*base.job_suspend)(job_ptr, indf_susp);
}

extern int select_p_job_resume(job_record_t *job_ptr, bool indf_susp)
{
	return (*base.job_resume)(job_ptr, indf_susp);
}

extern bitstr_t *select_p_step_pick_nodes(job_record_t *job_ptr,
					  select_jobinfo_t *jobinfo,
					  uint32_t node_count,
					  bitstr_t **avail_nodes)
{
	return (*base.step_pick_nodes)(job_ptr, jobinfo, node_count,
				       avail_nodes);
}

extern int select_p_step_start(step_record_t *step_ptr)
{
	return (*base.step_start)(step_ptr);
}

extern int select_p_step_finish(step_record_t *step_ptr, bool killing_step)
{
	return (*base.step_finish)(step_ptr, killing_step);
}

extern int select_p_select_nodeinfo_pack(select_nodeinfo_t *nodeinfo,
					 buf_t *buffer,
					 uint16_t protocol_version)
{
	return (*base.nodeinfo_pack)(nodeinfo, buffer, protocol_version);
}

extern int select_p_select_nodeinfo_unpack(select_nodeinfo_t **nodeinfo,
					   buf_t *buffer,
					   uint16_t protocol_version)
{
	return (*base.nodeinfo_unpack)(nodeinfo, buffer, protocol_version);
}

extern select_nodeinfo_t *select_p_select_nodeinfo_alloc(void)
{
	return (*base.nodeinfo_alloc)();
}

extern int select_p_select_nodeinfo_free(select_nodeinfo_t *nodeinfo)
{
	return (*base.nodeinfo_free)(nodeinfo);
}

extern int select_p_select_nodeinfo_set_all(void)
{
	return (*base.nodeinfo_set_all)();
}

extern int select_p_select_nodeinfo_set(job_record_t *job_ptr)
{
	int rc = (*base.nodeinfo_set)(job_ptr);

	/* slurmctld calls this for every job once their node bitmaps are
	 * rebuilt at start-up and reconfigure (read_config.c
	 * _sync_jobs_to_conf, after select_g_job_init): track them there */
	if (qft_in_slurmctld() &&
	    (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)))
		rlft_job_update(job_ptr);
	return rc;
}

extern int select_p_select_nodeinfo_get(select_nodeinfo_t *nodeinfo,
					enum select_nodedata_type dinfo,
					enum node_states state,
					void *data)
{
	return (*base.nodeinfo_get)(nodeinfo, dinfo, state, data);
}

extern select_jobinfo_t *select_p_select_jobinfo_alloc(void)
{
	return (*base.jobinfo_alloc)();
}

extern int select_p_select_jobinfo_free(select_jobinfo_t *jobinfo)
{
	return (*base.jobinfo_free)(jobinfo);
}

extern int select_p_select_jobinfo_set(select_jobinfo_t *jobinfo,
				       enum select_jobdata_type data_type,
				       void *data)
{
	return (*base.jobinfo_set)(jobinfo, data_type, data);
}

extern int select_p_select_jobinfo_get(select_jobinfo_t *jobinfo,
				       enum select_jobdata_type data_type,
				       void *data)
{
	return (*base.jobinfo_get)(jobinfo, data_type, data);
}

extern select_jobinfo_t *select_p_select_jobinfo_copy(
	select_jobinfo_t *jobinfo)
{
	return (*base.jobinfo_copy)(jobinfo);
}

extern int select_p_select_jobinfo_pack(select_jobinfo_t *jobinfo,
					buf_t *buffer,
					uint16_t protocol_version)
{
	return (*base.jobinfo_pack)(jobinfo, buffer, protocol_version);
}

extern int select_p_select_jobinfo_unpack(select_jobinfo_t **jobinfo,
					  buf_t *buffer,
					  uint16_t protocol_version)
{
	return (*base.jobinfo_unpack)(jobinfo, buffer, protocol_version);
}

#ifdef QFT_SLURM_22
extern char *select_p_select_jobinfo_sprint(select_jobinfo_t *jobinfo,
					    char *buf, size_t size, int mode)
{
	return (*base.jobinfo_sprint)(jobinfo, buf, size, mode);
}
#endif

#ifdef QFT_SLURM_22
extern char *select_p_select_jobinfo_xstrdup(select_jobinfo_t *jobinfo,
					     int mode)
{
	return (*base.jobinfo_xstrdup)(jobinfo, mode);
}
#endif

extern int select_p_get_info_from_plugin(enum select_plugindata_info dinfo,
					 job_record_t *job_ptr, void *data)
{
	return (*base.get_info_from_plugin)(dinfo, job_ptr, data);
}

#ifdef QFT_SLURM_22
extern int select_p_update_node_config(int index)
{
	return (*base.update_node_config)(index);
}
#endif

extern int select_p_reconfigure(void)
{
	return (*base.reconfigure)();
}

#ifdef QFT_SLURM_22
extern bitstr_t *select_p_resv_test(resv_desc_msg_t *resv_desc_ptr,
				    uint32_t node_cnt,
				    bitstr_t *avail_bitmap,
				    bitstr_t **core_bitmap)
{
	return (*base.resv_test)(resv_desc_ptr, node_cnt, avail_bitmap,
				 core_bitmap);
}
#endif
