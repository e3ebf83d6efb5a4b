/*****************************************************************************\
 *  rlft_state.c - the fabric, placer and qft.conf select/rlft places with,
 *  and the running jobs the placer tracks.
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

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "src/plugins/select/rlft/rlft_cache.h"
#include "src/plugins/select/rlft/rlft_chosen.h"
#include "src/plugins/select/rlft/rlft_env.h"
#include "src/plugins/select/rlft/rlft_isolate.h"
#include "src/plugins/select/rlft/rlft_jobs.h"
#include "src/plugins/select/rlft/rlft_lid.h"
#include "src/plugins/select/rlft/rlft_state.h"

/*
 * slurmctld's globals. srun and slurmd load every select plugin too, and
 * have none of them: these definitions let the plugin load there. In
 * slurmctld its own definitions come first in the lookup and win (the
 * version script keeps these global for that reason), as for cons_tres.
 * Weak: on 24.11 topology/qft links this file beside Slurm's common
 * topology code, which defines idle_node_bitmap for the same reason.
 */
__attribute__((weak)) list_t *job_list;
__attribute__((weak)) bitstr_t *idle_node_bitmap;
__attribute__((weak)) time_t last_job_update; /* rlft_declined */

static qft_fabric_t *fabric = NULL;   /* held->fabric */
static qft_holders_t *holders = NULL; /* waiting jobs holding nodes for
				       * a shape in backfill's plan (this
				       * plugin's own libqft: no fabric) */
/* The fabric in use: topology/qft's when it is the TopologyPlugin, else
 * one rlft_node_init() loaded. Released, never destroyed here: topology/qft
 * may hold it too (src/plugins/common/qft_conf.h). */
static qft_shared_fabric_t *held = NULL;
static qft_placer_t *placer = NULL;
/* From slurmctld's start to its first job start or reconfigure: the
 * recovered jobs, tracked as select_nodeinfo_set gives their bitmaps, get
 * back a LID choice that was pending when slurmctld stopped. */
static bool recovering = false;
/* The placer a reconfigure replaced, until the new one has the running
 * jobs and their recorded LID offsets (qft_placer_copy_lids). */
static qft_placer_t *old_placer = NULL;
static const qft_ops_t *old_lib = NULL;
static qft_shared_fabric_t *old_held = NULL; /* the fabric it borrows */
static const qft_ops_t *lib = NULL;   /* held->ops: libqft calls on both */
static qft_conf_t rconf; /* "conf" is a Slurm global */
static bool have_conf = false;
static int *host_of_node = NULL;      /* node index -> host ordinal, -1 */
static int host_of_node_cnt = 0;
static node_record_t **node_of_host = NULL; /* host ordinal -> node */

/* The jobs rlft_sync_jobs() tracked, ascending, and what it saw then. */
static uint32_t *synced = NULL;
static size_t synced_cnt = 0;
static rlft_stamp_t synced_stamp;

/* The hosts of each job the placer tracks (rlft_cache.h), and what the
 * placer was built from: a reconfigure that changes neither keeps it. */
static rlft_seen_t seen;
static uint64_t fabric_sig = 0;

extern const rlft_state_t *rlft_state(void)
{
	static rlft_state_t now;

	now = (rlft_state_t){ .lib = lib, .fabric = fabric, .placer = placer, .conf = &rconf,
			      .host_of_node = host_of_node, .host_of_node_cnt = host_of_node_cnt,
			      .node_of_host = node_of_host };
	return &now;
}

static void _map_nodes(void)
{
	node_record_t *node_ptr;
	size_t hosts = lib->fabric_host_count(fabric);

	xfree(host_of_node);
	xfree(node_of_host);
	host_of_node_cnt = node_record_count;
	host_of_node = xcalloc(MAX(node_record_count, 1), sizeof(int));
	node_of_host = xcalloc(MAX(hosts, 1), sizeof(node_record_t *));
	for (int i = 0; i < node_record_count; i++)
		host_of_node[i] = -1;
	for (int i = 0; (node_ptr = next_node(&i)); i++) {
		size_t ord = lib->fabric_find_host(fabric, node_ptr->name);
		if (ord == QFT_NONE)
			continue;
		host_of_node[node_ptr->index] = (int) ord;
		node_of_host[ord] = node_ptr;
	}
}

