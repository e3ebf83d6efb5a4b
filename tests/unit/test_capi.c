/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The C API as a plugin sees it, written in C. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(generate_and_query),
		cmocka_unit_test(order_and_score),
		cmocka_unit_test(groups_form_a_tree),
		cmocka_unit_test(errors_carry_messages),
	};
	return cmocka_run_group_tests_name("capi", tests, NULL, NULL);
}
