/*****************************************************************************\
 *  qft_conf.c - qft.conf, read with Slurm's own configuration parser.
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include "config.h"
#include "src/common/slurm_xlator.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/parse_config.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "qft/qft.h"
#include "src/plugins/common/qft_conf.h"
#include "src/plugins/common/qft_conf_lines.h"

const char *const qft_lid_words[] = {"off", "auto", "job", "dest", "pair", NULL};

/* The name of the plugin this copy of the file is linked into. */
extern const char plugin_type[];

/* This plugin holds a fabric it loaded in this process: from then on a
 * fabric file that fails leaves the one in use, and the kept copy is not
 * needed. */
static bool fabric_loaded = false;

static const s_p_options_t qft_conf_options[] = {
	{"FabricFile", S_P_STRING},
	{"FabricFormat", S_P_STRING},
	{"HostNameRegex", S_P_STRING},
	{"Remainder", S_P_STRING},
	{"Pattern", S_P_STRING},
	{"SampleStages", S_P_UINT32},
	{"RankByCongestion", S_P_BOOLEAN},
	{"PathPressure", S_P_BOOLEAN},
	{"WholeLeaves", S_P_BOOLEAN},
	{"HostFileDir", S_P_STRING},
	{"Routing", S_P_STRING},
	{"LftFile", S_P_STRING},
	{"Shapes", S_P_STRING},
	{"RoundUp", S_P_UINT32},
	{"ShapeWait", S_P_UINT32},
	{"ShapeWaitMax", S_P_UINT32},
	{"ShapeWaitFrom", S_P_STRING},
	{"ShapeWaitEnds", S_P_UINT32},
	{"ShapeHolds", S_P_UINT32},
	{"LidChoice", S_P_STRING},
	{"LidPairMaxNodes", S_P_UINT32},
	{"LidTableWait", S_P_UINT32},
	{"LidThreads", S_P_UINT32},
	{"LidTestDelay", S_P_UINT32},
	{"IsolatePartitions", S_P_STRING},
	{"PlanBusyFirst", S_P_BOOLEAN},
	{NULL}
};

/* `path` as qft.conf names it: relative to qft.conf's directory. */
static char *_conf_relative(const qft_conf_t *conf, char *path)
{
	char *slash, *out;

	if (path[0] == '/' || !(slash = strrchr(conf->path, '/')))
		return path;
	out = xstrndup(conf->path, slash - conf->path + 1);
	xstrcat(out, path);
	xfree(path);
	return out;
}

/* "qft.conf:LINE" for the line that sets `key`, or the path alone (a key
 * from an Include, or no longer in the file); xfree() it. */
static char *_where(const qft_conf_t *conf, const char *key)
{
	int line = qft_conf_line_of(conf->path, key);

	return line ? xstrdup_printf("%s:%d", conf->path, line) : xstrdup(conf->path);
}

/* *why = "<where key is set>: <what>"; RET SLURM_ERROR. */
__attribute__((format(printf, 4, 5)))
static int _refuse(const qft_conf_t *conf, const char *key, char **why, const char *fmt, ...)
{
	char what[1024], *at = _where(conf, key);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	*why = xstrdup_printf("%s: %s", at, what);
	xfree(at);
	return SLURM_ERROR;
}

/* What Slurm's parser refused, by line: it names a bad key or value but
 * not where. */
static char *_parse_error(const qft_conf_t *conf)
{
	qft_conf_key_t keys[ARRAY_SIZE(qft_conf_options)];
	char *what = NULL, *why;
	int line;

	for (size_t k = 0; k < ARRAY_SIZE(qft_conf_options); k++) {
		keys[k].key = qft_conf_options[k].key;
		keys[k].kind = qft_conf_options[k].type == S_P_UINT32 ? QFT_CONF_NUMBER :
			       qft_conf_options[k].type == S_P_BOOLEAN ? QFT_CONF_BOOLEAN :
									  QFT_CONF_WORD;
	}
	line = qft_conf_first_bad(conf->path, keys, &what);
	if (line)
		why = xstrdup_printf("%s:%d: %s", conf->path, line, what);
	else
		why = xstrdup_printf("%s: not a valid qft.conf (the line is named above; keys: see qft.conf(5))",
				     conf->path);
	free(what); /* qft_conf_lines.c's malloc() */
	return why;
}

/* Key= one of `words` (case-insensitive, NULL-terminated): its index in
 * *out. An absent key leaves *out; another value sets *why. */
