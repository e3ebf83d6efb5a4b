/*****************************************************************************\
 *  rlft_lid.c - select/rlft's LID choice, translated to the job's
 *  environment. The choice itself is libqft's (lib/lid).
 *
 *  A per-pair choice costs O(n^2 2^LMC) for n nodes: seconds at a few
 *  thousand; per destination and job-wide, milliseconds beside the
 *  running jobs. Every one is made off slurmctld's locks
 *  (docs/lid-choice.md, "Off the locks"): job_begin takes a snapshot
 *  (qft_placer_lid_request: the job's hosts and the running jobs with
 *  their offsets, shared references to the fabric and pattern) and tells
 *  the job where its decision will be (QFT_LID_TABLE); this file's worker
 *  thread makes the choice and publishes the table there with link(), so
 *  that exactly one decision wins: the table, or base LIDs written by
 *  whoever gives up first (the worker past LidTableWait=, or a node of the
 *  job that waited its limit: contribs/spank). The worker never touches a
 *  job record or slurmctld's state: what it finished goes to a list that
 *  the plugin takes in under slurmctld's locks (rlft_lid_take_done).
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include "config.h"
#include "src/common/slurm_xlator.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "src/common/env.h"
#include "src/common/log.h"
#include "src/common/macros.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "contribs/verbs/lid_table.h"
#include "src/plugins/select/rlft/rlft_file.h"
#include "src/plugins/select/rlft/rlft_lid.h"
#include "src/plugins/select/rlft/rlft_env.h"

#define PFX "select/rlft"
#ifndef SCHED_IDLE
#define SCHED_IDLE 5 /* Linux's, <sched.h> with _GNU_SOURCE */
#endif

/* What a requeued job may still carry from its last start. */
static const char *const _stale[] = {"QFT_LID_TABLE", "QFT_LID_DIGEST", "QFT_LID_PATH_BITS",
				     "QFT_LID_HSD_AVG", "QFT_LID_HSD_MAX", NULL};

/* LidChoice= without HostFileDir= said why no job gets a choice: once per
 * slurmctld, not per job. */
static bool _said_no_table;

/* One job's choice, from job_begin to the worker and back. */
typedef struct lid_work {
	struct lid_work *next;
	const qft_ops_t *lib;     /* the libqft that made req */
	qft_lid_request_t *req;   /* NULL once run */
	uint32_t job_id;
	char *dir, *name;         /* HostFileDir= and the decision's name there */
	char *what;               /* "pair (LidChoice= auto, LMC 2)", for the log */
	double one_lid;           /* the job's HSD on one LID, NaN: none */
	struct timespec begun;    /* job_begin, CLOCK_MONOTONIC */
	time_t deadline;          /* job start + LidTableWait=, wall clock;
				   * 0: none */
	unsigned wait;            /* LidTableWait= */
	unsigned delay;           /* LidTestDelay= (tests only) */
	bool cancelled;           /* its job ended (under q.mutex) */
	bool published;           /* the table is the job's decision */
	qft_lid_choice_t ch;      /* the worker's choice (its table freed) */
} lid_work_t;

/* The worker's queue. `mutex` guards every field; the worker holds it
 * only to take work and give it back, never while it chooses or writes. */
