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
#include "src/common/select.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "qft/qft.h"
#include "src/plugins/common/qft_conf.h"
#include "src/plugins/select/rlft/rlft_place.h"

#define PFX "select/rlft"

/*
 * slurmctld's globals. srun and slurmd load every select plugin too, and
 * have none of them: these definitions let the plugin load there. In
 * slurmctld its own definitions come first in the lookup and win (the
 * version script keeps these global for that reason), as for cons_tres.
 */
List job_list;
bitstr_t *idle_node_bitmap;

static qft_fabric_t *fabric = NULL;
static qft_placer_t *placer = NULL;
static qft_conf_t rconf; /* "conf" is a Slurm global */
static bool have_conf = false;
static int *host_of_node = NULL;      /* node index -> host ordinal, -1 */
static int host_of_node_cnt = 0;
static node_record_t **node_of_host = NULL; /* host ordinal -> node */

/* What job_test chose, until job_begin tells the job. */
typedef struct {
	uint32_t job_id;
	char *label;
	double hsd, hsd_alone;
	size_t candidates;
	long usec;      /* time the placement took */
	long base_usec; /* time cons_tres's job_test took after it */
} chosen_t;
static List chosen = NULL;

static void _chosen_free(void *x)
{
	chosen_t *c = x;
	xfree(c->label);
	xfree(c);
}

static int _chosen_find(void *x, void *key)
{
	return ((chosen_t *) x)->job_id == *(uint32_t *) key;
}

static void _map_nodes(void)
{
	node_record_t *node_ptr;
	size_t hosts = qft_fabric_host_count(fabric);

	xfree(host_of_node);
	xfree(node_of_host);
	host_of_node_cnt = node_record_count;
	host_of_node = xcalloc(MAX(node_record_count, 1), sizeof(int));
	node_of_host = xcalloc(MAX(hosts, 1), sizeof(node_record_t *));
	for (int i = 0; i < node_record_count; i++)
		host_of_node[i] = -1;
	for (int i = 0; (node_ptr = next_node(&i)); i++) {
		size_t ord = qft_fabric_find_host(fabric, node_ptr->name);
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
	qft_fabric_sort_tree_order(fabric, hosts, n, NULL);
	*count = n;
	return hosts;
}

static void _track(job_record_t *job_ptr)
{
	size_t n;
	size_t *hosts;
	char *err = NULL;

	if (!job_ptr->node_bitmap)
		return;
	hosts = _job_hosts(job_ptr->node_bitmap, &n);
	if (n && qft_placer_add_job(placer, job_ptr->job_id, hosts, n, &err))
		error("%s: %pJ: %s", PFX, job_ptr, err);
	qft_free(err);
	xfree(hosts);
}

static int _track_running(void *x, void *arg)
{
	job_record_t *job_ptr = x;

	if (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr))
		_track(job_ptr);
	return 0;
}

extern void rlft_node_init(List jobs)
{
	qft_conf_t fresh_conf;
	qft_fabric_t *fresh = NULL;
	qft_placer_t *fresh_placer = NULL;
	char *why = NULL, *err = NULL;

	if (qft_conf_read(&fresh_conf, &why) != SLURM_SUCCESS ||
	    qft_conf_load_fabric(&fresh_conf, &fresh, &why) != SLURM_SUCCESS) {
		qft_conf_free(&fresh_conf);
		if (!fabric)
			fatal("%s: %s", PFX, why);
		error("%s: %s; keeping the fabric loaded before", PFX, why);
		xfree(why);
	} else {
		qft_placer_config_t pc = {
			.reserve_remainder = fresh_conf.reserve_remainder,
			.pattern = fresh_conf.pattern,
			.sample_stages = fresh_conf.sample_stages,
			.rank_by_congestion = fresh_conf.rank_by_congestion,
		};
		if (qft_placer_create(fresh, &pc, &fresh_placer, &err)) {
			if (!fabric)
				fatal("%s: %s: %s", PFX, fresh_conf.path, err);
			error("%s: %s: %s; keeping the placement settings before", PFX,
			      fresh_conf.path, err);
			qft_free(err);
			qft_fabric_destroy(fresh);
			qft_conf_free(&fresh_conf);
		} else {
			qft_placer_destroy(placer);
			qft_fabric_destroy(fabric);
			if (have_conf)
				qft_conf_free(&rconf);
			rconf = fresh_conf;
			have_conf = true;
			fabric = fresh;
			placer = fresh_placer;
			info("%s: fabric %s: PGFT(%s), %zu hosts; remainder %s, ranking %s by %s",
			     PFX, rconf.fabric_file, qft_fabric_tuple(fabric),
			     qft_fabric_host_count(fabric),
			     rconf.reserve_remainder ? "reserve" : "exact",
			     rconf.rank_by_congestion ? "by congestion then best fit" : "by best fit",
			     rconf.pattern ? rconf.pattern : "shift");
		}
	}
	if (!chosen)
		chosen = list_create(_chosen_free);
	/* node indexes may have changed (ranking): map again, re-track */
	_map_nodes();
	if (!jobs)
		jobs = job_list;
	if (jobs) {
		/* a fresh placer knows no job; re-adding a known id replaces it */
		list_for_each(jobs, _track_running, NULL);
		debug("%s: tracking %zu running jobs", PFX, qft_placer_running(placer));
	}
}

