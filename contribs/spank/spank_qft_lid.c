/*****************************************************************************\
 *  spank_qft_lid.c - spank/qft_lid: the --qft-lid option, and the LID
 *  offsets select/rlft chose for a job put into its tasks' environment.
 *
 *  In sbatch, salloc and srun (local and allocator context): --qft-lid=MODE
 *  goes into the job's SPANK environment as QFT_LID=MODE
 *  (spank_job_control_setenv), which slurmctld stores with the job; the
 *  client also exports it to the job as SLURM_SPANK_QFT_LID. select/rlft
 *  reads it when it places the job.
 *
 *  In slurmstepd (remote context), once per step and node: first (init_post_opt,
 *  as root, before any task) the wait for the job's LID decision when
 *  select/rlft chose dest or pair: the file QFT_LID_TABLE names, which
 *  slurmctld's worker publishes off its locks (docs/lid-choice.md "Off the
 *  locks"). A node that has waited `wait=` seconds writes the decision
 *  "base LIDs" there itself, with link(), which never replaces: the table
 *  or base LIDs, whichever came first, is the decision of every node
 *  (docs/lid-table.md "Base LIDs"). Then in user_init: the mode is
 *  --qft-lid if this step got it, else the job's (SLURM_SPANK_QFT_LID, then
 *  SPANK_QFT_LID), else auto. With the variables select/rlft put into the
 *  job environment (QFT_LID_CHOICE, QFT_LID_TABLE, QFT_LID_PATH_BITS,
 *  QFT_LID_OFFSETS):
 *    off            every QFT_LID_* variable leaves the tasks' environment;
 *    job            UCX_IB_LID_PATH_BITS=$QFT_LID_PATH_BITS unless the
 *                   user set UCX_IB_LID_PATH_BITS;
 *    pair, dest     the decision read as the user: a table: the interposer
 *                   (libqft-lid.so, contribs/verbs) first in LD_PRELOAD,
 *                   UCX_IB_MLX5_DEVX=n unless set, QFT_LID_DIGEST of the
 *                   bytes read (every task checks its copy against it),
 *                   QFT_LID_HSD_AVG and _MAX from its head; base LIDs: no
 *                   interposer, and global task 0 says so on the step's
 *                   stderr; QFT_LID_DECISION=table or base either way.
 *                   When there is no decision to read, this node's tasks
 *                   stop (task_init, exit 78): all or nothing per step;
 *    auto           whichever of these QFT_LID_CHOICE names (off or
 *                   none: nothing).
 *  A step started inside a job inherits the environment its job script
 *  got; what this plugin set there is recorded in QFT_LID_SPANK_SET and
 *  undone first, so that every step gets its own mode.
 *
 *  plugstack.conf:
 *    optional /path/spank_qft_lid.so [interposer=/path/libqft-lid.so]
 *             [dir=HostFileDir] [wait=SECONDS]
 *  dir= is qft.conf's HostFileDir= as this node sees it: the only
 *  directory where this plugin (root) writes, and only the decision of the
 *  step's own job. Without it a node waits for the decision as the user
 *  and, at the limit, stops its tasks (it cannot decide for the others).
 *  wait= (default 120, at most 500: srun gives a launch 600 s): how long a
 *  node waits for the decision from the start of its first step.
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

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <slurm/spank.h>

#include "contribs/spank/qft_request.h"
#include "contribs/verbs/lid_table.h"

/* plugin_name "qft_lid", plugin_type "spank", plugin_version */
SPANK_PLUGIN(qft_lid, 1);

/* The interposer's installed path, set by the build ($(libdir)). */
#ifndef QFT_LID_INTERPOSER
#define QFT_LID_INTERPOSER "/usr/local/lib/libqft-lid.so"
#endif

#define PLUGIN "spank/qft_lid"
/* What slurmstepd set in a job's environment, for the steps inside it. */
#define SET_MARKER "QFT_LID_SPANK_SET"
/* The longest environment value read: Linux's MAX_ARG_STRLEN. */
#define ENV_MAX (128 * 1024)
/* A task that cannot get the job's LID table: a configuration error
 * (sysexits.h), as the interposer's. */
#define STOP_STATUS 78
/* wait=: default and most, in seconds (srun allows a launch 600 s). */
#define WAIT_DEFAULT 120
#define WAIT_MAX 500
/* How often a waiting node looks for the decision, in milliseconds. */
#define POLL_MS 100
#ifndef SLURM_EXTERN_CONT
#define SLURM_EXTERN_CONT 0xfffffffcu
#endif

enum lid_mode { MODE_UNSET = 0, MODE_AUTO, MODE_PAIR, MODE_DEST, MODE_JOB, MODE_OFF };

static const char *const mode_names[] = {
	[MODE_UNSET] = "unset", [MODE_AUTO] = "auto", [MODE_PAIR] = "pair",
	[MODE_DEST] = "dest", [MODE_JOB] = "job", [MODE_OFF] = "off",
};
#define MODES_ALLOWED "auto, pair, dest, job or off"
#define CHOICES_ALLOWED "pair, dest, job, off or none"

/*
 * SPANK calls option callbacks without a handle and keeps no data for a
 * plugin, so the plugin's state is this one file-static record: one per
 * process (sbatch, salloc, srun, or the slurmstepd of one step), set in
 * slurm_spank_init and by the option callback, freed in slurm_spank_exit.
 */
