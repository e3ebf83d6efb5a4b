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
 * handles, LID-routed only (is_global == 0). Anything else, and every call
 * when the table is absent or refused, goes through as the caller made it:
 * the interposer may turn the LID choice off, never the application.
 *
 * The table is read once, at the first intercepted call (not in a
 * constructor: the library is preloaded into every process of a job step,
 * most of which never touch verbs). What is read is process-wide and
 * written once under pthread_once; the two one-shot messages are atomic
 * flags. Nothing is freed: the table lives as long as the process.
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

#define QFT_EXPORT __attribute__((visibility("default")))

/* The default version of both functions in rdma-core's libibverbs.map. */
#define VERBS_VERSION "IBVERBS_1.1"
#define VERBS_SONAME "libibverbs.so.1"

/* The unicast LIDs (IBA 4.1.3): 0x0001 .. 0xbfff. */
#define LID_UNICAST_END 0xc000u
#define LMC_MAX 7u

enum choice { CHOICE_PAIR, CHOICE_DEST, CHOICE_JOB };
static const char *const choice_names[] = {"pair", "dest", "job"};

/* The table as the file says it (docs/lid-table.md). */
struct table {
	unsigned lmc;
	enum choice choice;
	size_t n;
	char **name;
	uint16_t *base;
	uint8_t *dest;		/* DEST_OFFSET of each host */
	uint8_t *pair;		/* n * n, row a = source a; choice pair only */
};

/* A host of the table as seen from this host (self, A). */
struct peer {
	uint16_t base;
	uint8_t out;		/* o(A, B): A addresses B at BASE(B) | out */
	uint8_t in;		/* o(B, A): B addresses A at BASE(A) | in */
	const char *name;
};

typedef int (*modify_qp_fn)(struct ibv_qp *, struct ibv_qp_attr *, int);
typedef struct ibv_ah *(*create_ah_fn)(struct ibv_pd *, struct ibv_ah_attr *);

/* What the first intercepted call sets up; read-only afterwards. */
static struct {
	modify_qp_fn modify_qp;
	create_ah_fn create_ah;
	bool on;		/* a table was read and names this host */
	bool debug;
	const char *path;
	const char *self;
	uint16_t mask;		/* 2^LMC - 1 */
	size_t npeers;
	struct peer *peers;	/* sorted by base */
} lid;

static pthread_once_t lid_once = PTHREAD_ONCE_INIT;
static int said_unknown;	/* atomic: the unknown-peer line went out */

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

/* --- reading the table ---------------------------------------------------- */

struct reader {
	FILE *f;
	const char *path;
	unsigned line;		/* number of the line in buf */
	char *buf;
	size_t cap;
};

/* Refuses the table at the reader's line. Returns -1. */
__attribute__((format(printf, 2, 3)))
static int refuse(const struct reader *r, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	say("qft-lid: %s:%u: expected %s; LID choice off\n", r->path, r->line, what);
	return -1;
}

/* The next line that is neither blank nor a comment, trailing blanks cut;
 * NULL at the end of the file (r->line then counts one past the last). */
static char *next_line(struct reader *r)
{
	ssize_t len;
	char *s;

	for (;;) {
		r->line++;
		len = getline(&r->buf, &r->cap, r->f);
		if (len < 0)
			return NULL;
		while (len > 0 && strchr(" \t\r\n\v\f", r->buf[len - 1]))
			r->buf[--len] = '\0';
		s = r->buf + strspn(r->buf, " \t");
		if (*s && *s != '#')
			return s;
	}
}

/* Splits `s` in place at blanks into at most `max` tokens; returns how many
 * there were (max + 1 when there were more). */
