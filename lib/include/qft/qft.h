/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libqft: the slurm-qft routing core, as C for the Slurm plugins and tools.
 *
 * Conventions:
 * - Objects are opaque handles made by a *_load / *_generate function and
 *   released by the matching *_destroy, which accepts NULL.
 * - Every fallible function returns a qft_status_t. When it is not QFT_OK
 *   and `err` is not NULL, *err receives a malloc'd message naming the
 *   input, the value and what was expected; release it with qft_free().
 * - Strings returned as `const char *` are borrowed from the handle and
 *   valid until it is destroyed.
 * - No C++ exception crosses this interface; the library never prints.
 * - Host ordinals are positions in the fabric's host table, 0..count-1.
 */
#ifndef QFT_QFT_H
#define QFT_QFT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define QFT_EXPORT __attribute__((visibility("default")))
#else
#define QFT_EXPORT
#endif

typedef enum qft_status {
	QFT_OK = 0,
	QFT_EINVAL,       /* a value out of range or of the wrong shape */
	QFT_ENOENT,       /* a name, GUID or LID the fabric does not hold */
	QFT_EIO,          /* a file could not be read or written */
	QFT_EPARSE,       /* malformed text; the message gives file and place */
	QFT_EUNROUTABLE,  /* the routing has no path */
	QFT_EUNSUPPORTED, /* valid input this version does not handle */
	QFT_EINTERNAL,    /* a bug: please report the message */
	QFT_ENOMEM
} qft_status_t;

/* The fabric, its recognised tree and its routing, owned together. */
typedef struct qft_fabric qft_fabric_t;

typedef struct qft_score {
	double avg_hsd;          /* mean over stages of the stage HSD */
	unsigned max_hsd;        /* worst stage HSD */
	size_t stages;
	size_t congested_stages; /* stages with HSD > 1 */
} qft_score_t;

/* The fabric's tree as Slurm's switch table sees it: one group per
 * level-l subtree (the hosts below one set of equivalent switches). */
typedef struct qft_group {
	unsigned level;        /* 1 = leaf switches .. h = top */
	const char *name;      /* "L2-3": level and subtree index */
	size_t parent;         /* group index, QFT_NONE at the top */
	size_t child_count;
	const size_t *children;
	size_t host_count;     /* hosts present below, in tree order */
	const size_t *hosts;   /* host ordinals */
	size_t switch_count;   /* physical switches of the group */
	const char *switches;  /* their descriptions and GUIDs, for logs */
	uint32_t link_gbps;    /* data rate of its down cables, Gb/s */
} qft_group_t;

#define QFT_NONE ((size_t)-1)

QFT_EXPORT const char *qft_status_str(qft_status_t status);
QFT_EXPORT void qft_free(void *ptr);
QFT_EXPORT const char *qft_version(void);

/* No exception leaves libqft: a function with a status returns the error
 * as one (and its message in *err); one without (qft_placer_remove_job(),
 * the accessors) returns its fallback (0, "", NULL or QFT_NONE) and calls
 * this handler with its name and the message. NULL, the default: a line
 * on stderr. Each copy of libqft (each plugin links its own) has its own
 * handler: a plugin sets the one of the copy that made its fabric, which
 * is the copy whose functions its qft_ops_t (qft_conf.h) holds. */
typedef void (*qft_error_handler_t)(const char *func, const char *msg);
QFT_EXPORT void qft_set_error_handler(qft_error_handler_t handler);

/* Loads a fabric JSON file (docs/fabric-json.md). One without a tree
 * annotation (as OpenSM's event plugin writes it, contribs/opensm) is
 * recognised, as qft_fabric_import_ibnetdiscover() does; the findings are
 * in qft_fabric_report(). */
QFT_EXPORT qft_status_t qft_fabric_load(const char *path, qft_fabric_t **out,
					char **err);
/* Reads ibnetdiscover output and recognises its tree. Hosts are named by
 * `name_regex` (one capture group over the node description; NULL or "":
 * the description's first word). The recognition's findings (missing
 * cables and switches, unnamed hosts) are in qft_fabric_report(). */
QFT_EXPORT qft_status_t qft_fabric_import_ibnetdiscover(const char *path,
							const char *name_regex,
							qft_fabric_t **out,
							char **err);
