/*****************************************************************************\
 *  qft_lid.c - libqft-lid.so, the LID interposer: applies the job's LID
 *  table (docs/lid-table.md) to the address vectors an application hands
 *  libibverbs.
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

/*
 * Loaded with LD_PRELOAD, it exports ibv_modify_qp and ibv_create_ah at the
 * version libibverbs makes default (IBVERBS_1.1, libqft-lid.map), so an
 * application's versioned references bind here; the IBVERBS_1.0 entries
 * stay libibverbs' own, and those reach ibv_modify_qp@IBVERBS_1.1 through
 * libibverbs' PLT, that is here again. Each call is forwarded to the same
 * version of the real function.
 *
 * The symmetric rule, on host A for an address naming host B:
 *	dlid = BASE(B) | o(A, B), src_path_bits = o(B, A)
 * for RC and UC queue pairs (primary and alternate path) and for address
 * handles, LID-routed only (is_global == 0), on the port the table
 * describes (its live base LID is this host's in the table). Anything else
 * goes through as the caller made it.
 *
 * All or nothing: an RC connection works only when both ends apply the
 * same table, and the tasks of a step cannot agree among themselves. So
 * when QFT_LID_TABLE is set, a table this process cannot apply exactly as
 * its peers do (unreadable, refused, another digest than QFT_LID_DIGEST,
 * this host not in it, the port's live LID or LMC not the table's) stops
 * the process with one message and exit status 78 (EX_CONFIG, sysexits.h)
 * at the first intercepted call: the step fails instead of hanging on
 * half its connections (docs/lid-table.md, "All or nothing").
 *
 * The table is read once, at the first intercepted call (not in a
 * constructor: the library is preloaded into every process of a job step,
 * most of which never touch verbs). What is read is process-wide and
 * written once under pthread_once; the one-shot message is an atomic
 * flag; what each port is, a small cache under a mutex. Nothing is freed:
 * the table lives as long as the process.
 */


#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "contribs/verbs/lid_table.h"

#define QFT_EXPORT __attribute__((visibility("default")))

/* The default version of the functions in rdma-core's libibverbs.map. */
#define VERBS_VERSION "IBVERBS_1.1"
#define VERBS_SONAME "libibverbs.so.1"

/* A table that cannot be applied: a configuration error (sysexits.h). */
#define STOP_STATUS 78
#define STOP_WHY "; this task stops (exit 78): the job's other tasks apply the LID table, " \
	"and a connection rewritten at one end only fails"

/* Ports remembered; a host has a handful (rails x ports). */
#define PORTS_MAX 32

/* A host of the table as seen from this host (self, A). */
struct peer {
	uint16_t base;
	uint8_t out;		/* o(A, B): A addresses B at BASE(B) | out */
	uint8_t in;		/* o(B, A): B addresses A at BASE(A) | in */
	const char *name;
};

typedef int (*modify_qp_fn)(struct ibv_qp *, struct ibv_qp_attr *, int);
typedef struct ibv_ah *(*create_ah_fn)(struct ibv_pd *, struct ibv_ah_attr *);
/* ibv_query_port@IBVERBS_1.1 takes the compat structure: the prefix of
 * struct ibv_port_attr (verbs.h, ___ibv_query_port). */
typedef int (*query_port_fn)(struct ibv_context *, uint8_t, struct ibv_port_attr *);
typedef int (*query_device_fn)(struct ibv_context *, struct ibv_device_attr *);
typedef int (*query_qp_fn)(struct ibv_qp *, struct ibv_qp_attr *, int, struct ibv_qp_init_attr *);
typedef struct ibv_device **(*device_list_fn)(int *);
typedef void (*free_list_fn)(struct ibv_device **);
typedef struct ibv_context *(*open_device_fn)(struct ibv_device *);
typedef int (*close_device_fn)(struct ibv_context *);

/* What a port is to the table. */
enum port_use { PORT_TABLE, PORT_OTHER };

/* What the first intercepted call sets up; read-only afterwards. */
static struct {
	modify_qp_fn modify_qp;
	create_ah_fn create_ah;
	query_port_fn query_port;
	query_device_fn query_device;
	query_qp_fn query_qp;
	device_list_fn device_list;
	free_list_fn free_list;
	open_device_fn open_device;
	close_device_fn close_device;
	bool on;		/* a table was read, it names this host */
	bool debug;
	const char *path;
	const char *self;
	unsigned lmc, lmc_line;
	uint16_t self_base;
	unsigned self_line;
	uint16_t mask;		/* 2^LMC - 1 */
	size_t npeers;
	struct peer *peers;	/* sorted by base */
} lid;

