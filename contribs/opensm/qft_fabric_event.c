/*
 * qft_fabric_event.c: an OpenSM event plugin (libqftevent.so) that keeps a
 * slurm-qft fabric file (docs/fabric-json.md) in step with the subnet.
 *
 * On every OSM_EVENT_ID_SUBNET_UP the plugin copies the subnet (nodes,
 * LIDs, cables between active ports) into plain memory under OpenSM's
 * lock, compares a signature of the copy with the file's, and when the
 * topology differs gives the copy to its own thread.  That thread waits
 * until the topology has stayed the same for QFT_OSM_SETTLE seconds and
 * QFT_OSM_MIN_INTERVAL seconds have passed since the last command, then
 * writes PATH.tmp, fsyncs it, renames it to PATH, fsyncs the directory and
 * runs QFT_OSM_COMMAND; OpenSM's sweep thread never waits for a file or a
 * command.  A flapping cable thus costs one write and one command (none
 * when it ends as the file has it), not one per sweep: each command may be
 * a `scontrol reconfigure`, on Slurm 24.11 a new slurmctld.
 *
 * OpenSM reports SUBNET_UP also after a sweep that ended with "ERRORS
 * DURING INITIALIZATION" (osm_state_mgr.c, do_sweep(): the event is sent
 * whatever subnet_initialization_error says): its tables may not be what
 * the switches hold, and another heavy sweep follows. Such a sweep is not
 * copied, nor one that found no switch at all (the SM's own link gone: the
 * fabric file would lose every cable).
 *
 * Configuration (environment of opensm, read in create()):
 *   QFT_OSM_FABRIC   path of the fabric file (required; without it the
 *                    plugin logs one error and does nothing)
 *   QFT_OSM_COMMAND  optional shell command run after each write
 *   QFT_OSM_NAMES    optional POSIX extended regex with one capture group,
 *                    applied to a host's node description to get its Slurm
 *                    name (default: the first word of the description)
 *   QFT_OSM_SETTLE   seconds the topology must stay unchanged before it is
 *                    written (default 5)
 *   QFT_OSM_MIN_INTERVAL  seconds from the end of one command to the next
 *                    write (default 30)
 *
 * Port error counters (OSM_EVENT_ID_PORT_ERRORS: deltas sent by OpenSM's
 * performance manager, "perfmgr TRUE") are summed per port since OpenSM
 * started; ports that counted something are written in the optional
 * top-level member "port_errors", which the loader ignores. They are not
 * part of the signature: new counts appear with the next write.
 *
 * Not checked: routers are left out; a host whose ports are all down is
 * written with LID 0; multi-port hosts get the base LID of their first
 * active port for every port (the file has one LID per host).
 *
 * Copyright (C) 2025 slurm-qft authors. SPDX-License-Identifier: GPL-2.0-or-later
 */

#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include <complib/cl_passivelock.h>
#include <complib/cl_qmap.h>
#include <iba/ib_types.h>
#include <opensm/osm_event_plugin.h>
#include <opensm/osm_log.h>
#include <opensm/osm_node.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_port.h>
#include <opensm/osm_subnet.h>
#include <opensm/osm_version.h>

#define PLUGIN "qft"

#define SETTLE_DEFAULT 5.0
#define MIN_INTERVAL_DEFAULT 30.0
/* A write that failed (disk full, directory gone) is tried again no sooner
 * than this, so that a path that never works does not flood OpenSM's log. */
#define RETRY_MIN 10.0
#define SECONDS_MAX 86400.0

extern char **environ;

/* One node of the copy: what the fabric file needs, nothing borrowed. */
struct qnode {
	uint64_t guid;
	uint8_t type;		/* IB_NODE_TYPE_CA or IB_NODE_TYPE_SWITCH */
	uint8_t ports;		/* physical ports (port 0 not counted) */
	uint16_t lid;		/* host order; 0 when no port is active */
	char desc[IB_NODE_DESCRIPTION_SIZE + 1];
};

/* One cable, listed once: from the end with the smaller (guid, port). */
struct qlink {
	uint64_t guid[2];
	uint8_t port[2];
	const char *width;
	const char *speed;
};

/* The subnet as one SUBNET_UP saw it; owned by whoever holds it. */
struct snapshot {
	struct qnode *nodes;	/* sorted by (type, guid) */
	size_t nnodes, nswitches, nhosts;
	struct qlink *links;	/* sorted */
	size_t nlinks, links_cap;
	unsigned lmc;
	char *signature;	/* canonical text of all of the above */
};

/* Summed error counters of one port (deltas from the perfmgr). */
struct port_err {
	uint64_t guid;
	uint8_t port;
	uint64_t symbol_err, link_err_recover, link_downed, rcv_err,
		rcv_rem_phys_err, xmit_discards, link_integrity,
		buffer_overrun, vl15_dropped;
};