static struct {
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	pthread_t thread;
	bool running, stop;
	lid_work_t *head, *tail;  /* to do, in job_begin order */
	lid_work_t *current;      /* being chosen */
	lid_work_t *done;         /* published, to record in the placer */
	size_t queued;
} q = { .mutex = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static void _work_free(lid_work_t *w)
{
	if (w->req)
		w->lib->lid_request_destroy(w->req);
	w->lib->lid_choice_clear(&w->ch);
	xfree(w->dir);
	xfree(w->name);
	xfree(w->what);
	xfree(w);
}

static long _cpu_usec_since(const struct timespec *c0)
{
	struct timespec c1;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	return (c1.tv_sec - c0->tv_sec) * 1000000L + (c1.tv_nsec - c0->tv_nsec) / 1000;
}

static double _secs_since(const struct timespec *t0)
{
	return rlft_usec_since(t0) / 1e6;
}

/* The base-LID decision for the job: published unless a decision is
 * there already. RET 0 published, 1 someone decided first, -1 error. */
static int _publish_base(const lid_work_t *w, const char *why)
{
	char *text = NULL, *reason, *err = NULL;
	int rc;

	reason = xstrdup_printf("select/rlft: JobId=%u runs on base LIDs: %s", w->job_id, why);
	xstrfmtcat(text, LID_BASE_FMT, reason);
	rc = rlft_file_publish(w->dir, w->name, text, &err);
	if (rc < 0)
		error("%s: JobId=%u: no LID decision written (its nodes decide base LIDs when they have waited their limit): %s",
		      PFX, w->job_id, err ? err : "out of memory");
	else if (rc == 0)
		info("%s: JobId=%u LID decision base LIDs, %s/%s %.3f s after job_begin: %s", PFX,
		     w->job_id, w->dir, w->name, _secs_since(&w->begun), why);
	free(err); /* rlft_file.c's malloc() */
	xfree(reason);
	xfree(text);
	return rc;
}

/* Whether the job's decision is there already (a node gave up first). */
static bool _decided(const lid_work_t *w)
{
	char *path = xstrdup_printf("%s/%s", w->dir, w->name);
	struct stat st;
	bool there = !lstat(path, &st);

	xfree(path);
	return there;
}

/* LidTestDelay=: the worker waits that long before it starts the job's
 * choice (tests/slurm/test-lid.sh: a table that comes too late). Under
 * q.mutex; returns early at fini or when the job ends. */
static void _test_delay(lid_work_t *w)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += w->delay;
	while (!q.stop && !w->cancelled &&
	       pthread_cond_timedwait(&q.cond, &q.mutex, &until) != ETIMEDOUT)
		;
}

/* The table with a head for its readers: who chose and the HSD it gives,
 * which the SPANK plugin passes on to the tasks (QFT_LID_HSD_AVG,
 * QFT_LID_HSD_MAX; docs/lid-table.md). */
static char *_table_text(const lid_work_t *w)
{
	char *text = NULL;

	xstrfmtcat(text, "# select/rlft: JobId=%u, %s offsets over %zu of %zu stages\n"
			 "# hsd %.3f %.0f\n%s",
		   w->job_id, w->ch.mode, w->ch.stages_played, w->ch.stages_total, w->ch.avg_hsd,
		   w->ch.max_hsd, w->ch.table);
	return text;
}


/* Queues w for the worker, started if need be; the choices ahead of it. */
static int _enqueue(lid_work_t *w)
{
	int before;

	rlft_lid_start();
	slurm_mutex_lock(&q.mutex);
	before = q.queued + (q.current != NULL);
	if (q.tail)
		q.tail->next = w;
	else
		q.head = w;
	q.tail = w;
	q.queued++;
	slurm_cond_signal(&q.cond);
	slurm_mutex_unlock(&q.mutex);
	return before;
}

/* The worker's part of one job: off slurmctld's locks, touching only the
 * request and HostFileDir=. */