static pthread_once_t lid_once = PTHREAD_ONCE_INIT;
static int said_unknown;	/* atomic: the unknown-peer line went out */

/* The ports seen so far, and whether this host has the table's port. */
static struct {
	pthread_mutex_t lock;
	size_t n;
	struct {
		const struct ibv_device *dev;
		uint8_t port;
		enum port_use use;
	} seen[PORTS_MAX];
	int host_has_table_port;	/* -1 not looked yet */
} ports = {PTHREAD_MUTEX_INITIALIZER, 0, {{0}}, -1};

/* One line on stderr. The application's stderr, the only channel an
 * interposer has; every line starts with "qft-lid: ". */
__attribute__((format(printf, 1, 2)))
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* The one message, then the end of the process. _exit: the caller is
 * inside a verbs call, perhaps holding the MPI's locks, and its atexit
 * handlers would talk to peers that are about to lose this one anyway. */
__attribute__((format(printf, 1, 2), noreturn))
static void stop(const char *fmt, ...)
{
	char what[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	say("qft-lid: %s" STOP_WHY "\n", what);
	_exit(STOP_STATUS);
}

/* --- the table ------------------------------------------------------------ */

static int by_base(const void *x, const void *y)
{
	const struct peer *p = x, *q = y;

	return (int)p->base - (int)q->base;
}

/* This host's name: QFT_LID_SELF, else SLURMD_NODENAME, else the host
 * name up to the first dot. NULL when there is none. */
static const char *self_name(const char **from)
{
	static char host[HOST_NAME_MAX + 1];
	const char *s;

	*from = "QFT_LID_SELF";
	if ((s = getenv("QFT_LID_SELF")) && *s)
		return s;
	*from = "SLURMD_NODENAME";
	if ((s = getenv("SLURMD_NODENAME")) && *s)
		return s;
	*from = "the host name";
	if (gethostname(host, sizeof(host)) || !host[0])
		return NULL;
	host[sizeof(host) - 1] = '\0';
	host[strcspn(host, ".")] = '\0';
	return host;
}

/* The table seen from this host: for every host B, o(A, B) and o(B, A).
 * Takes the names from t. */
static void take_peers(struct lid_table *t, size_t a)
{
	if (!(lid.peers = calloc(t->n, sizeof(*lid.peers))))
		stop("%s: no memory for %zu hosts", lid.path, t->n);
	for (size_t b = 0; b < t->n; b++) {
		lid.peers[b] = (struct peer){
			.base = t->base[b],
			.out = (uint8_t)lid_table_offset(t, a, b),
			.in = (uint8_t)lid_table_offset(t, b, a),
			.name = t->name[b],
		};
		t->name[b] = NULL;
	}
	lid.npeers = t->n;
	qsort(lid.peers, lid.npeers, sizeof(*lid.peers), by_base);
	lid.mask = (uint16_t)((1u << t->lmc) - 1);
	lid.lmc = t->lmc;
	lid.lmc_line = t->lmc_line;
	lid.self_base = t->base[a];
	lid.self_line = t->line[a];
}

/* Reads the table, checks it is the job's (QFT_LID_DIGEST) and names this
 * host; stops the process otherwise. */
static void load_table(void)
{
	struct lid_table t = {0};
	const char *want = getenv("QFT_LID_DIGEST"), *from;
	char why[512], got[64];
	size_t a;
	FILE *f;

	if (!(f = fopen(lid.path, "re")))
		stop("%s: %s", lid.path, strerror(errno));
	if (lid_table_read(f, lid.path, &t, why, sizeof(why)))
		stop("%s", why);
	fclose(f);
	snprintf(got, sizeof(got), LID_DIGEST_FMT, t.digest);
	/* Unset: a table set up by hand (contribs/verbs/README.md, Use). */
	if (want && *want && strcmp(want, got))
		stop("%s: digest %s, expected QFT_LID_DIGEST=%s (the table select/rlft wrote for "
		     "the job)", lid.path, got, want);
	if (t.choice == LID_CHOICE_BASE) {
		/* The job's decision: base LIDs on every node (the table was
		 * not ready in time, docs/lid-table.md): nothing rewritten. */
		if (lid.debug)
			say("qft-lid: %s: base LIDs (%s): addresses left as the caller sets them\n",
			    lid.path, got);
		lid_table_free(&t);
		return;
	}
	if (!(lid.self = self_name(&from)) || !(lid.self = strdup(lid.self)))
		stop("%s: no host name (QFT_LID_SELF, SLURMD_NODENAME, gethostname)", lid.path);
	for (a = 0; a < t.n && strcmp(t.name[a], lid.self); a++)
		;
	if (a == t.n)
		stop("%s: expected a line \"host %s BASE_LID DEST_OFFSET\" (this host, by %s)",
		     lid.path, lid.self, from);
	take_peers(&t, a);
	lid.on = true;
	if (lid.debug)
		say("qft-lid: %s: %zu hosts, lmc %u, choice %s, %s; this is %s\n", lid.path, t.n,
		    t.lmc, lid_choice_names[t.choice], got, lid.self);
	lid_table_free(&t);
}

/* The real function: the next definition after this library in the
 * global scope; failing that, libibverbs loaded by a dlopen()ed module
 * with RTLD_LOCAL (UCX's and Open MPI's components), which RTLD_NEXT
 * does not search. */
static void *real_symbol(const char *name)
{
	void *sym = dlvsym(RTLD_NEXT, name, VERBS_VERSION), *lib;

	if (sym)
		return sym;
	if ((lib = dlopen(VERBS_SONAME, RTLD_NOW | RTLD_NOLOAD)))
		sym = dlvsym(lib, name, VERBS_VERSION);
	return sym;
}

static void *intercepted(const char *name)
{
	void *sym = real_symbol(name);

	if (!sym)
		say("qft-lid: %s@%s not found; calls fail with ENOSYS\n", name, VERBS_VERSION);
	return sym;
}

static void init(void)
{
	const char *s;

	lid.modify_qp = (modify_qp_fn)intercepted("ibv_modify_qp");
	lid.create_ah = (create_ah_fn)intercepted("ibv_create_ah");
	s = getenv("QFT_LID_DEBUG");
	lid.debug = s && *s && strcmp(s, "0");
	if (!(s = getenv("QFT_LID_TABLE")) || !*s)
		return;
	if (!(lid.path = strdup(s)))
		stop("%s: no memory", s);
	/* What checks the ports: wanted only with a table. */
	lid.query_port = (query_port_fn)real_symbol("ibv_query_port");
	lid.query_device = (query_device_fn)real_symbol("ibv_query_device");
	lid.query_qp = (query_qp_fn)real_symbol("ibv_query_qp");
	lid.device_list = (device_list_fn)real_symbol("ibv_get_device_list");
	lid.free_list = (free_list_fn)real_symbol("ibv_free_device_list");
	lid.open_device = (open_device_fn)real_symbol("ibv_open_device");
	lid.close_device = (close_device_fn)real_symbol("ibv_close_device");
	if (!lid.query_port || !lid.query_device || !lid.device_list || !lid.free_list ||
	    !lid.open_device || !lid.close_device)
		stop("%s: libibverbs' ibv_query_port and device functions not found: the ports "
		     "cannot be checked against the table", lid.path);
	load_table();
}

/* --- the ports ------------------------------------------------------------- */

/* ibv_query_port is an inline in verbs.h that prefers the provider's
 * extended entry and falls back to the exported function; the same here,
 * with the exported one found at run time (no link to libibverbs). */
static int query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(ctx, query_port);

	if (vctx)
		return vctx->query_port(ctx, port, attr, sizeof(*attr));
	memset(attr, 0, sizeof(*attr));
	return lid.query_port(ctx, port, attr);
}

