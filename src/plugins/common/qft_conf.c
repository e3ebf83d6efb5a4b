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

#include "src/plugins/common/qft_conf.h"

static const s_p_options_t qft_conf_options[] = {
	{"FabricFile", S_P_STRING},
	{"FabricFormat", S_P_STRING},
	{"HostNameRegex", S_P_STRING},
	{NULL}
};

extern int qft_conf_read(qft_conf_t *conf, char **why)
{
	s_p_hashtbl_t *tbl;
	char *fabric = NULL, *format = NULL, *slash;

	memset(conf, 0, sizeof(*conf));
	*why = NULL;
	conf->path = get_extra_conf_path("qft.conf");
	if (access(conf->path, R_OK)) {
		*why = xstrdup_printf("cannot read %s: %s (it must name the fabric: FabricFile=/path/fabric.json)",
				      conf->path, strerror(errno));
		return SLURM_ERROR;
	}
	tbl = s_p_hashtbl_create(qft_conf_options);
	if (s_p_parse_file(tbl, NULL, conf->path, false, NULL) != SLURM_SUCCESS) {
		*why = xstrdup_printf("%s: not a valid qft.conf (the line is named above; keys: FabricFile, FabricFormat, HostNameRegex)",
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
}