static void _choose(lid_work_t *w)
{
	struct timespec t0;
	char *err = NULL, *text, *why;
	qft_status_t st;
	int rc;

	if (_decided(w)) {
		info("%s: JobId=%u LID decision taken before the worker reached it (a node's base LIDs): no choice made",
		     PFX, w->job_id);
		return;
	}
	if (w->deadline && time(NULL) > w->deadline) {
		why = xstrdup_printf("its choice had not started within LidTableWait=%u s of the job's start",
				     w->wait);
		_publish_base(w, why);
		xfree(why);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	st = w->lib->lid_request_run(w->req, &w->ch, &err);
	/* the fabric and the running jobs it held go now, off the locks */
	w->lib->lid_request_destroy(w->req);
	w->req = NULL;
	if (st != QFT_OK) {
		why = xstrdup_printf("the LID choice failed: %s", err ? err : "unknown error");
		error("%s: JobId=%u: %s", PFX, w->job_id, why);
		_publish_base(w, why);
		xfree(why);
		qft_free(err);
		return;
	}
	text = _table_text(w);
	free(w->ch.table); /* libqft's malloc(); 20 MB at 4536 nodes */
	w->ch.table = NULL;
	rc = rlft_file_publish(w->dir, w->name, text, &err);
	xfree(text);
	if (rc == 0) {
		char *proved = NULL;

		/* what the search proved beside the running jobs: why a job
		 * stays congested, when it does */
		if (w->ch.stages_proven || w->ch.stages_undecided)
			xstrfmtcat(proved, "; beside the running jobs no offsets give below %.3f (%zu stages proven congested, %zu undecided)",
				   w->ch.floor_hsd, w->ch.stages_proven, w->ch.stages_undecided);
		w->published = true;
		info("%s: JobId=%u LID table %s ready %.3f s after job_begin (choice %.3f s): HSD %.3f avg, %.0f worst over %zu of %zu stages %s, one LID %.3f alone%s; %s/%s",
		     PFX, w->job_id, w->what, _secs_since(&w->begun), _secs_since(&t0), w->ch.avg_hsd,
		     w->ch.max_hsd, w->ch.stages_played, w->ch.stages_total,
		     strcmp(w->ch.mode, "pair") ? "alone" : "beside the running jobs", w->one_lid,
		     proved ? proved : "", w->dir, w->name);
		xfree(proved);
	} else if (rc == 1) {
		info("%s: JobId=%u LID table %s made %.3f s after job_begin, after a node of the job had decided base LIDs: discarded",
		     PFX, w->job_id, w->what, _secs_since(&w->begun));
	} else {
		why = xstrdup_printf("its table could not be written: %s", err ? err : "out of memory");
		error("%s: JobId=%u: %s", PFX, w->job_id, why);
		_publish_base(w, why);
		xfree(why);
	}
	free(err); /* rlft_file.c's malloc() */
}

static void *_worker(void *arg)
{
	struct sched_param idle = { .sched_priority = 0 };

	(void) arg;
	/* slurmctld's own threads first: a choice that takes the CPU of a
	 * thread holding the locks makes the locks' time longer. Under
	 * SCHED_IDLE it runs only on a CPU no other thread wants, and its
	 * wake-up never preempts one (nice 19 alone did: the thread that
	 * woke it lost its CPU for a tick, 4-15 ms, measured) */
	if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle) &&
	    setpriority(PRIO_PROCESS, (id_t) syscall(SYS_gettid), 19))
		debug("%s: LID worker: cannot lower its priority: %m", PFX);
	slurm_mutex_lock(&q.mutex);
	for (;;) {
		lid_work_t *w;
		char *path;

		while (!q.stop && !q.head)
			slurm_cond_wait(&q.cond, &q.mutex);
		if (q.stop)
			break; /* rlft_lid_stop decides what is left */
		w = q.head;
		q.head = w->next;
		if (!q.head)
			q.tail = NULL;
		q.queued--;
		w->next = NULL;
		q.current = w;
		if (w->delay)
			_test_delay(w);
		if (!q.stop && !w->cancelled) {
			slurm_mutex_unlock(&q.mutex);
			_choose(w);
			slurm_mutex_lock(&q.mutex);
		}
		q.current = NULL;
		if (w->cancelled && w->published) {
			/* its job ended while the table was being written:
			 * job_fini removed the name before it existed */
			path = xstrdup_printf("%s/%s", w->dir, w->name);
			(void) unlink(path);
			xfree(path);
			w->published = false;
		}
		if (w->published) {
			w->next = q.done;
			q.done = w;
		} else {
			_work_free(w);
		}
	}
	slurm_mutex_unlock(&q.mutex);
	return NULL;
}

extern void rlft_lid_start(void)
{
	slurm_mutex_lock(&q.mutex);
	if (!q.running) {
		q.stop = false;
		slurm_thread_create(&q.thread, _worker, NULL);
		q.running = true;
	}
	slurm_mutex_unlock(&q.mutex);
}

extern void rlft_lid_stop(void)
{
	lid_work_t *left, *done, *w;

	slurm_mutex_lock(&q.mutex);
	if (!q.running) {
		slurm_mutex_unlock(&q.mutex);
		return;
	}
	q.stop = true;
	left = q.head;
	q.head = q.tail = NULL;
	q.queued = 0;
	done = q.done;
	q.done = NULL;
	/* the choice in progress cannot be cut short: its nodes get base
	 * LIDs now rather than after their wait, and its table loses */
	if (q.current && !q.current->cancelled)
		_publish_base(q.current, "slurmctld stopped before its table was ready");
	slurm_cond_broadcast(&q.cond);
	slurm_mutex_unlock(&q.mutex);
	for (w = left; w; w = left) {
		left = w->next;
		_publish_base(w, "slurmctld stopped before its table was ready");
		_work_free(w);
	}
	for (w = done; w; w = done) {
		done = w->next;
		_work_free(w);
	}
	pthread_join(q.thread, NULL);
	slurm_mutex_lock(&q.mutex);
	q.running = false;
	for (w = q.done; w; w = q.done) {
		q.done = w->next;
		_work_free(w);
	}
	slurm_mutex_unlock(&q.mutex);
}