struct qft_ev {
	osm_opensm_t *osm;
	char *path;		/* QFT_OSM_FABRIC; NULL: the plugin is idle */
	char *command;		/* QFT_OSM_COMMAND or NULL */
	regex_t names;
	bool have_names;
	double settle;		/* QFT_OSM_SETTLE */
	double min_interval;	/* QFT_OSM_MIN_INTERVAL */

	pthread_t worker;
	bool worker_up;
	pthread_mutex_t mu;	/* guards everything below */
	pthread_cond_t cv;	/* on CLOCK_MONOTONIC */
	struct snapshot *pending;	/* newest copy not yet written */
	/* What the file holds or is being written with; NULL when unknown
	 * (nothing written yet, or the last write failed). */
	char *file_signature;
	char *seen_signature;	/* of the newest clean sweep */
	struct timespec last_change;	/* when seen_signature last changed */
	struct timespec last_command;	/* when the last write's command ended */
	bool wrote;		/* last_command is set */
	bool retry;		/* the last write failed */
	unsigned changes;	/* sweeps that changed the topology, since the last write */
	unsigned bad_sweeps;	/* sweeps not copied, since the last write */
	bool stop;
	struct port_err *errs;
	size_t nerrs, errs_cap;
};

static void *qft_create(osm_opensm_t *osm);
static void qft_delete(void *data);
static void qft_report(void *data, osm_epi_event_id_t id, void *event);

/* The symbol OpenSM looks up (osm_event_plugin.c: dlsym of
 * OSM_EVENT_PLUGIN_IMPL_NAME); osm_version must equal the running OpenSM's. */
__attribute__((visibility("default")))
osm_event_plugin_t osm_event_plugin = {
	.osm_version = OSM_VERSION,
	.create = qft_create,
	.delete = qft_delete,
	.report = qft_report,
};

static struct snapshot *_take_snapshot(struct qft_ev *ev);
static void _snapshot_free(struct snapshot *s);
static void *_worker(void *arg);
static int _write_fabric(struct qft_ev *ev, const struct snapshot *s,
			 const struct port_err *errs, size_t nerrs);
static void _run_command(struct qft_ev *ev);
static void _add_port_errors(struct qft_ev *ev, const osm_epi_pe_event_t *pe);
static double _seconds_env(osm_log_t *log, const char *name, double dflt);
static const char *_unclean_sweep(struct qft_ev *ev);

/* ------------------------------------------------------------ entry points */

static void *qft_create(osm_opensm_t *osm)
{
	struct qft_ev *ev = calloc(1, sizeof(*ev));
	const char *env;
	int rc;

	pthread_condattr_t ca;

	if (!ev)
		return NULL;
	ev->osm = osm;
	pthread_mutex_init(&ev->mu, NULL);
	/* the waits are for intervals: a clock set back must not stretch them */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&ev->cv, &ca);
	pthread_condattr_destroy(&ca);

	env = getenv("QFT_OSM_FABRIC");
	if (!env || !*env) {
		/* OpenSM drops a plugin whose create() returns NULL and
		 * logs "cannot load plugin"; we stay loaded and idle. */
		osm_log(&osm->log, OSM_LOG_ERROR,
			PLUGIN ": QFT_OSM_FABRIC is not set: no fabric file will be written\n");
		return ev;
	}
	env = getenv("QFT_OSM_NAMES");
	if (env && *env) {
		rc = regcomp(&ev->names, env, REG_EXTENDED);
		if (rc) {
			char msg[256];
			regerror(rc, &ev->names, msg, sizeof(msg));
			osm_log(&osm->log, OSM_LOG_ERROR,
				PLUGIN ": QFT_OSM_NAMES \"%s\": %s: no fabric file will be written\n",
				env, msg);
			return ev;
		}
		if (ev->names.re_nsub != 1) {
			osm_log(&osm->log, OSM_LOG_ERROR,
				PLUGIN ": QFT_OSM_NAMES \"%s\" has %zu capture groups, wanted 1: no fabric file will be written\n",
				env, ev->names.re_nsub);
			regfree(&ev->names);
			return ev;
		}
		ev->have_names = true;
	}
	ev->settle = _seconds_env(&osm->log, "QFT_OSM_SETTLE", SETTLE_DEFAULT);
	ev->min_interval = _seconds_env(&osm->log, "QFT_OSM_MIN_INTERVAL", MIN_INTERVAL_DEFAULT);
	ev->path = strdup(getenv("QFT_OSM_FABRIC"));
	env = getenv("QFT_OSM_COMMAND");
	if (env && *env)
		ev->command = strdup(env);
	if (!ev->path || (env && *env && !ev->command)) {
		osm_log(&osm->log, OSM_LOG_ERROR, PLUGIN ": out of memory\n");
		free(ev->path);
		ev->path = NULL;
		return ev;
	}
	rc = pthread_create(&ev->worker, NULL, _worker, ev);
	if (rc) {
		osm_log(&osm->log, OSM_LOG_ERROR,
			PLUGIN ": cannot start the writer thread: %s\n", strerror(rc));
		free(ev->path);
		ev->path = NULL;
		return ev;
	}
	ev->worker_up = true;
	osm_log(&osm->log, OSM_LOG_INFO,
		PLUGIN ": writing %s on topology changes, once unchanged for %g s and at least %g s after the last command%s%s\n",
		ev->path, ev->settle, ev->min_interval,
		ev->command ? ", then running: " : "", ev->command ? ev->command : "");
	return ev;
}