/* What loading found that does not stop it: one finding per line, "" if
 * none. */
QFT_EXPORT const char *qft_fabric_report(const qft_fabric_t *fabric);

/* Generates a PGFT, "h;m1,..;w1,..;p1,..", hosts named by `name_pattern`
 * (NULL: "n%04d", numbered from 1 in tree order). */
QFT_EXPORT qft_status_t qft_fabric_generate(const char *tuple,
					    const char *name_pattern,
					    unsigned lmc, qft_fabric_t **out,
					    char **err);
QFT_EXPORT void qft_fabric_destroy(qft_fabric_t *fabric);

QFT_EXPORT size_t qft_fabric_host_count(const qft_fabric_t *fabric);
/* Slurm name of host `ord`, "" when it has none, NULL when out of range. */
QFT_EXPORT const char *qft_fabric_host_name(const qft_fabric_t *fabric,
					    size_t ord);
/* The PGFT tuple of the recognised tree, "" when the fabric has none. */
QFT_EXPORT const char *qft_fabric_tuple(const qft_fabric_t *fabric);
/* The tree for messages: "PGFT(<tuple>)", or "QFT of PGFT(<tuple>)" for
 * the Quasi Fat Tree of that tuple (seed 002); "" without a tree. */
QFT_EXPORT const char *qft_fabric_tree_name(const qft_fabric_t *fabric);
/* The fabric's LMC: each host answers on 2^LMC LIDs. */
QFT_EXPORT unsigned qft_fabric_lmc(const qft_fabric_t *fabric);

/* The routing placement and scores assume: "dmodk" (closed-form D-Mod-K,
 * what a fabric with a tree starts with) or "lft:FILE" (the forwarding
 * tables the subnet manager programmed: OpenSM's opensm-lfts.dump,
 * ibroute or dump_lfts output; read now, matched to the switches by GUID).
 * Placers made on the fabric before must be destroyed first. On failure
 * (the message names the file and line) the routing is unchanged. */
QFT_EXPORT qft_status_t qft_fabric_set_routing(qft_fabric_t *fabric,
					       const char *spec, char **err);
/* The routing's spec as set, "" when the fabric has none. */
QFT_EXPORT const char *qft_fabric_routing(const qft_fabric_t *fabric);
/* 1 when host `ord` has a tree position and a cable up to its leaf; 0 when
 * it is cut off (the routing has no path to or from it) or out of range. */
QFT_EXPORT int qft_fabric_host_attached(const qft_fabric_t *fabric, size_t ord);
/* How many hosts are attached; 0 without a tree. */
QFT_EXPORT size_t qft_fabric_attached_host_count(const qft_fabric_t *fabric);
/* The destinations whose traffic, from some source, comes down a link
 * that another destination's traffic uses too under the fabric's routing:
 * those a missing cable cost their congestion freedom (D-Mod-K gives each
 * down-link one destination, seed 000 theorem 2), among the attached
 * hosts (qft_fabric_host_attached()). *hosts (release with
 * qft_free()) gets their ordinals, *count how many. */
QFT_EXPORT qft_status_t qft_fabric_lost_destinations(const qft_fabric_t *fabric,
						     size_t **hosts, size_t *count,
						     char **err);

/* What topology/qft holds, for `qft status` (lib/slurm/status.hpp).
 * NULL strings are empty. */
typedef struct {
	const char *slurm_version;
	const char *source;          /* the fabric in use, NULL: none */
	const char *format;          /* "json" or "ibnetdiscover" */
	const char *host_name_regex; /* ibnetdiscover's naming, NULL: first word */
	int64_t loaded;              /* when the fabric in use was read */
	int64_t attempted;           /* the last load (start, reconfigure) */
	const char *attempt_file;
	const char *refused;         /* why it was refused; NULL: loaded */
	const char *cut_off;         /* nodes of slurm.conf not in the fabric */
	uint64_t cut_off_count;
	const char *ignored;         /* fabric hosts not in slurm.conf */
	uint64_t ignored_count;
} qft_controller_status_t;
/* Writes `status` with the tree, routing and findings of `fabric` (the
 * one in use; NULL: none) to `path`: PATH.tmp, then renamed, so a reader
 * sees the old record or the new one whole. */