static int split(char *s, char **tok, int max)
{
	char *save;
	int n = 0;

	for (s = strtok_r(s, " \t", &save); s; s = strtok_r(NULL, " \t", &save)) {
		if (n == max)
			return max + 1;
		tok[n++] = s;
	}
	return n;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A decimal number, or hexadecimal after 0x, no sign, at most `max`. */
static bool parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	unsigned long v = 0, radix = 10;
	int d;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		radix = 16;
		s += 2;
	}
	if (!*s)
		return false;
	for (; *s; s++) {
		d = hex_digit(*s);
		if (d < 0 || (unsigned long)d >= radix)
			return false;
		v = v * radix + (unsigned long)d;
		if (v > max)
			return false;
	}
	*out = v;
	return true;
}

/* The line "KEY N" with N in min..max. */
static int parse_keyed(struct reader *r, const char *key, unsigned long min, unsigned long max,
		       unsigned long *out)
{
	char *line = next_line(r), *tok[2];

	if (!line || split(line, tok, 2) != 2 || strcmp(tok[0], key) ||
	    !parse_uint(tok[1], max, out) || *out < min) {
		if (min == max)
			return refuse(r, "\"%s %lu\"", key, min);
		return refuse(r, "\"%s N\" with N %lu..%lu", key, min, max);
	}
	return 0;
}

/* choice pair|dest|job. */
static int parse_choice(struct reader *r, struct table *t)
{
	char *line = next_line(r), *tok[2];

	if (line && split(line, tok, 2) == 2 && !strcmp(tok[0], "choice"))
		for (size_t i = 0; i < sizeof(choice_names) / sizeof(choice_names[0]); i++)
			if (!strcmp(tok[1], choice_names[i])) {
				t->choice = (enum choice)i;
				return 0;
			}
	return refuse(r, "\"choice pair\", \"choice dest\" or \"choice job\"");
}

/* qft-lid 1, lmc L, choice C, hosts N; N at most the hosts 2^L LIDs each
 * leave room for among the unicast LIDs. */
static int parse_header(struct reader *r, struct table *t)
{
	unsigned long v;

	if (parse_keyed(r, "qft-lid", 1, 1, &v) || parse_keyed(r, "lmc", 0, LMC_MAX, &v))
		return -1;
	t->lmc = (unsigned)v;
	if (parse_choice(r, t) || parse_keyed(r, "hosts", 1, (LID_UNICAST_END >> t->lmc) - 1, &v))
		return -1;
	t->n = v;
	return 0;
}

/* Host b's line: host NAME BASE_LID DEST_OFFSET. */
static int parse_host(struct reader *r, struct table *t, size_t b)
{
	const unsigned long lids = 1ul << t->lmc;
	unsigned long base, off;
	char *line = next_line(r), *tok[4];

	if (!line || split(line, tok, 4) != 4 || strcmp(tok[0], "host"))
		return refuse(r, "\"host NAME BASE_LID DEST_OFFSET\" (host %zu of %zu)", b + 1, t->n);
	if (!parse_uint(tok[2], LID_UNICAST_END - lids, &base) || !base || base % lids)
		return refuse(r, "BASE_LID a multiple of %lu in 0x0001..0x%04lx, not %s", lids,
			      LID_UNICAST_END - lids, tok[2]);
	if (!parse_uint(tok[3], lids - 1, &off))
		return refuse(r, "DEST_OFFSET 0..%lu, not %s", lids - 1, tok[3]);
	for (size_t a = 0; a < b; a++) {
		if (!strcmp(t->name[a], tok[1]))
			return refuse(r, "a host not named before, not %s again", tok[1]);
		if (t->base[a] == base)
			return refuse(r, "a BASE_LID not given before, not 0x%04lx again", base);
	}
	if (t->choice == CHOICE_JOB && b && t->dest[0] != off)
		return refuse(r, "DEST_OFFSET %u as on every host under choice job, not %lu",
			      t->dest[0], off);
	if (!(t->name[b] = strdup(tok[1])))
		return refuse(r, "memory for the table");
	t->base[b] = (uint16_t)base;
	t->dest[b] = (uint8_t)off;
	return 0;
}