/* Appends "DEV port P: LID L LMC M" for the message about a missing port. */
static void note_port(char *list, size_t len, const struct ibv_context *ctx, unsigned port,
		      const struct ibv_port_attr *attr)
{
	size_t used = strlen(list);

	if (used + 1 < len)
		snprintf(list + used, len - used, "%s%s port %u: LID 0x%04x LMC %u",
			 used ? ", " : "", ctx->device->name, port, attr->lid, attr->lmc);
}

/* Whether one of ctx's ports has this host's base LID of the table. */
static bool device_has_table_port(struct ibv_context *ctx, char *list, size_t len)
{
	struct ibv_device_attr dev;
	struct ibv_port_attr attr;

	if (lid.query_device(ctx, &dev))
		return false;
	for (unsigned p = 1; p <= dev.phys_port_cnt; p++) {
		if (query_port(ctx, (uint8_t)p, &attr))
			continue;
		note_port(list, len, ctx, p, &attr);
		if (attr.link_layer != IBV_LINK_LAYER_ETHERNET && attr.lid == lid.self_base)
			return true;
	}
	return false;
}

/* Whether any port of this host, on ctx's device or another HCA, has the
 * table's base LID for this host: when one has, a port without it is a
 * second port or rail the table does not describe; when none has, the
 * table's LID for this host is someone else's or nobody's. */