QFT_EXPORT qft_status_t qft_status_write(const char *path, const qft_fabric_t *fabric,
					 const qft_controller_status_t *status,
					 char **err);
/* Records in the status at `path` a load that failed where no fabric is
 * in use in this process. With `keep_fabric` (Slurm 24.11's reconfigure,
 * which starts a new slurmctld and resumes the old one when it fails) the
 * rest of the record, the fabric the old process still runs, is kept (a
 * missing or unreadable record gives one with no fabric); without it
 * (slurmctld's start, which stops) the record has no fabric in use. */
QFT_EXPORT qft_status_t qft_status_note_refusal(const char *path, int keep_fabric,
						int64_t attempted, const char *attempt_file,
						const char *refused, char **err);

/* Ordinal of the host named `name`, QFT_NONE if the fabric lacks it. */
QFT_EXPORT size_t qft_fabric_find_host(const qft_fabric_t *fabric,
				       const char *name);

/* Number of groups (0 without a tree), leaves first; and one of them, valid
 * until the fabric is destroyed. */
QFT_EXPORT size_t qft_fabric_group_count(const qft_fabric_t *fabric);
QFT_EXPORT const qft_group_t *qft_fabric_group(const qft_fabric_t *fabric,
					       size_t index);
/* The leaf group of host `ord`, QFT_NONE if it has no tree position. */
QFT_EXPORT size_t qft_fabric_host_group(const qft_fabric_t *fabric,
					size_t ord);

/* Tree index of the host named `name` (its position in tree order). */
QFT_EXPORT qft_status_t qft_fabric_tree_index(const qft_fabric_t *fabric,
					      const char *name,
					      uint64_t *index, char **err);

/* Writes into perm[0..n) the positions of `hosts` in tree order:
 * hosts[perm[0]] comes first. */
QFT_EXPORT qft_status_t qft_tree_order(const qft_fabric_t *fabric,
				       const char *const *hosts, size_t n,
				       size_t *perm, char **err);

/* Scores one job on `hosts` (rank order as given) for `pattern` ("shift",
 * "recdbl-tree", ... see qft(1)) under the fabric's routing. */
QFT_EXPORT qft_status_t qft_score_job(const qft_fabric_t *fabric,
				      const char *const *hosts, size_t n,
				      const char *pattern, qft_score_t *out,
				      char **err);

/* Placement (select/rlft). A placer borrows its fabric, which must outlive
 * it; it tracks the running jobs by id. */
typedef struct qft_placer qft_placer_t;

/* Routed flows (one source-destination pair of one stage) that one call
 * of qft_placer_add_job(), qft_placer_predict() or qft_placer_score()
 * plays at most, and that qft_placer_place() shares among the candidates
 * it ranks: about 1-1.5 ms on one core at 4536 hosts (make bench),
 * whatever the job's size, so that slurmctld's locks are not held long.
 * Each call (each candidate) still plays at least one whole stage, so a
 * job of N hosts costs at least N flows. Longer patterns are sampled:
 * evenly spread stages, as many as the budget allows, and the prediction
 * says how many (qft_prediction_t). */
#define QFT_FLOW_BUDGET 32768

typedef struct qft_placer_config {
	int reserve_remainder;  /* 0: exact, 1: keep the rest of the block */
	const char *pattern;    /* NULL: "shift" */
	unsigned sample_stages; /* stages per candidate in place(), at most; 0: 32 */
	int rank_by_congestion; /* 0: best fit only */
	size_t flow_budget;     /* 0: QFT_FLOW_BUDGET; SIZE_MAX: no bound */
	int products;           /* 1: product shapes first (qft.conf Shapes=) */
	unsigned round_up;      /* with products: a size with no free product
				 * may take the first N hosts of one up to
				 * this % larger, a "near_product" (qft.conf
				 * RoundUp=); 0: never */
	int lid_offsets;        /* jobs may take LID offsets (LMC > 0, a LID
				 * choice): isolation keeps whole subtrees
				 * apart (qft_placer_isolate_job) */
	int path_pressure;      /* with lid_offsets: rank candidates by the
				 * running jobs' traffic out of the subtrees
				 * they span (qft.conf PathPressure=) */
	int whole_leaves;       /* with lid_offsets: rank candidates by the
				 * leaves they take in part, and offer whole
				 * free leaves (qft.conf WholeLeaves=) */
} qft_placer_config_t;

