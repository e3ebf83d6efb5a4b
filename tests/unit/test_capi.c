/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The C API as a plugin sees it, written in C. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "qft/qft.h"

static void generate_and_query(void **state)
{
	(void)state;
	qft_fabric_t *f = NULL;
	char *err = NULL;
	assert_int_equal(qft_fabric_generate("2;18,18;1,18;1,1", NULL, 0, &f, &err), QFT_OK);
	assert_null(err);
	assert_int_equal(qft_fabric_host_count(f), 324);
	assert_string_equal(qft_fabric_host_name(f, 0), "n0001");
	assert_null(qft_fabric_host_name(f, 324));
	assert_string_equal(qft_fabric_tuple(f), "2;18,18;1,18;1,1");
	assert_string_equal(qft_fabric_tree_name(f), "PGFT(2;18,18;1,18;1,1)");
	uint64_t idx = 0;
	assert_int_equal(qft_fabric_tree_index(f, "n0100", &idx, NULL), QFT_OK);
	assert_int_equal(idx, 99);
	qft_fabric_destroy(f);
}

static void order_and_score(void **state)
{
	(void)state;
	qft_fabric_t *f = NULL;
	assert_int_equal(qft_fabric_generate("2;4,4;1,4;1,1", "c%d", 0, &f, NULL), QFT_OK);
	const char *hosts[] = {"c9", "c2", "c1", "c5"};
	size_t perm[4];
	assert_int_equal(qft_tree_order(f, hosts, 4, perm, NULL), QFT_OK);
	assert_int_equal(perm[0], 2); /* c1 */
	assert_int_equal(perm[1], 1); /* c2 */
	assert_int_equal(perm[2], 3); /* c5 */
	assert_int_equal(perm[3], 0); /* c9 */

	const char *leaf[] = {"c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"};
	qft_score_t sc;
	assert_int_equal(qft_score_job(f, leaf, 8, "shift", &sc, NULL), QFT_OK);
	assert_int_equal(sc.stages, 7);
	assert_int_equal(sc.max_hsd, 1);
	assert_true(sc.avg_hsd == 1.0);
	/* hosts 0, 1, 4, 8: ranks 0 and 1 both send up port 0 at stage 2 */
	const char *odd[] = {"c1", "c2", "c5", "c9"};
	assert_int_equal(qft_score_job(f, odd, 4, "shift", &sc, NULL), QFT_OK);
	assert_true(sc.max_hsd > 1);
	qft_fabric_destroy(f);
}

static void groups_form_a_tree(void **state)
{
	(void)state;
	qft_fabric_t *f = NULL;
	assert_int_equal(qft_fabric_generate("3;4,4,2;1,4,2;1,1,2", NULL, 0, &f, NULL), QFT_OK);
	/* 8 leaves, 2 level-2 subtrees, 1 top */
	assert_int_equal(qft_fabric_group_count(f), 8 + 2 + 1);
	const qft_group_t *leaf = qft_fabric_group(f, 0);
	assert_int_equal(leaf->level, 1);
	assert_string_equal(leaf->name, "L1-0");
	assert_int_equal(leaf->host_count, 4);
	assert_int_equal(leaf->switch_count, 1);
	assert_int_equal(leaf->link_gbps, 200);
	const qft_group_t *pod = qft_fabric_group(f, leaf->parent);
	assert_string_equal(pod->name, "L2-0");
	assert_int_equal(pod->switch_count, 4); /* W_2 = 4 equivalent switches */
	assert_int_equal(pod->child_count, 4);
	assert_int_equal(pod->host_count, 16);
	const qft_group_t *top = qft_fabric_group(f, pod->parent);
	assert_int_equal(top->level, 3);
	assert_int_equal(top->parent, QFT_NONE);
	assert_int_equal(top->host_count, 32);
	assert_int_equal(top->switch_count, 8); /* W_3 = 1 * 4 * 2 */
	size_t ord = qft_fabric_find_host(f, "n0006");
	assert_int_equal(ord, 5);
	assert_string_equal(qft_fabric_group(f, qft_fabric_host_group(f, ord))->name, "L1-1");
	assert_int_equal(qft_fabric_find_host(f, "nope"), QFT_NONE);
	assert_null(qft_fabric_group(f, 11));
	qft_fabric_destroy(f);
}