static bool host_has_table_port(struct ibv_context *ctx, char *list, size_t len)
{
	struct ibv_device **devs;
	bool found;

	if ((found = device_has_table_port(ctx, list, len)))
		return true;
	if (!(devs = lid.device_list(NULL)))
		return false;
	for (size_t i = 0; devs[i] && !found; i++) {
		struct ibv_context *other;

		if (devs[i] == ctx->device || !(other = lid.open_device(devs[i])))
			continue;
		found = device_has_table_port(other, list, len);
		lid.close_device(other);
	}
	lid.free_list(devs);
	return found;
}

/* What ctx's port is to the table; stops the process when the port the
 * table describes has another LMC than the table, or when this host has
 * no port with the table's LID for it. Called with ports.lock held. */
static enum port_use check_port(struct ibv_context *ctx, uint8_t port)
{
	struct ibv_port_attr attr;
	char list[512] = "";
	int err;

	if ((err = query_port(ctx, port, &attr)))
		stop("%s: cannot check %s port %u against the table: ibv_query_port: %s", lid.path,
		     ctx->device->name, port, strerror(err > 0 ? err : errno));
	/* RoCE: no LIDs; its addresses are global and never rewritten. */
	if (attr.link_layer == IBV_LINK_LAYER_ETHERNET)
		return PORT_OTHER;
	if (attr.lid == lid.self_base) {
		if (attr.lmc != lid.lmc)
			stop("%s:%u: expected lmc %u on this host's port, but %s port %u (LID 0x%04x) "
			     "has LMC %u: the offsets would address other hosts", lid.path,
			     lid.lmc_line, lid.lmc, ctx->device->name, port, attr.lid, attr.lmc);
		return PORT_TABLE;
	}
	if (ports.host_has_table_port < 0)
		ports.host_has_table_port = host_has_table_port(ctx, list, sizeof(list));
	if (!ports.host_has_table_port)
		stop("%s:%u: expected a port with base LID 0x%04x on %s, but this host has none "
		     "(%s)", lid.path, lid.self_line, lid.self_base, lid.self, list);
	return PORT_OTHER;
}

/* Whether addresses leaving through ctx's port are the table's to rewrite. */
static bool table_port(struct ibv_context *ctx, uint8_t port)
{
	enum port_use use = PORT_OTHER;
	bool fresh = false;
	size_t i;

	if (!ctx || !ctx->device || !port)
		stop("%s: cannot tell the port of an address (device context %p, port %u) to "
		     "check it against the table", lid.path, (void *)ctx, port);
	pthread_mutex_lock(&ports.lock);
	for (i = 0; i < ports.n; i++)
		if (ports.seen[i].dev == ctx->device && ports.seen[i].port == port)
			break;
	if (i < ports.n) {
		use = ports.seen[i].use;
	} else {
		use = check_port(ctx, port);
		fresh = true;
		if (ports.n < PORTS_MAX)
			ports.seen[ports.n++] = (typeof(ports.seen[0])){ctx->device, port, use};
	}
	pthread_mutex_unlock(&ports.lock);
	if (lid.debug && fresh && use == PORT_OTHER)
		say("qft-lid: %s port %u: not the table's (base LID 0x%04x): left as is\n",
		    ctx->device->name, port, lid.self_base);
	return use == PORT_TABLE;
}

/* --- the rule ------------------------------------------------------------- */