/* A job's predicted congestion alone, for the placer's pattern: the hot-spot
 * degree (HSD, the most flows on one directed link) of each played stage,
 * averaged (avg_hsd; seed 000's figure of merit) and the worst (max_hsd).
 * Played stages are stages_played evenly spread ones of the stages_total
 * the pattern has for the job's size: tell the job "HSD avg over
 * stages_played of stages_total stages" when they differ. A job of one host
 * has no stage: avg_hsd 1.0, max_hsd 1, 0 of 0. */
typedef struct qft_prediction {
	double avg_hsd;
	unsigned max_hsd;
	size_t stages_played; /* >= 1 when stages_total >= 1 */
	size_t stages_total;  /* Shift: hosts - 1 */
} qft_prediction_t;

typedef enum qft_outcome { QFT_PLACED = 0, QFT_NOT_NOW, QFT_NEVER } qft_outcome_t;

/* Valid until the next qft_placer_place() or qft_placer_destroy() (for
 * qft_placer_shape_ahead(): its next call). */
typedef struct qft_placement {
	qft_outcome_t outcome;
	size_t count;          /* hosts chosen */
	const size_t *hosts;   /* host ordinals, tree order */
	double hsd;            /* predicted, with the running jobs */
	double hsd_alone;
	unsigned level;        /* subtree level; 0: tree order (kind below) */
	int aligned;           /* whole blocks only: kind is "aligned" */
	const char *kind;      /* "product": a product shape (see shape);
				* "near_product": the first hosts of a
				* product a few hosts larger (shape "7x14-1");
				* "aligned": whole aligned blocks; "unaligned":
				* blocks, the last partial; "best_fit": no
				* aligned block was free; "tree_order": the
				* required hosts, then free ones in tree order */
	int contiguous;        /* the blocks are adjacent */
	const char *shape;     /* a product's sizes, top level first: "6x7x18";
				* "" for other kinds */
	int congestion_free;   /* provably HSD 1.0 for Shift (ring, ...) in
				* tree order: D-Mod-K routing, no missing
				* cable on its paths (docs/product-shapes.md) */
	const char *label;     /* "L2-3 blocks 4-5 of 18 (aligned, contiguous)" */
	const char *reason;    /* why not placed */
	const char *explain;   /* every candidate with its score, a line each */
	size_t candidates;
	size_t shared_links;   /* switch links that running jobs use too
				* (D-Mod-K's link names; 0 under other
				* routings): 0 for every product */
	int offset_shape;      /* with LID offsets (LMC > 0): whole leaves of
				* one level-2 subtree, which the pair choice
				* nearly always routes congestion-free
				* (measured, not proven: docs/lid-offsets.md);
				* ShapeWait= waits for these too */
} qft_placement_t;

QFT_EXPORT qft_status_t qft_placer_create(const qft_fabric_t *fabric,
					  const qft_placer_config_t *config,
					  qft_placer_t **out, char **err);
QFT_EXPORT void qft_placer_destroy(qft_placer_t *placer);
/* busy[ord] of a host running jobs hold (qft_placer_add_job) that still
 * has room for the job beside them: shared nodes (CR_Core, CR_CPU). */
#define QFT_HOST_SHARED 2
/* Chooses `nodes` hosts among those with eligible[ord] != 0 and, when busy
 * is not NULL, busy[ord] == 0, and not held by a running job (or held,
 * with busy[ord] == QFT_HOST_SHARED); every required host (ordinals)
 * among them. */
QFT_EXPORT qft_status_t qft_placer_place(qft_placer_t *placer, uint32_t nodes,
					 const uint8_t *eligible,
					 const uint8_t *busy,
					 const size_t *required,
					 size_t required_count,
					 qft_placement_t *out, char **err);