static struct {
	enum lid_mode opt_mode; /* --qft-lid, MODE_UNSET if not given */
	char *interposer;       /* plugstack.conf interposer=, or the default */
	char *dir;              /* plugstack.conf dir=, NULL: none */
	unsigned wait;          /* plugstack.conf wait= */
	bool conf_ok;           /* plugstack.conf arguments valid */
	bool waited;            /* init_post_opt saw the decision there */
	char *stop;             /* why this node's tasks stop, NULL: they run */
	char *base;             /* the step runs on base LIDs: why (task 0
				 * says it on the step's stderr) */
} qft = { MODE_UNSET, NULL, NULL, WAIT_DEFAULT, false, false, NULL, NULL };

static int _opt_cb(int val, const char *optarg, int remote);

static struct spank_option lid_option = {
	"qft-lid", "MODE",
	"LID offsets for the job's InfiniBand traffic: auto (the cluster's "
	"default), pair, dest, job or off",
	1, 0, _opt_cb
};

static bool _mode_parse(const char *s, enum lid_mode *out);
static int _parse_args(int ac, char **av);
static enum lid_mode _step_mode(spank_t sp, const char **from);
static char *_getenv(spank_t sp, const char *name);
static int _apply(spank_t sp);
static void _undo_inherited(spank_t sp);
static int _apply_off(spank_t sp);
static int _apply_job(spank_t sp, enum lid_mode mode, const char *choice);
static int _apply_table(spank_t sp, enum lid_mode mode, const char *choice);
/* What the head of a decision file says (docs/lid-table.md). */
struct head {
	char choice[16];   /* pair, dest, job or base */
	char hsd_avg[16];  /* "# hsd AVG MAX", "" if none */
	char hsd_max[16];
	char why[256];     /* base: its first comment, "" if none */
	char job_bits[16]; /* job: the first host's DEST_OFFSET */
};
static int _table_head(const char *path, struct head *h);
static int _wait_decision(spank_t sp);
static int _wait_as_user(const char *path);
static bool _decision_name(const char *path, uint32_t job_id);
static void _record_set(spank_t sp, const char *name, const char *value);
static bool _readable(const char *path, int *err);
static int _table_digest(const char *path, char *out, size_t len);
static void _stop(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static bool _job_has_table(spank_t sp);
static bool _has_env(spank_t sp, const char *name);

/*
 * slurm_spank_init: every context. Reads the plugstack.conf arguments and
 * registers --qft-lid. Not the static spank_options table: SPANK skips that
 * table in allocator context (sbatch, salloc), spank_option_register is
 * honoured everywhere.
 * RET 0, or -1 when plugstack.conf gave a bad argument (a "required" line
 * then stops the command; an "optional" one carries on without the plugin's
 * remote side).
 */
extern int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();
	int rc = _parse_args(ac, av);

	if ((ctx != S_CTX_LOCAL) && (ctx != S_CTX_ALLOCATOR) && (ctx != S_CTX_REMOTE))
		return rc;
	if (spank_option_register(sp, &lid_option) != ESPANK_SUCCESS) {
		slurm_error(PLUGIN ": cannot register --%s", lid_option.name);
		return -1;
	}
	/* --qft-isolate, --qft-shape-wait: only sbatch, salloc and srun
	 * send them; slurmstepd registers them so that srun's replay of the
	 * options to each step finds them */
	if (qft_request_register(sp))
		return -1;
	return rc;
}

/*
 * slurm_spank_init_post_opt: in slurmstepd (remote), as root, once per step
 * and node before any task: the wait for the job's LID decision
 * (_wait_decision). In sbatch, salloc and srun, after the options.
 * A given --qft-lid goes into the job's SPANK environment as QFT_LID=MODE,
 * which slurmctld keeps with the job as it is (job_ptr->spank_job_env holds
 * "QFT_LID=MODE": Slurm adds the SPANK_ prefix only in the environments of
 * Prolog/Epilog and PrologSlurmctld/EpilogSlurmctld, valid_spank_job_env()).
 */
extern int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();
	spank_err_t err;

	(void) ac;
	(void) av;
	if ((ctx == S_CTX_REMOTE) && qft.conf_ok)
		return _wait_decision(sp);
	if ((ctx != S_CTX_LOCAL) && (ctx != S_CTX_ALLOCATOR))
		return 0;
	if (qft_request_send(sp))
		return -1;
	if (qft.opt_mode == MODE_UNSET)
		return 0;
	err = spank_job_control_setenv(sp, "QFT_LID", mode_names[qft.opt_mode], 1);
	if (err != ESPANK_SUCCESS) {
		slurm_error(PLUGIN ": cannot pass --qft-lid=%s to slurmctld: %s",
			    mode_names[qft.opt_mode], spank_strerror(err));
		return -1;
	}
	return 0;
}

/*
 * slurm_spank_user_init: in slurmstepd, once per step on each node, as the
 * job's user (effective uid) in the job's working directory, before the
 * tasks are forked. Every task's environment starts as a copy of the one
 * spank_setenv changes here (slurmstepd's exec_task), so one decision and
 * at most one message per step and node reach every task.
 * RET 0 always: a LID choice that cannot be applied leaves the job as it
 * would run without the plugin, and says why.
 */
extern int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	(void) ac;
	(void) av;
	if (!spank_remote(sp))
		return 0;
	if (!qft.conf_ok) {
		if (_job_has_table(sp))
			_stop("plugstack.conf's arguments are bad on this node (see slurmd's log): the job's LID table is not applied here");
		return 0;
	}
	(void) _apply(sp);
	return 0;
}