extern size_t *rlft_job_hosts(bitstr_t *bitmap, size_t *count)
{
	size_t *hosts = xcalloc(MAX(bit_set_count(bitmap), 1), sizeof(size_t));
	size_t n = 0;

	for (int i = 0; i < bit_size(bitmap) && i < host_of_node_cnt; i++)
		if (bit_test(bitmap, i) && host_of_node[i] >= 0)
			hosts[n++] = host_of_node[i];
	lib->fabric_sort_tree_order(fabric, hosts, n, NULL);
	*count = n;
	return hosts;
}

/* `again`: add it even on the hosts it is known on (job_begin: the
 * prediction it asks for next is the one this add plays). */
static void _track_hosts(job_record_t *job_ptr, const size_t *hosts, size_t n, bool again)
{
	uint64_t sig = rlft_hosts_sig(hosts, n);
	char *err = NULL;

	if (!n || (!again && rlft_seen_same(&seen, job_ptr->job_id, sig)))
		return;
	rlft_jobs_changed();
	if (lib->placer_add_job(placer, job_ptr->job_id, hosts, n, &err)) {
		error("%s: %pJ: %s", PFX, job_ptr, err);
		rlft_seen_del(&seen, job_ptr->job_id);
	} else {
		rlft_seen_put(&seen, job_ptr->job_id, sig);
		/* from its environment: a restart and a reconfigure keep it */
		if (lib->placer_isolate_job(placer, job_ptr->job_id, rlft_isolated(job_ptr), &err))
			error("%s: %pJ: %s", PFX, job_ptr, err);
	}
	qft_free(err);
}

extern void rlft_untrack(uint32_t job_id)
{
	lib->placer_remove_job(placer, job_id);
	rlft_seen_del(&seen, job_id);
	rlft_jobs_changed();
}

static void _track(job_record_t *job_ptr)
{
	size_t n, *hosts;

	if (!job_ptr->node_bitmap)
		return;
	hosts = rlft_job_hosts(job_ptr->node_bitmap, &n);
	_track_hosts(job_ptr, hosts, n, false);
	xfree(hosts);
}

extern const char *rlft_pattern(void)
{
	return rconf.pattern ? rconf.pattern : "shift";
}

/* qft.conf, and topology/qft's fabric or (another TopologyPlugin) one
 * loaded here; NULL and *why on failure. */
static qft_shared_fabric_t *_take_fabric(qft_conf_t *conf, bool *own, char **why)
{
	static bool said_own = false;
	qft_shared_fabric_t *shared;
	qft_fabric_t *loaded = NULL;

	*own = false;
	if (qft_conf_read(conf, why) != SLURM_SUCCESS)
		return NULL;
	if ((shared = qft_shared_fabric_from_topology(why)))
		return shared;
	if (!said_own)
		info("%s: %s: loading the fabric of %s here", PFX, *why, conf->path);
	said_own = true;
	xfree(*why);
	if (qft_conf_load_fabric(conf, &loaded, why) != SLURM_SUCCESS)
		return NULL;
	*own = true;
	/* the kept copy when the file failed at start (qft_conf.h) */
	return qft_shared_fabric_create(loaded, conf->fabric_source);
}

/* Adds a file's bytes to an FNV-1a hash; a file it cannot read adds
 * only its name, so that it never matches a readable one. */
static uint64_t _hash_file(uint64_t h, const char *path)
{
	unsigned char buf[65536];
	FILE *f = path ? fopen(path, "r") : NULL;
	size_t got;

	for (const char *p = path ? path : ""; *p; p++)
		h = (h ^ (unsigned char) *p) * 1099511628211ULL;
	if (!f)
		return h ^ 1;
	while ((got = fread(buf, 1, sizeof(buf), f)))
		for (size_t k = 0; k < got; k++)
			h = (h ^ buf[k]) * 1099511628211ULL;
	fclose(f);
	return h;
}

/*
 * What the fabric was built from: its file (as read now: topology/qft
 * read it a moment before, so an edit in between shows at the next
 * reconfigure only if the file changes again), how it was read and
 * routed, and the LFT dump for Routing=lft.
 */
static uint64_t _fabric_sig(const qft_shared_fabric_t *shared, const qft_conf_t *conf)
{
	uint64_t h = _hash_file(1469598103934665603ULL, shared->source);
	const char *words[] = { conf->host_name_regex, conf->routing };

	h = (h ^ (uint64_t) conf->format) * 1099511628211ULL;
	for (size_t k = 0; k < ARRAY_SIZE(words); k++)
		for (const char *p = words[k] ? words[k] : "-"; *p; p++)
			h = (h ^ (unsigned char) *p) * 1099511628211ULL;
	if (conf->routing && !strncmp(conf->routing, "lft:", 4))
		h = _hash_file(h, conf->routing + 4);
	return h;
}