extern size_t rlft_lid_take_done(const qft_ops_t *lib, qft_placer_t *placer)
{
	lid_work_t *done, *w;
	size_t n = 0;

	slurm_mutex_lock(&q.mutex);
	done = q.done;
	q.done = NULL;
	slurm_mutex_unlock(&q.mutex);
	for (w = done; w; w = done) {
		char *err = NULL;

		done = w->next;
		/* a placer of another libqft (the fabric moved between
		 * topology/qft and select/rlft) must not take this one's
		 * objects */
		if (placer && w->lib == lib &&
		    lib->placer_record_lids(placer, w->job_id, &w->ch, &err) == QFT_OK)
			n++;
		else if (err)
			debug("%s: JobId=%u: LID offsets not recorded: %s", PFX, w->job_id, err);
		qft_free(err);
		_work_free(w);
	}
	return n;
}

extern void rlft_lid_forget(job_record_t *job_ptr)
{
	lid_work_t **pp, *gone = NULL, *w;
	const char *path = job_ptr->details ? rlft_getenv(job_ptr, "QFT_LID_TABLE") : NULL;
	char *dir, *slash, *err = NULL;

	slurm_mutex_lock(&q.mutex);
	for (pp = &q.head; *pp;) {
		w = *pp;
		if (w->job_id != job_ptr->job_id) {
			q.tail = w;
			pp = &w->next;
			continue;
		}
		*pp = w->next;
		w->next = gone;
		gone = w;
		q.queued--;
	}
	if (!q.head)
		q.tail = NULL;
	if (q.current && q.current->job_id == job_ptr->job_id) {
		q.current->cancelled = true;
		slurm_cond_broadcast(&q.cond); /* out of a test delay */
	}
	slurm_mutex_unlock(&q.mutex);
	for (w = gone; w; w = gone) {
		gone = w->next;
		_work_free(w);
	}
	/* the job's decision, wherever HostFileDir= was at its start */
	if (!path || !(slash = strrchr(path, '/')))
		return;
	dir = xstrndup(path, slash - path);
	if (!xstrncmp(slash + 1, "job_", 4) && rlft_file_remove(dir, slash + 1, &err))
		debug("%s: %pJ: %s", PFX, job_ptr, err ? err : "out of memory");
	free(err); /* rlft_file.c's malloc() */
	xfree(dir);
}

/* The job's --qft-lid, else LidChoice=. The SPANK plugin's
 * spank_job_control_setenv() reaches slurmctld as QFT_LID in the job's
 * SPANK environment, unprefixed (Prolog and Epilog see SPANK_QFT_LID). */
static int _wanted(job_record_t *job_ptr, const qft_conf_t *conf, const char **from)
{
	const char *v = rlft_spank_getenv(job_ptr, "QFT_LID");

	*from = "LidChoice=";
	if (!v)
		return conf->lid_choice;
	for (int i = 0; qft_lid_words[i]; i++)
		if (!xstrcasecmp(v, qft_lid_words[i])) {
			*from = "--qft-lid";
			return i;
		}
	error("%s: %pJ: --qft-lid=%s, expected off, auto, job, dest or pair; using LidChoice=%s",
	      PFX, job_ptr, v, qft_lid_words[conf->lid_choice]);
	return conf->lid_choice;
}