/*
 * slurm_spank_task_init: in each task, as the user, stdio the task's,
 * before exec. A node that cannot apply the job's LID table while the
 * others do would leave every connection between them rewritten at one end
 * only: the tasks hang or fail with retry-exceeded. The tasks of a step
 * cannot agree among themselves, so this node's fail, with one line on the
 * task's stderr, and the step fails (docs/lid-table.md, "All or nothing").
 * Exits here, not by the return code: SPANK ignores the return code of an
 * "optional" plugin (plugstack.c, _do_call_stack). When the job's decision
 * is base LIDs, global task 0 says so on its stderr (the step's output).
 */
extern int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	uint32_t task = 1;

	(void) ac;
	(void) av;
	if (!qft.stop) {
		if (qft.base && (spank_get_item(sp, S_TASK_GLOBAL_ID, &task) == ESPANK_SUCCESS) &&
		    (task == 0)) {
			fprintf(stderr, PLUGIN ": %s; every node of this step runs on base LIDs\n",
				qft.base);
			fflush(stderr);
		}
		return 0;
	}
	fprintf(stderr, PLUGIN ": %s; task stopped (exit %d): the job's other nodes apply the table, and a connection rewritten at one end only fails\n",
		qft.stop, STOP_STATUS);
	fflush(stderr);
	_exit(STOP_STATUS);
}

/* slurm_spank_exit: every context but slurmd's; frees the plugin's state. */
extern int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void) sp;
	(void) ac;
	(void) av;
	free(qft.interposer);
	qft.interposer = NULL;
	free(qft.dir);
	qft.dir = NULL;
	free(qft.stop);
	qft.stop = NULL;
	free(qft.base);
	qft.base = NULL;
	qft.waited = false;
	qft.opt_mode = MODE_UNSET;
	qft.conf_ok = false;
	qft_request_reset();
	return 0;
}

/* slurm_spank_slurmd_exit: slurmd's slurm_spank_exit. */
extern int slurm_spank_slurmd_exit(spank_t sp, int ac, char **av)
{
	return slurm_spank_exit(sp, ac, av);
}

/*
 * _opt_cb: --qft-lid=MODE; remote is 1 when slurmstepd replays the option
 * it got with the step. A bad value fails sbatch, salloc and srun.
 */
static int _opt_cb(int val, const char *optarg, int remote)
{
	enum lid_mode mode;

	(void) val;
	(void) remote;
	if (!optarg || !_mode_parse(optarg, &mode)) {
		slurm_error(PLUGIN ": --qft-lid=%s: expected " MODES_ALLOWED,
			    optarg ? optarg : "");
		return -1;
	}
	qft.opt_mode = mode;
	return 0;
}

/* _mode_parse: one of the mode names (not "unset"), exactly. */
static bool _mode_parse(const char *s, enum lid_mode *out)
{
	for (int m = MODE_AUTO; m <= MODE_OFF; m++) {
		if (!strcmp(s, mode_names[m])) {
			*out = (enum lid_mode) m;
			return true;
		}
	}
	return false;
}

/*
 * _parse_args: the arguments of the plugstack.conf line: interposer=PATH,
 * dir=PATH (absolute paths), wait=SECONDS; each bad argument logged by
 * name.
 * RET 0 or -1
 */
static int _parse_args(int ac, char **av)
{
	const char *interposer = QFT_LID_INTERPOSER, *dir = NULL;
	int rc = 0;

	qft.wait = WAIT_DEFAULT;
	for (int i = 0; i < ac; i++) {
		if (!strncmp(av[i], "interposer=", 11)) {
			interposer = av[i] + 11;
			if (interposer[0] != '/') {
				slurm_error(PLUGIN ": plugstack.conf: %s: expected an absolute path", av[i]);
				rc = -1;
			}
		} else if (!strncmp(av[i], "dir=", 4)) {
			dir = av[i] + 4;
			if (dir[0] != '/') {
				slurm_error(PLUGIN ": plugstack.conf: %s: expected an absolute path (qft.conf's HostFileDir=)", av[i]);
				rc = -1;
			}
		} else if (!strncmp(av[i], "wait=", 5)) {
			char *end;
			unsigned long v = strtoul(av[i] + 5, &end, 10);

			if (!av[i][5] || *end || (v > WAIT_MAX)) {
				slurm_error(PLUGIN ": plugstack.conf: %s: expected seconds, 0 to %d", av[i],
					    WAIT_MAX);
				rc = -1;
			} else {
				qft.wait = (unsigned) v;
			}
		} else {
			slurm_error(PLUGIN ": plugstack.conf: unknown argument \"%s\" (interposer=PATH, dir=PATH, wait=SECONDS)",
				    av[i]);
			rc = -1;
		}
	}
	free(qft.interposer);
	qft.interposer = strdup(interposer);
	free(qft.dir);
	qft.dir = NULL;
	if (dir) {
		size_t n = strlen(dir);

		while ((n > 1) && (dir[n - 1] == '/'))
			n--;
		qft.dir = strndup(dir, n);
	}
	if (!qft.interposer || (dir && !qft.dir)) {
		slurm_error(PLUGIN ": out of memory");
		rc = -1;
	}
	qft.conf_ok = (rc == 0);
	return rc;
}

/*
 * _step_mode: this step's mode: --qft-lid given to the step (srun, or
 * sbatch/salloc for the batch step), else the job's, which sbatch and salloc
 * export as SLURM_SPANK_QFT_LID (prologs see SPANK_QFT_LID), else auto.
 * OUT from: where the mode came from, for messages.
 */
static enum lid_mode _step_mode(spank_t sp, const char **from)
{
	static const char *const names[] = { "SLURM_SPANK_QFT_LID", "SPANK_QFT_LID" };
	enum lid_mode mode = MODE_AUTO;