/* As qft_placer_place(), for a job that takes any count in
 * [min_nodes, nodes]: with product shapes on, a product of the largest
 * size in the range that has a free one (out->count says which; at most
 * 32 sizes below `nodes` are tried); without one, `nodes` hosts. */
QFT_EXPORT qft_status_t qft_placer_place_range(qft_placer_t *placer, uint32_t min_nodes,
					       uint32_t nodes, const uint8_t *eligible,
					       const uint8_t *busy,
					       const size_t *required,
					       size_t required_count,
					       qft_placement_t *out, char **err);
/* The earliest congestion-free shape ahead for a job of any count in
 * [min_nodes, nodes] (select/rlft's ShapeWait=, docs/product-shapes.md
 * section 11): free_at[ord] is when host ord is free, in seconds from now
 * (0: now; the end time of the job holding it; INFINITY: out of reach).
 * The running jobs' holds are not looked at: free_at says it all. Finds
 * the earliest of the distinct times up to `horizon` at which the hosts
 * free by then hold a product, two leaves or aligned blocks proven
 * congestion-free, or with LID offsets an offset shape (out->offset_shape;
 * not proven, so out->congestion_free is 0) (a binary search over the
 * times: where more free hosts
 * lose a shape, a later time than the earliest, never a wrong one):
 * out->outcome is QFT_PLACED, out holds those hosts (its hsd figures
 * unscored, 0) and *at the time. Else QFT_NOT_NOW. Costs about
 * log2(times) + 1 product searches, no traffic played. `out` is valid
 * until the next call of this function: qft_placer_place_range()'s stays. */
QFT_EXPORT qft_status_t qft_placer_shape_ahead(qft_placer_t *placer, uint32_t min_nodes,
					       uint32_t nodes, const uint8_t *eligible,
					       const double *free_at,
					       const size_t *required,
					       size_t required_count, double horizon,
					       double *at, qft_placement_t *out,
					       char **err);
/* A running job's hosts in rank order; a known id is replaced. Plays the
 * job's prediction stages once (within QFT_FLOW_BUDGET) to learn the load
 * it puts on each link, and keeps its prediction for qft_placer_predict().
 * Removing a job routes nothing (tens of microseconds at 4536 hosts). */
QFT_EXPORT qft_status_t qft_placer_add_job(qft_placer_t *placer, uint32_t job_id,
					   const size_t *hosts, size_t count,
					   char **err);
QFT_EXPORT void qft_placer_remove_job(qft_placer_t *placer, uint32_t job_id);
QFT_EXPORT size_t qft_placer_running(const qft_placer_t *placer);
/* Isolation (--qft-isolate, docs/isolation.md): a running job marked
 * isolated shares no switch link with any job placed after it, nor its
 * nodes; it stays marked when added again with other hosts. QFT_EINVAL for
 * a job the placer does not track. */
QFT_EXPORT qft_status_t qft_placer_isolate_job(qft_placer_t *placer, uint32_t job_id,
					       int isolated, char **err);
/* Running jobs marked isolated. */
QFT_EXPORT size_t qft_placer_isolated(const qft_placer_t *placer);
/* A request of qft_placer_place_request(): qft_placer_place_range()'s
 * arguments, and: */
typedef struct qft_place_request {
	uint32_t min_nodes, nodes;
	const uint8_t *eligible;
	const uint8_t *busy;      /* may be NULL */
	const size_t *required;
	size_t required_count;
	int isolate;              /* the job asks isolation: only a candidate
				   * that shares no switch link with any
				   * running job; else QFT_NOT_NOW, the reason
				   * starting "isolation: " */
	const uint32_t *ended;    /* running jobs taken as ended: hosts free,
				   * links unused (backfill's plan of a later
				   * start); may be NULL */
	size_t ended_count;
} qft_place_request_t;
/* As qft_placer_place_range(), with the request's isolation and ended
 * jobs. */
QFT_EXPORT qft_status_t qft_placer_place_request(qft_placer_t *placer,
						 const qft_place_request_t *request,
						 qft_placement_t *out, char **err);