static int _get_word(s_p_hashtbl_t *tbl, const qft_conf_t *conf, const char *key,
		     const char *const *words, int *out, char **why)
{
	char *value = NULL, *expected = NULL;
	int rc = SLURM_ERROR;

	if (!s_p_get_string(&value, key, tbl))
		return SLURM_SUCCESS;
	for (int i = 0; words[i]; i++) {
		if (!xstrcasecmp(value, words[i])) {
			*out = i;
			rc = SLURM_SUCCESS;
		}
		xstrfmtcat(expected, "%s%s", i ? (words[i + 1] ? ", " : " or ") : "", words[i]);
	}
	if (rc != SLURM_SUCCESS)
		_refuse(conf, key, why, "%s=%s, expected %s", key, value, expected);
	xfree(value);
	xfree(expected);
	return rc;
}

/* Routing= and LftFile= as one libqft routing spec. */
static int _read_routing(qft_conf_t *conf, s_p_hashtbl_t *tbl, char **why)
{
	static const char *const routings[] = {"dmodk", "lft", NULL};
	int routing = 0;
	char *lft = NULL;

	if (_get_word(tbl, conf, "Routing", routings, &routing, why) != SLURM_SUCCESS)
		return SLURM_ERROR;
	s_p_get_string(&lft, "LftFile", tbl);
	if (routing == 0 && lft) {
		_refuse(conf, "LftFile", why,
			"LftFile= is set but Routing=dmodk (the default): say Routing=lft to use it");
	} else if (routing == 1 && (!lft || !lft[0])) {
		_refuse(conf, "Routing", why,
			"Routing=lft needs LftFile= (OpenSM writes opensm-lfts.dump to its dump_files_dir, /var/log by default)");
	} else if (routing == 1) {
		lft = _conf_relative(conf, lft);
		conf->routing = xstrdup_printf("lft:%s", lft);
	} else {
		conf->routing = xstrdup("dmodk");
	}
	xfree(lft);
	return *why ? SLURM_ERROR : SLURM_SUCCESS;
}

/* Everything but FabricFile=, from the parsed file. */
static int _read_settings(qft_conf_t *conf, s_p_hashtbl_t *tbl, char **why)
{
	static const char *const formats[] = {"json", "ibnetdiscover", NULL};
	static const char *const remainders[] = {"exact", "reserve", NULL};
	static const char *const shapes[] = {"products", "blocks", NULL};
	static const char *const wait_from[] = {"eligible", "decline", NULL};
	int format = QFT_FORMAT_JSON, remainder = 0, shape = conf->products ? 0 : 1, from = 0;
	int lid = conf->lid_choice;

	if (_get_word(tbl, conf, "FabricFormat", formats, &format, why) ||
	    _get_word(tbl, conf, "Remainder", remainders, &remainder, why) ||
	    _get_word(tbl, conf, "Shapes", shapes, &shape, why) ||
	    _get_word(tbl, conf, "ShapeWaitFrom", wait_from, &from, why) ||
	    _get_word(tbl, conf, "LidChoice", qft_lid_words, &lid, why))
		return SLURM_ERROR;
	conf->lid_choice = lid;
	s_p_get_uint32(&conf->lid_pair_max_nodes, "LidPairMaxNodes", tbl);
	s_p_get_uint32(&conf->lid_table_wait, "LidTableWait", tbl);
	s_p_get_uint32(&conf->lid_threads, "LidThreads", tbl);
	if (conf->lid_threads < 1 || conf->lid_threads > QFT_LID_THREADS_MAX) {
		return _refuse(conf, "LidThreads", why,
			       "LidThreads=%u: expected 1 to %u threads for a LID choice",
			       conf->lid_threads, QFT_LID_THREADS_MAX);
	}
	s_p_get_uint32(&conf->lid_test_delay, "LidTestDelay", tbl);
	conf->format = format;
	conf->reserve_remainder = remainder == 1;
	conf->products = shape == 0;
	conf->shape_wait_from_decline = from == 1;
	s_p_get_string(&conf->host_name_regex, "HostNameRegex", tbl);
	s_p_get_string(&conf->pattern, "Pattern", tbl);
	s_p_get_uint32(&conf->sample_stages, "SampleStages", tbl);
	s_p_get_boolean(&conf->rank_by_congestion, "RankByCongestion", tbl);
	s_p_get_boolean(&conf->path_pressure, "PathPressure", tbl);
	s_p_get_boolean(&conf->whole_leaves, "WholeLeaves", tbl);
	s_p_get_uint32(&conf->round_up, "RoundUp", tbl);
	if (conf->round_up > QFT_ROUND_UP_MAX) {
		return _refuse(conf, "RoundUp", why, "RoundUp=%u, expected a percentage of 0 to %d",
			       conf->round_up, QFT_ROUND_UP_MAX);
	}
	s_p_get_uint32(&conf->shape_wait, "ShapeWait", tbl);
	s_p_get_uint32(&conf->shape_wait_max, "ShapeWaitMax", tbl);
	s_p_get_uint32(&conf->shape_holds, "ShapeHolds", tbl);
	s_p_get_boolean(&conf->plan_busy_first, "PlanBusyFirst", tbl);
	if (conf->shape_wait > QFT_SHAPE_WAIT_MAX) {
		return _refuse(conf, "ShapeWait", why,
			       "ShapeWait=%u, expected a percentage of the job's time limit, 0 to %d",
			       conf->shape_wait, QFT_SHAPE_WAIT_MAX);
	}
	s_p_get_uint32(&conf->shape_wait_ends, "ShapeWaitEnds", tbl);
	if (conf->shape_wait_ends < 1 || conf->shape_wait_ends > 100) {
		return _refuse(conf, "ShapeWaitEnds", why,
			       "ShapeWaitEnds=%u, expected the percentage of what is left of a running job's time limit it is expected to run, 1 to 100",
			       conf->shape_wait_ends);
	}
	/* No default: StateSaveLocation is on the controller, where jobs
	 * usually cannot read; QFT_HOSTS carries the same list. */
	s_p_get_string(&conf->hostfile_dir, "HostFileDir", tbl);
	s_p_get_string(&conf->isolate_partitions, "IsolatePartitions", tbl);
	if (conf->isolate_partitions &&
	    (!conf->isolate_partitions[0] || strchr(conf->isolate_partitions, ' ') ||
	     strstr(conf->isolate_partitions, ",,") || conf->isolate_partitions[0] == ',')) {
		return _refuse(conf, "IsolatePartitions", why,
			       "IsolatePartitions=%s, expected partition names separated by commas",
			       conf->isolate_partitions);
	}
	return _read_routing(conf, tbl, why);
}