	*from = "default";
	if (qft.opt_mode != MODE_UNSET) {
		*from = "--qft-lid";
		return qft.opt_mode;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *v = _getenv(sp, names[i]);

		if (!v)
			continue;
		if (_mode_parse(v, &mode)) {
			*from = names[i];
		} else {
			slurm_error(PLUGIN ": %s=%s: expected " MODES_ALLOWED "; using auto", names[i], v);
			mode = MODE_AUTO;
		}
		free(v);
		return mode;
	}
	return mode;
}

/*
 * _getenv: a copy of NAME from the job's environment (free it), or NULL
 * if unset (or longer than ENV_MAX).
 */
static char *_getenv(spank_t sp, const char *name)
{
	for (int len = 256; len <= ENV_MAX; len *= 2) {
		char *buf = malloc(len);
		spank_err_t err;

		if (!buf)
			return NULL;
		err = spank_getenv(sp, name, buf, len);
		if (err == ESPANK_SUCCESS)
			return buf;
		free(buf);
		if (err != ESPANK_NOSPACE)
			return NULL;
	}
	slurm_error(PLUGIN ": %s is longer than %d bytes: ignored", name, ENV_MAX);
	return NULL;
}

/* _apply: the step's mode against what select/rlft chose. RET 0 or -1 */
static int _apply(spank_t sp)
{
	const char *from;
	enum lid_mode mode = _step_mode(sp, &from);
	char *choice;
	int rc;

	_undo_inherited(sp);
	if (mode == MODE_OFF)
		return _apply_off(sp);
	choice = _getenv(sp, "QFT_LID_CHOICE");
	if (!choice && !strcmp(from, "default")) {
		slurm_verbose(PLUGIN ": no QFT_LID_CHOICE in the job environment: no LID offsets for this job");
		return 0;
	} else if (!choice) {
		slurm_info(PLUGIN ": mode %s (%s) but no QFT_LID_CHOICE in the job environment: select/rlft chose no LID offsets for this job, nothing applied",
			   mode_names[mode], from);
		return 0;
	}
	if (!strcmp(choice, "off") || !strcmp(choice, "none")) {
		if (!strcmp(from, "default"))
			slurm_verbose(PLUGIN ": QFT_LID_CHOICE=%s: no LID offsets for this job", choice);
		else
			slurm_info(PLUGIN ": mode %s (%s) but select/rlft chose no LID offsets (QFT_LID_CHOICE=%s), nothing applied",
				   mode_names[mode], from, choice);
		rc = 0;
	} else if (!strcmp(choice, "job") && _has_env(sp, "QFT_LID_TABLE")) {
		rc = _apply_table(sp, mode, choice); /* its offset in the table */
	} else if (!strcmp(choice, "job") || (mode == MODE_JOB)) {
		rc = _apply_job(sp, mode, choice);
	} else if (!strcmp(choice, "pair") || !strcmp(choice, "dest")) {
		rc = _apply_table(sp, mode, choice);
	} else {
		slurm_error(PLUGIN ": QFT_LID_CHOICE=%s: expected " CHOICES_ALLOWED ", nothing applied", choice);
		rc = -1;
	}
	free(choice);
	return rc;
}

/*
 * _undo_inherited: a step inside a job inherits the environment of the job
 * script, which this plugin may have changed for the batch step: drop the
 * interposer from LD_PRELOAD and unset every variable SET_MARKER records
 * that still has the value set then.
 */