/* Whether the placer in use would be built again the same: same fabric
 * and placement settings (ShapeWait= and the rest are read per job). */
static bool _same_placer(const qft_conf_t *c, uint64_t sig)
{
	return placer && have_conf && sig == fabric_sig &&
	       c->reserve_remainder == rconf.reserve_remainder && c->products == rconf.products &&
	       c->round_up == rconf.round_up && c->sample_stages == rconf.sample_stages &&
	       c->rank_by_congestion == rconf.rank_by_congestion &&
	       c->path_pressure == rconf.path_pressure &&
	       c->whole_leaves == rconf.whole_leaves && !xstrcmp(c->pattern, rconf.pattern);
}

/* How candidates are ranked, in the settings line. */
static const char *_ranking_words(void)
{
	if (!rconf.rank_by_congestion)
		return "by best fit";
	if (rconf.path_pressure && rconf.whole_leaves)
		return "by path pressure and leaves taken in part (at LMC > 0), congestion, then best fit";
	if (rconf.path_pressure)
		return "by path pressure (at LMC > 0), congestion, then best fit";
	if (rconf.whole_leaves)
		return "by leaves taken in part (at LMC > 0), congestion, then best fit";
	return "by congestion then best fit";
}

/* ShapeWaitEnds= in the settings line. */
static const char *_ends_words(void)
{
	static char words[128];

	snprintf(words, sizeof(words), ", the running jobs expected to end after %u%% of what is left of their limits",
		 rconf.shape_wait_ends);
	return words;
}

static void _say_settings(bool own, const char *kept)
{
	info("%s: fabric %s%s: %s, %zu hosts; shapes %s, wait for one %u%% of the time limit%s%s%s%s, remainder %s, ranking %s by %s%s",
	     PFX, held->source, own ? "" : " (loaded by topology/qft)", lib->fabric_tree_name(fabric),
	     lib->fabric_host_count(fabric),
	     !rconf.products ? "blocks" : rconf.round_up ? "products first, near products" : "products first",
	     rconf.shape_wait, rconf.shape_wait && rconf.shape_wait_max ? " (capped)" : "",
	     rconf.shape_wait && rconf.shape_wait_from_decline ? " from the first declined start" : "",
	     rconf.shape_wait && rconf.shape_wait_ends < 100 ? _ends_words() : "",
	     rconf.shape_wait && rconf.shape_holds ? ", nodes held for the first waiting jobs only" : "",
	     rconf.reserve_remainder ? "reserve" : "exact",
	     _ranking_words(),
	     rlft_pattern(), kept);
}

static void _take_conf(qft_conf_t *fresh_conf)
{
	if (have_conf)
		qft_conf_free(&rconf);
	rconf = *fresh_conf;
	have_conf = true;
}

/* The placer a reconfigure replaced, and then its fabric. */
static void _drop_old_placer(void)
{
	if (old_placer)
		old_lib->placer_destroy(old_placer);
	qft_shared_fabric_release(old_held);
	old_placer = NULL;
	old_lib = NULL;
	old_held = NULL;
}

/* Makes `fresh` and `fresh_conf` the ones in use, with a new placer (RET
 * true); or keeps the ones before (fatal if there are none: start-up). */
static bool _adopt(qft_shared_fabric_t *fresh, qft_conf_t *fresh_conf, bool own, uint64_t sig)
{
	qft_placer_t *fresh_placer = NULL;
	char *err = NULL;
	qft_placer_config_t pc = {
		.reserve_remainder = fresh_conf->reserve_remainder,
		.pattern = fresh_conf->pattern,
		.sample_stages = fresh_conf->sample_stages,
		.rank_by_congestion = fresh_conf->rank_by_congestion,
		.products = fresh_conf->products,
		.round_up = fresh_conf->round_up,
		/* with LMC > 0 any job may take offsets (--qft-lid) */
		.lid_offsets = fresh->ops->fabric_lmc(fresh->fabric) > 0,
		.path_pressure = fresh_conf->path_pressure,
		.whole_leaves = fresh_conf->whole_leaves,
	};

	if (fresh->ops->placer_create(fresh->fabric, &pc, &fresh_placer, &err)) {
		if (!fabric)
			fatal("%s: %s: %s", PFX, fresh_conf->path, err);
		error("%s: %s: %s; keeping the placement settings before", PFX,
		      fresh_conf->path, err);
		qft_free(err);
		qft_shared_fabric_release(fresh);
		qft_conf_free(fresh_conf);
		return false;
	}
	rlft_lid_take_done(lib, placer);
	_drop_old_placer(); /* two reconfigures before a replay */
	old_placer = placer;
	old_lib = lib;
	old_held = held; /* its reference goes with the old placer */
	rlft_seen_free(&seen); /* the new placer knows no job */
	held = fresh;
	lib = held->ops;
	fabric = held->fabric;
	placer = fresh_placer;
	fabric_sig = sig;
	_take_conf(fresh_conf);
	_say_settings(own, "");
	return true;
}

