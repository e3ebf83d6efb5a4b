/* SPDX-License-Identifier: GPL-2.0-or-later */
/* select/rlft's ShapeWait= arithmetic (src/plugins/select/rlft/rlft_wait.c):
 * how long a job may wait for a congestion-free shape, counted from when
 * its wait began (its eligible time or first declined start), and when its
 * node count first fits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <math.h>

#include <cmocka.h>

#include "src/plugins/select/rlft/rlft_wait.h"

static void wait_from_limits(void **state)
{
	(void)state;
	rlft_wait_job_t j = {.limit = 10};
	assert_true(rlft_shape_wait(&j, 100, 0) == 600);
	assert_true(rlft_shape_wait(&j, 25, 0) == 150);
	assert_true(rlft_shape_wait(&j, 25, 100) == 100); /* ShapeWaitMax= caps */
	assert_true(rlft_shape_wait(&j, 0, 100) == 0);    /* ShapeWait=0: never */
	/* no --time: the partition's DefaultTime, else its MaxTime */
	j = (rlft_wait_job_t){.part_default = 30, .part_max = 120};
	assert_true(rlft_shape_wait(&j, 10, 0) == 180);
	j.part_default = 0;
	assert_true(rlft_shape_wait(&j, 10, 0) == 720);
	/* unlimited everywhere: only ShapeWaitMax= gives a wait */
	j.part_max = 0;
	assert_true(rlft_shape_wait(&j, 10, 0) == 0);
	assert_true(rlft_shape_wait(&j, 10, 300) == 300);
}

static void wait_counted_from_since(void **state)
{
	(void)state;
	const time_t now = 1000000;
	rlft_wait_job_t j = {.limit = 10, .since = now};
	/* the wait just began: the whole of it is left */
	assert_true(rlft_shape_left(&j, 600, now) == 600);
	/* began 450 s ago: a shape due in more than 150 s is too late,
	 * however many tests in between found one due within 600 s */
	j.since = now - 450;
	assert_true(rlft_shape_left(&j, 600, now) == 150);
	j.since = now - 600;
	assert_true(rlft_shape_left(&j, 600, now) <= 0);
	j.since = now - 7200;
	assert_true(rlft_shape_left(&j, 600, now) <= 0);
	/* not yet (never declined), or in the future (--begin): the whole
	 * wait */
	j.since = 0;
	assert_true(rlft_shape_left(&j, 600, now) == 600);
	j.since = now + 60;
	assert_true(rlft_shape_left(&j, 600, now) == 600);
}

static void count_fits(void **state)
{
	(void)state;
	const double free_at[6] = {0, 30, INFINITY, 10, 20, 50};
	const uint8_t eligible[6] = {1, 1, 1, 1, 0, 1};
	assert_true(rlft_count_fits(free_at, eligible, 6, 1) == 0);
	assert_true(rlft_count_fits(free_at, eligible, 6, 2) == 10);
	/* host 4 (free at 20) is not eligible: the third comes at 30 */
	assert_true(rlft_count_fits(free_at, eligible, 6, 3) == 30);
	assert_true(rlft_count_fits(free_at, eligible, 6, 4) == 50);
	/* host 2 is never free */
	assert_true(isinf(rlft_count_fits(free_at, eligible, 6, 5)));
	assert_true(isinf(rlft_count_fits(free_at, eligible, 6, 0)));
}

/* Jobs 1-9 pending, job 5 not any more; priority 100 - id, job 7 raised to 200 */
static bool pending_jobs(uint32_t id, uint32_t *priority)
{
	if (id == 5 || id > 9)
		return false;
	*priority = id == 7 ? 200 : 100 - id;
	return true;
}

static void holders_first_k(void **state)
{
	(void)state;
	rlft_holders_t hs = {0};

	/* ShapeHolds=0: everyone holds */
	assert_true(rlft_may_hold(&hs, 3, 97, 0, pending_jobs));
	/* ShapeHolds=2: job 4 and 6 hold; job 8 (priority 92) ranks below both */
	rlft_hold(&hs, 4, 96);
	rlft_hold(&hs, 6, 94);
	assert_false(rlft_may_hold(&hs, 8, 92, 2, pending_jobs));
	assert_true(rlft_may_hold(&hs, 8, 92, 3, pending_jobs));
	/* job 3 ranks above both: it may hold */
	assert_true(rlft_may_hold(&hs, 3, 97, 2, pending_jobs));
	/* the same priority: the lower id first */
	assert_false(rlft_may_hold(&hs, 9, 94, 2, pending_jobs));
	/* job 5 started: dropped, and job 8 may hold behind 4 alone */
	rlft_hold(&hs, 5, 95);
	assert_int_equal(hs.count, 3);
	rlft_unhold(&hs, 6);
	assert_true(rlft_may_hold(&hs, 8, 92, 2, pending_jobs));
	assert_int_equal(hs.count, 1);
	/* priorities are asked afresh: job 7 now ranks first */
	rlft_hold(&hs, 7, 93);
	assert_false(rlft_may_hold(&hs, 4, 96, 1, pending_jobs));
	assert_true(rlft_may_hold(&hs, 7, 200, 1, pending_jobs));
	/* a holder is counted once however often it holds */
	rlft_hold(&hs, 7, 200);
	rlft_hold(&hs, 4, 96);
	assert_int_equal(hs.count, 2);
	for (uint32_t id = 20; id < 60; id++) /* grows */
		rlft_hold(&hs, id, 1);
	assert_int_equal(hs.count, 42);
	rlft_holders_free(&hs);
	assert_int_equal(hs.count, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wait_from_limits),
		cmocka_unit_test(wait_counted_from_since),
		cmocka_unit_test(count_fits),
		cmocka_unit_test(holders_first_k),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