static void _undo_inherited(spank_t sp)
{
	char *preload = _getenv(sp, "LD_PRELOAD");
	char *set = _getenv(sp, SET_MARKER);

	if (preload && strstr(preload, qft.interposer)) {
		char *kept = calloc(1, strlen(preload) + 1), *save = NULL;

		for (char *tok = strtok_r(preload, ": ", &save); kept && tok;
		     tok = strtok_r(NULL, ": ", &save)) {
			if (!strcmp(tok, qft.interposer))
				continue;
			if (kept[0])
				strcat(kept, ":");
			strcat(kept, tok);
		}
		if (kept && kept[0])
			spank_setenv(sp, "LD_PRELOAD", kept, 1);
		else if (kept)
			spank_unsetenv(sp, "LD_PRELOAD");
		free(kept);
	}
	if (set) {
		char *save = NULL;

		for (char *tok = strtok_r(set, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
			char *eq = strchr(tok, '='), *now;

			if (!eq)
				continue;
			*eq = '\0';
			now = _getenv(sp, tok);
			if (now && !strcmp(now, eq + 1))
				spank_unsetenv(sp, tok);
			free(now);
		}
		spank_unsetenv(sp, SET_MARKER);
	}
	free(preload);
	free(set);
}

/*
 * _apply_off: no LID choice: every QFT_LID_* variable leaves the tasks
 * (QFT_LID_TABLE, _CHOICE, _OFFSETS, _PATH_BITS, and whatever else
 * select/rlft adds), found in the job's environment (S_JOB_ENV).
 */
static int _apply_off(spank_t sp)
{
	for (;;) {
		char **env = NULL, *name = NULL;

		if ((spank_get_item(sp, S_JOB_ENV, &env) != ESPANK_SUCCESS) || !env)
			break;
		for (char **e = env; *e && !name; e++) {
			char *eq = strchr(*e, '=');

			if (eq && !strncmp(*e, "QFT_LID_", 8))
				name = strndup(*e, eq - *e);
		}
		if (!name)
			break;
		if (spank_unsetenv(sp, name) != ESPANK_SUCCESS) {
			slurm_error(PLUGIN ": --qft-lid=off: cannot unset %s", name);
			free(name);
			return -1;
		}
		free(name);
	}
	slurm_verbose(PLUGIN ": --qft-lid=off: QFT_LID_* removed, no interposer");
	return 0;
}

/*
 * _path_bits: one offset for the whole job: UCX_IB_LID_PATH_BITS=BITS,
 * unless the user set UCX_IB_LID_PATH_BITS.
 */
static int _path_bits(spank_t sp, enum lid_mode mode, const char *choice, const char *bits)
{
	char *user;
	int rc = 0;

	if ((mode == MODE_PAIR) || (mode == MODE_DEST))
		slurm_info(PLUGIN ": --qft-lid=%s, but select/rlft gave the job one offset for all (QFT_LID_CHOICE=%s): UCX_IB_LID_PATH_BITS=%s",
			   mode_names[mode], choice, bits);
	user = _getenv(sp, "UCX_IB_LID_PATH_BITS");
	if (user) {
		slurm_info(PLUGIN ": UCX_IB_LID_PATH_BITS=%s is the user's: kept, QFT_LID_PATH_BITS=%s not applied",
			   user, bits);
	} else if (spank_setenv(sp, "UCX_IB_LID_PATH_BITS", bits, 1) == ESPANK_SUCCESS) {
		_record_set(sp, "UCX_IB_LID_PATH_BITS", bits);
	} else {
		slurm_error(PLUGIN ": cannot set UCX_IB_LID_PATH_BITS=%s", bits);
		rc = -1;
	}
	free(user);
	return rc;
}

/*
 * _apply_job: one offset for the whole job from QFT_LID_PATH_BITS (a
 * slurmctld before the choice moved off its locks, or set by hand).
 */
static int _apply_job(spank_t sp, enum lid_mode mode, const char *choice)
{
	char *bits = _getenv(sp, "QFT_LID_PATH_BITS");
	int rc;

	if (!bits || !bits[0] || (strspn(bits, "0123456789") != strlen(bits))) {
		slurm_error(PLUGIN ": QFT_LID_CHOICE=%s but QFT_LID_PATH_BITS is %s%s%s: UCX_IB_LID_PATH_BITS not set",
			    choice, bits ? "\"" : "unset", bits ? bits : "", bits ? "\", expected a number" : "");
		free(bits);
		return -1;
	}
	rc = _path_bits(sp, mode, choice, bits);
	free(bits);
	return rc;
}

/* _set_recorded: NAME=VALUE for the tasks, recorded (_undo_inherited). */
static void _set_recorded(spank_t sp, const char *name, const char *value)
{
	if (spank_setenv(sp, name, value, 1) == ESPANK_SUCCESS)
		_record_set(sp, name, value);
	else
		slurm_error(PLUGIN ": cannot set %s=%s", name, value);
}

/*
 * _apply_table: per-destination or per-pair offsets: the job's decision,
 * read as the user. A table: the interposer reads QFT_LID_TABLE; it goes
 * first in LD_PRELOAD, and UCX_IB_MLX5_DEVX=n keeps UCX's queue pairs on
 * the verbs calls it interposes (unless the user set UCX_IB_MLX5_DEVX);
 * QFT_LID_DIGEST is the digest of the bytes read here, which every task
 * checks its copy against (when slurmctld set it, the bytes must have
 * it). Base LIDs: nothing to apply, and the step says so. Checked as the
 * user: the decision and the interposer are readable, the decision is
 * format 1 and says its choice.
 */
static int _apply_table(spank_t sp, enum lid_mode mode, const char *choice)
{
	char *table = _getenv(sp, "QFT_LID_TABLE"), *preload = NULL, *devx = NULL, *old;
	char *want = NULL, digest[32];
	uint32_t job_id = 0;
	struct head h;
	int err, rc = -1;

	if (!table || !table[0]) {
		slurm_error(PLUGIN ": QFT_LID_CHOICE=%s but no QFT_LID_TABLE in the job environment: no interposer",
			    choice);
		goto out;
	}
	/* init_post_opt waited as root when dir= names its directory; a
	 * decision select/rlft announced is waited for here otherwise */
	if (!qft.waited && (spank_get_item(sp, S_JOB_ID, &job_id) == ESPANK_SUCCESS) &&
	    _decision_name(table, job_id) && (_wait_as_user(table) < 0))
		goto out;
	if (_table_head(table, &h) < 0)
		goto out;
	if (_table_digest(table, digest, sizeof(digest)) < 0)
		goto out;
	want = _getenv(sp, "QFT_LID_DIGEST");
	if (want && want[0] && strcmp(digest, want)) {
		_stop("LID table %s: digest %s, expected QFT_LID_DIGEST=%s (the table select/rlft wrote for the job)",
		      table, digest, want);
		goto out;
	}
	if (!want || !want[0])
		_set_recorded(sp, "QFT_LID_DIGEST", digest);
	if (!strcmp(h.choice, "base")) {
		char buf[512];

		snprintf(buf, sizeof(buf), "LID decision %s: base LIDs (%s)", table,
			 h.why[0] ? h.why : "no reason given");
		free(qft.base);
		qft.base = strdup(buf);
		slurm_info(PLUGIN ": %s: no interposer", buf);
		_set_recorded(sp, "QFT_LID_DECISION", "base");
		rc = 0;
		goto out;
	}
	if (!strcmp(h.choice, "job")) {
		/* one offset for all: stock UCX carries it, no interposer */
		_set_recorded(sp, "QFT_LID_DECISION", "table");
		_set_recorded(sp, "QFT_LID_PATH_BITS", h.job_bits);
		if (h.hsd_avg[0]) {
			_set_recorded(sp, "QFT_LID_HSD_AVG", h.hsd_avg);
			_set_recorded(sp, "QFT_LID_HSD_MAX", h.hsd_max);
		}
		rc = _path_bits(sp, mode, choice, h.job_bits);
		goto out;
	}
	if (!_readable(qft.interposer, &err)) {
		_stop("interposer %s: %s: the LID table %s is not applied on this node",
		      qft.interposer, strerror(err), table);
		goto out;
	}
	if ((mode == MODE_PAIR || mode == MODE_DEST) && strcmp(h.choice, mode_names[mode]))
		slurm_info(PLUGIN ": --qft-lid=%s, but the LID table %s holds \"%s\" offsets (slurmctld could not give %s): using the table",
			   mode_names[mode], table, h.choice, mode_names[mode]);
	old = _getenv(sp, "LD_PRELOAD");
	if (old && old[0]) {
		preload = malloc(strlen(qft.interposer) + strlen(old) + 2);
		if (preload)
			sprintf(preload, "%s:%s", qft.interposer, old);
	} else {
		preload = strdup(qft.interposer);
	}
	free(old);
	if (!preload || (spank_setenv(sp, "LD_PRELOAD", preload, 1) != ESPANK_SUCCESS)) {
		_stop("cannot set LD_PRELOAD: the LID table %s is not applied on this node", table);
		goto out;
	}
	devx = _getenv(sp, "UCX_IB_MLX5_DEVX");
	if (!devx && (spank_setenv(sp, "UCX_IB_MLX5_DEVX", "n", 1) == ESPANK_SUCCESS))
		_record_set(sp, "UCX_IB_MLX5_DEVX", "n");
	_set_recorded(sp, "QFT_LID_DECISION", "table");
	if (h.hsd_avg[0]) {
		_set_recorded(sp, "QFT_LID_HSD_AVG", h.hsd_avg);
		_set_recorded(sp, "QFT_LID_HSD_MAX", h.hsd_max);
	}
	slurm_verbose(PLUGIN ": LID table %s (%s offsets) through %s", table, h.choice, qft.interposer);
	rc = 0;
out:
	free(want);
	free(devx);
	free(preload);
	free(table);
	return rc;
}

/* _ms_sleep: POLL_MS, or what is left until `until` (CLOCK_MONOTONIC). */
static void _poll_sleep(const struct timespec *until)
{
	struct timespec now, d = { 0, POLL_MS * 1000000L };
	long left;

	clock_gettime(CLOCK_MONOTONIC, &now);
	left = (until->tv_sec - now.tv_sec) * 1000L + (until->tv_nsec - now.tv_nsec) / 1000000L;
	if (left <= 0)
		return;
	if (left < POLL_MS)
		d.tv_nsec = left * 1000000L;
	nanosleep(&d, NULL);
}

static bool _past(const struct timespec *until)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec > until->tv_sec) ||
	       ((now.tv_sec == until->tv_sec) && (now.tv_nsec >= until->tv_nsec));
}