static void errors_carry_messages(void **state)
{
	(void)state;
	qft_fabric_t *f = (qft_fabric_t *)0x1;
	char *err = NULL;
	assert_int_equal(qft_fabric_generate("2;18,18;1,18", NULL, 0, &f, &err), QFT_EPARSE);
	assert_null(f);
	assert_non_null(strstr(err, "expected ';'"));
	qft_free(err);

	assert_int_equal(qft_fabric_load("/nonexistent.json", &f, &err), QFT_EIO);
	assert_non_null(strstr(err, "/nonexistent.json: cannot open"));
	qft_free(err);

	assert_int_equal(qft_fabric_generate("2;4,4;1,4;1,1", NULL, 9, &f, &err), QFT_EINVAL);
	assert_non_null(strstr(err, "LMC 9"));
	qft_free(err);

	assert_int_equal(qft_fabric_generate("2;4,4;1,4;1,1", NULL, 0, &f, NULL), QFT_OK);
	const char *unknown[] = {"n0001", "zz1", "zz2"};
	qft_score_t sc;
	assert_int_equal(qft_score_job(f, unknown, 3, "shift", &sc, &err), QFT_ENOENT);
	assert_non_null(strstr(err, "zz[1-2]"));
	qft_free(err);
	const char *dup[] = {"n0001", "n0001"};
	assert_int_equal(qft_score_job(f, dup, 2, "shift", &sc, &err), QFT_EINVAL);
	qft_free(err);
	assert_int_equal(qft_score_job(f, dup, 0, "shift", &sc, &err), QFT_EINVAL);
	assert_non_null(strstr(err, "empty"));
	qft_free(err);
	assert_int_equal(qft_score_job(f, dup, 1, "nosuch", &sc, &err), QFT_EINVAL);
	assert_non_null(strstr(err, "expected one of"));
	qft_free(err);
	assert_int_equal(qft_score_job(NULL, dup, 1, "shift", &sc, &err), QFT_EINVAL);
	qft_free(err);
	uint64_t idx;
	assert_int_equal(qft_fabric_tree_index(f, "nope", &idx, NULL), QFT_ENOENT);
	qft_fabric_destroy(f);
	qft_fabric_destroy(NULL);
	assert_string_equal(qft_status_str(QFT_EUNROUTABLE), "unroutable");
}

/* select/rlft's job_begin: add the job, then tell it its prediction. */
static void placer_predicts_within_its_budget(void **state)
{
	(void)state;
	qft_fabric_t *f = NULL;
	qft_placer_t *p = NULL;
	char *err = NULL;
	assert_int_equal(qft_fabric_generate("3;18,18,6;1,18,6;1,1,3", NULL, 0, &f, NULL), QFT_OK);
	qft_placer_config_t conf = {0};
	assert_int_equal(qft_placer_create(f, &conf, &p, NULL), QFT_OK);
	size_t hosts[1944];
	for (size_t i = 0; i < 1944; i++)
		hosts[i] = i;
	/* the whole tree in tree order: congestion-free, sampled */
	assert_int_equal(qft_placer_add_job(p, 7, hosts, 1944, NULL), QFT_OK);
	qft_prediction_t pr;
	assert_int_equal(qft_placer_predict(p, hosts, 1944, &pr, NULL), QFT_OK);
	assert_int_equal(pr.stages_total, 1943);
	assert_int_equal(pr.stages_played, QFT_FLOW_BUDGET / 1944);
	assert_true(pr.avg_hsd == 1.0);
	assert_int_equal(pr.max_hsd, 1);
	qft_placer_remove_job(p, 7);
	/* 100 hosts from host 0 congest; every stage fits the budget */
	assert_int_equal(qft_placer_predict(p, hosts, 100, &pr, NULL), QFT_OK);
	assert_int_equal(pr.stages_played, 99);
	assert_int_equal(pr.stages_total, 99);
	double avg;
	unsigned max;
	assert_int_equal(qft_placer_score(p, hosts, 100, &avg, &max, NULL), QFT_OK);
	assert_true(avg == pr.avg_hsd && avg > 1.0);
	assert_int_equal(max, pr.max_hsd);
	/* one host: no stage */
	assert_int_equal(qft_placer_predict(p, hosts, 1, &pr, NULL), QFT_OK);
	assert_int_equal(pr.stages_played, 0);
	assert_int_equal(pr.stages_total, 0);
	hosts[0] = 1944;
	assert_int_equal(qft_placer_predict(p, hosts, 2, &pr, &err), QFT_EINVAL);
	assert_non_null(strstr(err, "out of range"));
	qft_free(err);
	assert_int_equal(qft_placer_predict(p, hosts, 2, NULL, NULL), QFT_EINVAL);
	qft_placer_destroy(p);
	qft_fabric_destroy(f);
}

/* Isolation as select/rlft calls it, on PGFT(2;4,4;1,4;1,1) (4 leaves of 4
 * hosts): an isolated job on leaf 0, another job on leaves 1 and 2; for
 * nodes cons_tres chooses, the subtree apart and the check of hosts chosen
 * elsewhere. */