/* Isolation for nodes cons_tres chooses: a job the placer cannot size
 * (GRES, sockets, nodes that differ) goes inside a subtree apart. The
 * subtree at the smallest level above `after` (0: from the leaves) with at
 * least min_hosts eligible hosts and no host of an isolated job (with
 * from_every: of any running job), the fewest eligible first: zone[ord] = 1
 * for its eligible hosts, 0 for the others (host-count entries). Its level;
 * 0: none (zone all 0). On a QFT or a tree with missing cables, leaves
 * only. */
QFT_EXPORT unsigned qft_placer_subtree_apart(const qft_placer_t *placer,
					     const uint8_t *eligible, uint32_t min_hosts,
					     int from_every, unsigned after, uint8_t *zone);
/* Whether a job on `hosts` (ordinals) shares no host and no switch link
 * with an isolated job, and with from_every no link with any running job:
 * the placer's own rule, for hosts chosen elsewhere. 0 on bad input. */
QFT_EXPORT int qft_placer_hosts_apart(const qft_placer_t *placer, const size_t *hosts,
				      size_t count, int from_every);

/* ShapeWait= (select/rlft; docs/product-shapes.md section 11): the rules by
 * which a job waits for a congestion-free shape rather than start
 * congested now. What the rules need of a job; minutes, 0 for none: */
typedef struct qft_wait_job {
	uint32_t limit;        /* its --time */
	uint32_t part_default; /* its partition's DefaultTime */
	uint32_t part_max;     /* its partition's MaxTime */
	time_t since;          /* when its wait began to count (0: not yet) */
	int own_set;           /* --qft-shape-wait given: */
	uint32_t own;          /* its minutes (0: the job never waits) */
} qft_wait_job_t;
typedef struct qft_shape_wait_rule {
	uint32_t percent;     /* ShapeWait=: % of the time limit */
	uint32_t max_seconds; /* ShapeWaitMax=: the cap, 0: none */
	uint32_t ends;        /* ShapeWaitEnds=: % of what is left of a
			       * running job's limit it is expected to run;
			       * 0 or 100: to its limit */
} qft_shape_wait_rule_t;
/* *wait: seconds the job may wait in all (its own minutes, else the
 * rule's share of its time limit, the partition's default or maximum when
 * it gave none; capped; 0: it may not wait). *left: seconds from `now`
 * within which a shape must come, the wait counted from job->since (<= 0:
 * it may wait no longer). */
QFT_EXPORT void qft_shape_wait(const qft_wait_job_t *job, const qft_shape_wait_rule_t *rule,
			       time_t now, double *wait, double *left);
/* The running jobs' hosts' free times for the shape search
 * (qft_placer_shape_ahead's free_at, seconds from now by their limits),
 * scaled in place to rule->ends percent: the ends the site expects
 * (ShapeWaitEnds=). 0 and INFINITY stay; NULL or ends 0/100: unchanged. */
QFT_EXPORT void qft_shape_forecast(const qft_shape_wait_rule_t *rule, double *free_at,
				   size_t hosts);
/* Whether a start now on `now` is declined for a shape (congestion-free,
 * or an offset shape) due in `ahead_at` seconds (qft_placer_shape_ahead
 * within *left; negative: none): only a placement that is neither and
 * spans hosts waits, and only for a shape not free now. */
QFT_EXPORT int qft_shape_decline(const qft_placement_t *now, double ahead_at);
/* Isolation (--qft-isolate, docs/isolation.md) is in play for a job that
 * asks it, or may span hosts while isolated jobs run. */
QFT_EXPORT int qft_isolation_in_play(int asks_isolation, size_t isolated_running,
				     uint32_t max_nodes);
/* What may be left to cons_tres, which knows no switch link, of a job the
 * placer did not place (select/rlft's job_test): */
typedef enum qft_pass {
	QFT_PASS_WHOLE = 0,         /* any node: no isolation in play (or a
				     * plan, not a start) */
	QFT_PASS_OFF_ISOLATED,      /* one node off the isolated jobs' */
	QFT_PASS_IDLE_OFF_ISOLATED, /* one idle node: the job asks isolation */
	QFT_PASS_WAIT               /* nothing: the job waits */
} qft_pass_t;
QFT_EXPORT qft_pass_t qft_pass_to_cons_tres(int run_now, int asks_isolation,
					    size_t isolated_running, uint32_t max_nodes);