/*
 * _wait_as_user: without dir=: waits up to wait= seconds for PATH to open
 * as the user. This node cannot write a decision: at the limit its tasks
 * stop (the others may still get the table).
 * RET 0, or -1 after _stop
 */
static int _wait_as_user(const char *path)
{
	struct timespec until;
	int fd;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += qft.wait;
	for (;;) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		if ((errno != ENOENT) || _past(&until))
			break;
		_poll_sleep(&until);
	}
	if (errno == ENOENT)
		_stop("LID table %s: no decision within wait=%u s, and without dir= in plugstack.conf this node cannot decide base LIDs for the job",
		      path, qft.wait);
	else
		_stop("LID table %s: %s", path, strerror(errno));
	return -1;
}

/* _dir_unsafe: why directory `st` may not hold a decision, or NULL: only
 * its owner (and root) may add or swap names in it. */
static const char *_dir_unsafe(const struct stat *st)
{
	if (!S_ISDIR(st->st_mode))
		return "is not a directory";
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
		return "is writable by group or others and not sticky";
	return NULL;
}

/*
 * _publish_base: the decision "base LIDs" for the job, as NAME in dfd,
 * unless a decision is there: written under a new name, then link()ed,
 * which never replaces (docs/lid-table.md, "Base LIDs").
 * RET 0 published, 1 a decision was there, -1 (errno) error
 */
