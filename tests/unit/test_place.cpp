// SPDX-License-Identifier: GPL-2.0-or-later
// Placement: aligned blocks in the smallest subtree, running jobs, the
// remainder policies, and the not-now / never answers.
#include <memory>
#include <optional>

#include "lib/place/placement.hpp"
#include "lib/route/dmodk.hpp"
#include "lib/tree/generate.hpp"
#include "lib/tree/tree.hpp"

#include "tests/unit/cmocka.hpp"

using namespace qft;

namespace {

struct World {
	Fabric fabric;
	std::optional<Tree> tree;
	std::unique_ptr<DModK> router;
	std::unique_ptr<Placer> placer;
	explicit World(Remainder rem = Remainder::exact, const char *tuple = "3;18,18,6;1,18,6;1,1,3")
	{
		fabric = generate_pgft(Pgft::parse(tuple), GenOptions());
		tree.emplace(Tree::from_fabric(fabric));
		router = std::make_unique<DModK>(fabric, *tree);
		PlacementPolicy pol;
		pol.remainder = rem;
		placer = std::make_unique<Placer>(fabric, *tree, *router, pol);
	}
	Placement place(uint32_t n) const
	{
		PlacementRequest req;
		req.nodes = n;
		req.eligible.assign(fabric.hosts().size(), true);
		return placer->place(req);
	}
};

uint64_t first(const Placement &p) { return p.chosen.hosts.front(); }

void multiples_of_the_block_are_aligned(void **)
{
	World w;
	struct Case {
		uint32_t n;
		unsigned level;
	} cases[] = {{7, 1}, {18, 1}, {36, 2}, {324, 2}, {648, 3}, {1944, 3}};
	for (const Case &c : cases) {
		Placement p = w.place(c.n);
		assert_int_equal(p.outcome, Placement::placed);
		assert_int_equal(p.chosen.hosts.size(), c.n);
		assert_int_equal(p.chosen.level, c.level);
		assert_true(p.chosen.hsd == 1.0);
		assert_int_equal(first(p) % p.chosen.block, 0);
	}
	// 100 is no multiple of 18: exact gives 100 hosts, not congestion-free
	Placement p = w.place(100);
	assert_int_equal(p.chosen.hosts.size(), 100);
	assert_false(p.chosen.aligned);
	assert_true(p.chosen.hsd > 1.0);
}

void running_jobs_steer_new_ones(void **)
{
	World w;
	Placement a = w.place(36);
	w.placer->add_running(1, a.chosen.hosts);
	Placement b = w.place(36);
	assert_int_equal(b.outcome, Placement::placed);
	for (HostOrd h : b.chosen.hosts)
		assert_false(w.placer->holds(h) && std::find(a.chosen.hosts.begin(),
							      a.chosen.hosts.end(), h) != a.chosen.hosts.end());
	assert_int_equal(first(b) % 18, 0);
	assert_true(b.chosen.hsd == 1.0); // together with the first
	w.placer->add_running(2, b.chosen.hosts);
	assert_int_equal(w.placer->running(), 2);
	w.placer->remove_running(1);
	assert_int_equal(w.placer->running(), 1);
	assert_false(w.placer->holds(a.chosen.hosts[0]));
	// best fit: a 7-node job goes to a leaf that is already partly used
	w.placer->add_running(3, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
	Placement c = w.place(7);
	assert_int_equal(c.chosen.level, 1);
	assert_int_equal(first(c), 11);
}

void remainder_policies(void **)
{
	for (Remainder rem : {Remainder::exact, Remainder::reserve}) {
		World w(rem);
		Placement p = w.place(100); // 5 leaves and 10 hosts of a sixth
		w.placer->add_running(1, p.chosen.hosts);
		uint64_t partial_leaf = p.chosen.hosts.back() / 18;
		Placement q = w.place(8);
		bool in_partial = q.chosen.hosts.front() / 18 == partial_leaf;
		// exact: the 8 free hosts of the partial leaf fit best; reserve:
		// the rest of that block stays free while job 1 runs
		assert_true(rem == Remainder::exact ? in_partial : !in_partial);
	}
}

void not_now_and_never(void **)
{
	World w(Remainder::exact, "2;4,4;1,4;1,1");
	Placement p = w.place(17);
	assert_int_equal(p.outcome, Placement::never);
	assert_non_null(strstr(p.reason.c_str(), "17 nodes requested, 16 eligible"));
	w.placer->add_running(1, w.place(12).chosen.hosts);
	p = w.place(8);
	assert_int_equal(p.outcome, Placement::not_now);
	assert_non_null(strstr(p.reason.c_str(), "8 nodes requested, 4 free now"));
	// the four free hosts still take a 4-node job
	assert_int_equal(w.place(4).outcome, Placement::placed);
}

void required_hosts_are_kept(void **)
{
	World w;
	PlacementRequest req;
	req.nodes = 36;
	req.eligible.assign(w.fabric.hosts().size(), true);
	req.required = {400};
	Placement p = w.placer->place(req);
	assert_int_equal(p.outcome, Placement::placed);
	assert_true(std::find(p.chosen.hosts.begin(), p.chosen.hosts.end(), 400) !=
		    p.chosen.hosts.end());
	assert_true(p.chosen.aligned);
	req.eligible[400] = false;
	assert_int_equal(w.placer->place(req).outcome, Placement::never);
}

void scattered_whole_blocks_when_no_run_is_free(void **)
{
	World w(Remainder::exact, "2;4,4;1,4;1,1");
	// leaves 0 and 2 free, 1 and 3 held: a 8-node job takes leaves 0 and 2
	w.placer->add_running(1, {4, 5, 6, 7});
	w.placer->add_running(2, {12, 13, 14, 15});
	Placement p = w.place(8);
	assert_int_equal(p.outcome, Placement::placed);
	assert_false(p.chosen.contiguous);
	assert_true(p.chosen.aligned);
	assert_true(p.chosen.hsd == 1.0);
}

void candidates_are_in_tree_order(void **)
{
	World w(Remainder::exact, "2;4,4;1,4;1,1");
	// 6 nodes: leaf 1 whole, the remainder of 2 in leaf 0 (the only other
	// leaf with 2 free): ranks in tree order, as the job runs and is scored
	w.placer->add_running(1, {0, 1});
	w.placer->add_running(2, {8, 9, 10});
	w.placer->add_running(3, {12, 13, 14});
	Placement p = w.place(6);
	assert_false(p.chosen.contiguous);
	std::vector<HostOrd> want = {2, 3, 4, 5, 6, 7};
	assert_true(p.chosen.hosts == want);
}

void best_fit_when_no_block_is_free(void **)
{
	World w(Remainder::exact, "2;4,4;1,4;1,1");
	// every leaf partly held (free: 3, 2, 3, 1): no whole block for 6 nodes.
	// Best fit: the fullest leaf (0), then the leaf that holds the rest
	// with the fewest free hosts (2), not the first free hosts (leaf 1).
	w.placer->add_running(1, {0});
	w.placer->add_running(2, {4, 5});
	w.placer->add_running(3, {8});
	w.placer->add_running(4, {12, 13, 14});
	Placement p = w.place(6);
	assert_int_equal(p.outcome, Placement::placed);
	assert_true(p.chosen.best_fit);
	assert_non_null(strstr(p.chosen.label().c_str(), "best fit"));
	std::vector<HostOrd> want = {1, 2, 3, 9, 10, 11};
	assert_true(p.chosen.hosts == want);
	// 4 nodes: no leaf holds them; leaf 0's three, and the last one in
	// the leaf with a single free host (3), which no other job could use
	Placement q = w.place(4);
	std::vector<HostOrd> want4 = {1, 2, 3, 15};
	assert_true(q.chosen.best_fit);
	assert_true(q.chosen.hosts == want4);
}

} // namespace

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(multiples_of_the_block_are_aligned),
		cmocka_unit_test(running_jobs_steer_new_ones),
		cmocka_unit_test(remainder_policies),
		cmocka_unit_test(not_now_and_never),
		cmocka_unit_test(required_hosts_are_kept),
		cmocka_unit_test(scattered_whole_blocks_when_no_run_is_free),
		cmocka_unit_test(candidates_are_in_tree_order),
		cmocka_unit_test(best_fit_when_no_block_is_free),
	};
	return cmocka_run_group_tests_name("place", tests, nullptr, nullptr);
}