static void isolation(void **state)
{
	(void)state;
	qft_fabric_t *f = NULL;
	qft_placer_t *p = NULL;
	qft_placer_config_t conf = {0};
	uint8_t eligible[16], zone[16];
	size_t leaf0[4] = {0, 1, 2, 3}, mid[8] = {4, 5, 6, 7, 8, 9, 10, 11};
	size_t own[2] = {12, 13}, beside[2] = {12, 7}, cross[2] = {3, 12};
	char *err = NULL;

	assert_int_equal(qft_fabric_generate("2;4,4;1,4;1,1", NULL, 0, &f, NULL), QFT_OK);
	assert_int_equal(qft_placer_create(f, &conf, &p, NULL), QFT_OK);
	assert_int_equal(qft_placer_isolate_job(p, 1, 1, &err), QFT_EINVAL); /* not running */
	assert_non_null(strstr(err, "not running"));
	qft_free(err);
	assert_int_equal(qft_placer_add_job(p, 1, leaf0, 4, NULL), QFT_OK);
	assert_int_equal(qft_placer_isolate_job(p, 1, 1, NULL), QFT_OK);
	assert_int_equal(qft_placer_isolated(p), 1);
	assert_int_equal(qft_placer_add_job(p, 2, mid, 8, NULL), QFT_OK);
	/* the free leaf 3, and leaf 0 offered too (an isolated job's node
	 * cons_tres would share): only leaf 3 is apart */
	for (int h = 0; h < 16; h++)
		eligible[h] = h >= 12 || h < 2;
	for (int every = 0; every < 2; every++) {
		assert_int_equal(qft_placer_subtree_apart(p, eligible, 2, every, 0, zone), 1);
		for (int h = 0; h < 16; h++)
			assert_int_equal(zone[h], h >= 12);
	}
	/* no leaf has 5, and the whole tree holds the isolated job */
	assert_int_equal(qft_placer_subtree_apart(p, eligible, 5, 0, 0, zone), 0);
	for (int h = 0; h < 16; h++)
		assert_int_equal(zone[h], 0);
	assert_true(qft_placer_hosts_apart(p, own, 2, 1));
	assert_true(qft_placer_hosts_apart(p, beside, 2, 0));   /* job 2 is not isolated */
	assert_false(qft_placer_hosts_apart(p, beside, 2, 1));  /* but on its links */
	assert_false(qft_placer_hosts_apart(p, cross, 2, 0));   /* the isolated job's */
	assert_int_equal(qft_placer_subtree_apart(NULL, eligible, 2, 0, 0, zone), 0);
	assert_false(qft_placer_hosts_apart(p, NULL, 2, 0));
	qft_placer_destroy(p);
	qft_fabric_destroy(f);
}

/* PGFT(2;2,2;1,2;1,1) as `qft import` leaves it with cut cables: n0002's
 * cable is cut (no tree position), leaf 1 has lost both spine cables, so
 * n0003 and n0004 reach only each other. n0004 sits at tree index %d. */
static const char kDegraded[] =
	"{\"format\":\"slurm-qft-fabric\",\"version\":1,\"lmc\":0,\"tree\":\"2;2,2;1,2;1,1\",\n"
	"\"switches\":[\n"
	"{\"guid\":\"0x0002c90401000000\",\"desc\":\"L1 0.0\",\"ports\":4,\"lid\":5,\"level\":1,\"index\":0},\n"
	"{\"guid\":\"0x0002c90401000001\",\"desc\":\"L1 1.0\",\"ports\":4,\"lid\":6,\"level\":1,\"index\":1},\n"
	"{\"guid\":\"0x0002c90402000000\",\"desc\":\"L2 0.0\",\"ports\":2,\"lid\":7,\"level\":2,\"index\":0},\n"
	"{\"guid\":\"0x0002c90402000001\",\"desc\":\"L2 1.0\",\"ports\":2,\"lid\":8,\"level\":2,\"index\":1}],\n"
	"\"hosts\":[\n"
	"{\"guid\":\"0x0002c90300000002\",\"desc\":\"n0001 HCA-1\",\"name\":\"n0001\",\"ports\":1,\"lid\":1,\"level\":0,\"index\":0},\n"
	"{\"guid\":\"0x0002c90300000004\",\"desc\":\"n0002 HCA-1\",\"name\":\"n0002\",\"ports\":1,\"lid\":2},\n"
	"{\"guid\":\"0x0002c90300000006\",\"desc\":\"n0003 HCA-1\",\"name\":\"n0003\",\"ports\":1,\"lid\":3,\"level\":0,\"index\":2},\n"
	"{\"guid\":\"0x0002c90300000008\",\"desc\":\"n0004 HCA-1\",\"name\":\"n0004\",\"ports\":1,\"lid\":4,\"level\":0,\"index\":%d}],\n"
	"\"links\":[\n"
	"[\"0x0002c90300000002\",1,\"0x0002c90401000000\",1,\"4x\",\"HDR\"],\n"
	"[\"0x0002c90300000006\",1,\"0x0002c90401000001\",1,\"4x\",\"HDR\"],\n"
	"[\"0x0002c90300000008\",1,\"0x0002c90401000001\",2,\"4x\",\"HDR\"],\n"
	"[\"0x0002c90401000000\",3,\"0x0002c90402000000\",1,\"4x\",\"HDR\"],\n"
	"[\"0x0002c90401000000\",4,\"0x0002c90402000001\",1,\"4x\",\"HDR\"]]}\n";