static int _publish_base(int dfd, const char *name, const char *why)
{
	char tmp[NAME_MAX + 1], text[1024];
	uint64_t tag = 0;
	ssize_t len, put;
	int fd, rc, e;

	len = snprintf(text, sizeof(text), LID_BASE_FMT, why);
	if ((len < 0) || ((size_t) len >= sizeof(text))) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (getrandom(&tag, sizeof(tag), GRND_NONBLOCK) != sizeof(tag))
		tag = ((uint64_t) getpid() << 32) ^ (uint64_t) time(NULL);
	if (snprintf(tmp, sizeof(tmp), ".%s.%016llx", name, (unsigned long long) tag) >=
	    (int) sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	/* the tasks read it as the user, whatever the umask */
	put = fchmod(fd, 0644) ? -1 : write(fd, text, (size_t) len);
	e = errno;
	if ((close(fd) < 0) || (put != len)) {
		if (put == len)
			e = errno;
		unlinkat(dfd, tmp, 0);
		errno = e ? e : EIO;
		return -1;
	}
	rc = linkat(dfd, tmp, dfd, name, 0);
	e = errno;
	unlinkat(dfd, tmp, 0);
	if (!rc)
		return 0;
	errno = e;
	return (e == EEXIST) ? 1 : -1;
}

/*
 * _decision_name: whether PATH's last component is a LID decision
 * select/rlft announced for job `job_id`: job_<job_id>.<16 hexadecimal
 * digits>.lid (docs/lid-table.md, "One decision per job"). A table set up
 * by hand is not waited for.
 */
static bool _decision_name(const char *path, uint32_t job_id)
{
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	char prefix[32];
	size_t plen = (size_t) snprintf(prefix, sizeof(prefix), "job_%u.", job_id);

	return !strncmp(name, prefix, plen) && (strlen(name) == plen + 16 + 4) &&
	       (strspn(name + plen, "0123456789abcdef") == 16) && !strcmp(name + plen + 16, ".lid");
}

/*
 * _wait_decision: slurmstepd, root, before any task of a step that applies
 * a table (dest or pair): with dir= naming the directory of QFT_LID_TABLE
 * and its name the step's own job's (job_JOBID.TAG.lid), waits up to wait=
 * seconds for the decision; at the limit writes "base LIDs" there. Looks
 * only at names in dir=, never reads a file as root (user_init reads it as
 * the user). Not in the extern step (no tasks; slurmd waits for it).
 * RET 0 always: what cannot be decided here is decided in user_init.
 */
static int _wait_decision(spank_t sp)
{
	char *table = NULL, *slash, *name, host[256] = "", why[512];
	uint32_t job_id = 0, step_id = 0;
	struct timespec t0, until, now;
	struct stat st, dst;
	int dfd = -1, rc;
	size_t dlen;

	if ((spank_get_item(sp, S_JOB_STEPID, &step_id) != ESPANK_SUCCESS) ||
	    (step_id == SLURM_EXTERN_CONT) || !qft.dir || !_job_has_table(sp) ||
	    (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS) ||
	    !(table = _getenv(sp, "QFT_LID_TABLE")))
		goto out;
	slash = strrchr(table, '/');
	dlen = slash ? (size_t) (slash - table) : 0;
	name = slash ? slash + 1 : table;
	/* job_<this job>.<16 hexadecimal digits>.lid in dir= */
	if (!slash || (dlen != strlen(qft.dir)) || strncmp(table, qft.dir, dlen) ||
	    !_decision_name(table, job_id)) {
		slurm_info(PLUGIN ": QFT_LID_TABLE=%s is not a decision of job %u in dir=%s: this node cannot decide base LIDs for it",
			   table, job_id, qft.dir);
		goto out;
	}
	dfd = open(qft.dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if ((dfd < 0) || fstat(dfd, &dst) || _dir_unsafe(&dst)) {
		slurm_error(PLUGIN ": dir=%s %s: this node cannot decide base LIDs for job %u",
			    qft.dir, (dfd < 0) ? strerror(errno) : _dir_unsafe(&dst) ? _dir_unsafe(&dst) :
			    "cannot be checked", job_id);
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	until = t0;
	until.tv_sec += qft.wait;
	while (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) && (errno == ENOENT) && !_past(&until))
		_poll_sleep(&until);
	if (!fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		qft.waited = true;
		goto check;
	}
	gethostname(host, sizeof(host) - 1);
	snprintf(why, sizeof(why), "spank/qft_lid on %s: no LID table within wait=%u s", host,
		 qft.wait);
	rc = _publish_base(dfd, name, why);
	if (rc < 0) {
		slurm_error(PLUGIN ": job %u: cannot write the base-LID decision %s: %s", job_id,
			    table, strerror(errno));
		goto out;
	}
	if (rc == 0)
		slurm_info(PLUGIN ": job %u: no LID table within wait=%u s: decided base LIDs for every node (%s)",
			   job_id, qft.wait, table);
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		goto out;
	qft.waited = true;
check:
	clock_gettime(CLOCK_MONOTONIC, &now);
	/* written by slurmctld's user or a node's root, nobody else */
	if (!S_ISREG(st.st_mode) || ((st.st_uid != 0) && (st.st_uid != dst.st_uid)))
		_stop("LID decision %s is not a file of root or of dir=%s's owner", table, qft.dir);
	else if (now.tv_sec - t0.tv_sec > 0)
		slurm_verbose(PLUGIN ": job %u: LID decision there after %ld s", job_id,
			      (long) (now.tv_sec - t0.tv_sec));
out:
	if (dfd >= 0)
		close(dfd);
	free(table);
	return 0;
}

/*
 * _table_head: opens PATH as the user (effective uid) and reads its head
 * (docs/lid-table.md): "qft-lid 1" first, then "choice C" before "hosts"
 * (or "choice base"), and the comments before it: "# hsd AVG MAX", and
 * for base the first comment after it (why).
 * RET 0, or -1 after one message saying why.
 */
static int _table_head(const char *path, struct head *h)
{
	char line[512];
	int fd = open(path, O_RDONLY | O_CLOEXEC), lineno = 0;
	bool header = false, whole = true;
	FILE *fp;

	memset(h, 0, sizeof(*h));
	if ((fd < 0) || !(fp = fdopen(fd, "r"))) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		_stop("LID table %s: %s", path, strerror(err));
		return -1;
	}
	while (fgets(line, sizeof(line), fp)) {
		char word[16], arg[16], extra[2], avg[16], max[16];
		bool continued = !whole;
		int n;

		whole = (strchr(line, '\n') != NULL);
		if (continued)
			continue; /* the rest of a long line */
		lineno++;
		if ((sscanf(line, "# hsd %15s %15s %1s", avg, max, extra) == 2) &&
		    (strspn(avg, "0123456789.") == strlen(avg)) &&
		    (strspn(max, "0123456789.") == strlen(max))) {
			strcpy(h->hsd_avg, avg);
			strcpy(h->hsd_max, max);
			continue;
		}
		if (!strcmp(h->choice, "base")) {
			if (line[0] == '#') {
				snprintf(h->why, sizeof(h->why), "%s", line + 1 + strspn(line + 1, " "));
				h->why[strcspn(h->why, "\n")] = '\0';
			}
			if ((line[0] == '#') || !strcmp(line, "end\n") || !strcmp(line, "end"))
				break;
			continue;
		}
		n = sscanf(line, "%15s %15s %1s", word, arg, extra);
		if ((n <= 0) || (word[0] == '#'))
			continue;
		if (!header) {
			if ((n != 2) || strcmp(word, "qft-lid") || strcmp(arg, "1"))
				break;
			header = true;
		} else if (!strcmp(word, "choice") && (n == 2)) {
			snprintf(h->choice, sizeof(h->choice), "%s", arg);
			if (strcmp(arg, "base") && strcmp(arg, "job"))
				break;
		} else if (!strcmp(word, "host") && !strcmp(h->choice, "job")) {
			char name[256], lid[32], off[16];

			/* every host has the same offset under job */
			if ((sscanf(line, "host %255s %31s %15s %1s", name, lid, off, extra) == 3) &&
			    (strspn(off, "0123456789") == strlen(off)))
				strcpy(h->job_bits, off);
			break;
		} else if (!strcmp(word, "hosts") && strcmp(h->choice, "job")) {
			break;
		}
	}
	fclose(fp);
	if (!strcmp(h->choice, "job") && !h->job_bits[0]) {
		_stop("LID table %s:%d: expected \"host NAME BASE_LID DEST_OFFSET\" after the head under choice job",
		      path, lineno);
		return -1;
	}
	if (h->choice[0])
		return 0;
	if (!header)
		_stop("LID table %s:%d: expected \"qft-lid 1\" first", path, lineno);
	else
		_stop("LID table %s:%d: expected \"choice pair|dest|job\" before the hosts, or \"choice base\"",
		      path, lineno);
	return -1;
}

/* _record_set: NAME=VALUE goes into SET_MARKER (see _undo_inherited). */
static void _record_set(spank_t sp, const char *name, const char *value)
{
	char *old = _getenv(sp, SET_MARKER), *now;
	size_t n = strlen(name) + strlen(value) + (old ? strlen(old) : 0) + 3;

	now = malloc(n);
	if (now) {
		snprintf(now, n, "%s%s%s=%s", old ? old : "", old ? " " : "", name, value);
		spank_setenv(sp, SET_MARKER, now, 1);
	}
	free(now);
	free(old);
}

/*
 * _readable: PATH opens for reading with the effective uid (slurmstepd runs
 * user_init as the user with the real uid root, so access(2) would not do).
 * OUT err: errno when not.
 */
static bool _readable(const char *path, int *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		*err = errno;
		return false;
	}
	close(fd);
	return true;
}