static const struct peer *find_peer(uint16_t base)
{
	const struct peer key = {.base = base};

	return bsearch(&key, lid.peers, lid.npeers, sizeof(key), by_base);
}

/* Applies the symmetric rule to one address vector leaving through ctx's
 * port; true when it changed it. qp and alt only name the call in a debug
 * line (qp NULL: an address handle). */
static bool apply(struct ibv_ah_attr *ah, struct ibv_context *ctx, uint8_t port,
		  const struct ibv_qp *qp, bool alt)
{
	const struct peer *b;
	uint16_t dlid;

	/* GRH (RoCE, routed InfiniBand): the LID is not the address. */
	if (ah->is_global)
		return false;
	/* Multicast, permissive, 0: no host's LID. */
	if (!ah->dlid || ah->dlid >= LID_UNICAST_END)
		return false;
	if (!table_port(ctx, port))
		return false;
	if (!(b = find_peer(ah->dlid & (uint16_t)~lid.mask))) {
		if (!__atomic_exchange_n(&said_unknown, 1, __ATOMIC_RELAXED))
			say("qft-lid: LID 0x%04x not in %s; left as is\n", ah->dlid, lid.path);
		return false;
	}
	dlid = b->base | b->out;
	if (lid.debug && qp)
		say("qft-lid: %s qpn 0x%06x%s: dlid 0x%04x -> 0x%04x, src_path_bits %u -> %u "
		    "(%s -> %s)\n", qp->qp_type == IBV_QPT_RC ? "RC" : "UC", qp->qp_num,
		    alt ? " alternate path" : "", ah->dlid, dlid, ah->src_path_bits, b->in,
		    lid.self, b->name);
	else if (lid.debug)
		say("qft-lid: AH: dlid 0x%04x -> 0x%04x, src_path_bits %u -> %u (%s -> %s)\n",
		    ah->dlid, dlid, ah->src_path_bits, b->in, lid.self, b->name);
	ah->dlid = dlid;
	ah->src_path_bits = b->in;
	return true;
}

/* The port of a queue pair's primary path: the address's own, else the
 * one this call moves the queue pair to, else the one it has. */
static uint8_t primary_port(struct ibv_qp *qp, const struct ibv_qp_attr *attr, int attr_mask)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr now;

	if (attr->ah_attr.port_num)
		return attr->ah_attr.port_num;
	if ((attr_mask & IBV_QP_PORT) && attr->port_num)
		return attr->port_num;
	if (lid.query_qp && !lid.query_qp(qp, &now, IBV_QP_PORT, &init))
		return now.port_num;
	return 0;
}

/* --- the entry points ----------------------------------------------------- */

QFT_EXPORT int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	struct ibv_qp_attr mine;
	bool changed = false;

	pthread_once(&lid_once, init);
	if (!lid.modify_qp)
		return ENOSYS;
	/* RC and UC only: UD addresses through address handles; XRC, DC
	 * (IBV_QPT_DRIVER) and raw packet queue pairs are left alone. */
	if (!lid.on || !qp || !attr || (qp->qp_type != IBV_QPT_RC && qp->qp_type != IBV_QPT_UC) ||
	    !(attr_mask & (IBV_QP_AV | IBV_QP_ALT_PATH)))
		return lid.modify_qp(qp, attr, attr_mask);
	/* A copy: the caller's attributes are its own, and may be reused
	 * for another queue pair. */
	mine = *attr;
	if (attr_mask & IBV_QP_AV)
		changed |= apply(&mine.ah_attr, qp->context, primary_port(qp, attr, attr_mask), qp,
				 false);
	if (attr_mask & IBV_QP_ALT_PATH)
		changed |= apply(&mine.alt_ah_attr, qp->context,
				 attr->alt_port_num ? attr->alt_port_num : attr->alt_ah_attr.port_num,
				 qp, true);
	return lid.modify_qp(qp, changed ? &mine : attr, attr_mask);
}

QFT_EXPORT struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct ibv_ah_attr mine;

	pthread_once(&lid_once, init);
	if (!lid.create_ah) {
		errno = ENOSYS;
		return NULL;
	}
	if (!lid.on || !attr || !pd)
		return lid.create_ah(pd, attr);
	mine = *attr;
	return lid.create_ah(pd, apply(&mine, pd->context, attr->port_num, NULL, false) ? &mine :
			     attr);
}