/* Writes kDegraded with n0004 at `index` to a new file; its path in `path`. */
static void write_degraded(char *path, int index)
{
	strcpy(path, "/tmp/qft-degraded-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *out = fdopen(fd, "w");
	assert_non_null(out);
	fprintf(out, kDegraded, index);
	fclose(out);
}

/* Product shapes through the C API: the kind and shape of a placement,
 * a node range that gets the largest product in it, the routing by name
 * and a bad routing spec that leaves the fabric's routing as it was. */
static void products_and_routing(void **state)
{
	(void)state;
	qft_fabric_t *f = NULL;
	char *err = NULL;
	assert_int_equal(qft_fabric_generate("2;18,18;1,18;1,1", NULL, 0, &f, NULL), QFT_OK);
	assert_string_equal(qft_fabric_routing(f), "dmodk");
	assert_int_equal(qft_fabric_set_routing(f, "lft", &err), QFT_EINVAL);
	assert_non_null(strstr(err, "expected lft:FILE"));
	qft_free(err);
	assert_string_equal(qft_fabric_routing(f), "dmodk");
	qft_placer_config_t cfg = {.products = 1, .rank_by_congestion = 1};
	qft_placer_t *p = NULL;
	assert_int_equal(qft_placer_create(f, &cfg, &p, NULL), QFT_OK);
	uint8_t eligible[324];
	memset(eligible, 1, sizeof(eligible));
	qft_placement_t pl;
	assert_int_equal(qft_placer_place(p, 70, eligible, NULL, NULL, 0, &pl, NULL), QFT_OK);
	assert_int_equal(pl.outcome, QFT_PLACED);
	assert_string_equal(pl.kind, "product");
	assert_string_equal(pl.shape, "5x14");
	assert_true(pl.hsd_alone == 1.0);
	/* 97 is prime: 90-97 gets 96 */
	assert_int_equal(qft_placer_place_range(p, 90, 97, eligible, NULL, NULL, 0, &pl, NULL),
			 QFT_OK);
	assert_int_equal(pl.count, 96);
	assert_string_equal(pl.kind, "product");
	assert_int_equal(qft_placer_place_range(p, 98, 97, eligible, NULL, NULL, 0, &pl, &err),
			 QFT_EINVAL);
	qft_free(err);
	/* the shape ahead (ShapeWait=): leaves 0-3 free now, leaf 4 at
	 * 100 s: 90 nodes are 5 x 18 then, not within 99 s; the placement
	 * of place_range stays as it was */
	double free_at[324];
	for (size_t h = 0; h < 324; h++)
		free_at[h] = h < 72 ? 0 : h < 90 ? 100 : INFINITY;
	qft_placement_t ahead;
	double at = -1;
	assert_int_equal(qft_placer_shape_ahead(p, 90, 90, eligible, free_at, NULL, 0, 99, &at,
						&ahead, NULL),
			 QFT_OK);
	assert_int_equal(ahead.outcome, QFT_NOT_NOW);
	assert_int_equal(qft_placer_shape_ahead(p, 90, 90, eligible, free_at, NULL, 0, 100, &at,
						&ahead, NULL),
			 QFT_OK);
	assert_int_equal(ahead.outcome, QFT_PLACED);
	assert_true(at == 100);
	assert_int_equal(ahead.count, 90);
	assert_true(ahead.congestion_free);
	assert_int_equal(pl.count, 96);
	assert_int_equal(qft_placer_shape_ahead(p, 90, 90, eligible, NULL, NULL, 0, 100, &at,
						&ahead, &err),
			 QFT_EINVAL);
	assert_non_null(strstr(err, "free_at"));
	qft_free(err);
	qft_placer_destroy(p);
	qft_fabric_destroy(f);
}

/* LID choice through the C API: the 16 scattered hosts of test-lid.sh at
 * LMC 2 (Shift HSD 1.333 on one LID): pair reaches 1.0 with its table,
 * dest gives offsets, job one offset for all; errors name the mode. */
static void lid_choice(void **state)
{
	(void)state;
	qft_fabric_t *f = NULL;
	qft_placer_t *p = NULL;
	char *err = NULL;
	size_t hosts[16];
	size_t n = 0;
	const size_t firsts[] = {18, 36, 54}, counts[] = {5, 5, 6};
	qft_lid_choice_t ch;

	assert_int_equal(qft_fabric_generate("2;18,18;1,18;1,1", NULL, 2, &f, NULL), QFT_OK);
	assert_int_equal(qft_fabric_lmc(f), 2);
	assert_int_equal(qft_placer_create(f, NULL, &p, NULL), QFT_OK);
	for (int b = 0; b < 3; b++)
		for (size_t k = 0; k < counts[b]; k++)
			hosts[n++] = firsts[b] + k;
	assert_int_equal(qft_placer_choose_lids(p, hosts, n, "pair", &ch, NULL), QFT_OK);
	assert_string_equal(ch.mode, "pair");
	assert_int_equal(ch.offsets, 4);
	assert_true(ch.avg_hsd == 1.0);
	assert_int_equal(ch.stages_played, 15);
	assert_true(ch.floor_hsd == 1.0);
	assert_int_equal(ch.stages_proven + ch.stages_undecided, 0);
	assert_null(ch.dest);
	assert_non_null(strstr(ch.table, "qft-lid 1\nlmc 2\nchoice pair\nhosts 16\nhost n0019 0x004c 0\n"));
	qft_lid_choice_clear(&ch);
	assert_null(ch.table);
	assert_int_equal(qft_placer_choose_lids(p, hosts, n, "dest", &ch, NULL), QFT_OK);
	assert_non_null(ch.dest);
	assert_true(ch.avg_hsd > 1.0 && ch.avg_hsd < 1.333);
	assert_true(ch.floor_hsd == 0.0); /* dest proves nothing */
	qft_lid_choice_clear(&ch);
	assert_int_equal(qft_placer_choose_lids(p, hosts, n, "job", &ch, NULL), QFT_OK);
	for (size_t k = 1; k < n; k++)
		assert_int_equal(ch.dest[k], ch.dest[0]);
	qft_lid_choice_clear(&ch);
	assert_int_equal(qft_placer_choose_lids(p, hosts, n, "stripe", &ch, &err), QFT_EINVAL);
	assert_non_null(strstr(err, "nothing to export"));
	qft_free(err);
	assert_int_equal(qft_placer_choose_lids(p, hosts, n, "fast", &ch, &err), QFT_EINVAL);
	assert_non_null(strstr(err, "LID choice \"fast\", expected job, dest, pair or stripe"));
	qft_free(err);
	hosts[3] = 324;
	assert_int_equal(qft_placer_choose_lids(p, hosts, n, "pair", &ch, &err), QFT_EINVAL);
	assert_non_null(strstr(err, "host ordinal 324 out of range"));
	qft_free(err);
	qft_lid_choice_clear(&ch);
	qft_placer_destroy(p);
	qft_fabric_destroy(f);
	/* LMC 0: one path per flow, so every congested stage of n[0001-0100]
	 * is proven (qft score: 68 of 99) and the floor is the HSD */
	assert_int_equal(qft_fabric_generate("2;18,18;1,18;1,1", NULL, 0, &f, NULL), QFT_OK);
	assert_int_equal(qft_placer_create(f, NULL, &p, NULL), QFT_OK);
	size_t first[100];
	for (size_t k = 0; k < 100; k++)
		first[k] = k;
	assert_int_equal(qft_placer_choose_lids(p, first, 100, "pair", &ch, NULL), QFT_OK);
	assert_int_equal(ch.stages_proven, 68);
	assert_int_equal(ch.stages_undecided, 0);
	assert_true(ch.floor_hsd > 1.68 && ch.floor_hsd == ch.avg_hsd);
	qft_lid_choice_clear(&ch);
	qft_placer_destroy(p);
	qft_fabric_destroy(f);
}

/* A LID request (select/rlft's worker, docs/lid-choice.md "Off the locks"):
 * taken from a placer, it runs after the placer and the fabric's handle
 * are gone, in another thread, and gives what qft_placer_choose_lids()
 * gives; the offsets recorded for a running job are kept while it runs on
 * the same hosts, copied to a new placer, and refused for a job that is
 * not tracked on the choice's hosts. */
struct lid_run {
	qft_lid_request_t *req;
	qft_lid_choice_t ch;
	qft_status_t st;
};

static void *lid_run_thread(void *arg)
{
	struct lid_run *r = arg;

	r->st = qft_lid_request_run(r->req, &r->ch, NULL);
	return NULL;
}

static void lid_request(void **state)
{
	(void)state;
	qft_fabric_t *f = NULL;
	qft_placer_t *p = NULL, *q = NULL;
	qft_lid_request_t *req = NULL;
	qft_lid_choice_t ch, alone;
	struct lid_run r = {0};
	pthread_t thread;
	char *err = NULL;
	size_t hosts[16], other[3] = {0, 1, 2};
	size_t n = 0;
	const size_t firsts[] = {18, 36, 54}, counts[] = {5, 5, 6};

	for (int b = 0; b < 3; b++)
		for (size_t k = 0; k < counts[b]; k++)
			hosts[n++] = firsts[b] + k;
	assert_int_equal(qft_fabric_generate("2;18,18;1,18;1,1", NULL, 2, &f, NULL), QFT_OK);
	assert_int_equal(qft_placer_create(f, NULL, &p, NULL), QFT_OK);
	assert_int_equal(qft_placer_choose_lids(p, hosts, n, "pair", &alone, NULL), QFT_OK);
	assert_int_equal(qft_placer_add_job(p, 7, hosts, n, NULL), QFT_OK);
	assert_int_equal(qft_placer_add_job(p, 8, other, 3, NULL), QFT_OK);
	assert_int_equal(qft_placer_lid_request(p, 7, hosts, n, "pair", 0, &req, NULL), QFT_OK);
	assert_int_equal(qft_lid_request_job_id(req), 7);
	assert_int_equal(qft_lid_request_hosts(req), 16);
	/* the request holds what it reads: the placer and fabric may go */
	qft_placer_destroy(p);
	qft_fabric_destroy(f);
	r.req = req;
	assert_int_equal(pthread_create(&thread, NULL, lid_run_thread, &r), 0);
	assert_int_equal(pthread_join(thread, NULL), 0);
	assert_int_equal(r.st, QFT_OK);
	assert_string_equal(r.ch.mode, "pair");
	assert_true(r.ch.avg_hsd == 1.0);
	assert_non_null(r.ch.job);
	assert_string_equal(r.ch.table, alone.table);
	qft_lid_request_destroy(req);
	qft_lid_choice_clear(&alone);

	/* recorded while the job runs on those hosts */
	assert_int_equal(qft_fabric_generate("2;18,18;1,18;1,1", NULL, 2, &f, NULL), QFT_OK);
	assert_int_equal(qft_placer_create(f, NULL, &p, NULL), QFT_OK);
	assert_int_equal(qft_placer_record_lids(p, 7, &r.ch, &err), QFT_ENOENT);
	assert_non_null(strstr(err, "job 7"));
	qft_free(err);
	assert_int_equal(qft_placer_add_job(p, 7, hosts, n, NULL), QFT_OK);
	assert_int_equal(qft_placer_lid_jobs(p), 0);
	assert_int_equal(qft_placer_record_lids(p, 7, &r.ch, NULL), QFT_OK);
	assert_int_equal(qft_placer_lid_jobs(p), 1);
	assert_int_equal(qft_placer_add_job(p, 7, hosts, n, NULL), QFT_OK);
	assert_int_equal(qft_placer_lid_jobs(p), 1);
	assert_int_equal(qft_placer_create(f, NULL, &q, NULL), QFT_OK);
	assert_int_equal(qft_placer_add_job(q, 7, hosts, n, NULL), QFT_OK);
	assert_int_equal(qft_placer_copy_lids(q, p), 1);
	assert_int_equal(qft_placer_lid_jobs(q), 1);
	/* a job beside it: the request takes it with its offsets; its own
	 * id is left out */
	assert_int_equal(qft_placer_lid_request(q, 9, other, 3, "dest", 0, &req, NULL), QFT_OK);
	assert_int_equal(qft_lid_request_run(req, &ch, NULL), QFT_OK);
	assert_non_null(ch.dest);
	qft_lid_choice_clear(&ch);
	qft_lid_request_destroy(req);
	assert_int_equal(qft_placer_add_job(p, 7, other, 3, NULL), QFT_OK);
	assert_int_equal(qft_placer_lid_jobs(p), 0); /* other hosts: gone */
	assert_int_equal(qft_placer_record_lids(p, 7, &r.ch, NULL), QFT_ENOENT);
	qft_placer_remove_job(q, 7);
	assert_int_equal(qft_placer_lid_jobs(q), 0);
	/* job: as many stages as `flows` allow, one at least */
	assert_int_equal(qft_placer_lid_request(q, 9, hosts, n, "job", 16, &req, NULL), QFT_OK);
	assert_int_equal(qft_lid_request_run(req, &ch, NULL), QFT_OK);
	assert_int_equal(ch.stages_played, 1);
	qft_lid_choice_clear(&ch);
	qft_lid_request_destroy(req);
	/* LidThreads=: Shift's stages searched side by side, as good here */
	assert_int_equal(qft_placer_lid_request(q, 9, hosts, n, "pair", 0, &req, NULL), QFT_OK);
	qft_lid_request_set_threads(req, 3);
	qft_lid_request_set_threads(NULL, 3);
	assert_int_equal(qft_lid_request_run(req, &ch, NULL), QFT_OK);
	assert_string_equal(ch.mode, "pair");
	assert_true(ch.avg_hsd == 1.0);
	assert_int_equal(ch.stages_played, 15);
	qft_lid_choice_clear(&ch);
	qft_lid_request_destroy(req);
	assert_int_equal(qft_placer_lid_request(q, 9, hosts, n, "stripe", 0, &req, &err), QFT_EINVAL);
	assert_null(req);
	qft_free(err);
	qft_lid_choice_clear(&r.ch);
	qft_placer_destroy(q);
	qft_placer_destroy(p);
	qft_fabric_destroy(f);
}

/* Degraded fabrics load; the host without a position is named in the
 * report and never placed; an unroutable prediction is an error with a
 * message, never a figure; a load error names the file. */
static void degraded_fabric_loads(void **state)
{
	(void)state;
	char path[64];
	write_degraded(path, 3);
	qft_fabric_t *f = NULL;
	char *err = NULL;
	assert_int_equal(qft_fabric_load(path, &f, &err), QFT_OK);
	assert_null(err);
	const char *report = qft_fabric_report(f);
	assert_non_null(strstr(report, path));
	assert_non_null(strstr(report, "host n0002 has no tree position"));
	qft_placer_t *p = NULL;
	assert_int_equal(qft_placer_create(f, NULL, &p, NULL), QFT_OK);
	uint8_t eligible[4] = {1, 1, 1, 1};
	qft_placement_t pl;
	assert_int_equal(qft_placer_place(p, 2, eligible, NULL, NULL, 0, &pl, NULL), QFT_OK);
	assert_int_equal(pl.outcome, QFT_PLACED);
	assert_int_equal(pl.count, 2);
	assert_int_equal(pl.hosts[0], 2); /* leaf 1; leaf 0 holds only n0001 */
	assert_int_equal(pl.hosts[1], 3);
	assert_int_equal(qft_placer_place(p, 4, eligible, NULL, NULL, 0, &pl, NULL), QFT_OK);
	assert_int_equal(pl.outcome, QFT_NEVER); /* 3 hosts have a position */

	double avg = 1.0;
	unsigned max = 1;
	const size_t across[] = {0, 2};
	assert_int_equal(qft_placer_score(p, across, 2, &avg, &max, &err), QFT_EUNROUTABLE);
	assert_non_null(strstr(err, "n0003"));
	assert_true(avg != avg); /* NaN: not a figure */
	assert_int_equal(max, 0);
	qft_free(err);
	const size_t unplaced[] = {1, 0};
	assert_int_equal(qft_placer_score(p, unplaced, 2, &avg, &max, &err), QFT_EUNROUTABLE);
	assert_non_null(strstr(err, "n0002"));
	qft_free(err);
	const size_t leaf1[] = {2, 3};
	assert_int_equal(qft_placer_score(p, leaf1, 2, &avg, &max, &err), QFT_OK);
	assert_true(avg == 1.0);
	qft_placer_destroy(p);
	qft_fabric_destroy(f);
	unlink(path);

	write_degraded(path, 2); /* n0003 and n0004 at one position */
	assert_int_equal(qft_fabric_load(path, &f, &err), QFT_EINVAL);
	assert_null(f);
	assert_non_null(strstr(err, path));
	qft_free(err);
	unlink(path);
}

/* PGFT(2;2,2;1,2;1,1) as OpenSM's event plugin writes it (contribs/opensm):
 * no tree, no levels, no indexes; the last cable is left out when `cut`. */
static void write_untreed(char *path, int cut)
{
	static const char *const links[] = {
		"[\"0x02\",1,\"0x10\",1,\"4x\",\"HDR\"]", "[\"0x04\",1,\"0x10\",2,\"4x\",\"HDR\"]",
		"[\"0x06\",1,\"0x11\",1,\"4x\",\"HDR\"]", "[\"0x08\",1,\"0x11\",2,\"4x\",\"HDR\"]",
		"[\"0x10\",3,\"0x20\",1,\"4x\",\"HDR\"]", "[\"0x10\",4,\"0x21\",1,\"4x\",\"HDR\"]",
		"[\"0x11\",3,\"0x20\",2,\"4x\",\"HDR\"]", "[\"0x11\",4,\"0x21\",2,\"4x\",\"HDR\"]",
	};
	strcpy(path, "/tmp/qft-untreed-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *out = fdopen(fd, "w");
	assert_non_null(out);
	fprintf(out, "{\"format\":\"slurm-qft-fabric\",\"version\":1,\"lmc\":0,\"switches\":[\n"
		     "{\"guid\":\"0x10\",\"desc\":\"leaf a\",\"ports\":4,\"lid\":5},\n"
		     "{\"guid\":\"0x11\",\"desc\":\"leaf b\",\"ports\":4,\"lid\":6},\n"
		     "{\"guid\":\"0x20\",\"desc\":\"spine a\",\"ports\":2,\"lid\":7},\n"
		     "{\"guid\":\"0x21\",\"desc\":\"spine b\",\"ports\":2,\"lid\":8}],\n\"hosts\":[\n");
	for (int h = 1; h <= 4; h++)
		fprintf(out, "{\"guid\":\"0x0%d\",\"desc\":\"n000%d HCA-1\",\"name\":\"n000%d\",\"ports\":1,"
			     "\"lid\":%d}%s\n", 2 * h, h, h, h, h < 4 ? "," : "");
	fprintf(out, "],\"links\":[\n");
	const int n = cut ? 7 : 8;
	for (int i = 0; i < n; i++)
		fprintf(out, "%s%s\n", links[i], i + 1 < n ? "," : "");
	fprintf(out, "]}\n");
	fclose(out);
}

/* A fabric JSON without a tree (OpenSM's event plugin) loads: its tree is
 * recognised at load, and a cut cable is in the report. */
static void untreed_fabric_is_recognised(void **state)
{
	(void)state;
	char path[64];
	qft_fabric_t *f = NULL;
	char *err = NULL;
	for (int cut = 0; cut <= 1; cut++) {
		write_untreed(path, cut);
		assert_int_equal(qft_fabric_load(path, &f, &err), QFT_OK);
		assert_null(err);
		assert_string_equal(qft_fabric_tree_name(f), "PGFT(2;2,2;1,2;1,1)");
		const char *report = qft_fabric_report(f);
		if (cut) {
			assert_non_null(strstr(report, path));
			assert_non_null(strstr(report, "missing cable"));
		} else {
			assert_string_equal(report, "");
		}
		size_t idx;
		assert_int_equal(qft_fabric_tree_index(f, "n0004", &idx, NULL), QFT_OK);
		qft_fabric_destroy(f);
		unlink(path);
	}
}

/* The file at `path`, at most size - 1 bytes, NUL-terminated. */
static void read_text(const char *path, char *text, size_t size)
{
	FILE *in = fopen(path, "r");
	assert_non_null(in);
	text[fread(text, 1, size - 1, in)] = 0;
	fclose(in);
}

/* What `qft status` reads: a host whose cable is cut is not attached, the
 * destinations the cut cost are among the attached ones, and the record
 * slurmctld writes names the fabric, the cut-off nodes and the findings. */
static void status_of_a_degraded_fabric(void **state)
{
	(void)state;
	char path[64], status_path[80];
	qft_fabric_t *f = NULL;
	char *err = NULL;
	size_t *lost = NULL, count = 99;

	write_untreed(path, 0);
	assert_int_equal(qft_fabric_load(path, &f, &err), QFT_OK);
	for (size_t h = 0; h < 4; h++)
		assert_int_equal(qft_fabric_host_attached(f, h), 1);
	assert_int_equal(qft_fabric_host_attached(f, 4), 0);
	assert_int_equal(qft_fabric_attached_host_count(f), 4);
	assert_int_equal(qft_fabric_lost_destinations(f, &lost, &count, &err), QFT_OK);
	assert_int_equal(count, 0); /* whole: every down-link one destination */
	qft_free(lost);
	qft_fabric_destroy(f);
	unlink(path);

	/* Leaf b's cable to spine b cut: from leaf a, n0004's traffic falls back
	 * to spine a and comes down spine a -> leaf b beside n0003's; from leaf
	 * b, n0001's and n0002's both go through spine a. */
	write_untreed(path, 1);
	assert_int_equal(qft_fabric_load(path, &f, &err), QFT_OK);
	assert_int_equal(qft_fabric_lost_destinations(f, &lost, &count, &err), QFT_OK);
	assert_int_equal(count, 4);
	qft_free(lost);
	qft_fabric_destroy(f);
	unlink(path);

	/* n0002 without a tree position; leaf 1 without a cable up: its hosts
	 * are attached (to their leaf) but unreachable from leaf 0 */
	write_degraded(path, 3);
	assert_int_equal(qft_fabric_load(path, &f, &err), QFT_OK);
	assert_int_equal(qft_fabric_host_attached(f, qft_fabric_find_host(f, "n0002")), 0);
	assert_int_equal(qft_fabric_host_attached(f, qft_fabric_find_host(f, "n0001")), 1);
	assert_int_equal(qft_fabric_host_attached(f, qft_fabric_find_host(f, "n0004")), 1);
	assert_int_equal(qft_fabric_attached_host_count(f), 3);
	assert_int_equal(qft_fabric_lost_destinations(f, &lost, &count, &err), QFT_EUNROUTABLE);
	assert_non_null(strstr(err, "no path from n0003 to n0001"));
	assert_null(lost);
	qft_free(err);

	snprintf(status_path, sizeof(status_path), "%s.status", path);
	qft_controller_status_t st = {.slurm_version = "22.05.8", .source = path,
				      .format = "json", .loaded = 5, .attempted = 6,
				      .attempt_file = path, .cut_off = "n0002",
				      .cut_off_count = 1};
	assert_int_equal(qft_status_write(status_path, f, &st, &err), QFT_OK);
	assert_null(err);
	char text[4096];
	read_text(status_path, text, sizeof(text));
	assert_non_null(strstr(text, "\"format\": \"slurm-qft-status\""));
	assert_non_null(strstr(text, "\"cut_off\": \"n0002\""));
	assert_non_null(strstr(text, "\"tree\": \"PGFT("));
	assert_non_null(strstr(text, "has no tree position"));
	assert_non_null(strstr(text, "\"refused\": \"\""));
	/* a refused load with no fabric in the process: Slurm 24.11's failed
	 * reconfigure keeps the old process's fabric, a failed start has none */
	assert_int_equal(qft_status_note_refusal(status_path, 1, 7, path, "bad: line 2", &err), QFT_OK);
	read_text(status_path, text, sizeof(text));
	assert_non_null(strstr(text, "\"refused\": \"bad: line 2\""));
	assert_non_null(strstr(text, "\"tree\": \"PGFT("));
	assert_non_null(strstr(text, "\"cut_off\": \"n0002\""));
	assert_int_equal(qft_status_note_refusal(status_path, 0, 8, path, "bad again", &err), QFT_OK);
	read_text(status_path, text, sizeof(text));
	assert_non_null(strstr(text, "\"refused\": \"bad again\""));
	assert_non_null(strstr(text, "\"source\": \"\""));
	assert_null(strstr(text, "PGFT("));
	/* a directory that is not there: an error naming the path */
	assert_int_equal(qft_status_write("/nonexistent/dir/qft-status.json", f, &st, &err), QFT_EIO);
	assert_non_null(strstr(err, "/nonexistent/dir/qft-status.json"));
	qft_free(err);
	qft_fabric_destroy(f);
	unlink(status_path);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(generate_and_query),
		cmocka_unit_test(order_and_score),
		cmocka_unit_test(groups_form_a_tree),
		cmocka_unit_test(errors_carry_messages),
		cmocka_unit_test(degraded_fabric_loads),
		cmocka_unit_test(untreed_fabric_is_recognised),
		cmocka_unit_test(status_of_a_degraded_fabric),
		cmocka_unit_test(products_and_routing),
		cmocka_unit_test(lid_choice),
		cmocka_unit_test(lid_request),
		cmocka_unit_test(placer_predicts_within_its_budget),
		cmocka_unit_test(isolation),
	};
	return cmocka_run_group_tests_name("capi", tests, NULL, NULL);
}