extern int qft_conf_read(qft_conf_t *conf, char **why)
{
	s_p_hashtbl_t *tbl;
	char *fabric = NULL;

	memset(conf, 0, sizeof(*conf));
	conf->sample_stages = 32;
	conf->rank_by_congestion = true;
	conf->plan_busy_first = true;
	conf->shape_wait_ends = 100;
	conf->products = false;
	conf->round_up = 0;
	conf->lid_choice = QFT_LID_AUTO;
	conf->lid_pair_max_nodes = 0;
	conf->lid_table_wait = 120;
	conf->lid_threads = 1;
	*why = NULL;
	conf->path = get_extra_conf_path("qft.conf");
	if (access(conf->path, R_OK)) {
		*why = xstrdup_printf("cannot read %s: %s (it must name the fabric: FabricFile=/path/fabric.json)",
				      conf->path, strerror(errno));
		return SLURM_ERROR;
	}
	tbl = s_p_hashtbl_create(qft_conf_options);
	if (s_p_parse_file(tbl, NULL, conf->path, false, NULL) != SLURM_SUCCESS) {
		*why = _parse_error(conf);
		s_p_hashtbl_destroy(tbl);
		return SLURM_ERROR;
	}
	if (_read_settings(conf, tbl, why) != SLURM_SUCCESS) {
		s_p_hashtbl_destroy(tbl);
		return SLURM_ERROR;
	}
	if (!s_p_get_string(&fabric, "FabricFile", tbl) || !fabric[0]) {
		*why = xstrdup_printf("%s: FabricFile= is missing", conf->path);
		xfree(fabric);
		s_p_hashtbl_destroy(tbl);
		return SLURM_ERROR;
	}
	s_p_hashtbl_destroy(tbl);
	conf->fabric_file = _conf_relative(conf, fabric);
	return SLURM_SUCCESS;
}

extern void qft_conf_free(qft_conf_t *conf)
{
	xfree(conf->path);
	xfree(conf->fabric_file);
	xfree(conf->host_name_regex);
	xfree(conf->pattern);
	xfree(conf->hostfile_dir);
	xfree(conf->isolate_partitions);
	xfree(conf->routing);
	xfree(conf->fabric_source);
	xfree(conf->fabric_refused);
}

/* The fabric in `path`, read as `format`, checked and routed as qft.conf
 * says. */