/* The waiting jobs holding nodes for their shape in backfill's plan
 * (ShapeHolds=). */
typedef struct qft_holders qft_holders_t;
QFT_EXPORT qft_holders_t *qft_holders_create(void); /* NULL: no memory */
QFT_EXPORT void qft_holders_destroy(qft_holders_t *holders);
/* Whether job (id, priority) may hold: fewer than `limit` other holders
 * rank above it (a higher priority, or the same and a lower id); limit 0:
 * any number. pending(id, &priority, arg) is asked of each other holder
 * first: its current priority, 0 when it no longer waits (dropped). */
QFT_EXPORT int qft_holders_may_hold(qft_holders_t *holders, uint32_t id, uint32_t priority,
				    uint32_t limit,
				    int (*pending)(uint32_t id, uint32_t *priority, void *arg),
				    void *arg);
/* The job holds (added, or its priority updated; out of memory: it plans
 * as if it did not) / no longer holds. */
QFT_EXPORT void qft_holders_hold(qft_holders_t *holders, uint32_t id, uint32_t priority);
QFT_EXPORT void qft_holders_unhold(qft_holders_t *holders, uint32_t id);
QFT_EXPORT size_t qft_holders_count(const qft_holders_t *holders);
/* The prediction for `hosts` (ordinals, in rank order) alone: every stage of
 * the pattern, or stages_played = min(1024, max(1, flow budget / count))
 * evenly spread ones when it has more. Called right after
 * qft_placer_add_job() with the same hosts in the same order (select/rlft's
 * job_begin), it returns the figures add_job computed, without routing;
 * otherwise it routes at most the flow budget. The result does not depend
 * on the running jobs. QFT_EINVAL for an ordinal out of range or a NULL
 * out; QFT_EUNROUTABLE when a flow has no path. On failure *out is
 * {NaN, 0, 0, 0}: never a figure that was not computed. */
QFT_EXPORT qft_status_t qft_placer_predict(const qft_placer_t *placer,
					   const size_t *hosts, size_t count,
					   qft_prediction_t *out, char **err);
/* qft_placer_predict()'s avg_hsd and max_hsd alone. On failure (such as
 * QFT_EUNROUTABLE: missing cables leave a pair without a path, or a host
 * has no tree position) *avg_hsd is NaN and *max_hsd 0: never a figure
 * that was not computed. */
QFT_EXPORT qft_status_t qft_placer_score(const qft_placer_t *placer,
					 const size_t *hosts, size_t count,
					 double *avg_hsd, unsigned *max_hsd,
					 char **err);
/* LID choice for a placed job (lib/lid, docs/lid-table.md): which of the
 * 2^LMC LIDs of each host its senders use. mode: "job" (one offset for
 * the job), "dest" (one per destination), "pair" (one per ordered pair:
 * it walks every stage of the pattern, n^2 flows for n hosts: seconds for
 * a few thousand hosts, so not under slurmctld's locks: see
 * qft_placer_lid_request()). job and dest are judged on the prediction's
 * stages (qft_placer_predict()). */
typedef struct qft_lid_job qft_lid_job_t; /* the offsets, for the placer */
typedef struct qft_lid_choice {
	const char *mode;       /* "job", "dest" or "pair" (static) */
	unsigned offsets;       /* 2^LMC */
	unsigned char *dest;    /* job, dest: the offset every sender uses
				 * for hosts[k]; pair: NULL */
	char *table;            /* the table text docs/lid-table.md defines */
	double avg_hsd;         /* with the choice, over stages_played; pair:
				 * every stage, beside the running jobs of a
				 * request (qft_placer_lid_request()) */
	double max_hsd;
	size_t stages_played, stages_total;
	/* The job with these offsets, for qft_placer_record_lids() (the
	 * running jobs a later choice is made beside); opaque. */
	qft_lid_job_t *job;
	/* pair: what its search proved beside the running jobs (alone for
	 * qft_placer_choose_lids()): stages_proven of the stages with a flow
	 * congest whatever the offsets, so no choice gives a mean HSD there
	 * below floor_hsd; stages_undecided were left congested without such
	 * a proof. job, dest: 0. */
	double floor_hsd;
	size_t stages_proven, stages_undecided;
} qft_lid_choice_t;

