/*****************************************************************************\
 *  rlft_place.c - select/rlft's placement: slurmctld's nodes and jobs in
 *  libqft's terms and back. The choice itself is libqft's (its placer).
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
#include <stdio.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"
#include "src/common/bitstring.h"
#include "src/common/hostlist.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/plugins/common/qft_slurm.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "qft/qft.h"
#include "src/plugins/common/qft_conf.h"
#include "src/plugins/select/rlft/rlft_count.h"
#include "src/plugins/select/rlft/rlft_env.h"
#include "src/plugins/select/rlft/rlft_isolate.h"
#include "src/plugins/select/rlft/rlft_file.h"
#include "src/plugins/select/rlft/rlft_lid.h"
#include "src/plugins/select/rlft/rlft_place.h"
#include "src/plugins/select/rlft/rlft_jobs.h"
#include "src/plugins/select/rlft/rlft_cache.h"

#define PFX "select/rlft"

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

/*
 * What job_test chose, until job_begin tells the job. Keyed by the job's
 * record, not its id: an array task gets its own id between the two
 * (select_nodes: job_array_post_sched splits the task off the pending
 * array record, which keeps the id job_test saw).
 */
typedef struct {
	const job_record_t *job;
	uint32_t job_id; /* at job_test: the array's id for an array task */
	char *label;
	char *kind;     /* qft_placement_t's kind */
	char *shape;    /* and shape, "" unless a product */
	bool congestion_free; /* and whether it is provably */
	size_t shared_links;  /* switch links running jobs use too */
	size_t candidates;
	bool isolated;  /* placed apart (--qft-isolate): job_begin marks it */
	long usec;      /* time the placement took */
	long base_usec; /* time cons_tres's job_test took after it */
} chosen_t;
static list_t *chosen = NULL;

/* The jobs rlft_sync_jobs() tracked, ascending, and what it saw then. */
static uint32_t *synced = NULL;
static size_t synced_cnt = 0;
static rlft_stamp_t synced_stamp;

/* The hosts of each job the placer tracks (rlft_cache.h), and what the
 * placer was built from: a reconfigure that changes neither keeps it. */
static rlft_seen_t seen;
static uint64_t fabric_sig = 0;

static void _chosen_free(void *x)
{
	chosen_t *c = x;
	xfree(c->label);
	xfree(c->kind);
	xfree(c->shape);
	xfree(c);
}

/* Any choice made for the record (to replace or forget). */
static int _chosen_of(void *x, void *key)
{
	return ((chosen_t *) x)->job == key;
}

/* A choice whose job no longer has the id it had: its start failed after
 * job_test and it was purged, or its record holds another job now. */
static int _chosen_stale(void *x, void *key)
{
	const chosen_t *c = x;

	return find_job_record(c->job_id) != c->job;
}

/* The choice for the job as it is now: same record, and the id job_test
 * saw is its own or, for an array task split off since, its array's (a
 * record freed and reused by another job matches neither). */
static int _chosen_for(void *x, void *key)
{
	const chosen_t *c = x;
	const job_record_t *job_ptr = key;

	return c->job == job_ptr &&
	       (c->job_id == job_ptr->job_id ||
		(job_ptr->array_task_id != NO_VAL && c->job_id == job_ptr->array_job_id));
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

/* Host ordinals of a job's nodes, in tree order; xfree() them. */
static size_t *_job_hosts(bitstr_t *bitmap, size_t *count)
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

static void _untrack(uint32_t job_id)
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
	hosts = _job_hosts(job_ptr->node_bitmap, &n);
	_track_hosts(job_ptr, hosts, n, false);
	xfree(hosts);
}

/* Pattern= unset: libqft's default pattern, named here for the job and
 * the log. */
static const char *_pattern(void)
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
	       c->path_pressure == rconf.path_pressure && !xstrcmp(c->pattern, rconf.pattern);
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
	     rconf.rank_by_congestion ? rconf.path_pressure ? "by path pressure (at LMC > 0), congestion, then best fit" : "by congestion then best fit" : "by best fit",
	     _pattern(), kept);
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
	hosts = _job_hosts(job_ptr->node_bitmap, &n);
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
	if (!chosen)
		chosen = list_create(_chosen_free);
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
			_untrack(synced[a++]);
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
	FREE_NULL_LIST(chosen);
	xfree(synced);
	synced_cnt = 0;
	synced_stamp.valid = false;
	rlft_seen_free(&seen);
	fabric_sig = 0;
	rlft_jobs_fini();
}

/* The hosts the job may have (eligible), of those the ones held now
 * (busy: 1, or QFT_HOST_SHARED when it fits beside their jobs), and its
 * required ones; host ordinals. */
typedef struct {
	uint8_t *eligible, *busy;
	size_t *req, nreq, eligible_cnt, free_cnt, partly_used;
} avail_t;

/* What the job needs free on a node it shares with running jobs. */
typedef struct {
	bool may_share; /* not --exclusive, not OverSubscribe=EXCLUSIVE */
	uint32_t cpus;
	uint64_t memory; /* MB; 0: not asked or not tracked */
} share_need_t;