static int _load_path(const qft_conf_t *conf, const char *path, qft_fabric_format_t format,
		      qft_fabric_t **fabric, char **why)
{
	char *err = NULL;
	qft_status_t rc;

	*fabric = NULL;
	*why = NULL;
	if (format == QFT_FORMAT_IBNETDISCOVER)
		rc = qft_fabric_import_ibnetdiscover(path, conf->host_name_regex, fabric, &err);
	else
		rc = qft_fabric_load(path, fabric, &err);
	if (rc != QFT_OK) {
		*why = xstrdup(err); /* it names the file */
		qft_free(err);
		return SLURM_ERROR;
	}
	if (!qft_fabric_tuple(*fabric)[0]) {
		*why = xstrdup_printf("fabric %s has no recognised PGFT tree (generate it with 'qft gen' or recognise it first)",
				      path);
		qft_fabric_destroy(*fabric);
		*fabric = NULL;
		return SLURM_ERROR;
	}
	if (!qft_fabric_attached_host_count(*fabric)) {
		/* a fabric file of a dead subnet, or a broken writer: keeping the
		 * fabric in use places jobs better than placing none */
		*why = xstrdup_printf("fabric %s: none of its %zu hosts has a cable into the tree",
				      path, qft_fabric_host_count(*fabric));
		qft_fabric_destroy(*fabric);
		*fabric = NULL;
		return SLURM_ERROR;
	}
	if (xstrcmp(conf->routing, qft_fabric_routing(*fabric)) &&
	    qft_fabric_set_routing(*fabric, conf->routing, &err) != QFT_OK) {
		*why = xstrdup_printf("%s: Routing: %s", conf->path, err); /* err names the file */
		qft_free(err);
		qft_fabric_destroy(*fabric);
		*fabric = NULL;
		return SLURM_ERROR;
	}
	return SLURM_SUCCESS;
}

/* StateSaveLocation/QFT_LAST_GOOD (xfree it), or NULL outside slurmctld
 * or without a StateSaveLocation. */
static char *_last_good_path(void)
{
	if (!qft_in_slurmctld() || !slurm_conf.state_save_location ||
	    !slurm_conf.state_save_location[0])
		return NULL;
	return xstrdup_printf("%s/%s", slurm_conf.state_save_location, QFT_LAST_GOOD);
}

/* The file that was opened is still the one at its path, unchanged: what
 * loaded is what the descriptor reads. */
static bool _same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static int _write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t) n;
	}
	return 0;
}

/* Copies `fd` (the fabric file that just loaded, `source`) to `dest`:
 * whole or not at all, since the copy is what a later start falls back
 * on. A failure costs only the copy. */
static void _keep_copy(int fd, const char *source, const char *dest)
{
	char *tmp = xstrdup_printf("%s.tmp", dest), *dir = NULL, *slash;
	char buf[65536];
	off_t off = 0;
	ssize_t n = 0;
	int out, dfd, saved;

	(void) unlink(tmp); /* a leftover keeps its mode through O_TRUNC */
	out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0)
		goto fail;
	while ((n = pread(fd, buf, sizeof(buf), off)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || _write_all(out, buf, (size_t) n))
			goto fail;
		off += n;
	}
	if (fsync(out))
		goto fail;
	n = close(out);
	out = -1;
	if (n || rename(tmp, dest))
		goto fail;
	/* the rename itself must survive a crash of the host */
	dir = xstrdup(dest);
	if ((slash = strrchr(dir, '/')) && slash != dir)
		*slash = '\0';
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		(void) fsync(dfd);
		close(dfd);
	}
	debug("%s: fabric %s kept as %s (%jd bytes)", plugin_type, source, dest, (intmax_t) off);
	xfree(dir);
	xfree(tmp);
	return;
fail:
	saved = errno;
	if (out >= 0)
		close(out);
	(void) unlink(tmp);
	error("%s: cannot keep a copy of fabric %s as %s: %s; a start with a broken fabric file will have nothing to fall back on",
	      plugin_type, source, dest, strerror(saved));
	xfree(tmp);
}

/* The kept copy is in the format of the file it was taken from, which
 * qft.conf may have changed since: JSON starts with '{', ibnetdiscover's
 * output never does. */
static qft_fabric_format_t _kept_format(const char *path, qft_fabric_format_t dflt)
{
	FILE *f = fopen(path, "re");
	int c;

	if (!f)
		return dflt;
	while ((c = getc(f)) != EOF && isspace(c))
		;
	fclose(f);
	if (c == EOF)
		return dflt;
	return c == '{' ? QFT_FORMAT_JSON : QFT_FORMAT_IBNETDISCOVER;
}