/* Fills *out (release with qft_lid_choice_clear(), also after a failure).
 * The job alone (qft_placer_lid_request(): beside the running jobs).
 * QFT_EINVAL for an unknown mode or host
 * ordinal; QFT_EUNROUTABLE as the routing. */
QFT_EXPORT qft_status_t qft_placer_choose_lids(const qft_placer_t *placer,
					       const size_t *hosts, size_t count,
					       const char *mode, qft_lid_choice_t *out,
					       char **err);
QFT_EXPORT void qft_lid_choice_clear(qft_lid_choice_t *choice);

/*
 * A LID choice made in two parts, so that only the first runs under
 * slurmctld's locks (select/rlft, docs/lid-choice.md "Off the locks"):
 * - qft_placer_lid_request() takes what the choice needs: shared
 *   references to the fabric, its routing and the placer's pattern (they
 *   outlive the placer and the fabric's handle if those go first), the
 *   job's hosts, and the running jobs the placer tracks (but job_id) with
 *   the offsets recorded for them: the choice is made beside them. O(hosts
 *   + running jobs), no routing.
 * - qft_lid_request_run() makes the choice: O(n^2 2^LMC) for pair. It reads
 *   only what the request holds, which nothing changes: any thread may run
 *   it while the placer is used, changed or destroyed in another. One
 *   request at a time per thread; a request is run at most once.
 * flows: what the choice of "job" and "dest" may route (their judged
 * stages), 0 for the placer's prediction stages (qft_placer_predict());
 * pair plays every stage whatever it is. qft_fabric_set_routing() must not
 * be called on the fabric while a request holds it (as for a placer).
 * QFT_EINVAL as qft_placer_choose_lids(), and for "stripe".
 */
typedef struct qft_lid_request qft_lid_request_t;
QFT_EXPORT qft_status_t qft_placer_lid_request(const qft_placer_t *placer, uint32_t job_id,
					       const size_t *hosts, size_t count,
					       const char *mode, size_t flows,
					       qft_lid_request_t **out, char **err);
/* Fills *out as qft_placer_choose_lids() does (release it with
 * qft_lid_choice_clear(), also after a failure). */
QFT_EXPORT qft_status_t qft_lid_request_run(qft_lid_request_t *req, qft_lid_choice_t *out,
					    char **err);
/* Threads of pair's stage search when the request runs (default 1; 0
 * counts as 1): Shift's stages are searched side by side, the others on
 * one thread. The offsets depend on the number, not on the machine. */
QFT_EXPORT void qft_lid_request_set_threads(qft_lid_request_t *req, unsigned threads);
/* The request's job id and host count; 0 for NULL. */
QFT_EXPORT uint32_t qft_lid_request_job_id(const qft_lid_request_t *req);
QFT_EXPORT size_t qft_lid_request_hosts(const qft_lid_request_t *req);
QFT_EXPORT void qft_lid_request_destroy(qft_lid_request_t *req);

/* The offsets a running job uses from now on (its table was published):
 * later choices are made beside them. Kept while the job is tracked on
 * the same hosts in the same order (qft_placer_add_job() with other hosts
 * forgets them). QFT_ENOENT when the placer does not track the job on the
 * choice's hosts (it ended, or moved): nothing recorded. */
QFT_EXPORT qft_status_t qft_placer_record_lids(qft_placer_t *placer, uint32_t job_id,
					       const qft_lid_choice_t *choice, char **err);
/* Copies the offsets recorded in `from` for the jobs `to` tracks on the
 * same hosts (a placer built again at a reconfigure); how many. */
QFT_EXPORT size_t qft_placer_copy_lids(qft_placer_t *to, const qft_placer_t *from);
/* How many running jobs have recorded offsets. */
QFT_EXPORT size_t qft_placer_lid_jobs(const qft_placer_t *placer);

/* Tree order of host ordinals, in place. */
QFT_EXPORT qft_status_t qft_fabric_sort_tree_order(const qft_fabric_t *fabric,
						   size_t *hosts, size_t count,
						   char **err);

#ifdef __cplusplus
}
#endif

#endif