static int parse_hosts(struct reader *r, struct table *t)
{
	t->name = calloc(t->n, sizeof(*t->name));
	t->base = calloc(t->n, sizeof(*t->base));
	t->dest = calloc(t->n, sizeof(*t->dest));
	if (!t->name || !t->base || !t->dest)
		return refuse(r, "memory for %zu hosts", t->n);
	for (size_t b = 0; b < t->n; b++)
		if (parse_host(r, t, b))
			return -1;
	return 0;
}

/* pairs, then row a: one offset per destination b, one hexadecimal digit
 * each when L <= 4, two when L > 4. */
static int parse_pairs(struct reader *r, struct table *t)
{
	const size_t width = t->lmc <= 4 ? 1 : 2, n = t->n;
	const unsigned lids = 1u << t->lmc;
	char *line = next_line(r);

	if (!line || strcmp(line, "pairs"))
		return refuse(r, "\"pairs\" after the %zu hosts under choice pair", n);
	if (!(t->pair = malloc(n * n)))
		return refuse(r, "memory for %zu x %zu offsets", n, n);
	for (size_t a = 0; a < n; a++) {
		line = next_line(r);
		if (!line || !strcmp(line, "end") || strlen(line) != n * width)
			return refuse(r, "row %zu of %zu: %zu hexadecimal digits", a + 1, n, n * width);
		for (size_t b = 0; b < n; b++) {
			const char *s = line + b * width;
			int hi = hex_digit(s[0]), lo = width == 2 ? hex_digit(s[1]) : 0;
			unsigned o = width == 2 ? (unsigned)(hi * 16 + lo) : (unsigned)hi;

			if (hi < 0 || lo < 0)
				return refuse(r, "hexadecimal digits, not \"%.*s\" (row %zu, column %zu)",
					      (int)width, s, a + 1, b + 1);
			if (o >= lids)
				return refuse(r, "offsets 0..%u, not %u (row %zu, column %zu)",
					      lids - 1, o, a + 1, b + 1);
			if (a == b && o)
				return refuse(r, "0 on the diagonal, not %u (row %zu)", o, a + 1);
			t->pair[a * n + b] = (uint8_t)o;
		}
	}
	return 0;
}

/* end, the last line: a table without it is a writer that died. */
static int parse_end(struct reader *r)
{
	char *line = next_line(r);

	if (!line)
		return refuse(r, "\"end\", not the end of the file");
	if (strcmp(line, "end"))
		return refuse(r, "\"end\"%s", strcmp(line, "pairs") ? "" :
			      " (\"pairs\" only under choice pair)");
	if (next_line(r))
		return refuse(r, "nothing after \"end\"");
	return 0;
}

static void free_table(struct table *t)
{
	for (size_t b = 0; t->name && b < t->n; b++)
		free(t->name[b]);
	free(t->name);
	free(t->base);
	free(t->dest);
	free(t->pair);
}

/* Reads `path` into t; on any fault says why once and returns -1. */
static int read_table(const char *path, struct table *t)
{
	struct reader r = {.path = path};
	int rc;

	if (!(r.f = fopen(path, "re"))) {
		say("qft-lid: %s: %s; LID choice off\n", path, strerror(errno));
		return -1;
	}
	rc = parse_header(&r, t);
	if (!rc)
		rc = parse_hosts(&r, t);
	if (!rc && t->choice == CHOICE_PAIR)
		rc = parse_pairs(&r, t);
	if (!rc)
		rc = parse_end(&r);
	free(r.buf);
	fclose(r.f);
	return rc;
}

/* o(a, b): row a column b under pair, DEST_OFFSET of b under dest and job. */
static unsigned offset(const struct table *t, size_t a, size_t b)
{
	return t->choice == CHOICE_PAIR ? t->pair[a * t->n + b] : t->dest[b];
}

static int by_base(const void *x, const void *y)
{
	const struct peer *p = x, *q = y;

	return (int)p->base - (int)q->base;
}

/* This host's name: QFT_LID_SELF, else SLURMD_NODENAME, else the host
 * name up to the first dot. NULL when there is none. */