/* The mode to compute, or NULL and why not. */
static const char *_mode(const rlft_lid_ctx_t *ctx, int want, size_t n, bool congestion_free,
			 const qft_prediction_t *one_lid, const char **why)
{
	const char *mode;

	*why = NULL;
	if (want == QFT_LID_OFF)
		*why = "off";
	else if (ctx->lmc == 0)
		*why = "the fabric's LMC is 0";
	else if (n < 2)
		*why = "one node";
	else if (want == QFT_LID_AUTO && congestion_free)
		*why = "congestion-free by shape";
	else if (want == QFT_LID_AUTO && one_lid && one_lid->avg_hsd <= 1.0)
		*why = "HSD 1.0 on one LID";
	if (*why)
		return NULL;
	/* Every choice is made off slurmctld's locks and reaches the job's
	 * nodes as a file in HostFileDir= (docs/lid-choice.md "Off the
	 * locks"): without it there is none. */
	if (!ctx->conf->hostfile_dir) {
		*why = "no HostFileDir= for the decision, made off slurmctld's locks";
		if (!_said_no_table) {
			_said_no_table = true;
			info("%s: LidChoice=%s without HostFileDir=: no LID choice for any job; a choice is made off slurmctld's locks and reaches the job's nodes as a file in HostFileDir= (qft.conf(5))",
			     PFX, qft_lid_words[ctx->conf->lid_choice]);
		}
		return NULL;
	}
	mode = want == QFT_LID_JOB ? "job" : want == QFT_LID_DEST ? "dest" : "pair";
	if (!strcmp(mode, "pair") && ctx->conf->lid_pair_max_nodes &&
	    n > ctx->conf->lid_pair_max_nodes) {
		mode = "dest";
		*why = "more nodes than LidPairMaxNodes=";
	}
	return mode;
}

/* "o,o,o" of the offsets every sender uses per host (NULL: all 0). */
static char *_offsets(const unsigned char *dest, size_t n)
{
	char *out = NULL, *pos = NULL;

	for (size_t k = 0; k < n; k++)
		xstrfmtcatat(out, &pos, "%s%u", k ? "," : "", dest ? dest[k] : 0);
	return out;
}

/* A name nobody can guess for the job's decision: a table planted
 * beforehand (HostFileDir= sticky and writable by others) would win the
 * link(). Also tells a requeued run's decision from its last one's. */
static char *_decision_name(uint32_t job_id)
{
	static unsigned counter;
	uint64_t tag = 0;
	struct timespec ts;

	if (getrandom(&tag, sizeof(tag), GRND_NONBLOCK) != sizeof(tag)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		tag = ((uint64_t) ts.tv_sec << 32) ^ (uint64_t) ts.tv_nsec ^
		      ((uint64_t) getpid() << 16) ^ ++counter;
	}
	return xstrdup_printf("job_%u.%016" PRIx64 ".lid", job_id, tag);
}

/* The snapshot and the job's variables under the locks, the choice in the
 * worker: every mode, job too (2^LMC plays of the job beside the running
 * jobs: milliseconds). */
static void _queue_table(const rlft_lid_ctx_t *ctx, job_record_t *job_ptr, const size_t *hosts,
			 size_t n, const char *mode, const char *from, int want, const char *why,
			 const qft_prediction_t *one_lid)
{
	lid_work_t *w;
	struct timespec t0, c0;
	char *err = NULL, *path;
	qft_lid_request_t *req = NULL;
	size_t before;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	if (ctx->lib->placer_lid_request(ctx->placer, job_ptr->job_id, hosts, n, mode, 0, &req,
					 &err) != QFT_OK) {
		error("%s: %pJ: LID choice %s failed, one LID: %s", PFX, job_ptr, mode,
		      err ? err : "unknown error");
		qft_free(err);
		return;
	}
	ctx->lib->lid_request_set_threads(req, ctx->conf->lid_threads);
	w = xmalloc(sizeof(*w));
	w->lib = ctx->lib;
	w->req = req;
	w->job_id = job_ptr->job_id;
	w->dir = xstrdup(ctx->conf->hostfile_dir);
	w->name = _decision_name(job_ptr->job_id);
	w->what = xstrdup_printf("%s (%s %s%s%s, LMC %u)", mode, from, qft_lid_words[want],
				 why ? ": " : "", why ? why : "", ctx->lmc);
	w->one_lid = one_lid ? one_lid->avg_hsd : 0.0;
	w->begun = t0;
	w->wait = ctx->conf->lid_table_wait;
	w->deadline = !w->wait ? 0 :
		      (job_ptr->start_time ? job_ptr->start_time : time(NULL)) + w->wait;
	w->delay = ctx->conf->lid_test_delay;
	path = xstrdup_printf("%s/%s", w->dir, w->name);
	rlft_setenv(job_ptr, "QFT_LID_CHOICE", mode);
	rlft_setenv(job_ptr, "QFT_LID_TABLE", path);
	/* the offsets and the HSD come with the table (docs/lid-table.md);
	 * the zeros said "none" */
	rlft_unsetenv(job_ptr, "QFT_LID_OFFSETS");
	before = _enqueue(w);
	/* the time under the locks, and of it this thread's CPU (the rest:
	 * other threads or processes had the CPU) */
	info("%s: %pJ LID choice %s: table pending, %s (%zu choices before it); %ld us (%ld us CPU)",
	     PFX, job_ptr, w->what, path, before, rlft_usec_since(&t0), _cpu_usec_since(&c0));
	xfree(path);
}