/* slurmctld starts and FabricFile= fails: the copy kept by an earlier
 * load, announced as loudly as Slurm logs; *why gets why not, if not. */
static int _load_kept(qft_conf_t *conf, const char *kept, qft_fabric_t **fabric, char **why)
{
	char *kept_why = NULL, when[64] = "at an unknown time";
	struct stat st;
	struct tm tm;

	if (stat(kept, &st)) {
		xstrfmtcat(*why, "; no fabric kept by an earlier start to fall back on (%s: %s)",
			   kept, strerror(errno));
		return SLURM_ERROR;
	}
	if (_load_path(conf, kept, _kept_format(kept, conf->format), fabric, &kept_why) !=
	    SLURM_SUCCESS) {
		xstrfmtcat(*why, "; the fabric kept by an earlier start does not load either: %s",
			   kept_why);
		xfree(kept_why);
		return SLURM_ERROR;
	}
	if (localtime_r(&st.st_mtime, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	error("%s: ****************************************************************", plugin_type);
	error("%s: FABRIC FILE UNUSABLE AT START: %s", plugin_type, *why);
	error("%s: STARTING ON THE LAST FABRIC THAT LOADED, kept in %s (written %s): cables changed since then are not known. Fix %s and run 'scontrol reconfigure'.",
	      plugin_type, kept, when, conf->fabric_file);
	error("%s: ****************************************************************", plugin_type);
	conf->fabric_source = xstrdup(kept);
	conf->fabric_refused = *why;
	*why = NULL;
	return SLURM_SUCCESS;
}

extern int qft_conf_load_fabric(qft_conf_t *conf, qft_fabric_t **fabric, char **why)
{
	char *kept = _last_good_path();
	struct stat opened, now;
	int fd = -1, rc;

	xfree(conf->fabric_source);
	xfree(conf->fabric_refused);
	/* opened before the load, so that the copy is of the bytes that
	 * loaded even when a writer replaces the file meanwhile */
	if (kept && (fd = open(conf->fabric_file, O_RDONLY | O_CLOEXEC)) >= 0 &&
	    fstat(fd, &opened)) {
		close(fd);
		fd = -1;
	}
	rc = _load_path(conf, conf->fabric_file, conf->format, fabric, why);
	if (rc == SLURM_SUCCESS) {
		conf->fabric_source = xstrdup(conf->fabric_file);
		if (fd >= 0 && !stat(conf->fabric_file, &now) && _same_file(&opened, &now))
			_keep_copy(fd, conf->fabric_file, kept);
		else if (kept)
			verbose("%s: fabric %s changed while it was read: not kept this time",
				plugin_type, conf->fabric_file);
	} else if (kept && !fabric_loaded && !getenv("SLURMCTLD_RECONF")) {
		/* Not on Slurm 24.11's reconfigure (a new slurmctld with
		 * SLURMCTLD_RECONF): refused there, the old slurmctld resumes
		 * with the fabric it holds, as a 22.05 reconfigure keeps it. */
		rc = _load_kept(conf, kept, fabric, why);
	}
	if (fd >= 0)
		close(fd);
	xfree(kept);
	if (rc == SLURM_SUCCESS)
		fabric_loaded = true;
	return rc;
}

/* ---- the shared fabric (qft_conf.h) ------------------------------------ */

/* In the owner's copy of this file: frees with the owner's libqft. */
static void _shared_fabric_release(qft_shared_fabric_t *shared)
{
	if (__atomic_sub_fetch(&shared->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	qft_fabric_destroy(shared->fabric);
	xfree(shared->source);
	xfree(shared);
}

/* This copy of libqft, for the fabrics this plugin makes. */
static const qft_ops_t _local_ops = {
	.fabric_host_count = qft_fabric_host_count,
	.fabric_find_host = qft_fabric_find_host,
	.fabric_tuple = qft_fabric_tuple,
	.fabric_tree_name = qft_fabric_tree_name,
	.fabric_sort_tree_order = qft_fabric_sort_tree_order,
	.placer_create = qft_placer_create,
	.placer_destroy = qft_placer_destroy,
	.placer_place_range = qft_placer_place_range,
	.placer_shape_ahead = qft_placer_shape_ahead,
	.placer_add_job = qft_placer_add_job,
	.placer_remove_job = qft_placer_remove_job,
	.placer_running = qft_placer_running,
	.placer_predict = qft_placer_predict,
	.fabric_lmc = qft_fabric_lmc,
	.placer_choose_lids = qft_placer_choose_lids,
	.lid_choice_clear = qft_lid_choice_clear,
	.placer_lid_request = qft_placer_lid_request,
	.lid_request_run = qft_lid_request_run,
	.lid_request_destroy = qft_lid_request_destroy,
	.lid_request_set_threads = qft_lid_request_set_threads,
	.placer_record_lids = qft_placer_record_lids,
	.placer_copy_lids = qft_placer_copy_lids,
	.placer_lid_jobs = qft_placer_lid_jobs,
	.placer_isolate_job = qft_placer_isolate_job,
	.placer_isolated = qft_placer_isolated,
	.placer_place_request = qft_placer_place_request,
	.placer_subtree_apart = qft_placer_subtree_apart,
	.placer_hosts_apart = qft_placer_hosts_apart,
};

extern qft_shared_fabric_t *qft_shared_fabric_create(qft_fabric_t *fabric, const char *source)
{
	qft_shared_fabric_t *shared = xmalloc(sizeof(*shared));

	shared->abi = QFT_SHARED_ABI;
	shared->size = sizeof(*shared);
	shared->libqft = qft_version();
	shared->fabric = fabric;
	shared->ops = &_local_ops;
	shared->source = xstrdup(source);
	shared->refs = 1;
	shared->release = _shared_fabric_release;
	return shared;
}

extern qft_shared_fabric_t *qft_shared_fabric_hold(qft_shared_fabric_t *shared)
{
	if (shared)
		__atomic_add_fetch(&shared->refs, 1, __ATOMIC_ACQ_REL);
	return shared;
}

extern void qft_shared_fabric_release(qft_shared_fabric_t *shared)
{
	if (shared)
		shared->release(shared);
}

extern bool qft_shared_fabric_compatible(uint32_t abi, uint32_t size, const char *libqft)
{
	return abi == QFT_SHARED_ABI && size == sizeof(qft_shared_fabric_t) &&
	       !xstrcmp(libqft, qft_version());
}

/* topology_qft.so as slurmctld loaded it, held open while we borrow. */
static void *topology_module = NULL;

/* slurmctld opened "<dir>/topology_qft.so" for the first directory of
 * PluginDir that has it (plugin_load_and_link()): the same names find it. */
static void *_topology_module(void)
{
	char *dirs, *dir, *save = NULL;
	void *module = NULL;

	if (!slurm_conf.plugindir)
		return NULL;
	dirs = xstrdup(slurm_conf.plugindir);
	for (dir = strtok_r(dirs, ":", &save); dir && !module;
	     dir = strtok_r(NULL, ":", &save)) {
		char *path = xstrdup_printf("%s/topology_qft.so", dir);
		module = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
		xfree(path);
	}
	xfree(dirs);
	return module;
}

extern qft_shared_fabric_t *qft_shared_fabric_from_topology(char **why)
{
	qft_topology_fabric_get_f get;
	qft_shared_fabric_t *shared;

	*why = NULL;
	if (xstrcmp(slurm_conf.topology_plugin, "topology/qft")) {
		*why = xstrdup_printf("TopologyPlugin is %s, not topology/qft",
				      slurm_conf.topology_plugin ?
				      slurm_conf.topology_plugin : "not set");
		return NULL;
	}
	if (!topology_module && !(topology_module = _topology_module())) {
		*why = xstrdup_printf("topology_qft.so is not loaded from PluginDir=%s",
				      slurm_conf.plugindir);
		return NULL;
	}
	if (!(get = (qft_topology_fabric_get_f) dlsym(topology_module,
						      QFT_TOPOLOGY_FABRIC_SYM))) {
		*why = xstrdup_printf("topology_qft.so exports no %s (an older build)",
				      QFT_TOPOLOGY_FABRIC_SYM);
		return NULL;
	}
	if (!(shared = get(QFT_SHARED_ABI, sizeof(*shared), qft_version()))) {
		*why = xstrdup_printf("topology/qft holds no fabric, or is not of this build (libqft %s)",
				      qft_version());
		return NULL;
	}
	return shared;
}

extern void qft_shared_fabric_fini(void)
{
	if (topology_module)
		dlclose(topology_module);
	topology_module = NULL;
}

extern bool qft_in_slurmctld(void)
{
	return running_in_slurmctld() ||
	       (slurm_prog_name && !xstrncmp(slurm_prog_name, "slurmctld", 9));
}
