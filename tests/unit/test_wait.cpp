// SPDX-License-Identifier: GPL-2.0-or-later
// ShapeWait='s rules (lib/place/wait.hpp): how long a job may wait for a
// congestion-free shape, counted from when its wait began (its eligible
// time or first declined start), when a start is declined for one, and
// which waiting jobs hold nodes for theirs (ShapeHolds=), and what
// isolation leaves to cons_tres; then the same through the C API
// select/rlft calls.
#include <cmath>
#include <map>

#include "lib/place/wait.hpp"
#include "qft/qft.h"

#include "tests/unit/cmocka.hpp"

using namespace qft;

namespace {

void wait_from_limits(void **)
{
	WaitingJob j;
	j.limit = 10;
	assert_true(shape_wait(j, {100, 0}) == 600);
	assert_true(shape_wait(j, {25, 0}) == 150);
	assert_true(shape_wait(j, {25, 100}) == 100); // ShapeWaitMax= caps
	assert_true(shape_wait(j, {0, 100}) == 0);    // ShapeWait=0: never
	// no --time: the partition's DefaultTime, else its MaxTime
	j = WaitingJob{};
	j.part_default = 30;
	j.part_max = 120;
	assert_true(shape_wait(j, {10, 0}) == 180);
	j.part_default = 0;
	assert_true(shape_wait(j, {10, 0}) == 720);
	// unlimited everywhere: only ShapeWaitMax= gives a wait
	j.part_max = 0;
	assert_true(shape_wait(j, {10, 0}) == 0);
	assert_true(shape_wait(j, {10, 300}) == 300);
	// --qft-shape-wait=MINUTES: the job's own, with ShapeWait= or
	// without, under ShapeWaitMax=; 0: this job never waits
	j = WaitingJob{};
	j.limit = 10;
	j.own_set = true;
	j.own = 3;
	assert_true(shape_wait(j, {0, 0}) == 180);
	assert_true(shape_wait(j, {100, 0}) == 180);
	assert_true(shape_wait(j, {100, 60}) == 60);
	j.own = 0;
	assert_true(shape_wait(j, {100, 0}) == 0);
}

void wait_counted_from_since(void **)
{
	const std::time_t now = 1000000;
	WaitingJob j;
	j.limit = 10;
	j.since = now;
	// the wait just began: the whole of it is left
	assert_true(shape_left(j, 600, now) == 600);
	// began 450 s ago: a shape due in more than 150 s is too late,
	// however many tests in between found one due within 600 s
	j.since = now - 450;
	assert_true(shape_left(j, 600, now) == 150);
	j.since = now - 600;
	assert_true(shape_left(j, 600, now) <= 0);
	j.since = now - 7200;
	assert_true(shape_left(j, 600, now) <= 0);
	// not yet (never declined), or in the future (--begin): all of it
	j.since = 0;
	assert_true(shape_left(j, 600, now) == 600);
	j.since = now + 60;
	assert_true(shape_left(j, 600, now) == 600);
}

// ShapeWaitEnds=: the ends the site expects, a share of what is left of
// the limits. A shape the limits put past the wait (a 10-minute job at
// ShapeWait=25 waits 150 s; the hosts come free by the limits in 400 s)
// comes within it at 25% (100 s); free hosts and suspended jobs' stay.
void ends_the_site_expects(void **)
{
	const double by_limits[] = {0, 400, INFINITY, 60};
	double at[4];
	WaitingJob j;
	j.limit = 10;
	const double wait = shape_wait(j, {25, 0, 25});
	assert_true(wait == 150);
	std::copy(by_limits, by_limits + 4, at);
	shape_forecast(at, 4, {25, 0, 25});
	assert_true(at[0] == 0 && at[1] == 100 && std::isinf(at[2]) && at[3] == 15);
	assert_true(at[1] < shape_left(j, wait, 0) && by_limits[1] > shape_left(j, wait, 0));
	// 100 (the default) and 0 (a rule without it): by the limits
	for (uint32_t ends : {100u, 0u}) {
		std::copy(by_limits, by_limits + 4, at);
		shape_forecast(at, 4, {25, 0, ends});
		assert_true(std::equal(at, at + 4, by_limits));
	}
}

void decline_only_what_congests(void **)
{
	// a congesting start of 8 hosts, a shape due in 120 s: declined
	assert_true(decline_for_shape(false, 8, 120));
	// a shape free now is the placer's to take, none at all is no reason
	assert_false(decline_for_shape(false, 8, 0));
	assert_false(decline_for_shape(false, 8, -1));
	// proven congestion-free now, or one host (no switch link): start
	assert_false(decline_for_shape(true, 8, 120));
	assert_false(decline_for_shape(false, 1, 120));
}

// Isolation leaves cons_tres only what uses no switch link.
void what_cons_tres_may_take(void **)
{
	assert_false(isolation_in_play(false, 0, 8));
	assert_true(isolation_in_play(true, 0, 1));  // it asks: always
	assert_true(isolation_in_play(false, 2, 8)); // beside isolated jobs
	assert_false(isolation_in_play(false, 2, 1)); // one node: no link
	// nothing isolated and nothing asked: the whole bitmap
	assert_true(pass_to_cons_tres(true, false, 0, 64) == Pass::whole_bitmap);
	// a backfill plan starts nothing: cons_tres plans as it likes
	assert_true(pass_to_cons_tres(false, true, 3, 64) == Pass::whole_bitmap);
	// beside isolated jobs a multi-node job waits; so does one asking
	assert_true(pass_to_cons_tres(true, false, 3, 2) == Pass::wait);
	assert_true(pass_to_cons_tres(true, true, 0, 64) == Pass::wait);
	// one node: off the isolated jobs' nodes, on an idle one if it asks
	assert_true(pass_to_cons_tres(true, false, 3, 1) == Pass::off_isolated);
	assert_true(pass_to_cons_tres(true, true, 0, 1) == Pass::idle_off_isolated);
	assert_true(pass_to_cons_tres(true, true, 3, 0) == Pass::idle_off_isolated);
	// the C API's names for the same answers
	assert_int_equal(qft_pass_to_cons_tres(1, 0, 3, 2), QFT_PASS_WAIT);
	assert_int_equal(qft_pass_to_cons_tres(1, 0, 3, 1), QFT_PASS_OFF_ISOLATED);
	assert_int_equal(qft_pass_to_cons_tres(1, 1, 0, 1), QFT_PASS_IDLE_OFF_ISOLATED);
	assert_int_equal(qft_pass_to_cons_tres(1, 0, 0, 9), QFT_PASS_WHOLE);
	assert_true(qft_isolation_in_play(0, 1, 2) && !qft_isolation_in_play(0, 1, 1));
}

// Jobs 1-9 pending, job 5 not any more; priority 100 - id, job 7 raised
// to 200.
bool pending_jobs(uint32_t id, uint32_t &priority)
{
	if (id == 5 || id > 9)
		return false;
	priority = id == 7 ? 200 : 100 - id;
	return true;
}

void holders_first_k(void **)
{
	ShapeHolders hs;
	// ShapeHolds=0: everyone holds
	assert_true(hs.may_hold(3, 97, 0, pending_jobs));
	// ShapeHolds=2: jobs 4 and 6 hold; job 8 (priority 92) ranks below both
	hs.hold(4, 96);
	hs.hold(6, 94);
	assert_false(hs.may_hold(8, 92, 2, pending_jobs));
	assert_true(hs.may_hold(8, 92, 3, pending_jobs));
	// job 3 ranks above both: it may hold
	assert_true(hs.may_hold(3, 97, 2, pending_jobs));
	// the same priority: the lower id first
	assert_false(hs.may_hold(9, 94, 2, pending_jobs));
	// job 5 started: dropped, and job 8 may hold behind 4 alone
	hs.hold(5, 95);
	assert_int_equal(hs.size(), 3);
	hs.unhold(6);
	assert_true(hs.may_hold(8, 92, 2, pending_jobs));
	assert_int_equal(hs.size(), 1);
	// priorities are asked afresh: job 7 now ranks first
	hs.hold(7, 93);
	assert_false(hs.may_hold(4, 96, 1, pending_jobs));
	assert_true(hs.may_hold(7, 200, 1, pending_jobs));
	// a holder is counted once however often it holds
	hs.hold(7, 200);
	hs.hold(4, 96);
	assert_int_equal(hs.size(), 2);
	for (uint32_t id = 20; id < 60; id++)
		hs.hold(id, 1);
	assert_int_equal(hs.size(), 42);
}

int c_pending(uint32_t id, uint32_t *priority, void *arg)
{
	auto *asked = static_cast<std::map<uint32_t, int> *>(arg);
	(*asked)[id]++;
	uint32_t p = 0;
	if (!pending_jobs(id, p))
		return 0;
	*priority = p;
	return 1;
}

// What select/rlft calls: the same rules, C's structs and callbacks.
void through_the_c_api(void **)
{
	qft_wait_job_t j{};
	j.limit = 10;
	j.since = 1000;
	const qft_shape_wait_rule_t rule{25, 0, 0};
	double wait = -1, left = -1;
	qft_shape_wait(&j, &rule, 1100, &wait, &left);
	assert_true(wait == 150 && left == 50);
	j.own_set = 1;
	j.own = 0;
	qft_shape_wait(&j, &rule, 1100, &wait, &left);
	assert_true(wait == 0);
	double at[] = {0, 200, INFINITY};
	const qft_shape_wait_rule_t expects{25, 0, 30};
	qft_shape_forecast(&expects, at, 3);
	assert_true(at[0] == 0 && at[1] == 60 && std::isinf(at[2]));
	qft_shape_forecast(&rule, at, 3); // ends 0: unchanged
	assert_true(at[1] == 60);
	qft_shape_forecast(nullptr, at, 3);
	qft_shape_forecast(&expects, nullptr, 3);

	qft_placement_t now{};
	now.outcome = QFT_PLACED;
	now.count = 6;
	assert_true(qft_shape_decline(&now, 30));
	assert_true(qft_shape_decline(&now, INFINITY)); // any later shape would do
	assert_false(qft_shape_decline(&now, 0));
	now.congestion_free = 1;
	assert_false(qft_shape_decline(&now, 30));
	now.congestion_free = 0;
	now.offset_shape = 1; // whole leaves of one pod at LMC > 0
	assert_false(qft_shape_decline(&now, 30));
	now.offset_shape = 0;
	now.outcome = QFT_NOT_NOW;
	assert_false(qft_shape_decline(&now, 30));
	assert_false(qft_shape_decline(nullptr, 30));

	qft_holders_t *hs = qft_holders_create();
	assert_non_null(hs);
	std::map<uint32_t, int> asked;
	qft_holders_hold(hs, 4, 96);
	qft_holders_hold(hs, 5, 95);
	assert_true(qft_holders_may_hold(hs, 8, 92, 2, c_pending, &asked));
	assert_int_equal(asked[4], 1); // asked of the others
	assert_int_equal(asked[5], 1);
	assert_int_equal(qft_holders_count(hs), 1); // job 5 no longer waits
	qft_holders_hold(hs, 6, 94);
	assert_false(qft_holders_may_hold(hs, 8, 92, 2, c_pending, &asked));
	qft_holders_unhold(hs, 4);
	assert_true(qft_holders_may_hold(hs, 8, 92, 2, c_pending, &asked));
	// a missing callback is an error, not a crash: it may not hold
	assert_false(qft_holders_may_hold(hs, 8, 92, 2, nullptr, nullptr));
	qft_holders_destroy(hs);
	qft_holders_hold(nullptr, 1, 1); // no holders (out of memory): nothing
	qft_holders_unhold(nullptr, 1);
	assert_int_equal(qft_holders_count(nullptr), 0);
}

} // namespace

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wait_from_limits),
		cmocka_unit_test(wait_counted_from_since),
		cmocka_unit_test(ends_the_site_expects),
		cmocka_unit_test(decline_only_what_congests),
		cmocka_unit_test(holders_first_k),
		cmocka_unit_test(what_cons_tres_may_take),
		cmocka_unit_test(through_the_c_api),
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
