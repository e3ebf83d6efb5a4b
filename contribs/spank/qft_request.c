/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qft_request.c - --qft-isolate[=yes|no] and --qft-shape-wait=MINUTES
 * (qft_request.h). Values are checked here, in sbatch, salloc and srun,
 * so that a typo fails the command instead of reaching slurmctld.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contribs/spank/qft_request.h"

#define PLUGIN "spank/qft_lid"
/* A year of minutes: longer than any time limit a site gives. */
#define SHAPE_WAIT_MAX 525600

/* The options given in this process (sbatch, salloc or srun); -1: not given. */
static int isolate = -1;
static long shape_wait = -1;

static int _isolate_cb(int val, const char *optarg, int remote)
{
	(void) val;
	(void) remote;
	if (!optarg || !strcmp(optarg, "yes")) {
		isolate = 1;
	} else if (!strcmp(optarg, "no")) {
		isolate = 0;
	} else {
		slurm_error(PLUGIN ": --qft-isolate=%s: expected yes or no (or no value)", optarg);
		return -1;
	}
	return 0;
}

static int _shape_wait_cb(int val, const char *optarg, int remote)
{
	char *end = NULL;
	long m;

	(void) val;
	(void) remote;
	errno = 0;
	m = optarg ? strtol(optarg, &end, 10) : -1;
	if (!optarg || !*optarg || *end || errno || m < 0 || m > SHAPE_WAIT_MAX) {
		slurm_error(PLUGIN ": --qft-shape-wait=%s: expected minutes, 0 to %d",
			    optarg ? optarg : "", SHAPE_WAIT_MAX);
		return -1;
	}
	shape_wait = m;
	return 0;
}

static struct spank_option isolate_option = {
	"qft-isolate", "[yes|no]",
	"share no InfiniBand switch link with any other job while this one runs "
	"(it may wait longer to start); =no where the partition isolates by default",
	2, 0, _isolate_cb
};

static struct spank_option shape_wait_option = {
	"qft-shape-wait", "MINUTES",
	"wait up to MINUTES for a congestion-free placement before starting on a "
	"congested one (0: never wait; default: the cluster's ShapeWait=)",
	1, 0, _shape_wait_cb
};

int qft_request_register(spank_t sp)
{
	if (spank_option_register(sp, &isolate_option) != ESPANK_SUCCESS ||
	    spank_option_register(sp, &shape_wait_option) != ESPANK_SUCCESS) {
		slurm_error(PLUGIN ": cannot register --qft-isolate and --qft-shape-wait");
		return -1;
	}
	return 0;
}

static int _send(spank_t sp, const char *name, const char *value, const char *option)
{
	spank_err_t err = spank_job_control_setenv(sp, name, value, 1);

	if (err != ESPANK_SUCCESS) {
		slurm_error(PLUGIN ": cannot pass --%s to slurmctld: %s", option,
			    spank_strerror(err));
		return -1;
	}
	return 0;
}

int qft_request_send(spank_t sp)
{
	char buf[32];

	if (isolate >= 0 && _send(sp, "QFT_ISOLATE", isolate ? "1" : "0", "qft-isolate"))
		return -1;
	if (shape_wait >= 0) {
		snprintf(buf, sizeof(buf), "%ld", shape_wait);
		if (_send(sp, "QFT_SHAPE_WAIT", buf, "qft-shape-wait"))
			return -1;
	}
	return 0;
}

void qft_request_reset(void)
{
	isolate = -1;
	shape_wait = -1;
}
