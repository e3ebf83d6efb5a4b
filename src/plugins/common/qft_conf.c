/*****************************************************************************\
 *  qft_conf.c - qft.conf, read with Slurm's own configuration parser.
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include "config.h"
#include "src/common/slurm_xlator.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "slurm/slurm_errno.h"
#include "src/common/parse_config.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "qft/qft.h"
#include "src/plugins/common/qft_conf.h"

static const s_p_options_t qft_conf_options[] = {
	{"FabricFile", S_P_STRING},
	{"FabricFormat", S_P_STRING},
	{"HostNameRegex", S_P_STRING},
	{"Remainder", S_P_STRING},
	{"Pattern", S_P_STRING},
	{"SampleStages", S_P_UINT32},
	{"RankByCongestion", S_P_BOOLEAN},
	{"HostFileDir", S_P_STRING},
	{NULL}
};

extern int qft_conf_read(qft_conf_t *conf, char **why)
{
	s_p_hashtbl_t *tbl;
	char *fabric = NULL, *format = NULL, *remainder = NULL, *slash;

	memset(conf, 0, sizeof(*conf));
	conf->sample_stages = 32;
	conf->rank_by_congestion = true;
	*why = NULL;
	conf->path = get_extra_conf_path("qft.conf");
	if (access(conf->path, R_OK)) {
		*why = xstrdup_printf("cannot read %s: %s (it must name the fabric: FabricFile=/path/fabric.json)",
				      conf->path, strerror(errno));
		return SLURM_ERROR;
	}
	tbl = s_p_hashtbl_create(qft_conf_options);
	if (s_p_parse_file(tbl, NULL, conf->path, false, NULL) != SLURM_SUCCESS) {
		*why = xstrdup_printf("%s: not a valid qft.conf (the line is named above; keys: see qft.conf(5))",
				      conf->path);
		s_p_hashtbl_destroy(tbl);
		return SLURM_ERROR;
	}
	if (s_p_get_string(&format, "FabricFormat", tbl)) {
		if (!xstrcasecmp(format, "ibnetdiscover")) {
			conf->format = QFT_FORMAT_IBNETDISCOVER;
		} else if (xstrcasecmp(format, "json")) {
			*why = xstrdup_printf("%s: FabricFormat=%s, expected json or ibnetdiscover",
					      conf->path, format);
			xfree(format);
			s_p_hashtbl_destroy(tbl);
			return SLURM_ERROR;
		}
		xfree(format);
	}
	s_p_get_string(&conf->host_name_regex, "HostNameRegex", tbl);
	if (s_p_get_string(&remainder, "Remainder", tbl)) {
		conf->reserve_remainder = !xstrcasecmp(remainder, "reserve");
		if (!conf->reserve_remainder && xstrcasecmp(remainder, "exact")) {
			*why = xstrdup_printf("%s: Remainder=%s, expected exact or reserve",
					      conf->path, remainder);
			xfree(remainder);
			s_p_hashtbl_destroy(tbl);
			return SLURM_ERROR;
		}
		xfree(remainder);
	}
	s_p_get_string(&conf->pattern, "Pattern", tbl);
	s_p_get_uint32(&conf->sample_stages, "SampleStages", tbl);
	s_p_get_boolean(&conf->rank_by_congestion, "RankByCongestion", tbl);
	if (!s_p_get_string(&conf->hostfile_dir, "HostFileDir", tbl))
		conf->hostfile_dir = xstrdup_printf("%s/qft", slurm_conf.state_save_location);
	if (!s_p_get_string(&fabric, "FabricFile", tbl) || !fabric[0]) {
		*why = xstrdup_printf("%s: FabricFile= is missing", conf->path);
		xfree(fabric);
		s_p_hashtbl_destroy(tbl);
		return SLURM_ERROR;
	}
	s_p_hashtbl_destroy(tbl);
	/* A relative FabricFile is relative to qft.conf's directory. */
	if (fabric[0] != '/' && (slash = strrchr(conf->path, '/'))) {
		conf->fabric_file = xstrndup(conf->path, slash - conf->path + 1);
		xstrcat(conf->fabric_file, fabric);
		xfree(fabric);
	} else {
		conf->fabric_file = fabric;
	}
	return SLURM_SUCCESS;
}

extern void qft_conf_free(qft_conf_t *conf)
{
	xfree(conf->path);
	xfree(conf->fabric_file);
	xfree(conf->host_name_regex);
	xfree(conf->pattern);
	xfree(conf->hostfile_dir);
}

extern int qft_conf_load_fabric(const qft_conf_t *conf, qft_fabric_t **fabric, char **why)
{
	char *err = NULL;
	qft_status_t rc;

	*fabric = NULL;
	*why = NULL;
	if (conf->format == QFT_FORMAT_IBNETDISCOVER)
		rc = qft_fabric_import_ibnetdiscover(conf->fabric_file, conf->host_name_regex,
						     fabric, &err);
	else
		rc = qft_fabric_load(conf->fabric_file, fabric, &err);
	if (rc != QFT_OK) {
		*why = xstrdup(err); /* it names the file */
		qft_free(err);
		return SLURM_ERROR;
	}
	if (!qft_fabric_tuple(*fabric)[0]) {
		*why = xstrdup_printf("fabric %s has no recognised PGFT tree (generate it with 'qft gen' or recognise it first)",
				      conf->fabric_file);
		qft_fabric_destroy(*fabric);
		*fabric = NULL;
		return SLURM_ERROR;
	}
	return SLURM_SUCCESS;
}