extern void rlft_tell_lids(const rlft_lid_ctx_t *ctx, job_record_t *job_ptr,
			   const size_t *hosts, size_t n, bool congestion_free,
			   const qft_prediction_t *one_lid)
{
	const char *from, *why, *mode;
	char *zeros;
	int want = _wanted(job_ptr, ctx->conf, &from);

	for (int i = 0; _stale[i]; i++)
		rlft_unsetenv(job_ptr, _stale[i]);
	rlft_setenv(job_ptr, "QFT_LID_CHOICE", "none");
	zeros = _offsets(NULL, n);
	rlft_setenv(job_ptr, "QFT_LID_OFFSETS", zeros);
	xfree(zeros);
	mode = _mode(ctx, want, n, congestion_free, one_lid, &why);
	if (!mode) {
		debug("%s: %pJ: no LID choice (%s %s: %s)", PFX, job_ptr, from,
		      qft_lid_words[want], why);
		return;
	}
	_queue_table(ctx, job_ptr, hosts, n, mode, from, want, why, one_lid);
}

extern void rlft_lid_resume(const rlft_lid_ctx_t *ctx, job_record_t *job_ptr,
			    const size_t *hosts, size_t n)
{
	const char *path = job_ptr->details ? rlft_getenv(job_ptr, "QFT_LID_TABLE") : NULL;
	const char *mode = job_ptr->details ? rlft_getenv(job_ptr, "QFT_LID_CHOICE") : NULL;
	const char *slash = path ? strrchr(path, '/') : NULL;
	char *err = NULL;
	struct stat st;
	lid_work_t *w;
	qft_lid_request_t *req = NULL;

	if (!slash || !mode || (strcmp(mode, "pair") && strcmp(mode, "dest") && strcmp(mode, "job")) ||
	    !lstat(path, &st))
		return;
	slurm_mutex_lock(&q.mutex); /* already chosen again */
	for (w = q.head; w && w->job_id != job_ptr->job_id; w = w->next)
		;
	if (w || (q.current && q.current->job_id == job_ptr->job_id)) {
		slurm_mutex_unlock(&q.mutex);
		return;
	}
	slurm_mutex_unlock(&q.mutex);
	/* a table pending when slurmctld stopped: its decision is made
	 * again (base LIDs once LidTableWait= from its start has passed) */
	w = xmalloc(sizeof(*w));
	w->lib = ctx->lib;
	w->job_id = job_ptr->job_id;
	w->dir = xstrndup(path, slash - path);
	w->name = xstrdup(slash + 1);
	w->what = xstrdup_printf("%s (pending when slurmctld stopped, LMC %u)", mode, ctx->lmc);
	/* "after job_begin" counts from the job's start, seconds back */
	clock_gettime(CLOCK_MONOTONIC, &w->begun);
	if (job_ptr->start_time && job_ptr->start_time < time(NULL))
		w->begun.tv_sec -= time(NULL) - job_ptr->start_time;
	w->wait = ctx->conf->lid_table_wait;
	w->deadline = w->wait ? job_ptr->start_time + w->wait : 0;
	if ((w->deadline && time(NULL) > w->deadline) ||
	    ctx->lib->placer_lid_request(ctx->placer, job_ptr->job_id, hosts, n, mode, 0, &req,
					 &err) != QFT_OK) {
		_publish_base(w, err ? err : "slurmctld restarted after LidTableWait= had passed");
		qft_free(err);
		_work_free(w);
		return;
	}
	ctx->lib->lid_request_set_threads(req, ctx->conf->lid_threads);
	w->req = req;
	info("%s: %pJ LID choice %s: its table was pending when slurmctld stopped: chosen again",
	     PFX, job_ptr, mode);
	_enqueue(w);
}
