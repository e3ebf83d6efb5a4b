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

#include "qft/qft.h"

typedef enum {
	QFT_FORMAT_JSON,          /* slurm-qft fabric JSON (qft gen, qft import) */
	QFT_FORMAT_IBNETDISCOVER, /* ibnetdiscover output, recognised on load */
} qft_fabric_format_t;

/* LidChoice= (qft.conf(5)), in the order of its words. */
typedef enum {
	QFT_LID_OFF,
	QFT_LID_AUTO,
	QFT_LID_JOB,
	QFT_LID_DEST,
	QFT_LID_PAIR,
} qft_lid_conf_t;
/* Its words, NULL-terminated: "off", "auto", "job", "dest", "pair". */
extern const char *const qft_lid_words[];

typedef struct {
	char *path;                 /* qft.conf itself */
	char *fabric_file;          /* FabricFile=, made absolute */
	qft_fabric_format_t format; /* FabricFormat= */
	char *host_name_regex;      /* HostNameRegex=, NULL: first word */
	char *routing;              /* Routing= as a libqft spec: "dmodk" or
				     * "lft:" LftFile= made absolute */
	/* select/rlft */
	bool reserve_remainder;     /* Remainder=exact|reserve */
	bool products;              /* Shapes=blocks (default)|products */
	uint32_t round_up;          /* RoundUp=, percent, default 0 */
	uint32_t shape_wait;        /* ShapeWait=, percent of the job's time
				     * limit it waits for a congestion-free
				     * shape; default 0: never */
	uint32_t shape_wait_max;    /* ShapeWaitMax=, seconds, 0: no cap */
	uint32_t shape_wait_ends;   /* ShapeWaitEnds=, percent of what is
				     * left of a running job's limit it is
				     * expected to run; default 100 */
	bool shape_wait_from_decline; /* ShapeWaitFrom=eligible (default)|
				       * decline: where the wait counts from */
	uint32_t shape_holds;       /* ShapeHolds=, how many waiting jobs
				     * hold nodes in backfill's plan (those
				     * of highest priority); 0: all */
	bool plan_busy_first;       /* PlanBusyFirst=yes|no, default yes: a
				     * start backfill plans for later holds
				     * nodes busy now rather than idle ones
				     * when that starts it no later */
	char *pattern;              /* Pattern=, default shift */
	uint32_t sample_stages;     /* SampleStages=, default 32 */
	bool rank_by_congestion;    /* RankByCongestion=yes|no, default yes */
	bool path_pressure;         /* PathPressure=yes|no, default no: at
				     * LMC > 0 rank candidates by the running
				     * jobs' traffic out of their subtrees */
	bool whole_leaves;          /* WholeLeaves=yes|no, default no: at
				     * LMC > 0 rank candidates by the leaves
				     * they take in part, fewest first */
	char *hostfile_dir;         /* HostFileDir=, NULL: no host file */
	qft_lid_conf_t lid_choice;  /* LidChoice=, default auto */
	uint32_t lid_pair_max_nodes; /* LidPairMaxNodes=, default 0: no cap */
	uint32_t lid_table_wait;    /* LidTableWait=, seconds, default 120 */
	uint32_t lid_threads;       /* LidThreads=, default 1 */
	uint32_t lid_test_delay;    /* LidTestDelay=, seconds, tests only */
	char *isolate_partitions;   /* IsolatePartitions=, comma-separated:
				     * their jobs are isolated unless they
				     * say --qft-isolate=no; NULL: none */
	/* Set by qft_conf_load_fabric(): the file the fabric came from
	 * (fabric_file, or the kept copy), and, when it is the copy, why
	 * fabric_file was refused. */
	char *fabric_source;
	char *fabric_refused;
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
 *	recognised PGFT tree, routed as Routing= says (LftFile= read now)
 *
 *	In slurmctld, every fabric file that loads is copied to
 *	StateSaveLocation/QFT_LAST_GOOD (temporary file, fsync, rename). When
 *	the calling plugin has loaded no fabric yet in this process
 *	(slurmctld's start; on Slurm 24.11 also the new slurmctld of a
 *	reconfigure) and fabric_file fails, that copy is loaded instead, with
 *	an error() naming both: a fabric file broken while slurmctld was down
 *	costs the cluster its newest cables, not its scheduler.
 *
 * IN/OUT conf - fabric_source and fabric_refused are set (qft_conf_free())
 * OUT fabric - qft_fabric_destroy() it
 * OUT why - on failure, an xmalloc'd sentence naming the file and the fault
 *	(and, at start, why no kept copy stood in)
 * RET SLURM_SUCCESS or SLURM_ERROR
 */
#define QFT_LAST_GOOD "qft_fabric.last_good"
struct qft_fabric;
extern int qft_conf_load_fabric(qft_conf_t *conf, struct qft_fabric **fabric, char **why);

/*
 * One fabric load per (re)configuration, shared by the plugins of
 * slurmctld.
 *
 * topology/qft loads the fabric when slurmctld ranks its nodes, and owns
 * it. select/rlft borrows the same object in select_p_node_init(), which
 * slurmctld calls later in the same read_slurm_conf() (node ranking,
 * topo_build_config, ..., select_g_node_init, select_g_job_init: at start
 * and on every reconfigure). slurmctld opens each plugin RTLD_LOCAL, so the
 * borrower finds the owner's module with dlopen(RTLD_NOLOAD) on the path
 * slurmctld loaded it from, and the accessor with dlsym().
 *
 * Each plugin links its own copy of libqft and of this file: a holder is
 * released through its own `release` (the owner's code, so the copy of
 * libqft that made the fabric frees it, when its last holder lets go), and
 * the borrower keeps the owner's module open and calls libqft on the
 * fabric only through the holder's `ops` (qft_ops_t). The accessor hands
 * it only to a plugin of the same build (QFT_SHARED_ABI, the holder's size
 * and the libqft version).
 */
#define QFT_SHARED_ABI 10
/* RoundUp= at most: a near product leaves at most this % of it idle. */
#define QFT_ROUND_UP_MAX 50
/* LidThreads=: at most (a slurmctld host's cores are many; more is a typo) */
#define QFT_LID_THREADS_MAX 256
/* ShapeWait= at most: a job waits at most its whole time limit. */
#define QFT_SHAPE_WAIT_MAX 100
#define QFT_TOPOLOGY_FABRIC_SYM "qft_topology_fabric_get"

/*
 * The libqft calls select/rlft makes on a fabric and its placer, as the
 * functions of the copy of libqft that made the fabric. Each plugin links
 * its own libqft and C++ runtime: the other copy's code must never touch
 * the object (its router's virtual calls would run the owner's code, and
 * an exception thrown there and caught here unwinds across two runtimes:
 * slurmctld aborts). Through these pointers every C++ frame, throw and
 * catch stays in the owner's copy; only C data crosses.
 */
typedef struct qft_ops {
	size_t (*fabric_host_count)(const qft_fabric_t *fabric);
	size_t (*fabric_find_host)(const qft_fabric_t *fabric, const char *name);
	const char *(*fabric_tuple)(const qft_fabric_t *fabric);
	const char *(*fabric_tree_name)(const qft_fabric_t *fabric);
	qft_status_t (*fabric_sort_tree_order)(const qft_fabric_t *fabric, size_t *hosts,
					       size_t count, char **err);
	qft_status_t (*placer_create)(const qft_fabric_t *fabric,
				      const qft_placer_config_t *config, qft_placer_t **out,
				      char **err);
	void (*placer_destroy)(qft_placer_t *placer);
	qft_status_t (*placer_place_range)(qft_placer_t *placer, uint32_t min_nodes,
					   uint32_t nodes, const uint8_t *eligible,
					   const uint8_t *busy, const size_t *required,
					   size_t required_count, qft_placement_t *out,
					   char **err);
	qft_status_t (*placer_shape_ahead)(qft_placer_t *placer, uint32_t min_nodes,
					   uint32_t nodes, const uint8_t *eligible,
					   const double *free_at, const size_t *required,
					   size_t required_count, double horizon, double *at,
					   qft_placement_t *out, char **err);
	qft_status_t (*placer_add_job)(qft_placer_t *placer, uint32_t job_id, const size_t *hosts,
				       size_t count, char **err);
	void (*placer_remove_job)(qft_placer_t *placer, uint32_t job_id);
	size_t (*placer_running)(const qft_placer_t *placer);
	qft_status_t (*placer_predict)(const qft_placer_t *placer, const size_t *hosts,
				       size_t count, qft_prediction_t *out, char **err);
	unsigned (*fabric_lmc)(const qft_fabric_t *fabric);
	qft_status_t (*placer_choose_lids)(const qft_placer_t *placer, const size_t *hosts,
					   size_t count, const char *mode,
					   qft_lid_choice_t *out, char **err);
	void (*lid_choice_clear)(qft_lid_choice_t *choice);
	qft_status_t (*placer_lid_request)(const qft_placer_t *placer, uint32_t job_id,
					   const size_t *hosts, size_t count, const char *mode,
					   size_t flows, qft_lid_request_t **out, char **err);
	qft_status_t (*lid_request_run)(qft_lid_request_t *req, qft_lid_choice_t *out,
					char **err);
	void (*lid_request_destroy)(qft_lid_request_t *req);
	void (*lid_request_set_threads)(qft_lid_request_t *req, unsigned threads);
	qft_status_t (*placer_record_lids)(qft_placer_t *placer, uint32_t job_id,
					   const qft_lid_choice_t *choice, char **err);
	size_t (*placer_copy_lids)(qft_placer_t *to, const qft_placer_t *from);
	size_t (*placer_lid_jobs)(const qft_placer_t *placer);
	qft_status_t (*placer_isolate_job)(qft_placer_t *placer, uint32_t job_id, int isolated,
					   char **err);
	size_t (*placer_isolated)(const qft_placer_t *placer);
	qft_status_t (*placer_place_request)(qft_placer_t *placer,
					     const qft_place_request_t *request,
					     qft_placement_t *out, char **err);
	unsigned (*placer_subtree_apart)(const qft_placer_t *placer, const uint8_t *eligible,
					 uint32_t min_hosts, int from_every, unsigned after,
					 uint8_t *zone);
	int (*placer_hosts_apart)(const qft_placer_t *placer, const size_t *hosts, size_t count,
				  int from_every);
} qft_ops_t;

typedef struct qft_shared_fabric {
	uint32_t abi;               /* QFT_SHARED_ABI */
	uint32_t size;              /* sizeof(qft_shared_fabric_t) */
	const char *libqft;         /* qft_version() of the copy that made it */
	struct qft_fabric *fabric;  /* used only through `ops` */
	const qft_ops_t *ops;       /* the maker's libqft */
	char *source;               /* the file it was loaded from */
	int refs;                   /* holders; the last release frees it */
	void (*release)(struct qft_shared_fabric *shared);
} qft_shared_fabric_t;

/* The accessor topology/qft exports as QFT_TOPOLOGY_FABRIC_SYM: its
 * fabric, held for the caller, or NULL (none, or another build). */
typedef qft_shared_fabric_t *(*qft_topology_fabric_get_f)(uint32_t abi, uint32_t size,
							   const char *libqft);

/* A holder taking `fabric` (and a copy of `source`), with one reference. */
extern qft_shared_fabric_t *qft_shared_fabric_create(struct qft_fabric *fabric,
						     const char *source);
/* One more reference; NULL passes through. */
extern qft_shared_fabric_t *qft_shared_fabric_hold(qft_shared_fabric_t *shared);
/* Drops one reference, through the holder's own release; accepts NULL. */
extern void qft_shared_fabric_release(qft_shared_fabric_t *shared);
/* True when a caller built with (abi, size, libqft) may read our holder. */
extern bool qft_shared_fabric_compatible(uint32_t abi, uint32_t size, const char *libqft);

/*
 * qft_shared_fabric_from_topology - the fabric topology/qft loaded in this
 *	daemon, for select/rlft
 * OUT why - when NULL is returned, an xmalloc'd sentence saying why
 * RET a held reference (qft_shared_fabric_release() it), or NULL when
 *	TopologyPlugin is not topology/qft, its module is not loaded from
 *	PluginDir, it holds no fabric or it is of another build
 */
extern qft_shared_fabric_t *qft_shared_fabric_from_topology(char **why);
/* Closes the module qft_shared_fabric_from_topology() opened; call it
 * after releasing the last fabric borrowed from it. */
extern void qft_shared_fabric_fini(void);

/* True in slurmctld. Slurm's running_in_slurmctld() compares the program
 * name with "slurmctld", and Debian installs it as slurmctld-wlm (and
 * slurmctld-wlm-emulator): it is false there. */
extern bool qft_in_slurmctld(void);

#endif
