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
	/* --qft-shape-wait=MINUTES: the job's own, with ShapeWait= or
	 * without, under ShapeWaitMax=; 0: this job never waits */
	j = (rlft_wait_job_t){.limit = 10, .own_set = true, .own = 3};
	assert_true(rlft_shape_wait(&j, 0, 0) == 180);
	assert_true(rlft_shape_wait(&j, 100, 0) == 180);
	assert_true(rlft_shape_wait(&j, 100, 60) == 60);
	j.own = 0;
	assert_true(rlft_shape_wait(&j, 100, 0) == 0);
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

/* rlft_free_at's view kept between tests: the same figures as a walk. */
static void ends_free_at(void **state)
{
	(void)state;
	const time_t now = 1000;
	rlft_ends_t e = {0};
	uint8_t eligible[5] = {1, 1, 1, 1, 0};
	double at[5];

	assert_true(rlft_ends_reset(&e, 5));
	rlft_ends_raise(&e, 0, now + 60, false);
	rlft_ends_raise(&e, 0, now + 30, false); /* the latest end counts */
	rlft_ends_raise(&e, 1, now - 5, false);  /* past its limit */
	rlft_ends_raise(&e, 2, now + 90, false);
	rlft_ends_raise(&e, 2, 0, true);         /* suspended: never */
	rlft_ends_raise(&e, 2, now + 10, false);
	rlft_ends_raise(&e, 4, now + 10, false);
	rlft_ends_raise(&e, 9, now + 10, false); /* no such host: ignored */
	rlft_ends_free_at(&e, eligible, now, at);
	assert_true(at[0] == 60);
	assert_true(at[1] == 0);
	assert_true(isinf(at[2]));
	assert_true(at[3] == 0); /* idle */
	assert_true(isinf(at[4])); /* not eligible */
	rlft_ends_free_at(&e, eligible, now + 45, at);
	assert_true(at[0] == 15); /* time passes without a rebuild */
	assert_true(rlft_ends_reset(&e, 3)); /* another fabric */
	rlft_ends_free_at(&e, eligible, now, at);
	assert_true(at[0] == 0 && at[1] == 0 && at[2] == 0);
	rlft_ends_free(&e);
}

/* When a view of the job list is rebuilt. */
static void stamp_fresh(void **state)
{
	(void)state;
	rlft_stamp_t none = {0};
	rlft_stamp_t s = rlft_stamp(100, 7, 105); /* built 5 s after the update */

	assert_false(rlft_stamp_fresh(&none, 0, 0, 0));
	assert_true(rlft_stamp_fresh(&s, 100, 7, 105));
	assert_true(rlft_stamp_fresh(&s, 100, 7, 500)); /* time alone changes nothing */
	assert_false(rlft_stamp_fresh(&s, 106, 7, 106)); /* a job changed */
	assert_false(rlft_stamp_fresh(&s, 100, 8, 105)); /* a start or an end */
	/* built in the update's second: trusted in that second, rebuilt once
	 * in a later one (a second change in that second would not show) */
	s = rlft_stamp(100, 7, 100);
	assert_true(rlft_stamp_fresh(&s, 100, 7, 100));
	assert_false(rlft_stamp_fresh(&s, 100, 7, 101));
	s = rlft_stamp(100, 7, 101);
	assert_true(rlft_stamp_fresh(&s, 100, 7, 101));
	assert_true(rlft_stamp_fresh(&s, 100, 7, 102));
}

static bool keep_even(uint32_t id, void *arg)
{
	(void)arg;
	return id % 2 == 0;
}

static void count_drop(uint32_t id, void *arg)
{
	(void)id;
	++*(int *)arg;
}

/* The hosts each tracked job is known on: a re-add on the same hosts is
 * skipped, on others not. */
static void seen_jobs(void **state)
{
	(void)state;
	rlft_seen_t seen = {0};
	size_t a[3] = {4, 5, 6}, b[3] = {4, 5, 7}, c[2] = {4, 5};
	uint64_t sa = rlft_hosts_sig(a, 3);
	int dropped = 0;

	assert_true(sa != rlft_hosts_sig(b, 3));
	assert_true(rlft_hosts_sig(a, 2) == rlft_hosts_sig(c, 2));
	assert_true(rlft_hosts_sig(a, 2) != sa);
	assert_false(rlft_seen_same(&seen, 1, sa));
	assert_false(rlft_seen_put(&seen, 0, sa)); /* no job 0 */
	/* many ids, colliding ones too: every lookup and removal holds */
	for (uint32_t id = 1; id <= 5000; id++)
		assert_true(rlft_seen_put(&seen, id * 64, id));
	assert_true(seen.count == 5000);
	for (uint32_t id = 1; id <= 5000; id += 3)
		rlft_seen_del(&seen, id * 64);
	for (uint32_t id = 1; id <= 5000; id++)
		assert_true(rlft_seen_same(&seen, id * 64, id) == (id % 3 != 1));
	rlft_seen_del(&seen, 12345); /* unknown: nothing */
	assert_true(rlft_seen_put(&seen, 128, sa)); /* replaced */
	assert_true(rlft_seen_same(&seen, 128, sa));
	assert_false(rlft_seen_same(&seen, 128, 2));
	/* a reconfigure keeps only the jobs still running */
	rlft_seen_sweep(&seen, keep_even, count_drop, &dropped);
	assert_true(dropped == 0); /* every id * 64 is even */
	assert_true(rlft_seen_put(&seen, 3, sa));
	assert_true(rlft_seen_put(&seen, 5, sa));
	rlft_seen_sweep(&seen, keep_even, count_drop, &dropped);
	assert_true(dropped == 2);
	assert_false(rlft_seen_same(&seen, 3, sa));
	assert_true(rlft_seen_same(&seen, 128, sa));
	rlft_seen_free(&seen);
	assert_true(seen.count == 0 && !rlft_seen_same(&seen, 128, sa));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wait_from_limits),
		cmocka_unit_test(wait_counted_from_since),
		cmocka_unit_test(count_fits),
		cmocka_unit_test(holders_first_k),
		cmocka_unit_test(ends_free_at),
		cmocka_unit_test(stamp_fresh),
		cmocka_unit_test(seen_jobs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