static const char *self_name(void)
{
	static char host[HOST_NAME_MAX + 1];
	const char *s;

	if ((s = getenv("QFT_LID_SELF")) && *s)
		return s;
	if ((s = getenv("SLURMD_NODENAME")) && *s)
		return s;
	if (gethostname(host, sizeof(host)) || !host[0])
		return NULL;
	host[sizeof(host) - 1] = '\0';
	host[strcspn(host, ".")] = '\0';
	return host;
}

/* The table seen from this host: for every host B, o(A, B) and o(B, A).
 * Takes the names from t. */
static int take_peers(struct table *t, size_t a)
{
	if (!(lid.peers = calloc(t->n, sizeof(*lid.peers)))) {
		say("qft-lid: %s: no memory for %zu hosts; LID choice off\n", lid.path, t->n);
		return -1;
	}
	for (size_t b = 0; b < t->n; b++) {
		lid.peers[b] = (struct peer){
			.base = t->base[b],
			.out = (uint8_t)offset(t, a, b),
			.in = (uint8_t)offset(t, b, a),
			.name = t->name[b],
		};
		t->name[b] = NULL;
	}
	lid.npeers = t->n;
	qsort(lid.peers, lid.npeers, sizeof(*lid.peers), by_base);
	lid.mask = (uint16_t)((1u << t->lmc) - 1);
	return 0;
}

static void load_table(void)
{
	struct table t = {0};
	size_t a;

	if (read_table(lid.path, &t))
		goto out;
	if (!(lid.self = self_name()) || !(lid.self = strdup(lid.self))) {
		say("qft-lid: no host name (QFT_LID_SELF, SLURMD_NODENAME, gethostname); "
		    "LID choice off\n");
		goto out;
	}
	for (a = 0; a < t.n && strcmp(t.name[a], lid.self); a++)
		;
	if (a == t.n) {
		say("qft-lid: host %s not in %s; LID choice off\n", lid.self, lid.path);
		goto out;
	}
	if (take_peers(&t, a))
		goto out;
	lid.on = true;
	if (lid.debug)
		say("qft-lid: %s: %zu hosts, lmc %u, choice %s; this is %s\n", lid.path, t.n,
		    t.lmc, choice_names[t.choice], lid.self);
out:
	free_table(&t);
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
	if (!sym)
		say("qft-lid: %s@%s not found; calls fail with ENOSYS\n", name, VERBS_VERSION);
	return sym;
}

static void init(void)
{
	const char *s;

	lid.modify_qp = (modify_qp_fn)real_symbol("ibv_modify_qp");
	lid.create_ah = (create_ah_fn)real_symbol("ibv_create_ah");
	s = getenv("QFT_LID_DEBUG");
	lid.debug = s && *s && strcmp(s, "0");
	if ((s = getenv("QFT_LID_TABLE")) && *s) {
		lid.path = strdup(s);
		if (lid.path)
			load_table();
	}
}

/* --- the rule ------------------------------------------------------------- */

static const struct peer *find_peer(uint16_t base)
{
	const struct peer key = {.base = base};

	return bsearch(&key, lid.peers, lid.npeers, sizeof(key), by_base);
}

/* Applies the symmetric rule to one address vector; true when it changed
 * it. qp and alt only name the call in a debug line (qp NULL: an address
 * handle). */
static bool apply(struct ibv_ah_attr *ah, const struct ibv_qp *qp, bool alt)
{
	const struct peer *b;
	uint16_t dlid;

	/* GRH (RoCE, routed InfiniBand): the LID is not the address. */
	if (ah->is_global)
		return false;
	/* Multicast, permissive, 0: no host's LID. */
	if (!ah->dlid || ah->dlid >= LID_UNICAST_END)
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
		changed |= apply(&mine.ah_attr, qp, false);
	if (attr_mask & IBV_QP_ALT_PATH)
		changed |= apply(&mine.alt_ah_attr, qp, true);
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
	if (!lid.on || !attr)
		return lid.create_ah(pd, attr);
	mine = *attr;
	return lid.create_ah(pd, apply(&mine, NULL, false) ? &mine : attr);
}