/* RET whether the placer is a new one, which knows no running job. */
static bool _reload(void)
{
	qft_conf_t fresh_conf;
	char *why = NULL;
	bool own;
	qft_shared_fabric_t *fresh = _take_fabric(&fresh_conf, &own, &why);
	uint64_t sig;

	if (fresh) {
		sig = _fabric_sig(fresh, &fresh_conf);
		if (!_same_placer(&fresh_conf, sig))
			return _adopt(fresh, &fresh_conf, own, sig);
		/* the running jobs' loads stay valid: no replay (1.5 s per
		 * 1000 jobs) under slurmctld's locks */
		qft_shared_fabric_release(fresh);
		_take_conf(&fresh_conf);
		_say_settings(own, "; same fabric and placement settings: the placer and its running jobs kept");
		return false;
	}
	qft_conf_free(&fresh_conf);
	if (!fabric)
		fatal("%s: %s", PFX, why);
	error("%s: %s; keeping the fabric loaded before", PFX, why);
	xfree(why);
	return false;
}

static int _track_running(void *x, void *arg)
{
	job_record_t *job_ptr = x;

	if (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr))
		_track(job_ptr);
	return 0;
}

static int _resume_lids(void *x, void *arg)
{
	job_record_t *job_ptr = x;
	rlft_lid_ctx_t lids = {lib, placer, &rconf, lib->fabric_lmc(fabric)};
	size_t n, *hosts;

	if (!(IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)) || !job_ptr->node_bitmap ||
	    !job_ptr->details)
		return 0;
	hosts = rlft_job_hosts(job_ptr->node_bitmap, &n);
	if (n)
		rlft_lid_resume(&lids, job_ptr, hosts, n);
	xfree(hosts);
	return 0;
}

static bool _still_running(uint32_t id, void *arg)
{
	job_record_t *job_ptr = find_job_record(id);

	return job_ptr && job_ptr->node_bitmap &&
	       (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr));
}

static void _drop(uint32_t id, void *arg)
{
	lib->placer_remove_job(placer, id);
}

extern void rlft_node_init(list_t *jobs)
{
	static bool replay = true; /* from node_init to job_init */
	static bool started = false; /* job_init has run once */
	static long usec = 0;      /* the two calls' time with the jobs */
	struct timespec t0;
	size_t before;

	/* select_p_job_init comes right after select_p_node_init in the same
	 * read_slurm_conf(): it keeps what node_init took (one load per start
	 * or reconfigure) and only takes in the jobs. */
	if (!jobs || !placer)
		replay = _reload();
	xfree(synced); /* rlft_sync_jobs checks every job again */
	synced_cnt = 0;
	synced_stamp.valid = false;
	rlft_isolation_start();
	/* node indexes may have changed (ranking): map again */
	_map_nodes();
	rlft_jobs_changed();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	before = lib->placer_running(placer);
	/* A kept placer: only the jobs that ended meanwhile leave (hash
	 * lookups); a job on other hosts now is re-added by the
	 * select_nodeinfo_set that follows, the others are skipped there. */
	if (!replay)
		rlft_seen_sweep(&seen, _still_running, _drop, NULL);
	else if (jobs) /* job_init: the jobs slurmctld recovered or kept */
		list_for_each(jobs, _track_running, NULL);
	else if (job_list) /* a fresh placer knows no job */
		list_for_each(job_list, _track_running, NULL);
	if (old_placer && (jobs || job_list) && old_lib == lib) {
		/* a new placer: the running jobs keep the LID offsets their
		 * tables give them, for the choices made beside them */
		size_t kept = lib->placer_copy_lids(placer, old_placer);

		debug("%s: LID offsets of %zu running jobs kept", PFX, kept);
	}
	if (jobs || job_list)
		_drop_old_placer();
	usec = (jobs ? usec : 0) + rlft_usec_since(&t0);
	if (jobs && !started) { /* tables pending when slurmctld stopped */
		list_for_each(jobs, _resume_lids, NULL);
		recovering = true; /* the rest as select_nodeinfo_set tracks them */
	} else if (!jobs) {
		recovering = false;
	}
	if (jobs)
		started = true;
	if (jobs)
		info("%s: tracking %zu running jobs (%s %zu, node_init and job_init %ld us)", PFX,
		     lib->placer_running(placer), replay ? "replayed" : "kept",
		     replay ? lib->placer_running(placer) : before, usec);
	else
		debug("%s: tracking %zu running jobs", PFX, lib->placer_running(placer));
}