/*
 * _table_digest: QFT_LID_DIGEST's form of PATH's bytes (lid_table.h),
 * read as the user. RET 0, or -1 after _stop.
 */
static int _table_digest(const char *path, char *out, size_t len)
{
	uint64_t h = LID_DIGEST_INIT;
	char buf[8192];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0) {
		_stop("LID table %s: %s", path, strerror(errno));
		return -1;
	}
	while ((got = read(fd, buf, sizeof(buf))) > 0)
		h = lid_digest(h, buf, (size_t) got);
	if (got < 0) {
		int err = errno;

		close(fd);
		_stop("LID table %s: %s", path, strerror(err));
		return -1;
	}
	close(fd);
	snprintf(out, len, LID_DIGEST_FMT, h);
	return 0;
}

/*
 * _stop: this node's tasks stop (slurm_spank_task_init) for the reason
 * given; slurmd's log says it once per step and node.
 */
static void _stop(const char *fmt, ...)
{
	char why[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	slurm_info(PLUGIN ": %s: this node's tasks stop", why);
	free(qft.stop);
	qft.stop = strdup(why);
	if (!qft.stop)
		qft.stop = strdup("out of memory");
}

/*
 * _job_has_table: the step would apply a LID decision on nodes where this
 * plugin works: QFT_LID_TABLE set, QFT_LID_CHOICE pair, dest or job, and
 * the step's mode neither off nor job for a pair or dest table.
 */
static bool _job_has_table(spank_t sp)
{
	const char *from;
	enum lid_mode mode = _step_mode(sp, &from);
	char *table = _getenv(sp, "QFT_LID_TABLE"), *choice = _getenv(sp, "QFT_LID_CHOICE");
	bool job = choice && !strcmp(choice, "job");
	bool has = table && table[0] && choice &&
		   (!strcmp(choice, "pair") || !strcmp(choice, "dest") || job) &&
		   (mode != MODE_OFF) && ((mode != MODE_JOB) || job);

	free(table);
	free(choice);
	return has;
}

/* _has_env: NAME is set in the job's environment, not empty. */
static bool _has_env(spank_t sp, const char *name)
{
	char *v = _getenv(sp, name);
	bool has = v && v[0];

	free(v);
	return has;
}
