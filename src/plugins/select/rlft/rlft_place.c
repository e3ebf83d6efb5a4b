/*****************************************************************************\
 *  rlft_place.c - which nodes a job gets: slurmctld's job_test in libqft's
 *  terms and back. The choice itself is libqft's (its placer and rules).
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

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "src/plugins/select/rlft/rlft_avail.h"
#include "src/plugins/select/rlft/rlft_chosen.h"
#include "src/plugins/select/rlft/rlft_count.h"
#include "src/plugins/select/rlft/rlft_env.h"
#include "src/plugins/select/rlft/rlft_isolate.h"
#include "src/plugins/select/rlft/rlft_jobs.h"
#include "src/plugins/select/rlft/rlft_place.h"
#include "src/plugins/select/rlft/rlft_state.h"

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
static qft_outcome_t _place(job_record_t *job_ptr, const rlft_count_t *c, const rlft_avail_t *a,
			    bool isolate, const uint32_t *ended, size_t ended_cnt,
			    qft_placement_t *pl)
{
	const rlft_state_t *st = rlft_state();
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
		if (st->lib->placer_place_request(st->placer, &r, pl, &err)) {
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
			 const rlft_avail_t *a, double *wait, double *left, double *at,
			 qft_placement_t *ahead)
{
	const rlft_state_t *st = rlft_state();
	qft_wait_job_t wj = rlft_wait_job_of(job_ptr, st->conf->shape_wait_from_decline);
	const qft_shape_wait_rule_t rule = { .percent = st->conf->shape_wait,
					     .max_seconds = st->conf->shape_wait_max,
					     .ends = st->conf->shape_wait_ends };
	time_t now = time(NULL);
	size_t hosts = st->lib->fabric_host_count(st->fabric);
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
	free_at = rlft_free_at(a->eligible, hosts, st->host_of_node, st->host_of_node_cnt, now);
	qft_shape_forecast(&rule, free_at, hosts); /* ShapeWaitEnds= */
	/* the part that grew with the job list (issue 30 item 6) */
	log_flag(SELECT_TYPE, "%s: %pJ free times %ld us", PFX, job_ptr, rlft_usec_since(&t0));
	if (st->lib->placer_shape_ahead(st->placer, c->lo, c->want, a->eligible, free_at, a->req, a->nreq,
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
	const rlft_state_t *st = rlft_state();
	static said_t said;
	char ends[48] = "";

	if (!_first_time(&said, job_ptr->job_id))
		return;
	/* "due" by what ShapeWaitEnds= expects, not by the limits: say so */
	if (st->conf->shape_wait_ends < 100)
		snprintf(ends, sizeof(ends), " (ShapeWaitEnds=%u)", st->conf->shape_wait_ends);
	info("%s: %pJ waits for a %s %s (%s%s%zu nodes) due in %.0f s%s, within its ShapeWait of %.0f s (%.0f s left)",
	     PFX, job_ptr, _shape_word(ahead), ahead->kind, ahead->shape, ahead->shape[0] ? ", " : "",
	     ahead->count, at, ends, wait, left);
}

/* WILL_RUN with ShapeWait=: backfill plans the job on the earliest
 * congestion-free shape within its wait, and holds those nodes for it;
 * without one, cons_tres plans it as it would. */
static int _will_run(job_record_t *job_ptr, const rlft_request_t *rq, bitstr_t *bitmap,
		     const rlft_count_t *c, const rlft_avail_t *a, uint32_t *count)
{
	const rlft_state_t *st = rlft_state();
	double wait, left, at;
	qft_placement_t ahead;

	if (!_shape_ahead(job_ptr, rq, c, a, &wait, &left, &at, &ahead)) {
		qft_holders_unhold(rlft_holders(), job_ptr->job_id);
		return RLFT_PASS;
	}
	/* ShapeHolds=: backfill cannot fill held nodes with jobs whose limits
	 * look longer than the wait, so only the first waiting jobs hold;
	 * the others still wait (RUN_NOW declines) but are planned as
	 * cons_tres plans them (docs/sim.md runs 11-13); 0: all hold, and
	 * no one is counted */
	if (st->conf->shape_holds) {
		qft_holders_t *holders = rlft_holders();

		if (holders && !qft_holders_may_hold(holders, job_ptr->job_id, job_ptr->priority,
						     st->conf->shape_holds, _pending, NULL)) {
			qft_holders_unhold(holders, job_ptr->job_id);
			log_flag(SELECT_TYPE, "%s: %pJ waits for a %s free in %.0f s without holding it: %u waiting jobs before it hold theirs",
				 PFX, job_ptr, ahead.kind, at, st->conf->shape_holds);
			return RLFT_PASS;
		}
		qft_holders_hold(holders, job_ptr->job_id, job_ptr->priority);
	}
	bit_clear_all(bitmap);
	for (size_t k = 0; k < ahead.count; k++)
		bit_set(bitmap, st->node_of_host[ahead.hosts[k]]->index);
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
	const rlft_state_t *st = rlft_state();

	return rq->shape_wait_set ? rq->shape_wait > 0 : st->conf->shape_wait > 0;
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
	const rlft_state_t *st = rlft_state();

	switch (qft_pass_to_cons_tres((mode & SELECT_MODE_BASE) == SELECT_MODE_RUN_NOW,
				      rq->isolate, st->lib->placer_isolated(st->placer), max_nodes)) {
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
	const rlft_state_t *st = rlft_state();

	if (qft_pass_to_cons_tres((mode & SELECT_MODE_BASE) == SELECT_MODE_RUN_NOW, rq->isolate,
				  st->lib->placer_isolated(st->placer), max_nodes) == QFT_PASS_WAIT) {
		log_flag(SELECT_TYPE, "%s: %pJ %s: cons_tres chooses inside a subtree apart", PFX,
			 job_ptr, why);
		return RLFT_APART;
	}
	return _pass(job_ptr, rq, bitmap, max_nodes, mode, why);
}

extern bool rlft_apart_zone(job_record_t *job_ptr, bitstr_t *bitmap, bitstr_t *offered,
			    uint32_t min_nodes, unsigned *level)
{
	const rlft_state_t *st = rlft_state();
	rlft_request_t rq;
	size_t hosts, n = 0;
	uint8_t *eligible, *zone;
	unsigned l = 0;
	rlft_chosen_t *ch;

	if (!st->placer)
		return false;
	rq = rlft_request_of(job_ptr, st->conf->isolate_partitions);
	hosts = st->lib->fabric_host_count(st->fabric);
	eligible = xcalloc(MAX(hosts, 1), 1);
	zone = xcalloc(MAX(hosts, 1), 1);
	for (int i = 0; i < bit_size(offered) && i < st->host_of_node_cnt; i++)
		if (st->host_of_node[i] >= 0 && bit_test(offered, i))
			eligible[st->host_of_node[i]] = 1;
	l = st->lib->placer_subtree_apart(st->placer, eligible, MAX(min_nodes, 1), rq.isolate, *level,
				      zone);
	rlft_forget_choice(job_ptr);
	if (l) {
		bit_clear_all(bitmap);
		for (size_t h = 0; h < hosts; h++)
			if (zone[h]) {
				bit_set(bitmap, st->node_of_host[h]->index);
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
		rlft_chosen_put(ch);
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
	rlft_forget_choice(job_ptr);
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
			   const rlft_count_t *c, rlft_avail_t *a, uint32_t *count)
{
	const rlft_state_t *st = rlft_state();
	size_t n;
	uint32_t *ended = rlft_running_within(bitmap, &n);
	qft_placement_t pl;
	qft_outcome_t outcome;

	/* the bitmap is what is free then: nothing in it is busy */
	memset(a->busy, 0, st->lib->fabric_host_count(st->fabric));
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
		bit_set(bitmap, st->node_of_host[pl.hosts[k]]->index);
	*count = pl.count;
	log_flag(SELECT_TYPE, "%s: %pJ will run apart on %zu nodes (%s), %zu running jobs ended by then",
		 PFX, job_ptr, pl.count, pl.label, n);
	return RLFT_RESTRICTED;
}

extern int rlft_job_test(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes,
			 uint32_t max_nodes, uint32_t req_nodes, uint16_t mode,
			 list_t *preemptee_candidates, uint32_t *count)
{
	const rlft_state_t *st = rlft_state();
	qft_placement_t pl;
	rlft_demand_t dm;
	rlft_count_t c;
	rlft_request_t rq;
	rlft_share_need_t need;
	rlft_avail_t a;
	qft_outcome_t outcome;
	struct timespec t0;
	long usec;
	rlft_chosen_t *ch;
	size_t partly_used;
	bool run_now = (mode & SELECT_MODE_BASE) == SELECT_MODE_RUN_NOW;
	bool apart; /* isolation is in play for the job */

	*count = 0;
	if (!st->placer || !bitmap || !job_ptr->details)
		return RLFT_PASS;
	rlft_isolation_say();
	rq = rlft_request_of(job_ptr, st->conf->isolate_partitions);
	/* WILL_RUN (backfill) simulates jobs ending inside the bitmap: any
	 * narrowing by today's occupancy would be wrong there; only a shape
	 * the running jobs' ends free is (ShapeWait=), and a placement apart
	 * from the jobs still running then (isolation: _will_run_apart). */
	apart = qft_isolation_in_play(rq.isolate, st->lib->placer_isolated(st->placer), max_nodes);
	if ((mode & SELECT_MODE_BASE) == SELECT_MODE_WILL_RUN && !_may_wait(&rq) && !apart)
		return RLFT_PASS;
	if (run_now)
		rlft_isolation_clear(job_ptr, false);
	dm = rlft_demand_of(job_ptr, min_nodes, max_nodes, req_nodes);
	if (!rlft_count_on(&dm, bitmap, &c)) {
		if (run_now)
			_pass_once(job_ptr, c.why_not);
		return _pass_or_apart(job_ptr, &rq, bitmap, max_nodes, mode, c.why_not);
	}
	need = rlft_share_need_of(job_ptr, &dm, c.want);
	rlft_avail_of(job_ptr, bitmap, &need, &a);
	if (job_ptr->details->req_node_bitmap &&
	    bit_set_count(job_ptr->details->req_node_bitmap) > a.nreq) {
		static const char why[] = "required nodes outside the fabric or not available";

		if (run_now)
			_pass_once(job_ptr, why);
		rlft_avail_free(&a);
		return _pass(job_ptr, &rq, bitmap, max_nodes, mode, why);
	}
	if ((mode & SELECT_MODE_BASE) == SELECT_MODE_TEST_ONLY) {
		/* only "never": fewer fabric nodes than the job needs */
		int rc = a.eligible_cnt < c.lo ? ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE :
						 RLFT_PASS;
		rlft_avail_free(&a);
		return rc;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((mode & SELECT_MODE_BASE) == SELECT_MODE_WILL_RUN) {
		int rc = apart ? _will_run_apart(job_ptr, &rq, bitmap, &c, &a, count) :
				 _will_run(job_ptr, &rq, bitmap, &c, &a, count);

		log_flag(SELECT_TYPE, "%s: %pJ WILL_RUN shape search took %ld us", PFX, job_ptr,
			 rlft_usec_since(&t0));
		rlft_avail_free(&a);
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
			rlft_avail_free(&a);
			return SLURM_ERROR;
		}
	}
	usec = rlft_usec_since(&t0);
	partly_used = a.partly_used;
	rlft_avail_free(&a);
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
			 st->conf->reserve_remainder && outcome == QFT_NOT_NOW ?
				 "waits (Remainder=reserve)" : "cons_tres decides");
		if (st->conf->reserve_remainder && outcome == QFT_NOT_NOW &&
		    !(preemptee_candidates && list_count(preemptee_candidates)))
			return SLURM_ERROR;
		return _pass(job_ptr, &rq, bitmap, max_nodes, mode,
			     isolation ? pl.reason + 11 :
			     outcome == QFT_NOT_NOW ? "not enough free nodes apart" : "no fit");
	}
	bit_clear_all(bitmap);
	for (size_t k = 0; k < pl.count; k++)
		bit_set(bitmap, st->node_of_host[pl.hosts[k]]->index);
	*count = pl.count;
	log_flag(SELECT_TYPE, "%s: %pJ %zu nodes (%u-%u), %zu candidates:\n%s", PFX, job_ptr,
		 pl.count, c.lo, c.hi, pl.candidates, pl.explain);
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
	rlft_chosen_put(ch);
	return RLFT_RESTRICTED;
}

extern bool rlft_plan_busy_first(void)
{
	const rlft_state_t *st = rlft_state();

	return st->conf->plan_busy_first;
}


extern int rlft_not_placed(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t max_nodes,
			   uint16_t mode)
{
	const rlft_state_t *st = rlft_state();
	static const char why[] = "cons_tres could not fit it on the nodes rlft chose "
				  "(CPUs, memory or GRES)";
	rlft_request_t rq = rlft_request_of(job_ptr, st->conf->isolate_partitions);

	rlft_forget_choice(job_ptr);
	_pass_once(job_ptr, why);
	return st->placer ? _pass_or_apart(job_ptr, &rq, bitmap, max_nodes, mode, why) : RLFT_PASS;
}
