/*****************************************************************************\
 *  qft_slurm.h - the Slurm versions the plugins build against (22.05 and
 *  24.11), in one place: which headers hold what, and the few types whose
 *  names changed. Every plugin file includes it after config.h and
 *  slurm_xlator.h, and before its other Slurm headers.
 *
 *  What moved between 22.05.8 and 24.11.5 (read from both sources):
 *  - src/common/{select,slurm_topology}.h became
 *    src/interfaces/{select,topology}.h;
 *  - List became list_t * and hostlist_t (a pointer) became hostlist_t *
 *    (the struct): plugins write list_t * and qft_hostlist_t;
 *  - struct job_details is job_details_t (22.05 has only the struct);
 *  - plugin_strerror() is gone: errno through slurm_strerror();
 *  - the topology interface has 14 symbols instead of 3, and the switch
 *    table is private to topology/tree (topology_qft_24.c);
 *  - the select interface lost job_signal, jobinfo_sprint/_xstrdup,
 *    update_node_config and resv_test, and job_test's last argument became
 *    (resv_exc_t *, will_run_data_t *) (select_rlft.c).
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/
#ifndef QFT_PLUGINS_QFT_SLURM_H
#define QFT_PLUGINS_QFT_SLURM_H

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"
#include "src/common/hostlist.h"
#include "src/common/list.h"

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
#define QFT_SLURM_24 1
#elif SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(22, 5, 0) && \
	SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 6, 0)
#define QFT_SLURM_22 1
#else
#error "slurm-qft builds against Slurm 22.05 or 24.11"
#endif

#ifdef QFT_SLURM_24
#include "src/interfaces/select.h"
#include "src/interfaces/topology.h"
typedef hostlist_t *qft_hostlist_t;
#define QFT_PLUGIN_ERROR() slurm_strerror(errno)
#else
#include "src/common/select.h"
#include "src/common/slurm_topology.h"
typedef struct xlist list_t;
typedef struct job_details job_details_t;
typedef hostlist_t qft_hostlist_t;
#define QFT_PLUGIN_ERROR() plugin_strerror(errno)
#endif

#endif
