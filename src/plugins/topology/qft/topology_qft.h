/*****************************************************************************\
 *  topology_qft.h - what topology/qft's version files (topology_qft_22.c,
 *  topology_qft_24.c: Slurm's interface of each version) take from its
 *  shared part (topology_qft.c: the fabric, tree order, switch paths).
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/
#ifndef QFT_TOPOLOGY_QFT_H
#define QFT_TOPOLOGY_QFT_H

#include <stdbool.h>
#include <stdint.h>

#include "qft/qft.h"
#include "src/plugins/common/qft_conf.h"

extern const char plugin_type[];

/* slurmctld's fabric in use, NULL in slurmd and the clients (only node
 * ranking loads one) and before the first load. */
extern qft_fabric_t *qft_topo_fabric(void);
/* Where it came from (the file), or NULL. */
extern const char *qft_topo_source(void);

/* Loads the fabric (keeping the one in use when the new one fails; fatal
 * with none yet) and sets node_rank of every node to its tree index, nodes
 * outside the fabric last. RET true if node_rank was set. */
extern bool qft_topo_rank_nodes(void);

/* The node's switch path in the fabric, top first
 * ("L3-0.L2-1.L1-20.n0380", "switch.switch.switch.node"). */
extern int qft_topo_fabric_addr(char *node_name, char **paddr, char **ppattern);

/* The node's switch path from switch records as `scontrol show topology`
 * lists them (name, level, nodes below, switches below): the lowest
 * record that holds the node, then each that lists the one below. Just
 * the node name when no record holds it. */
extern void qft_topo_records_addr(const topo_info_t *recs, uint32_t count, char *node_name,
				  char **paddr, char **ppattern);

/* Warnings for nodes of slurm.conf outside the fabric and the reverse. */
extern void qft_topo_report_mismatch(void);

/* Switch hops between two groups of the fabric, through their common
 * ancestor (INFINITE if none). */
extern uint32_t qft_topo_group_distance(size_t a, size_t b);

/* Nodes of slurm.conf below group g (xmalloc'd bitmap). */
extern bitstr_t *qft_topo_group_nodes(size_t g);

/* The version file's switch table, freed at fini. */
extern void qft_topo_free_table(void);
/* The version file's placement state, released at fini (before the
 * fabric). */
extern void qft_topo_fini_placement(void);

#endif