static void qft_delete(void *data)
{
	struct qft_ev *ev = data;

	if (!ev)
		return;
	if (ev->worker_up) {
		pthread_mutex_lock(&ev->mu);
		ev->stop = true;
		pthread_cond_signal(&ev->cv);
		pthread_mutex_unlock(&ev->mu);
		pthread_join(ev->worker, NULL);
	}
	_snapshot_free(ev->pending);
	free(ev->file_signature);
	free(ev->seen_signature);
	free(ev->errs);
	if (ev->have_names)
		regfree(&ev->names);
	free(ev->path);
	free(ev->command);
	pthread_cond_destroy(&ev->cv);
	pthread_mutex_destroy(&ev->mu);
	free(ev);
}

/* Runs on OpenSM's threads: takes the copy (SUBNET_UP, sweep thread) or
 * adds counters (PORT_ERRORS, perfmgr thread), never any I/O. */
static void qft_report(void *data, osm_epi_event_id_t id, void *event)
{
	struct qft_ev *ev = data;
	struct snapshot *s;
	const char *why;
	bool changed = false;

	if (!ev || !ev->path)
		return;
	if (id == OSM_EVENT_ID_PORT_ERRORS && event) {
		_add_port_errors(ev, event);
		return;
	}
	if (id != OSM_EVENT_ID_SUBNET_UP)
		return;
	if ((why = _unclean_sweep(ev))) {
		pthread_mutex_lock(&ev->mu);
		ev->bad_sweeps++;
		pthread_mutex_unlock(&ev->mu);
		osm_log(&ev->osm->log, OSM_LOG_INFO,
			PLUGIN ": sweep skipped, %s: no copy taken; %s keeps the last clean sweep's fabric\n",
			why, ev->path);
		return;
	}
	s = _take_snapshot(ev);
	if (!s) {
		osm_log(&ev->osm->log, OSM_LOG_ERROR,
			PLUGIN ": out of memory copying the subnet\n");
		return;
	}
	pthread_mutex_lock(&ev->mu);
	if (!ev->seen_signature || strcmp(ev->seen_signature, s->signature)) {
		free(ev->seen_signature);
		/* NULL (no memory) only makes the next sweep count as a change */
		ev->seen_signature = strdup(s->signature);
		clock_gettime(CLOCK_MONOTONIC, &ev->last_change);
		changed = true;
	}
	if (ev->file_signature && !strcmp(ev->file_signature, s->signature)) {
		/* back to what the file holds: the flap undid itself */
		if (ev->pending)
			osm_log(&ev->osm->log, OSM_LOG_INFO,
				PLUGIN ": topology back to the one in %s; %u changed sweeps since it was written need no write\n",
				ev->path, ev->changes);
		_snapshot_free(ev->pending);
		ev->pending = NULL;
		ev->changes = 0;
		_snapshot_free(s);
	} else if (ev->pending && !strcmp(ev->pending->signature, s->signature)) {
		_snapshot_free(s);
	} else {
		_snapshot_free(ev->pending);	/* a newer copy wins */
		ev->pending = s;
		if (changed) {
			ev->changes++;
			osm_log(&ev->osm->log, OSM_LOG_INFO,
				PLUGIN ": topology changed (%u changed sweeps since the last write); writing %s once it stays unchanged for %g s\n",
				ev->changes, ev->path, ev->settle);
		}
	}
	pthread_cond_signal(&ev->cv);
	pthread_mutex_unlock(&ev->mu);
}

/* ------------------------------------------------------------ helpers */

/* A bad value is logged and the default used: OpenSM runs on either way. */
static double _seconds_env(osm_log_t *log, const char *name, double dflt)
{
	const char *v = getenv(name);
	char *end;
	double d;

	if (!v || !*v)
		return dflt;
	errno = 0;
	d = strtod(v, &end);
	if (errno || end == v || *end || !(d >= 0 && d <= SECONDS_MAX)) {
		osm_log(log, OSM_LOG_ERROR,
			PLUGIN ": %s=\"%s\": expected seconds, 0 to %g; using %g\n",
			name, v, SECONDS_MAX, dflt);
		return dflt;
	}
	return d;
}