static share_need_t _share_need(job_record_t *job_ptr, const rlft_demand_t *dm, uint32_t nodes)
{
	job_details_t *d = job_ptr->details;
	share_need_t n = {
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
static bool _has_room(node_record_t *node_ptr, const share_need_t *need, bool *counted)
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

static void _avail(job_record_t *job_ptr, bitstr_t *bitmap, const share_need_t *need, avail_t *a)
{
	size_t hosts = lib->fabric_host_count(fabric);
	bitstr_t *req_bitmap = job_ptr->details ? job_ptr->details->req_node_bitmap : NULL;
	bool counted = false;

	memset(a, 0, sizeof(*a));
	a->eligible = xcalloc(MAX(hosts, 1), 1);
	a->busy = xcalloc(MAX(hosts, 1), 1);
	a->req = xcalloc(MAX(hosts, 1), sizeof(size_t));
	for (int i = 0; i < bit_size(bitmap) && i < host_of_node_cnt; i++) {
		int h = host_of_node[i];
		if (h < 0 || !bit_test(bitmap, i))
			continue;
		a->eligible[h] = 1;
		a->eligible_cnt++;
		if (!bit_test(idle_node_bitmap, i)) {
			bool room = _has_room(node_of_host[h], need, &counted);

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

static void _avail_free(avail_t *a)
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
	bool first = true;
	node_record_t *node_ptr;

	for (int i = 0; (node_ptr = next_node(&i)); i++) {
		rlft_node_cap_t c;

		if (i >= bit_size(bitmap) || !bit_test(bitmap, i) || i >= host_of_node_cnt ||
		    host_of_node[i] < 0)
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

/* What the job asks, in rlft_count.h's terms, from slurmctld's records. */
static rlft_demand_t _demand(job_record_t *job_ptr, uint32_t min_nodes, uint32_t max_nodes,
			     uint32_t req_nodes)
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

/* Node counts for the job (rlft_count.h) on the nodes of the bitmap. */
static bool _count(const rlft_demand_t *dm, bitstr_t *bitmap, rlft_count_t *out)
{
	rlft_demand_t d = *dm;
	rlft_node_cap_t cap;

	if (!d.cannot_tell && !_node_cap(bitmap, &cap))
		d.cannot_tell = "the nodes differ in CPUs or memory";
	return rlft_count(&d, &cap, out);
}

/* The last jobs a message was said for: true the first time for job_id,
 * which it remembers (the 64 latest), so that a job tested every
 * scheduling cycle is logged once. */
typedef struct {
	uint32_t ids[64];
	unsigned next;
} said_t;

static bool _first_time(said_t *said, uint32_t job_id)
{
	for (unsigned k = 0; k < ARRAY_SIZE(said->ids); k++)
		if (said->ids[k] == job_id)
			return false;
	said->ids[said->next++ % ARRAY_SIZE(said->ids)] = job_id;
	return true;
}

/* Says why a job goes to cons_tres unchanged, once per job. */
static void _pass_once(job_record_t *job_ptr, const char *why)
{
	static said_t said;

	if (_first_time(&said, job_ptr->job_id))
		verbose("%s: %pJ goes to cons_tres as it is: %s", PFX, job_ptr, why);
}

/* Places the job on c->want hosts (at most the free ones), then on smaller
 * counts of its range down to c->lo, five tries at most; each try takes a
 * product shape of any size in [c->lo, k] first (Shapes=products). RET
 * placed (*pl holds it), else not_now if some count could run later, else
 * never. */
static qft_outcome_t _place(job_record_t *job_ptr, const rlft_count_t *c, const avail_t *a,
			    bool isolate, const uint32_t *ended, size_t ended_cnt,
			    qft_placement_t *pl)
{
	qft_outcome_t best = QFT_NEVER;
	uint32_t k = c->want;
	char *err = NULL;
	qft_place_request_t r = {
		.eligible = a->eligible,
		.busy = a->busy,
		.required = a->req,
		.required_count = a->nreq,
		.isolate = isolate,
		.ended = ended,
		.ended_count = ended_cnt,
	};

	/* more nodes than are free now cannot be placed now */
	if (k > a->free_cnt && a->free_cnt >= c->lo)
		k = a->free_cnt;
	for (int tries = 0; tries < 5; tries++) {
		r.min_nodes = c->lo;
		r.nodes = k;
		if (lib->placer_place_request(placer, &r, pl, &err)) {
			error("%s: %pJ: %u nodes: %s", PFX, job_ptr, k, err);
			qft_free(err);
			err = NULL;
		} else if (pl->outcome == QFT_PLACED) {
			return QFT_PLACED;
		} else if (pl->outcome == QFT_NOT_NOW) {
			best = QFT_NOT_NOW;
		}
		if (k == c->lo)
			break;
		k = tries == 3 ? c->lo : c->lo + (k - c->lo) / 2;
	}
	return best;
}

/*
 * ShapeWait= (docs/product-shapes.md section 11): the earliest
 * congestion-free shape for the job on the hosts the running jobs' ends
 * free (by their limits, or as ShapeWaitEnds= expects them), while the
 * job may still wait for one. The rules (how long, counted from when, the
 * ends expected) are libqft's (qft_shape_wait, qft_shape_forecast); the
 * job's limits and when its wait began come from its records
 * (rlft_wait_job_of). RET whether there
 * is one: *ahead holds its hosts, *at when (seconds from now), *wait and
 * *left the job's wait in all and what is left of it.
 */
static bool _shape_ahead(job_record_t *job_ptr, const rlft_request_t *rq, const rlft_count_t *c,
			 const avail_t *a, double *wait, double *left, double *at,
			 qft_placement_t *ahead)
{
	qft_wait_job_t wj = rlft_wait_job_of(job_ptr, rconf.shape_wait_from_decline);
	const qft_shape_wait_rule_t rule = { .percent = rconf.shape_wait,
					     .max_seconds = rconf.shape_wait_max,
					     .ends = rconf.shape_wait_ends };
	time_t now = time(NULL);
	size_t hosts = lib->fabric_host_count(fabric);
	double *free_at;
	char *err = NULL;
	bool found = false;
	struct timespec t0;

	wj.own_set = rq->shape_wait_set;
	wj.own = rq->shape_wait;
	qft_shape_wait(&wj, &rule, now, wait, left);
	if (*wait <= 0 || *left <= 0 || c->lo < 2)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	free_at = rlft_free_at(a->eligible, hosts, host_of_node, host_of_node_cnt, now);
	qft_shape_forecast(&rule, free_at, hosts); /* ShapeWaitEnds= */
	/* the part that grew with the job list (issue 30 item 6) */
	log_flag(SELECT_TYPE, "%s: %pJ free times %ld us", PFX, job_ptr, rlft_usec_since(&t0));
	if (lib->placer_shape_ahead(placer, c->lo, c->want, a->eligible, free_at, a->req, a->nreq,
				    *left, at, ahead, &err)) {
		error("%s: %pJ: shape ahead: %s", PFX, job_ptr, err);
		qft_free(err);
	} else {
		found = ahead->outcome == QFT_PLACED;
	}
	xfree(free_at);
	return found;
}

static int _pending(uint32_t id, uint32_t *priority, void *arg)
{
	job_record_t *job_ptr = find_job_record(id);

	(void) arg;
	if (!job_ptr || !IS_JOB_PENDING(job_ptr))
		return 0;
	*priority = job_ptr->priority;
	return 1;
}

/* What a shape ahead is: proven congestion-free, or at LMC > 0 whole leaves
 * of one level-2 subtree, which the pair choice routes free (measured). */
static const char *_shape_word(const qft_placement_t *shape)
{
	return shape->congestion_free || !shape->offset_shape ? "congestion-free" : "whole-leaf";
}

/* Says once per job that it waits for a shape (a declined start, or
 * backfill's plan on the shape), at info: a scheduling decision that
 * squeue shows only as Resources. */
static void _wait_once(job_record_t *job_ptr, const qft_placement_t *ahead, double at,
		       double wait, double left)
{
	static said_t said;
	char ends[48] = "";

	if (!_first_time(&said, job_ptr->job_id))
		return;
	/* "due" by what ShapeWaitEnds= expects, not by the limits: say so */
	if (rconf.shape_wait_ends < 100)
		snprintf(ends, sizeof(ends), " (ShapeWaitEnds=%u)", rconf.shape_wait_ends);
	info("%s: %pJ waits for a %s %s (%s%s%zu nodes) due in %.0f s%s, within its ShapeWait of %.0f s (%.0f s left)",
	     PFX, job_ptr, _shape_word(ahead), ahead->kind, ahead->shape, ahead->shape[0] ? ", " : "",
	     ahead->count, at, ends, wait, left);
}

/* WILL_RUN with ShapeWait=: backfill plans the job on the earliest
 * congestion-free shape within its wait, and holds those nodes for it;
 * without one, cons_tres plans it as it would. */
static int _will_run(job_record_t *job_ptr, const rlft_request_t *rq, bitstr_t *bitmap,
		     const rlft_count_t *c, const avail_t *a, uint32_t *count)
{
	double wait, left, at;
	qft_placement_t ahead;

	if (!_shape_ahead(job_ptr, rq, c, a, &wait, &left, &at, &ahead)) {
		qft_holders_unhold(holders, job_ptr->job_id);
		return RLFT_PASS;
	}
	/* ShapeHolds=: backfill cannot fill held nodes with jobs whose limits
	 * look longer than the wait, so only the first waiting jobs hold;
	 * the others still wait (RUN_NOW declines) but are planned as
	 * cons_tres plans them (docs/sim.md runs 11-13); 0: all hold, and
	 * no one is counted */
	if (rconf.shape_holds) {
		if (!holders)
			holders = qft_holders_create(); /* NULL: all hold */
		if (holders && !qft_holders_may_hold(holders, job_ptr->job_id, job_ptr->priority,
						     rconf.shape_holds, _pending, NULL)) {
			qft_holders_unhold(holders, job_ptr->job_id);
			log_flag(SELECT_TYPE, "%s: %pJ waits for a %s free in %.0f s without holding it: %u waiting jobs before it hold theirs",
				 PFX, job_ptr, ahead.kind, at, rconf.shape_holds);
			return RLFT_PASS;
		}
		qft_holders_hold(holders, job_ptr->job_id, job_ptr->priority);
	}
	bit_clear_all(bitmap);
	for (size_t k = 0; k < ahead.count; k++)
		bit_set(bitmap, node_of_host[ahead.hosts[k]]->index);
	*count = ahead.count;
	if (at > 0)
		_wait_once(job_ptr, &ahead, at, wait, left);
	log_flag(SELECT_TYPE, "%s: %pJ will run on a %s %s %s of %zu nodes, free in %.0f s (%.0f s of its wait left)",
		 PFX, job_ptr, _shape_word(&ahead), ahead.kind, ahead.shape, ahead.count, at, left);
	return RLFT_RESTRICTED;
}

/* Whether the job may wait for a shape at all: its --qft-shape-wait, else
 * ShapeWait=. */
static bool _may_wait(const rlft_request_t *rq)
{
	return rq->shape_wait_set ? rq->shape_wait > 0 : rconf.shape_wait > 0;
}

/*
 * What cons_tres may do with a job the placer did not place (libqft's
 * rule, qft_pass_to_cons_tres): choose from the whole bitmap (RLFT_PASS),
 * unless isolation is in play in RUN_NOW: then a job of one node passes
 * off the isolated jobs' nodes (onto an idle node when it asks isolation
 * itself: job_begin marks it isolated, later jobs keep off its node), and
 * any larger job waits, saying why.
 */
static int _pass(job_record_t *job_ptr, const rlft_request_t *rq, bitstr_t *bitmap,
		 uint32_t max_nodes, uint16_t mode, const char *why)
{
	switch (qft_pass_to_cons_tres((mode & SELECT_MODE_BASE) == SELECT_MODE_RUN_NOW,
				      rq->isolate, lib->placer_isolated(placer), max_nodes)) {
	case QFT_PASS_WHOLE:
		return RLFT_PASS;
	case QFT_PASS_IDLE_OFF_ISOLATED:
		if (idle_node_bitmap)
			bit_and(bitmap, idle_node_bitmap);
		/* fall through */
	case QFT_PASS_OFF_ISOLATED:
		rlft_isolated_nodes_clear(bitmap);
		return RLFT_PASS;
	case QFT_PASS_WAIT:
		break;
	}
	rlft_isolation_wait(job_ptr, why);
	return SLURM_ERROR;
}

/* As _pass, for a job the placer could not size or cons_tres could not fit
 * where the placer chose: where _pass would make it wait, RLFT_APART lets
 * cons_tres choose inside a subtree apart instead (rlft_apart_zone). */
static int _pass_or_apart(job_record_t *job_ptr, const rlft_request_t *rq, bitstr_t *bitmap,
			  uint32_t max_nodes, uint16_t mode, const char *why)
{
	if (qft_pass_to_cons_tres((mode & SELECT_MODE_BASE) == SELECT_MODE_RUN_NOW, rq->isolate,
				  lib->placer_isolated(placer), max_nodes) == QFT_PASS_WAIT) {
		log_flag(SELECT_TYPE, "%s: %pJ %s: cons_tres chooses inside a subtree apart", PFX,
			 job_ptr, why);
		return RLFT_APART;
	}
	return _pass(job_ptr, rq, bitmap, max_nodes, mode, why);
}

extern bool rlft_apart_zone(job_record_t *job_ptr, bitstr_t *bitmap, bitstr_t *offered,
			    uint32_t min_nodes, unsigned *level)
{
	rlft_request_t rq;
	size_t hosts, n = 0;
	uint8_t *eligible, *zone;
	unsigned l = 0;
	chosen_t *ch;

	if (!placer || !chosen)
		return false;
	rq = rlft_request_of(job_ptr, rconf.isolate_partitions);
	hosts = lib->fabric_host_count(fabric);
	eligible = xcalloc(MAX(hosts, 1), 1);
	zone = xcalloc(MAX(hosts, 1), 1);
	for (int i = 0; i < bit_size(offered) && i < host_of_node_cnt; i++)
		if (host_of_node[i] >= 0 && bit_test(offered, i))
			eligible[host_of_node[i]] = 1;
	l = lib->placer_subtree_apart(placer, eligible, MAX(min_nodes, 1), rq.isolate, *level,
				      zone);
	list_delete_all(chosen, _chosen_of, job_ptr);
	if (l) {
		bit_clear_all(bitmap);
		for (size_t h = 0; h < hosts; h++)
			if (zone[h]) {
				bit_set(bitmap, node_of_host[h]->index);
				n++;
			}
		ch = xmalloc(sizeof(*ch));
		ch->job = job_ptr;
		ch->job_id = job_ptr->job_id;
		ch->label = xstrdup_printf("chosen by cons_tres inside a level-%u subtree of %zu nodes apart from %s",
					   l, n, rq.isolate ? "every running job" : "the isolated jobs");
		ch->kind = xstrdup("cons_tres");
		ch->shape = xstrdup("");
		ch->isolated = rq.isolate;
		list_append(chosen, ch);
		log_flag(SELECT_TYPE, "%s: %pJ: cons_tres tries the %zu nodes of a level-%u subtree apart",
			 PFX, job_ptr, n, l);
	}
	xfree(eligible);
	xfree(zone);
	*level = l;
	return l != 0;
}

extern int rlft_apart_none(job_record_t *job_ptr)
{
	if (chosen)
		list_delete_all(chosen, _chosen_of, job_ptr);
	rlft_isolation_wait(job_ptr, "no subtree apart has room for it");
	return SLURM_ERROR;
}

/*
 * WILL_RUN while isolation is in play (the job asks it, or an isolated job
 * runs and the job may span leaves). Backfill offers the nodes free at
 * some time; the running jobs all of whose nodes it offers have ended by
 * then (the others still run, links and all). The job is planned on a
 * placement apart at that time (RLFT_RESTRICTED), or not at that time
 * (SLURM_ERROR: backfill tries its later times), so that backfill never
 * plans a start that RUN_NOW would refuse, and never tries one.
 */
static int _will_run_apart(job_record_t *job_ptr, const rlft_request_t *rq, bitstr_t *bitmap,
			   const rlft_count_t *c, avail_t *a, uint32_t *count)
{
	uint32_t *ended = xcalloc(MAX(seen.count, 1), sizeof(uint32_t));
	size_t n = 0;
	qft_placement_t pl;
	qft_outcome_t outcome;

	for (size_t i = 0; i < seen.size && n < seen.count; i++) {
		job_record_t *j = seen.slot[i].id ? find_job_record(seen.slot[i].id) : NULL;

		if (j && j->node_bitmap && bit_super_set(j->node_bitmap, bitmap))
			ended[n++] = j->job_id;
	}
	/* the bitmap is what is free then: nothing in it is busy */
	memset(a->busy, 0, lib->fabric_host_count(fabric));
	a->free_cnt = a->eligible_cnt;
	outcome = _place(job_ptr, c, a, rq->isolate, ended, n, &pl);
	xfree(ended);
	if (outcome != QFT_PLACED) {
		log_flag(SELECT_TYPE, "%s: %pJ will not run apart on these %zu nodes: %s", PFX,
			 job_ptr, a->eligible_cnt, pl.reason ? pl.reason : "no fit");
		return SLURM_ERROR;
	}
	bit_clear_all(bitmap);
	for (size_t k = 0; k < pl.count; k++)
		bit_set(bitmap, node_of_host[pl.hosts[k]]->index);
	*count = pl.count;
	log_flag(SELECT_TYPE, "%s: %pJ will run apart on %zu nodes (%s), %zu running jobs ended by then",
		 PFX, job_ptr, pl.count, pl.label, n);
	return RLFT_RESTRICTED;
}

extern int rlft_job_test(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes,
			 uint32_t max_nodes, uint32_t req_nodes, uint16_t mode,
			 list_t *preemptee_candidates, uint32_t *count)
{
	qft_placement_t pl;
	rlft_demand_t dm;
	rlft_count_t c;
	rlft_request_t rq;
	share_need_t need;
	avail_t a;
	qft_outcome_t outcome;
	struct timespec t0;
	long usec;
	chosen_t *ch;
	size_t partly_used;
	bool run_now = (mode & SELECT_MODE_BASE) == SELECT_MODE_RUN_NOW;
	bool apart; /* isolation is in play for the job */

	*count = 0;
	if (!placer || !bitmap || !job_ptr->details)
		return RLFT_PASS;
	rlft_isolation_say();
	rq = rlft_request_of(job_ptr, rconf.isolate_partitions);
	/* WILL_RUN (backfill) simulates jobs ending inside the bitmap: any
	 * narrowing by today's occupancy would be wrong there; only a shape
	 * the running jobs' ends free is (ShapeWait=), and a placement apart
	 * from the jobs still running then (isolation: _will_run_apart). */
	apart = qft_isolation_in_play(rq.isolate, lib->placer_isolated(placer), max_nodes);
	if ((mode & SELECT_MODE_BASE) == SELECT_MODE_WILL_RUN && !_may_wait(&rq) && !apart)
		return RLFT_PASS;
	if (run_now)
		rlft_isolation_clear(job_ptr, false);
	dm = _demand(job_ptr, min_nodes, max_nodes, req_nodes);
	if (!_count(&dm, bitmap, &c)) {
		if (run_now)
			_pass_once(job_ptr, c.why_not);
		return _pass_or_apart(job_ptr, &rq, bitmap, max_nodes, mode, c.why_not);
	}
	need = _share_need(job_ptr, &dm, c.want);
	_avail(job_ptr, bitmap, &need, &a);
	if (job_ptr->details->req_node_bitmap &&
	    bit_set_count(job_ptr->details->req_node_bitmap) > a.nreq) {
		static const char why[] = "required nodes outside the fabric or not available";

		if (run_now)
			_pass_once(job_ptr, why);
		_avail_free(&a);
		return _pass(job_ptr, &rq, bitmap, max_nodes, mode, why);
	}
	if ((mode & SELECT_MODE_BASE) == SELECT_MODE_TEST_ONLY) {
		/* only "never": fewer fabric nodes than the job needs */
		int rc = a.eligible_cnt < c.lo ? ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE :
						 RLFT_PASS;
		_avail_free(&a);
		return rc;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((mode & SELECT_MODE_BASE) == SELECT_MODE_WILL_RUN) {
		int rc = apart ? _will_run_apart(job_ptr, &rq, bitmap, &c, &a, count) :
				 _will_run(job_ptr, &rq, bitmap, &c, &a, count);

		log_flag(SELECT_TYPE, "%s: %pJ WILL_RUN shape search took %ld us", PFX, job_ptr,
			 rlft_usec_since(&t0));
		_avail_free(&a);
		return rc;
	}
	outcome = _place(job_ptr, &c, &a, rq.isolate, NULL, 0, &pl);
	/* ShapeWait=: rather than congest now, wait for a shape due within
	 * the job's wait (libqft's rule; INFINITY: would any later shape
	 * do, before one is searched) */
	if (outcome == QFT_PLACED && _may_wait(&rq) && qft_shape_decline(&pl, INFINITY)) {
		double wait, left, at;
		qft_placement_t ahead;

		if (_shape_ahead(job_ptr, &rq, &c, &a, &wait, &left, &at, &ahead) &&
		    qft_shape_decline(&pl, at)) {
			rlft_declined(job_ptr, time(NULL));
			_wait_once(job_ptr, &ahead, at, wait, left);
			log_flag(SELECT_TYPE, "%s: %pJ not now: a %s %s frees in %.0f s (%ld us)",
				 PFX, job_ptr, _shape_word(&ahead), ahead.kind, at, rlft_usec_since(&t0));
			_avail_free(&a);
			return SLURM_ERROR;
		}
	}
	usec = rlft_usec_since(&t0);
	partly_used = a.partly_used;
	_avail_free(&a);
	if (outcome != QFT_PLACED) {
		/* No job waits for rlft unless a rule chose so (ShapeWait
		 * above, Remainder=reserve's held hosts, isolation): cons_tres
		 * may still start it, on nodes the placer counts busy (a partly
		 * used node short of the job's share at this count, one a
		 * smaller count would fit), through preemption, or not at all. */
		bool isolation = !strncmp(pl.reason ? pl.reason : "", "isolation: ", 11);

		log_flag(SELECT_TYPE, "%s: %pJ (%u-%u nodes, %u CPUs a node) %s on %zu partly used nodes and the idle ones: %s",
			 PFX, job_ptr, c.lo, c.hi, need.cpus,
			 outcome == QFT_NOT_NOW ? "not now" : "no fit", partly_used,
			 isolation ? pl.reason :
			 rconf.reserve_remainder && outcome == QFT_NOT_NOW ?
				 "waits (Remainder=reserve)" : "cons_tres decides");
		if (rconf.reserve_remainder && outcome == QFT_NOT_NOW &&
		    !(preemptee_candidates && list_count(preemptee_candidates)))
			return SLURM_ERROR;
		return _pass(job_ptr, &rq, bitmap, max_nodes, mode,
			     isolation ? pl.reason + 11 :
			     outcome == QFT_NOT_NOW ? "not enough free nodes apart" : "no fit");
	}
	bit_clear_all(bitmap);
	for (size_t k = 0; k < pl.count; k++)
		bit_set(bitmap, node_of_host[pl.hosts[k]]->index);
	*count = pl.count;
	log_flag(SELECT_TYPE, "%s: %pJ %zu nodes (%u-%u), %zu candidates:\n%s", PFX, job_ptr,
		 pl.count, c.lo, c.hi, pl.candidates, pl.explain);
	list_delete_all(chosen, _chosen_of, job_ptr);
	if (list_count(chosen) > 64) /* choices no job_begin took */
		list_delete_all(chosen, _chosen_stale, NULL);
	ch = xmalloc(sizeof(*ch));
	ch->job = job_ptr;
	ch->job_id = job_ptr->job_id;
	ch->label = xstrdup(pl.label);
	ch->kind = xstrdup(pl.kind);
	ch->shape = xstrdup(pl.shape);
	ch->congestion_free = pl.congestion_free;
	ch->shared_links = pl.shared_links;
	ch->candidates = pl.candidates;
	ch->usec = usec;
	ch->isolated = rq.isolate;
	list_append(chosen, ch);
	return RLFT_RESTRICTED;
}

extern bool rlft_plan_busy_first(void)
{
	return rconf.plan_busy_first;
}

extern void rlft_forget_choice(job_record_t *job_ptr)
{
	if (chosen)
		list_delete_all(chosen, _chosen_of, job_ptr);
}

extern int rlft_not_placed(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t max_nodes,
			   uint16_t mode)
{
	static const char why[] = "cons_tres could not fit it on the nodes rlft chose "
				  "(CPUs, memory or GRES)";
	rlft_request_t rq = rlft_request_of(job_ptr, rconf.isolate_partitions);

	if (chosen)
		list_delete_all(chosen, _chosen_of, job_ptr);
	_pass_once(job_ptr, why);
	return placer ? _pass_or_apart(job_ptr, &rq, bitmap, max_nodes, mode, why) : RLFT_PASS;
}

/* QFT_HSD_AVG, QFT_HSD_MAX, QFT_HSD_STAGES: only figures libqft computed
 * (a requeued job loses the ones of its last run). */
static bool _tell_prediction(job_record_t *job_ptr, const size_t *hosts, size_t n,
			     qft_prediction_t *pred)
{
	char buf[64], *err = NULL;

	if (lib->placer_predict(placer, hosts, n, pred, &err)) {
		error("%s: %pJ: no congestion prediction: %s", PFX, job_ptr, err);
		qft_free(err);
		rlft_unsetenv(job_ptr, "QFT_HSD_AVG");
		rlft_unsetenv(job_ptr, "QFT_HSD_MAX");
		rlft_unsetenv(job_ptr, "QFT_HSD_STAGES");
		return false;
	}
	snprintf(buf, sizeof(buf), "%.3f", pred->avg_hsd);
	rlft_setenv(job_ptr, "QFT_HSD_AVG", buf);
	snprintf(buf, sizeof(buf), "%u", pred->max_hsd);
	rlft_setenv(job_ptr, "QFT_HSD_MAX", buf);
	snprintf(buf, sizeof(buf), "%zu/%zu", pred->stages_played, pred->stages_total);
	rlft_setenv(job_ptr, "QFT_HSD_STAGES", buf);
	return true;
}

/* The files a job reads in HostFileDir=: job_<id>.hosts, job_<id>.lid. */
static const char *const _job_file_suffixes[] = {"hosts", "lid", NULL};

static char *_job_file_path(uint32_t job_id, const char *suffix)
{
	return xstrdup_printf("%s/job_%u.%s", rconf.hostfile_dir, job_id, suffix);
}

static bool _write_job_file(job_record_t *job_ptr, const char *suffix, const char *text,
				const char *var)
{
	char *name, *err = NULL;
	bool ok = false;

	if (!rconf.hostfile_dir)
		return false;
	name = xstrdup_printf("job_%u.%s", job_ptr->job_id, suffix);
	/* not fopen(): a user could plant a link at the name (rlft_file.h) */
	if (rlft_file_write(rconf.hostfile_dir, name, text, &err)) {
		error("%s: %pJ: %s", PFX, job_ptr, err ? err : "out of memory");
		free(err); /* rlft_file.c's malloc() */
	} else {
		char *path = _job_file_path(job_ptr->job_id, suffix);

		rlft_setenv(job_ptr, var, path);
		xfree(path);
		ok = true;
	}
	xfree(name);
	return ok;
}

/* "a,b,c" (sep ',') or "a\nb\nc\n" (sep '\n') of the hosts' node names,
 * in one allocation: xstrfmtcat per name is quadratic in the job size. */
static char *_names(const size_t *hosts, size_t n, char sep)
{
	size_t len = 1, at = 0;
	char *out;

	for (size_t k = 0; k < n; k++)
		len += strlen(node_of_host[hosts[k]]->name) + 1;
	out = xmalloc(len);
	for (size_t k = 0; k < n; k++) {
		size_t l = strlen(node_of_host[hosts[k]]->name);
		memcpy(out + at, node_of_host[hosts[k]]->name, l);
		at += l;
		if (sep == '\n' || k + 1 < n)
			out[at++] = sep;
	}
	out[at] = '\0';
	return out;
}

static char *_ranged(const size_t *hosts, size_t n)
{
	qft_hostlist_t hl = hostlist_create(NULL);
	char *ranged;

	for (size_t k = 0; k < n; k++)
		hostlist_push_host(hl, node_of_host[hosts[k]]->name);
	ranged = hostlist_ranged_string_xmalloc(hl);
	hostlist_destroy(hl);
	return ranged;
}

/* No chosen_t: rlft passed the job on and cons_tres chose its nodes. */
static const char *_label(const chosen_t *c)
{
	return c ? c->label : "chosen by cons_tres";
}

/* What the job reads about its placement (qft.conf(5), JOB ENVIRONMENT):
 * node order, LID offsets, placement and, with HostFileDir=, a hostfile. */
static void _tell_placement(job_record_t *job_ptr, const size_t *hosts, size_t n,
			    const char *ranged, const chosen_t *c)
{
	char *list = _names(hosts, n, ',');

	rlft_setenv(job_ptr, "QFT_NODELIST", ranged);
	rlft_setenv(job_ptr, "QFT_HOSTS", list);
	rlft_setenv(job_ptr, "QFT_RANK_ORDER", "tree");
	rlft_setenv(job_ptr, "QFT_PATTERN", _pattern());
	rlft_setenv(job_ptr, "QFT_PLACEMENT", _label(c));
	rlft_setenv(job_ptr, "QFT_PLACEMENT_KIND", c ? c->kind : "cons_tres");
	rlft_setenv(job_ptr, "QFT_CONGESTION_FREE", c && c->congestion_free ? "yes" : "no");
	if (c && c->shape && c->shape[0])
		rlft_setenv(job_ptr, "QFT_SHAPE", c->shape);
	else
		rlft_unsetenv(job_ptr, "QFT_SHAPE"); /* a requeued job's old one */
	if (rconf.hostfile_dir) {
		char *lines = _names(hosts, n, '\n');
		_write_job_file(job_ptr, "hosts", lines, "QFT_HOSTFILE");
		xfree(lines);
	}
	xfree(list);
}

/* One line per job at info level, DebugFlags or not: an admin asking why a
 * job runs where it does finds placement, prediction and cost together.
 * pred is NULL when libqft gave no prediction. */
static void _log_begin(job_record_t *job_ptr, size_t n, const char *ranged,
		       const chosen_t *c, const qft_prediction_t *pred,
		       const struct timespec *t0)
{
	char buf[128];

	if (pred)
		snprintf(buf, sizeof(buf), "HSD %.3f avg, %u worst over %zu of %zu stages",
			 pred->avg_hsd, pred->max_hsd, pred->stages_played, pred->stages_total);
	else
		snprintf(buf, sizeof(buf), "no HSD prediction");
	info("%s: %pJ on %zu nodes %s: %s; %s %s; placed in %ld us over %zu candidates, cons_tres %ld us, job_begin %ld us; %zu switch links shared with running jobs%s",
	     PFX, job_ptr, n, ranged, _label(c), _pattern(), buf,
	     c ? c->usec : 0L, c ? c->candidates : (size_t) 0, c ? c->base_usec : 0L,
	     rlft_usec_since(t0), c ? c->shared_links : (size_t) 0,
	     c && c->isolated ? "; isolated" : "");
}

extern void rlft_job_begin(job_record_t *job_ptr)
{
	size_t n, *hosts;
	char *ranged;
	qft_prediction_t pred;
	bool predicted;
	chosen_t *c;
	uint32_t id = job_ptr->job_id;
	struct timespec t0;

	recovering = false;
	qft_holders_unhold(holders, id);
	rlft_wait_ended(job_ptr, time(NULL));
	if (!placer || !job_ptr->node_bitmap || !job_ptr->details)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	hosts = _job_hosts(job_ptr->node_bitmap, &n);
	if (!n) {
		xfree(hosts);
		return;
	}
	/* the tables published since: later choices see their offsets */
	rlft_lid_take_done(lib, placer);
	c = list_find_first(chosen, _chosen_for, job_ptr);
	/* isolated where the placer put it apart (or cons_tres inside a
	 * subtree apart), or wherever it shares nothing with a running job
	 * (one idle node: RUN_NOW lets cons_tres place no other job that
	 * asks, _pass); checked before it is tracked */
	rlft_isolation_clear(job_ptr, true);
	{
		bool asked = rlft_request_of(job_ptr, rconf.isolate_partitions).isolate;
		bool apart = (c && c->isolated) ||
			     (asked && lib->placer_hosts_apart(placer, hosts, n, 1));

		rlft_isolation_tell(job_ptr, apart);
		if (asked && !apart)
			error("%s: %pJ asked isolation but started on nodes rlft did not choose: not isolated",
			      PFX, job_ptr);
	}
	_track_hosts(job_ptr, hosts, n, true);
	ranged = _ranged(hosts, n);
	_tell_placement(job_ptr, hosts, n, ranged, c);
	predicted = _tell_prediction(job_ptr, hosts, n, &pred);
	_log_begin(job_ptr, n, ranged, c, predicted ? &pred : NULL, &t0);
	{
		rlft_lid_ctx_t lids = {lib, placer, &rconf, lib->fabric_lmc(fabric)};

		rlft_tell_lids(&lids, job_ptr, hosts, n, c && c->congestion_free,
			       predicted ? &pred : NULL);
	}
	list_delete_all(chosen, _chosen_of, job_ptr);
	xfree(ranged);
	xfree(hosts);
}

extern void rlft_base_time(job_record_t *job_ptr, long usec)
{
	chosen_t *c = chosen ? list_find_first(chosen, _chosen_for, job_ptr) : NULL;

	if (c)
		c->base_usec = usec;
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

extern void rlft_job_fini(job_record_t *job_ptr)
{
	struct timespec t0;

	if (!placer)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	_untrack(job_ptr->job_id);
	rlft_lid_forget(job_ptr);
	verbose("%s: %pJ ended, job_fini %ld us", PFX, job_ptr, rlft_usec_since(&t0));
	if (!rconf.hostfile_dir)
		return;
	for (int i = 0; _job_file_suffixes[i]; i++) {
		char *name = xstrdup_printf("job_%u.%s", job_ptr->job_id, _job_file_suffixes[i]);
		char *err = NULL;

		if (rlft_file_remove(rconf.hostfile_dir, name, &err)) {
			debug("%s: %pJ: %s", PFX, job_ptr, err ? err : "out of memory");
			free(err); /* rlft_file.c's malloc() */
		}
		xfree(name);
	}
}
