/*****************************************************************************\
 *  qft_conf.h - qft.conf, the configuration the slurm-qft plugins share.
 *  See qft.conf(5).
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/
#ifndef QFT_PLUGINS_QFT_CONF_H
#define QFT_PLUGINS_QFT_CONF_H

#include <stdbool.h>
#include <stdint.h>

typedef enum {
	QFT_FORMAT_JSON,          /* slurm-qft fabric JSON (qft gen, qft import) */
	QFT_FORMAT_IBNETDISCOVER, /* ibnetdiscover output, recognised on load */
} qft_fabric_format_t;

typedef struct {
	char *path;                 /* qft.conf itself */
	char *fabric_file;          /* FabricFile=, made absolute */
	qft_fabric_format_t format; /* FabricFormat= */
	char *host_name_regex;      /* HostNameRegex=, NULL: first word */
	/* select/rlft */
	bool reserve_remainder;     /* Remainder=exact|reserve */
	char *pattern;              /* Pattern=, default shift */
	uint32_t sample_stages;     /* SampleStages=, default 32 */
	bool rank_by_congestion;    /* RankByCongestion=yes|no, default yes */
	char *hostfile_dir;         /* HostFileDir=, default <StateSaveLocation>/qft */
} qft_conf_t;

/*
 * qft_conf_read - read qft.conf from slurm.conf's directory
 * OUT conf - release with qft_conf_free(), also after a failure
 * OUT why - on failure, an xmalloc'd sentence naming the file and what is
 *	wrong or missing
 * RET SLURM_SUCCESS or SLURM_ERROR
 */
extern int qft_conf_read(qft_conf_t *conf, char **why);
extern void qft_conf_free(qft_conf_t *conf);

/*
 * qft_conf_load_fabric - the fabric qft.conf names, in its format, with a
 *	recognised PGFT tree
 * OUT fabric - qft_fabric_destroy() it
 * OUT why - on failure, an xmalloc'd sentence naming the file and the fault
 * RET SLURM_SUCCESS or SLURM_ERROR
 */
struct qft_fabric;
extern int qft_conf_load_fabric(const qft_conf_t *conf, struct qft_fabric **fabric,
				char **why);

#endif
