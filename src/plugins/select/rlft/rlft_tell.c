/*****************************************************************************\
 *  rlft_tell.c - what a job is told when it starts and what is taken back
 *  when it ends; the placement itself is rlft_place.c's.
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
#include "src/common/hostlist.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "src/plugins/select/rlft/rlft_chosen.h"
#include "src/plugins/select/rlft/rlft_env.h"
#include "src/plugins/select/rlft/rlft_file.h"
#include "src/plugins/select/rlft/rlft_isolate.h"
#include "src/plugins/select/rlft/rlft_jobs.h"
#include "src/plugins/select/rlft/rlft_lid.h"
#include "src/plugins/select/rlft/rlft_state.h"
#include "src/plugins/select/rlft/rlft_tell.h"

/* QFT_HSD_AVG, QFT_HSD_MAX, QFT_HSD_STAGES: only figures libqft computed
 * (a requeued job loses the ones of its last run). */
static bool _tell_prediction(job_record_t *job_ptr, const size_t *hosts, size_t n,
			     qft_prediction_t *pred)
{
	const rlft_state_t *st = rlft_state();
	char buf[64], *err = NULL;

	if (st->lib->placer_predict(st->placer, hosts, n, pred, &err)) {
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
	const rlft_state_t *st = rlft_state();

	return xstrdup_printf("%s/job_%u.%s", st->conf->hostfile_dir, job_id, suffix);
}

static bool _write_job_file(job_record_t *job_ptr, const char *suffix, const char *text,
				const char *var)
{
	const rlft_state_t *st = rlft_state();
	char *name, *err = NULL;
	bool ok = false;

	if (!st->conf->hostfile_dir)
		return false;
	name = xstrdup_printf("job_%u.%s", job_ptr->job_id, suffix);
	/* not fopen(): a user could plant a link at the name (rlft_file.h) */
	if (rlft_file_write(st->conf->hostfile_dir, name, text, &err)) {
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
	const rlft_state_t *st = rlft_state();
	size_t len = 1, at = 0;
	char *out;

	for (size_t k = 0; k < n; k++)
		len += strlen(st->node_of_host[hosts[k]]->name) + 1;
	out = xmalloc(len);
	for (size_t k = 0; k < n; k++) {
		size_t l = strlen(st->node_of_host[hosts[k]]->name);
		memcpy(out + at, st->node_of_host[hosts[k]]->name, l);
		at += l;
		if (sep == '\n' || k + 1 < n)
			out[at++] = sep;
	}
	out[at] = '\0';
	return out;
}

static char *_ranged(const size_t *hosts, size_t n)
{
	const rlft_state_t *st = rlft_state();
	qft_hostlist_t hl = hostlist_create(NULL);
	char *ranged;

	for (size_t k = 0; k < n; k++)
		hostlist_push_host(hl, st->node_of_host[hosts[k]]->name);
	ranged = hostlist_ranged_string_xmalloc(hl);
	hostlist_destroy(hl);
	return ranged;
}

/* No rlft_chosen_t: rlft passed the job on and cons_tres chose its nodes. */
static const char *_label(const rlft_chosen_t *c)
{
	return c ? c->label : "chosen by cons_tres";
}

/* What the job reads about its placement (qft.conf(5), JOB ENVIRONMENT):
 * node order, LID offsets, placement and, with HostFileDir=, a hostfile. */
static void _tell_placement(job_record_t *job_ptr, const size_t *hosts, size_t n,
			    const char *ranged, const rlft_chosen_t *c)
{
	const rlft_state_t *st = rlft_state();
	char *list = _names(hosts, n, ',');

	rlft_setenv(job_ptr, "QFT_NODELIST", ranged);
	rlft_setenv(job_ptr, "QFT_HOSTS", list);
	rlft_setenv(job_ptr, "QFT_RANK_ORDER", "tree");
	rlft_setenv(job_ptr, "QFT_PATTERN", rlft_pattern());
	rlft_setenv(job_ptr, "QFT_PLACEMENT", _label(c));
	rlft_setenv(job_ptr, "QFT_PLACEMENT_KIND", c ? c->kind : "cons_tres");
	rlft_setenv(job_ptr, "QFT_CONGESTION_FREE", c && c->congestion_free ? "yes" : "no");
	if (c && c->shape && c->shape[0])
		rlft_setenv(job_ptr, "QFT_SHAPE", c->shape);
	else
		rlft_unsetenv(job_ptr, "QFT_SHAPE"); /* a requeued job's old one */
	if (st->conf->hostfile_dir) {
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
		       const rlft_chosen_t *c, const qft_prediction_t *pred,
		       const struct timespec *t0)
{
	char buf[128];

	if (pred)
		snprintf(buf, sizeof(buf), "HSD %.3f avg, %u worst over %zu of %zu stages",
			 pred->avg_hsd, pred->max_hsd, pred->stages_played, pred->stages_total);
	else
		snprintf(buf, sizeof(buf), "no HSD prediction");
	info("%s: %pJ on %zu nodes %s: %s; %s %s; placed in %ld us over %zu candidates, cons_tres %ld us, job_begin %ld us; %zu switch links shared with running jobs%s",
	     PFX, job_ptr, n, ranged, _label(c), rlft_pattern(), buf,
	     c ? c->usec : 0L, c ? c->candidates : (size_t) 0, c ? c->base_usec : 0L,
	     rlft_usec_since(t0), c ? c->shared_links : (size_t) 0,
	     c && c->isolated ? "; isolated" : "");
}

extern void rlft_job_begin(job_record_t *job_ptr)
{
	const rlft_state_t *st = rlft_state();
	size_t n, *hosts;
	char *ranged;
	qft_prediction_t pred;
	bool predicted;
	rlft_chosen_t *c;
	uint32_t id = job_ptr->job_id;
	struct timespec t0;

	rlft_started(id);
	rlft_wait_ended(job_ptr, time(NULL));
	if (!st->placer || !job_ptr->node_bitmap || !job_ptr->details)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	hosts = rlft_job_hosts(job_ptr->node_bitmap, &n);
	if (!n) {
		xfree(hosts);
		return;
	}
	/* the tables published since: later choices see their offsets */
	rlft_lid_take_done(st->lib, st->placer);
	c = rlft_chosen_for(job_ptr);
	/* isolated where the placer put it apart (or cons_tres inside a
	 * subtree apart), or wherever it shares nothing with a running job
	 * (one idle node: RUN_NOW lets cons_tres place no other job that
	 * asks, _pass); checked before it is tracked */
	rlft_isolation_clear(job_ptr, true);
	{
		bool asked = rlft_request_of(job_ptr, st->conf->isolate_partitions).isolate;
		bool apart = (c && c->isolated) ||
			     (asked && st->lib->placer_hosts_apart(st->placer, hosts, n, 1));

		rlft_isolation_tell(job_ptr, apart);
		if (asked && !apart)
			error("%s: %pJ asked isolation but started on nodes rlft did not choose: not isolated",
			      PFX, job_ptr);
	}
	rlft_track_started(job_ptr, hosts, n);
	ranged = _ranged(hosts, n);
	_tell_placement(job_ptr, hosts, n, ranged, c);
	predicted = _tell_prediction(job_ptr, hosts, n, &pred);
	_log_begin(job_ptr, n, ranged, c, predicted ? &pred : NULL, &t0);
	{
		rlft_lid_ctx_t lids = {st->lib, st->placer, st->conf, st->lib->fabric_lmc(st->fabric)};

		rlft_tell_lids(&lids, job_ptr, hosts, n, c && c->congestion_free,
			       predicted ? &pred : NULL);
	}
	rlft_forget_choice(job_ptr);
	xfree(ranged);
	xfree(hosts);
}

extern void rlft_job_fini(job_record_t *job_ptr)
{
	const rlft_state_t *st = rlft_state();
	struct timespec t0;

	if (!st->placer)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rlft_untrack(job_ptr->job_id);
	rlft_lid_forget(job_ptr);
	verbose("%s: %pJ ended, job_fini %ld us", PFX, job_ptr, rlft_usec_since(&t0));
	if (!st->conf->hostfile_dir)
		return;
	for (int i = 0; _job_file_suffixes[i]; i++) {
		char *name = xstrdup_printf("job_%u.%s", job_ptr->job_id, _job_file_suffixes[i]);
		char *err = NULL;

		if (rlft_file_remove(st->conf->hostfile_dir, name, &err)) {
			debug("%s: %pJ: %s", PFX, job_ptr, err ? err : "out of memory");
			free(err); /* rlft_file.c's malloc() */
		}
		xfree(name);
	}
}