static int _cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
	return x < y ? -1 : x > y;
}

typedef struct {
	uint32_t *ids;
	size_t n, cap;
} running_t;

static int _running_id(void *x, void *arg)
{
	job_record_t *job_ptr = x;
	running_t *r = arg;

	if ((IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)) && job_ptr->node_bitmap) {
		if (r->n == r->cap) {
			r->cap = MAX(2 * r->cap, 64);
			xrecalloc(r->ids, r->cap, sizeof(uint32_t));
		}
		r->ids[r->n++] = job_ptr->job_id;
	}
	return 0;
}

extern bool rlft_sync_jobs(void)
{
	running_t now = {0};
	size_t a = 0, b = 0;
	bool changed = false;
	time_t t = time(NULL);

	/* eval_nodes comes for every job tested, several times each: walk
	 * and sort the job list only when a job may have started or ended
	 * (a start moves slurmctld's count; an end, last_job_update) */
	if (!placer || !job_list ||
	    rlft_stamp_fresh(&synced_stamp, last_job_update, rlft_job_events(), t))
		return false;
	list_for_each(job_list, _running_id, &now);
	qsort(now.ids, now.n, sizeof(uint32_t), _cmp_u32);
	/* a merge of the two sorted lists: ended jobs leave, new ones come */
	while (a < synced_cnt || b < now.n) {
		if (b == now.n || (a < synced_cnt && synced[a] < now.ids[b])) {
			rlft_untrack(synced[a++]);
			changed = true;
		} else if (a == synced_cnt || now.ids[b] < synced[a]) {
			job_record_t *job_ptr = find_job_record(now.ids[b]);
			if (job_ptr)
				_track(job_ptr);
			b++;
			changed = true;
		} else {
			a++;
			b++;
		}
	}
	xfree(synced);
	synced = now.ids;
	synced_cnt = now.n;
	synced_stamp = rlft_stamp(last_job_update, rlft_job_events(), t);
	return changed;
}

extern void rlft_fini(void)
{
	/* the worker reads requests only, but libqft's code must stay */
	rlft_lid_stop();
	rlft_isolation_stop();
	_drop_old_placer();
	qft_holders_destroy(holders);
	holders = NULL;
	if (placer)
		lib->placer_destroy(placer);
	placer = NULL;
	qft_shared_fabric_release(held); /* topology/qft may own it */
	held = NULL;
	lib = NULL;
	fabric = NULL;
	qft_shared_fabric_fini();
	if (have_conf)
		qft_conf_free(&rconf);
	have_conf = false;
	xfree(host_of_node);
	xfree(node_of_host);
	rlft_chosen_fini();
	xfree(synced);
	synced_cnt = 0;
	synced_stamp.valid = false;
	rlft_seen_free(&seen);
	fabric_sig = 0;
	rlft_jobs_fini();
}

extern void rlft_job_update(job_record_t *job_ptr)
{
	size_t before;

	if (!placer)
		return;
	before = lib->placer_running(placer);
	_track(job_ptr);
	if (recovering)
		_resume_lids(job_ptr, NULL);
	if (lib->placer_running(placer) > before)
		verbose("%s: %pJ tracked, %zu running jobs", PFX, job_ptr,
		      lib->placer_running(placer));
}

extern void rlft_started(uint32_t job_id)
{
	recovering = false;
	qft_holders_unhold(holders, job_id);
}

extern void rlft_track_started(job_record_t *job_ptr, const size_t *hosts, size_t n)
{
	_track_hosts(job_ptr, hosts, n, true);
}

extern uint32_t *rlft_running_within(bitstr_t *bitmap, size_t *n)
{
	uint32_t *ids = xcalloc(MAX(seen.count, 1), sizeof(uint32_t));

	*n = 0;
	for (size_t i = 0; i < seen.size && *n < seen.count; i++) {
		job_record_t *j = seen.slot[i].id ? find_job_record(seen.slot[i].id) : NULL;

		if (j && j->node_bitmap && bit_super_set(j->node_bitmap, bitmap))
			ids[(*n)++] = j->job_id;
	}
	return ids;
}

extern qft_holders_t *rlft_holders(void)
{
	if (!holders)
		holders = qft_holders_create(); /* NULL: all hold */
	return holders;
}
