/*****************************************************************************\
 *  rlft_lid.c - select/rlft's LID choice, translated to the job's
 *  environment. The choice itself is libqft's (lib/lid).
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include "config.h"
#include "src/common/slurm_xlator.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "src/common/env.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "contribs/verbs/lid_table.h"
#include "src/plugins/select/rlft/rlft_lid.h"
#include "src/plugins/select/rlft/rlft_place.h"

#define PFX "select/rlft"

/* What a requeued job may still carry from its last start. */
static const char *const _stale[] = {"QFT_LID_TABLE", "QFT_LID_DIGEST", "QFT_LID_PATH_BITS",
				     "QFT_LID_HSD_AVG", "QFT_LID_HSD_MAX", NULL};

/* LidChoice=auto without HostFileDir= said why it stays job-wide: once
 * per slurmctld, not per job. */
static bool _said_no_table;

/* The job's --qft-lid, else LidChoice=. The SPANK plugin's
 * spank_job_control_setenv() reaches slurmctld as QFT_LID in the job's
 * SPANK environment, unprefixed (Prolog and Epilog see SPANK_QFT_LID). */
static int _wanted(job_record_t *job_ptr, const qft_conf_t *conf, const char **from)
{
	char *v = job_ptr->spank_job_env ? getenvp(job_ptr->spank_job_env, "QFT_LID") : NULL;

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
	mode = want == QFT_LID_JOB ? "job" : want == QFT_LID_DEST ? "dest" : "pair";
	/* dest and pair reach the tasks only through a table in HostFileDir=;
	 * computing one that cannot be written costs up to ~100 ms under
	 * slurmctld's locks and leaves every node of every step to say it
	 * has no table. A job-wide offset needs none (UCX_IB_LID_PATH_BITS). */
	if (strcmp(mode, "job") && !ctx->conf->hostfile_dir) {
		*why = want == QFT_LID_AUTO ? "no HostFileDir= for a table" :
		       "dest and pair need HostFileDir= for their table";
		if (want == QFT_LID_AUTO && !_said_no_table) {
			_said_no_table = true;
			info("%s: LidChoice=auto without HostFileDir=: job-wide LID offsets only "
			     "(QFT_LID_PATH_BITS); per-destination and per-pair offsets need a table "
			     "in HostFileDir= (qft.conf(5))", PFX);
		}
		return "job";
	}
	if (!strcmp(mode, "pair") && n > ctx->conf->lid_pair_max_nodes) {
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

static void _export(job_record_t *job_ptr, const qft_lid_choice_t *ch, size_t n,
		    const char **table)
{
	char buf[32], *offsets = _offsets(ch->dest, n);

	if (!strcmp(ch->mode, "job")) {
		snprintf(buf, sizeof(buf), "%u", ch->dest ? ch->dest[0] : 0);
		rlft_setenv(job_ptr, "QFT_LID_PATH_BITS", buf);
	} else if (rlft_write_job_file(job_ptr, "lid", ch->table, "QFT_LID_TABLE")) {
		/* Every task checks that the table it reads is this one
		 * (contribs/verbs, docs/lid-table.md "All or nothing"). */
		snprintf(buf, sizeof(buf), LID_DIGEST_FMT,
			 lid_digest(LID_DIGEST_INIT, ch->table, strlen(ch->table)));
		rlft_setenv(job_ptr, "QFT_LID_DIGEST", buf);
		*table = "table written";
	} else {
		/* No table, no choice: a QFT_LID_CHOICE of dest or pair
		 * without one would only make every node say so. */
		xfree(offsets);
		*table = "no table written: no LID choice";
		return;
	}
	rlft_setenv(job_ptr, "QFT_LID_CHOICE", ch->mode);
	rlft_setenv(job_ptr, "QFT_LID_OFFSETS", offsets);
	xfree(offsets);
	snprintf(buf, sizeof(buf), "%.3f", ch->avg_hsd);
	rlft_setenv(job_ptr, "QFT_LID_HSD_AVG", buf);
	snprintf(buf, sizeof(buf), "%.3f", ch->max_hsd);
	rlft_setenv(job_ptr, "QFT_LID_HSD_MAX", buf);
}

extern void rlft_tell_lids(const rlft_lid_ctx_t *ctx, job_record_t *job_ptr,
			   const size_t *hosts, size_t n, bool congestion_free,
			   const qft_prediction_t *one_lid)
{
	qft_lid_choice_t ch;
	struct timespec t0;
	const char *from, *why, *mode, *table = "no table";
	char *err = NULL, *zeros;
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
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (ctx->lib->placer_choose_lids(ctx->placer, hosts, n, mode, &ch, &err) != QFT_OK) {
		error("%s: %pJ: LID choice %s failed, one LID: %s", PFX, job_ptr, mode,
		      err ? err : "unknown error");
		qft_free(err);
		ctx->lib->lid_choice_clear(&ch);
		return;
	}
	_export(job_ptr, &ch, n, &table);
	info("%s: %pJ LID choice %s (%s %s%s%s, LMC %u): HSD %.3f avg, %.0f worst over %zu of %zu stages, one LID %.3f; %s; %ld us",
	     PFX, job_ptr, ch.mode, from, qft_lid_words[want], why ? ": " : "", why ? why : "",
	     ctx->lmc, ch.avg_hsd, ch.max_hsd, ch.stages_played, ch.stages_total,
	     one_lid ? one_lid->avg_hsd : 0.0, table, rlft_usec_since(&t0));
	ctx->lib->lid_choice_clear(&ch);
}