/* Why this SUBNET_UP's subnet is not worth copying, or NULL. The flag is
 * read under OpenSM's lock as the MAD callbacks that set it run on other
 * threads; do_sweep() clears it only when the next heavy sweep starts. */
static const char *_unclean_sweep(struct qft_ev *ev)
{
	const char *why = NULL;

	cl_plock_acquire(&ev->osm->lock);
	if (ev->osm->subn.subnet_initialization_error)
		why = "OpenSM reported errors during initialization (subnet_initialization_error)";
	else if (ev->osm->subn.sm_state != IB_SMINFO_STATE_MASTER)
		why = "OpenSM is not the master SM";
	else if (!cl_qmap_count(&ev->osm->subn.sw_guid_tbl))
		/* seen in ibsim: the SM's own switch stops answering, the sweep
		 * finds the SM's port alone and OpenSM says SUBNET UP, clean */
		why = "OpenSM sees no switch (the SM's own link or switch is not answering)";
	cl_plock_release(&ev->osm->lock);
	return why;
}

static struct timespec _ts_plus(struct timespec t, double seconds)
{
	long long ns = (long long)(seconds * 1e9);

	t.tv_sec += (time_t)(ns / 1000000000LL);
	t.tv_nsec += (long)(ns % 1000000000LL);
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

static bool _ts_before(struct timespec a, struct timespec b)
{
	return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

/* When the pending copy may be written (ev->mu held). */
static struct timespec _due(const struct qft_ev *ev)
{
	struct timespec due = _ts_plus(ev->last_change, ev->settle);

	if (ev->wrote) {
		double gap = ev->min_interval;
		struct timespec after;

		if (ev->retry && gap < RETRY_MIN)
			gap = RETRY_MIN;
		after = _ts_plus(ev->last_command, gap);
		if (_ts_before(due, after))
			due = after;
	}
	return due;
}

/* The text ibnetdiscover prints for a port's width and speed, as
 * lib/fabric/discover.cpp (port_rate) writes them. */
static const char *_width_text(uint8_t w)
{
	switch (w) {
	case IB_LINK_WIDTH_ACTIVE_1X: return "1x";
	case IB_LINK_WIDTH_ACTIVE_4X: return "4x";
	case IB_LINK_WIDTH_ACTIVE_8X: return "8x";
	case IB_LINK_WIDTH_ACTIVE_12X: return "12x";
	case IB_LINK_WIDTH_ACTIVE_2X: return "2x";
	}
	return "??";
}

static const char *_speed_text(uint8_t speed, uint8_t espeed)
{
	switch (espeed) {
	case IB_LINK_SPEED_EXT_ACTIVE_14: return "FDR";
	case IB_LINK_SPEED_EXT_ACTIVE_25: return "EDR";
	case IB_LINK_SPEED_EXT_ACTIVE_50: return "HDR";
	case 8: return "NDR";	/* not named in OpenSM 3.3.23's ib_types.h */
	}
	switch (speed) {
	case IB_LINK_SPEED_ACTIVE_2_5: return "SDR";
	case IB_LINK_SPEED_ACTIVE_5: return "DDR";
	case IB_LINK_SPEED_ACTIVE_10: return "QDR";
	}
	return "???";
}

/* A switch port's capability mask is port 0's; a CA port has its own. */
static void _port_rate(osm_node_t *node, osm_physp_t *physp, struct qlink *l)
{
	const ib_port_info_t *pi = &physp->port_info;
	const ib_port_info_t *cap = pi;
	uint8_t espeed = 0;

	if (osm_node_get_type(node) == IB_NODE_TYPE_SWITCH) {
		osm_physp_t *p0 = osm_node_get_physp_ptr(node, 0);
		cap = p0 ? &p0->port_info : NULL;
	}
	if (cap && (cap->capability_mask & IB_PORT_CAP_HAS_EXT_SPEEDS))
		espeed = ib_port_info_get_link_speed_ext_active(pi);
	l->width = _width_text(pi->link_width_active);
	l->speed = _speed_text(ib_port_info_get_link_speed_active(pi), espeed);
}

static bool _port_up(osm_physp_t *p)
{
	return p && osm_physp_is_valid(p) &&
	       osm_physp_get_port_state(p) > IB_LINK_DOWN;
}

static int _node_cmp(const void *a, const void *b)
{
	const struct qnode *x = a, *y = b;

	if (x->type != y->type)		/* switches (2) first, hosts (1) next */
		return x->type > y->type ? -1 : 1;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static int _link_cmp(const void *a, const void *b)
{
	const struct qlink *x = a, *y = b;

	if (x->guid[0] != y->guid[0])
		return x->guid[0] < y->guid[0] ? -1 : 1;
	return (int)x->port[0] - (int)y->port[0];
}

/* Appends to a growing string; false when out of memory. */
static bool _cat(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static bool _cat(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(*buf ? *buf + *len : NULL, *buf ? *cap - *len : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return false;
		if (*buf && *len + (size_t)n < *cap) {
			*len += (size_t)n;
			return true;
		}
		size_t ncap = (*cap ? *cap * 2 : 4096) + (size_t)n;
		char *nb = realloc(*buf, ncap);
		if (!nb)
			return false;
		*buf = nb;
		*cap = ncap;
	}
}

static char *_signature(const struct snapshot *s)
{
	char *buf = NULL;
	size_t len = 0, cap = 0, i;
	bool ok = _cat(&buf, &len, &cap, "lmc %u\n", s->lmc);

	for (i = 0; ok && i < s->nnodes; i++)
		ok = _cat(&buf, &len, &cap, "n %u %016" PRIx64 " %u %u %s\n",
			  s->nodes[i].type, s->nodes[i].guid, s->nodes[i].ports,
			  s->nodes[i].lid, s->nodes[i].desc);
	for (i = 0; ok && i < s->nlinks; i++)
		ok = _cat(&buf, &len, &cap, "l %016" PRIx64 " %u %016" PRIx64 " %u %s %s\n",
			  s->links[i].guid[0], s->links[i].port[0],
			  s->links[i].guid[1], s->links[i].port[1],
			  s->links[i].width, s->links[i].speed);
	if (!ok) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void _snapshot_free(struct snapshot *s)
{
	if (!s)
		return;
	free(s->nodes);
	free(s->links);
	free(s->signature);
	free(s);
}

/* Copies what the fabric file needs under OpenSM's (shared) lock; sorting
 * and the signature are done after it is released. */
static struct snapshot *_take_snapshot(struct qft_ev *ev)
{
	osm_subn_t *subn = &ev->osm->subn;
	struct snapshot *s = calloc(1, sizeof(*s));
	cl_map_item_t *item;
	size_t n = 0;
	bool oom = false;

	if (!s)
		return NULL;
	cl_plock_acquire(&ev->osm->lock);
	s->lmc = subn->opt.lmc;
	s->nodes = calloc(cl_qmap_count(&subn->node_guid_tbl) + 1, sizeof(*s->nodes));
	if (!s->nodes)
		oom = true;
	for (item = cl_qmap_head(&subn->node_guid_tbl);
	     !oom && item != cl_qmap_end(&subn->node_guid_tbl);
	     item = cl_qmap_next(item)) {
		osm_node_t *node = (osm_node_t *)item;
		uint8_t type = osm_node_get_type(node);
		uint8_t np = osm_node_get_num_physp(node);
		struct qnode *q;
		unsigned p;

		if (type != IB_NODE_TYPE_CA && type != IB_NODE_TYPE_SWITCH)
			continue;
		q = &s->nodes[n++];
		q->guid = cl_ntoh64(osm_node_get_node_guid(node));
		q->type = type;
		q->ports = node->node_info.num_ports;
		memcpy(q->desc, node->node_desc.description, IB_NODE_DESCRIPTION_SIZE);
		q->desc[IB_NODE_DESCRIPTION_SIZE] = '\0';
		if (type == IB_NODE_TYPE_SWITCH) {
			osm_physp_t *p0 = osm_node_get_physp_ptr(node, 0);
			q->lid = p0 ? cl_ntoh16(osm_physp_get_base_lid(p0)) : 0;
			s->nswitches++;
		} else {
			s->nhosts++;
			for (p = 1; p < np; p++) {
				osm_physp_t *pp = osm_node_get_physp_ptr(node, p);
				if (pp && osm_physp_get_port_state(pp) == IB_LINK_ACTIVE) {
					q->lid = cl_ntoh16(osm_physp_get_base_lid(pp));
					break;
				}
			}
		}
		for (p = 1; p < np && !oom; p++) {
			osm_physp_t *pp = osm_node_get_physp_ptr(node, p);
			osm_physp_t *rp;
			osm_node_t *rn;
			uint8_t rtype;
			uint64_t rguid;
			struct qlink *l;

			if (!_port_up(pp))
				continue;
			rp = osm_physp_get_remote(pp);
			if (!_port_up(rp))
				continue;
			rn = osm_physp_get_node_ptr(rp);
			rtype = osm_node_get_type(rn);
			if (rtype != IB_NODE_TYPE_CA && rtype != IB_NODE_TYPE_SWITCH)
				continue;
			rguid = cl_ntoh64(osm_node_get_node_guid(rn));
			/* each cable once: from its smaller end */
			if (rguid < q->guid ||
			    (rguid == q->guid && osm_physp_get_port_num(rp) < p))
				continue;
			if (s->nlinks == s->links_cap) {
				size_t nc = s->links_cap ? 2 * s->links_cap : 256;
				struct qlink *nl = realloc(s->links, nc * sizeof(*nl));
				if (!nl) {
					oom = true;
					break;
				}
				s->links = nl;
				s->links_cap = nc;
			}
			l = &s->links[s->nlinks++];
			l->guid[0] = q->guid;
			l->port[0] = (uint8_t)p;
			l->guid[1] = rguid;
			l->port[1] = osm_physp_get_port_num(rp);
			_port_rate(node, pp, l);
		}
	}
	cl_plock_release(&ev->osm->lock);

	s->nnodes = n;
	if (!oom) {
		qsort(s->nodes, s->nnodes, sizeof(*s->nodes), _node_cmp);
		if (s->nlinks)
			qsort(s->links, s->nlinks, sizeof(*s->links), _link_cmp);
		s->signature = _signature(s);
	}
	if (oom || !s->signature) {
		_snapshot_free(s);
		return NULL;
	}
	return s;
}

static void _add_port_errors(struct qft_ev *ev, const osm_epi_pe_event_t *pe)
{
	struct port_err *e = NULL;
	size_t i;

	pthread_mutex_lock(&ev->mu);
	for (i = 0; i < ev->nerrs; i++) {
		if (ev->errs[i].guid == pe->port_id.node_guid &&
		    ev->errs[i].port == pe->port_id.port_num) {
			e = &ev->errs[i];
			break;
		}
	}
	if (!e) {
		if (ev->nerrs == ev->errs_cap) {
			size_t nc = ev->errs_cap ? 2 * ev->errs_cap : 64;
			struct port_err *ne = realloc(ev->errs, nc * sizeof(*ne));
			if (!ne) {
				pthread_mutex_unlock(&ev->mu);
				return;
			}
			ev->errs = ne;
			ev->errs_cap = nc;
		}
		e = &ev->errs[ev->nerrs++];
		memset(e, 0, sizeof(*e));
		e->guid = pe->port_id.node_guid;
		e->port = pe->port_id.port_num;
	}
	e->symbol_err += pe->symbol_err_cnt;
	e->link_err_recover += pe->link_err_recover;
	e->link_downed += pe->link_downed;
	e->rcv_err += pe->rcv_err;
	e->rcv_rem_phys_err += pe->rcv_rem_phys_err;
	e->xmit_discards += pe->xmit_discards;
	e->link_integrity += pe->link_integrity;
	e->buffer_overrun += pe->buffer_overrun;
	e->vl15_dropped += pe->vl15_dropped;
	pthread_mutex_unlock(&ev->mu);
}

/* The writer thread: the newest copy, once the topology has settled and
 * the last command is far enough behind. */
static void *_worker(void *arg)
{
	struct qft_ev *ev = arg;

	pthread_mutex_lock(&ev->mu);
	for (;;) {
		struct snapshot *s;
		struct port_err *errs = NULL;
		struct timespec now, due;
		size_t nerrs;
		unsigned changes, bad;
		bool ok;

		while (!ev->stop && !ev->pending)
			pthread_cond_wait(&ev->cv, &ev->mu);
		if (ev->stop)
			break;
		due = _due(ev);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (_ts_before(now, due)) {
			/* a newer copy, a revert or stop wakes us early: look again */
			pthread_cond_timedwait(&ev->cv, &ev->mu, &due);
			continue;
		}
		s = ev->pending;
		ev->pending = NULL;
		changes = ev->changes;
		bad = ev->bad_sweeps;
		ev->changes = 0;
		ev->bad_sweeps = 0;
		/* set now, not after the write: a sweep meanwhile that goes back
		 * to the old topology must be written again */
		free(ev->file_signature);
		ev->file_signature = strdup(s->signature);
		nerrs = ev->nerrs;
		if (nerrs && (errs = malloc(nerrs * sizeof(*errs))))
			memcpy(errs, ev->errs, nerrs * sizeof(*errs));
		else
			nerrs = 0;
		pthread_mutex_unlock(&ev->mu);

		ok = _write_fabric(ev, s, errs, nerrs) == 0;
		if (ok) {
			osm_log(&ev->osm->log, OSM_LOG_INFO,
				PLUGIN ": wrote %s: %zu switches, %zu hosts, %zu cables (changed); %u changed sweeps coalesced, %u unclean sweeps skipped\n",
				ev->path, s->nswitches, s->nhosts, s->nlinks, changes, bad);
			if (ev->command)
				_run_command(ev);
		}
		free(errs);

		pthread_mutex_lock(&ev->mu);
		clock_gettime(CLOCK_MONOTONIC, &ev->last_command);
		ev->wrote = true;
		ev->retry = !ok;
		if (!ok) {
			/* the file's content is unknown now: any copy is written,
			 * this one again unless a newer one came */
			free(ev->file_signature);
			ev->file_signature = NULL;
			if (!ev->pending) {
				ev->pending = s;
				s = NULL;
			}
			ev->changes += changes;
			ev->bad_sweeps += bad;
		}
		_snapshot_free(s);
	}
	pthread_mutex_unlock(&ev->mu);
	return NULL;
}

static char *_host_name(struct qft_ev *ev, const char *desc)
{
	if (ev->have_names) {
		regmatch_t m[2];
		if (regexec(&ev->names, desc, 2, m, 0) || m[1].rm_so < 0 ||
		    m[1].rm_eo <= m[1].rm_so)
			return NULL;
		return strndup(desc + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so));
	}
	size_t b = strspn(desc, " \t");
	size_t e = strcspn(desc + b, " \t");
	return e ? strndup(desc + b, e) : NULL;
}

static json_t *_guid(uint64_t g)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%016" PRIx64, g);
	return json_string(buf);
}

/* Builds the document as docs/fabric-json.md describes it. */
static json_t *_fabric_json(struct qft_ev *ev, const struct snapshot *s,
			    const struct port_err *errs, size_t nerrs,
			    size_t *unnamed)
{
	json_t *root = json_object(), *sw = json_array(), *hosts = json_array(),
	       *links = json_array(), *seen = json_object();
	size_t i;

	*unnamed = 0;
	if (!root || !sw || !hosts || !links || !seen)
		goto fail;
	json_object_set_new(root, "format", json_string("slurm-qft-fabric"));
	json_object_set_new(root, "version", json_integer(1));
	json_object_set_new(root, "lmc", json_integer(s->lmc));
	for (i = 0; i < s->nnodes; i++) {
		const struct qnode *q = &s->nodes[i];
		json_t *o = json_object();
		if (!o)
			goto fail;
		json_object_set_new(o, "guid", _guid(q->guid));
		/* desc may hold bytes that are not UTF-8: json_string fails */
		json_t *d = json_string(q->desc);
		json_object_set_new(o, "desc", d ? d : json_string("?"));
		if (q->type == IB_NODE_TYPE_CA) {
			char *name = _host_name(ev, q->desc);
			if (name && json_object_get(seen, name)) {
				free(name);
				name = NULL;
			}
			json_t *js = name ? json_string(name) : NULL;
			if (js) {
				json_object_set_new(seen, name, json_true());
				json_object_set_new(o, "name", js);
			} else {
				(*unnamed)++;
			}
			free(name);
		}
		json_object_set_new(o, "ports", json_integer(q->ports));
		json_object_set_new(o, "lid", json_integer(q->lid));
		json_array_append_new(q->type == IB_NODE_TYPE_CA ? hosts : sw, o);
	}
	for (i = 0; i < s->nlinks; i++) {
		const struct qlink *l = &s->links[i];
		json_t *a = json_pack("[o,i,o,i,s,s]", _guid(l->guid[0]), l->port[0],
				      _guid(l->guid[1]), l->port[1], l->width, l->speed);
		if (!a)
			goto fail;
		json_array_append_new(links, a);
	}
	json_object_set_new(root, "switches", sw);
	json_object_set_new(root, "hosts", hosts);
	json_object_set_new(root, "links", links);
	json_decref(seen);
	if (nerrs) {
		json_t *pe = json_array();
		for (i = 0; pe && i < nerrs; i++) {
			const struct port_err *e = &errs[i];
			if (!(e->symbol_err | e->link_err_recover | e->link_downed |
			      e->rcv_err | e->rcv_rem_phys_err | e->xmit_discards |
			      e->link_integrity | e->buffer_overrun | e->vl15_dropped))
				continue;	/* only ports that counted something */
			json_array_append_new(pe, json_pack(
				"{s:o,s:i,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}",
				"guid", _guid(e->guid), "port", e->port,
				"symbol_err", (json_int_t)e->symbol_err,
				"link_err_recover", (json_int_t)e->link_err_recover,
				"link_downed", (json_int_t)e->link_downed,
				"rcv_err", (json_int_t)e->rcv_err,
				"rcv_rem_phys_err", (json_int_t)e->rcv_rem_phys_err,
				"xmit_discards", (json_int_t)e->xmit_discards,
				"link_integrity", (json_int_t)e->link_integrity,
				"buffer_overrun", (json_int_t)e->buffer_overrun,
				"vl15_dropped", (json_int_t)e->vl15_dropped));
		}
		if (pe && json_array_size(pe))
			json_object_set_new(root, "port_errors", pe);
		else
			json_decref(pe);
	}
	return root;
fail:
	json_decref(root);
	json_decref(sw);
	json_decref(hosts);
	json_decref(links);
	json_decref(seen);
	return NULL;
}

/* The file as qft writes it: one node or link per line. */
static bool _dump_array(FILE *f, json_t *a, const char *key, bool last)
{
	size_t i;
	json_t *v;

	fprintf(f, " \"%s\": [", key);
	json_array_foreach(a, i, v) {
		char *t = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
		if (!t)
			return false;
		fprintf(f, "%s\n  %s", i ? "," : "", t);
		free(t);
	}
	fprintf(f, "%s]%s\n", json_array_size(a) ? "\n " : "", last ? "" : ",");
	return true;
}

static int _write_fabric(struct qft_ev *ev, const struct snapshot *s,
			 const struct port_err *errs, size_t nerrs)
{
	osm_log_t *log = &ev->osm->log;
	size_t unnamed = 0;
	json_t *root = _fabric_json(ev, s, errs, nerrs, &unnamed);
	char *tmp = NULL, *dir = NULL, *slash;
	FILE *f = NULL;
	int fd, rc = -1;
	bool ok;

	if (!root) {
		osm_log(log, OSM_LOG_ERROR, PLUGIN ": out of memory building %s\n", ev->path);
		return -1;
	}
	if (unnamed)
		osm_log(log, OSM_LOG_INFO,
			PLUGIN ": %zu hosts have no unique Slurm name in their description; left unnamed\n",
			unnamed);
	if (asprintf(&tmp, "%s.tmp", ev->path) < 0) {
		tmp = NULL;
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		osm_log(log, OSM_LOG_ERROR, PLUGIN ": cannot write %s: %s\n", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	fprintf(f, "{\n \"format\": \"slurm-qft-fabric\",\n \"version\": 1,\n \"lmc\": %u,\n",
		s->lmc);
	json_t *pe = json_object_get(root, "port_errors");
	ok = _dump_array(f, json_object_get(root, "switches"), "switches", false) &&
	     _dump_array(f, json_object_get(root, "hosts"), "hosts", false) &&
	     _dump_array(f, json_object_get(root, "links"), "links", !pe) &&
	     (!pe || _dump_array(f, pe, "port_errors", true));
	fprintf(f, "}\n");
	if (!ok || fflush(f) || fsync(fileno(f))) {
		osm_log(log, OSM_LOG_ERROR, PLUGIN ": cannot write %s: %s\n", tmp,
			ok ? strerror(errno) : "JSON encoding failed");
		fclose(f);
		unlink(tmp);
		goto out;
	}
	if (fclose(f)) {
		osm_log(log, OSM_LOG_ERROR, PLUGIN ": cannot write %s: %s\n", tmp, strerror(errno));
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, ev->path)) {
		osm_log(log, OSM_LOG_ERROR, PLUGIN ": cannot rename %s to %s: %s\n", tmp,
			ev->path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	dir = strdup(ev->path);
	if (dir) {
		slash = strrchr(dir, '/');
		if (slash == dir)
			slash[1] = '\0';
		else if (slash)
			*slash = '\0';
		else
			strcpy(dir, ".");
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 || fsync(fd))
			osm_log(log, OSM_LOG_ERROR, PLUGIN ": cannot fsync directory %s: %s\n",
				dir, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	rc = 0;
out:
	json_decref(root);
	free(tmp);
	free(dir);
	return rc;
}

/* /bin/sh -c COMMAND, stdin from /dev/null; the writer thread waits for it
 * (OpenSM's threads do not), so writes queue behind a slow command. */
static void _run_command(struct qft_ev *ev)
{
	osm_log_t *log = &ev->osm->log;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, all;
	char *argv[] = { "sh", "-c", ev->command, NULL };
	pid_t pid;
	int rc, status;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawn(&pid, "/bin/sh", &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (rc) {
		osm_log(log, OSM_LOG_ERROR, PLUGIN ": cannot run \"%s\": %s\n", ev->command,
			strerror(rc));
		return;
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			osm_log(log, OSM_LOG_ERROR, PLUGIN ": waitpid for \"%s\": %s\n",
				ev->command, strerror(errno));
			return;
		}
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		osm_log(log, OSM_LOG_INFO, PLUGIN ": ran \"%s\"\n", ev->command);
	else if (WIFEXITED(status))
		osm_log(log, OSM_LOG_ERROR, PLUGIN ": \"%s\" exited with %d\n", ev->command,
			WEXITSTATUS(status));
	else
		osm_log(log, OSM_LOG_ERROR, PLUGIN ": \"%s\" killed by signal %d\n",
			ev->command, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