extern void rlft_fini(void)
{
	qft_placer_destroy(placer);
	placer = NULL;
	qft_fabric_destroy(fabric);
	fabric = NULL;
	if (have_conf)
		qft_conf_free(&rconf);
	have_conf = false;
	xfree(host_of_node);
	xfree(node_of_host);
	FREE_NULL_LIST(chosen);
}

extern int rlft_job_test(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes,
			 uint16_t mode, List preemptee_candidates)
{
	size_t hosts, nreq = 0, *req = NULL, eligible_cnt = 0;
	uint8_t *eligible, *busy;
	qft_placement_t pl;
	char *err = NULL;
	int rc = RLFT_PASS;

	if (!placer || !bitmap || min_nodes == 0)
		return RLFT_PASS;
	/* WILL_RUN (backfill) simulates jobs ending inside the bitmap: any
	 * narrowing by today's occupancy would be wrong there. */
	if ((mode & SELECT_MODE_BASE) == SELECT_MODE_WILL_RUN)
		return RLFT_PASS;
	hosts = qft_fabric_host_count(fabric);
	eligible = xcalloc(MAX(hosts, 1), 1);
	busy = xcalloc(MAX(hosts, 1), 1);
	req = xcalloc(MAX(hosts, 1), sizeof(size_t));
	for (int i = 0; i < bit_size(bitmap) && i < host_of_node_cnt; i++) {
		int h = host_of_node[i];
		if (h < 0 || !bit_test(bitmap, i))
			continue;
		eligible[h] = 1;
		eligible_cnt++;
		busy[h] = !bit_test(idle_node_bitmap, i);
		if (job_ptr->details && job_ptr->details->req_node_bitmap &&
		    bit_test(job_ptr->details->req_node_bitmap, i))
			req[nreq++] = h;
	}
	if ((mode & SELECT_MODE_BASE) == SELECT_MODE_TEST_ONLY) {
		/* only "never": fewer fabric nodes than asked for */
		if (eligible_cnt < min_nodes)
			rc = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
		goto out;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (qft_placer_place(placer, min_nodes, eligible, busy, req, nreq, &pl, &err)) {
		error("%s: %pJ: %s", PFX, job_ptr, err);
		qft_free(err);
		goto out; /* cons_tres decides */
	}
	if (pl.outcome == QFT_NEVER) {
		/* RUN_NOW's bitmap lacks down and drained nodes, which may come
		 * back: "never" among them is "not now" for the job, and Slurm
		 * keeps its own pending reason. */
		log_flag(SELECT_TYPE, "%s: %pJ does not fit the available nodes: %s", PFX,
			 job_ptr, pl.reason);
		rc = SLURM_ERROR;
	} else if (pl.outcome == QFT_NOT_NOW) {
		log_flag(SELECT_TYPE, "%s: %pJ not now: %s", PFX, job_ptr, pl.reason);
		/* preemption is cons_tres's: let it look at the busy nodes */
		rc = preemptee_candidates && list_count(preemptee_candidates) ?
			     RLFT_PASS : SLURM_ERROR;
	} else {
		chosen_t *c;
		uint32_t id = job_ptr->job_id;

		clock_gettime(CLOCK_MONOTONIC, &t1);
		bit_clear_all(bitmap);
		for (size_t k = 0; k < pl.count; k++)
			bit_set(bitmap, node_of_host[pl.hosts[k]]->index);
		log_flag(SELECT_TYPE, "%s: %pJ %u nodes, %zu candidates:\n%s", PFX, job_ptr,
			 min_nodes, pl.candidates, pl.explain);
		list_delete_all(chosen, _chosen_find, &id);
		c = xmalloc(sizeof(*c));
		c->job_id = id;
		c->label = xstrdup(pl.label);
		c->hsd = pl.hsd;
		c->hsd_alone = pl.hsd_alone;
		c->candidates = pl.candidates;
		c->usec = (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000;
		list_append(chosen, c);
		rc = RLFT_RESTRICTED;
	}
out:
	xfree(eligible);
	xfree(busy);
	xfree(req);
	return rc;
}

/* Sets NAME=value in the job's supplementary environment (replacing). */
static void _setenv(job_record_t *job_ptr, const char *name, const char *value)
{
	struct job_details *d = job_ptr->details;
	size_t len = strlen(name);

	for (uint16_t i = 0; i < d->env_cnt; i++)
		if (!strncmp(d->env_sup[i], name, len) && d->env_sup[i][len] == '=') {
			xfree(d->env_sup[i]);
			d->env_sup[i] = xstrdup_printf("%s=%s", name, value);
			return;
		}
	xrecalloc(d->env_sup, d->env_cnt + 1, sizeof(char *));
	d->env_sup[d->env_cnt++] = xstrdup_printf("%s=%s", name, value);
}

static char *_hostfile_path(uint32_t job_id)
{
	return xstrdup_printf("%s/job_%u.hosts", rconf.hostfile_dir, job_id);
}

extern void rlft_job_begin(job_record_t *job_ptr)
{
	size_t n, *hosts;
	char *list = NULL, *file_text = NULL, *offsets = NULL, *path, buf[64];
	double avg = 0;
	unsigned max = 0;
	hostlist_t hl;
	chosen_t *c;
	char *ranged;
	FILE *fp;
	uint32_t id = job_ptr->job_id;

	if (!placer || !job_ptr->node_bitmap || !job_ptr->details)
		return;
	_track(job_ptr);
	hosts = _job_hosts(job_ptr->node_bitmap, &n);
	if (!n) {
		xfree(hosts);
		return;
	}
	hl = hostlist_create(NULL);
	for (size_t k = 0; k < n; k++) {
		const char *name = node_of_host[hosts[k]]->name;
		hostlist_push_host(hl, name);
		xstrfmtcat(list, "%s%s", k ? "," : "", name);
		xstrfmtcat(file_text, "%s\n", name);
		/* LID offsets: 0 for every node until LID choice lands */
		xstrfmtcat(offsets, "%s0", k ? "," : "");
	}
	ranged = hostlist_ranged_string_xmalloc(hl);
	hostlist_destroy(hl);
	qft_placer_score(placer, hosts, n, &avg, &max, NULL);

	_setenv(job_ptr, "QFT_NODELIST", ranged);
	_setenv(job_ptr, "QFT_HOSTS", list);
	_setenv(job_ptr, "QFT_RANK_ORDER", "tree");
	_setenv(job_ptr, "QFT_PATTERN", rconf.pattern ? rconf.pattern : "shift");
	snprintf(buf, sizeof(buf), "%.3f", avg);
	_setenv(job_ptr, "QFT_HSD_AVG", buf);
	snprintf(buf, sizeof(buf), "%u", max);
	_setenv(job_ptr, "QFT_HSD_MAX", buf);
	_setenv(job_ptr, "QFT_LID_OFFSETS", offsets);
	_setenv(job_ptr, "QFT_LID_CHOICE", "source");
	c = list_find_first(chosen, _chosen_find, &id);
	_setenv(job_ptr, "QFT_PLACEMENT", c ? c->label : "chosen by cons_tres");

	path = _hostfile_path(id);
	if (mkdir(rconf.hostfile_dir, 0755) && errno != EEXIST) {
		error("%s: %pJ: cannot create %s: %m", PFX, job_ptr, rconf.hostfile_dir);
	} else if (!(fp = fopen(path, "w"))) {
		error("%s: %pJ: cannot write %s: %m", PFX, job_ptr, path);
	} else {
		fputs(file_text, fp);
		if (fclose(fp))
			error("%s: %pJ: cannot write %s: %m", PFX, job_ptr, path);
		else
			_setenv(job_ptr, "QFT_HOSTFILE", path);
	}
	info("%s: %pJ on %zu nodes %s: %s; %s HSD %.3f avg, %u worst; placed in %ld us over %zu candidates, cons_tres %ld us",
	     PFX, job_ptr, n, ranged, c ? c->label : "chosen by cons_tres",
	     rconf.pattern ? rconf.pattern : "shift", avg, max, c ? c->usec : 0L,
	     c ? c->candidates : (size_t) 0, c ? c->base_usec : 0L);
	list_delete_all(chosen, _chosen_find, &id);
	xfree(path);
	xfree(ranged);
	xfree(list);
	xfree(file_text);
	xfree(offsets);
	xfree(hosts);
}

extern void rlft_base_time(job_record_t *job_ptr, long usec)
{
	uint32_t id = job_ptr->job_id;
	chosen_t *c = chosen ? list_find_first(chosen, _chosen_find, &id) : NULL;

	if (c)
		c->base_usec = usec;
}

extern void rlft_job_update(job_record_t *job_ptr)
{
	size_t before;

	if (!placer)
		return;
	before = qft_placer_running(placer);
	_track(job_ptr);
	if (qft_placer_running(placer) > before)
		verbose("%s: %pJ tracked, %zu running jobs", PFX, job_ptr,
		      qft_placer_running(placer));
}

extern void rlft_job_fini(job_record_t *job_ptr)
{
	char *path;

	if (!placer)
		return;
	qft_placer_remove_job(placer, job_ptr->job_id);
	path = _hostfile_path(job_ptr->job_id);
	if (unlink(path) && errno != ENOENT)
		debug("%s: %pJ: cannot remove %s: %m", PFX, job_ptr, path);
	xfree(path);
}
