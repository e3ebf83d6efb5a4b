/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What select/rlft keeps between tests of slurmctld's job list
 * (src/plugins/select/rlft/rlft_cache.c): when each host is free, whether
 * a view still holds, and the hosts of each job the placer tracks. The
 * ShapeWait= rules themselves are libqft's: tests/unit/test_wait.cpp. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <math.h>

#include <cmocka.h>

#include "src/plugins/select/rlft/rlft_cache.h"

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
		cmocka_unit_test(ends_free_at),
		cmocka_unit_test(stamp_fresh),
		cmocka_unit_test(seen_jobs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
