// SPDX-License-Identifier: GPL-2.0-or-later
// Placement: aligned blocks in the smallest subtree, running jobs, the
// remainder policies, and the not-now / never answers.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <set>

#include "lib/model/model.hpp"
#include "lib/common/random.hpp"
#include "lib/place/explain.hpp"
#include "lib/place/placement.hpp"
#include "lib/place/wait.hpp"
#include "lib/route/dmodk.hpp"
#include "lib/score/score.hpp"
#include "lib/tree/generate.hpp"
#include "lib/tree/tree.hpp"

#include "tests/unit/cmocka.hpp"
#include "tests/unit/degraded.hpp"
#include "tests/unit/model.hpp"
#include "tests/unit/busy_positions.hpp"

using namespace qft;

namespace {

struct World : test::Modelled {
	std::unique_ptr<Placer> placer;
	explicit World(Remainder rem = Remainder::exact, const char *tuple = "3;18,18,6;1,18,6;1,1,3",
		       bool products = false)
		: Modelled(generated(tuple))
	{
		PlacementPolicy pol;
		pol.remainder = rem;
		pol.products = products;
		placer = std::make_unique<Placer>(fabric, *tree, *router, pol);
	}
	void set_policy(const PlacementPolicy &pol)
	{
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

// lib/score on the chosen hosts (every Shift stage, in the placer's rank
// order), in lock-step with the hosts of `beside`: a computation of the
// HSD independent of the placer's sampled one.
Score independent(const World &w, const Candidate &c,
		  const std::vector<std::vector<HostOrd>> &beside = {})
{
	std::vector<Job> jobs(1 + beside.size());
	jobs[0].ranks = c.hosts;
	for (size_t i = 0; i < beside.size(); i++)
		jobs[i + 1].ranks = beside[i];
	auto shift = make_pattern("shift", &w.tree->pgft());
	Score sc = score_jobs(w.fabric, *w.router, *shift, jobs);
	if (beside.empty() && shift->stage_count(uint32_t(c.hosts.size())) <=
				      w.placer->policy().sample_stages)
		assert_true(std::fabs(sc.avg_hsd - c.hsd_alone) < 1e-12); // all stages played
	return sc;
}

// The placer's figures say congestion-free, and so does lib/score.
void assert_congestion_free(const World &w, const Candidate &c,
			    const std::vector<std::vector<HostOrd>> &beside = {})
{
	assert_int_equal(independent(w, c, beside).max_hsd, 1);
	assert_true(c.hsd_alone == 1.0 && c.hsd == 1.0);
}

// --- product shapes (issue 12, docs/product-shapes.md) -------------------

// Jobs of product sizes, placed one after the other on the 1944-host tree:
// each is a product, congestion-free alone; all together they share no
// link and play Shift in lock-step without congestion.
void products_are_congestion_free_and_disjoint(void **)
{
	World w(Remainder::exact, "3;18,18,6;1,18,6;1,1,3", true);
	std::vector<std::vector<HostOrd>> placed;
	std::vector<Job> jobs;
	for (uint32_t n : {70u, 110u, 108u, 192u, 200u, 20u, 36u, 7u, 54u, 90u}) {
		Placement p = w.place(n);
		assert_int_equal(p.outcome, Placement::placed);
		assert_true(p.chosen.kind == PlacementKind::product);
		assert_true(p.chosen.congestion_free);
		assert_int_equal(p.chosen.hosts.size(), n);
		assert_congestion_free(w, p.chosen);
		w.placer->add_running(uint32_t(placed.size() + 1), p.chosen.hosts);
		placed.push_back(p.chosen.hosts);
		jobs.push_back(Job{p.chosen.hosts, {}, LidChoice::source});
	}
	ScoreOptions opt;
	opt.shared_links = true;
	auto shift = make_pattern("shift", &w.tree->pgft());
	Score all = score_jobs(w.fabric, *w.router, *shift, jobs, opt);
	assert_int_equal(all.shared_links, 0);
	assert_int_equal(all.max_hsd, 1);
}

// 756 = 7 x 108 hosts: a contiguous run of seven blocks congests on this
// tree's parallel top links (docs/sim.md, run 4); a product does not.
void product_beats_an_odd_run(void **)
{
	World blocks;
	Placement run = blocks.place(756);
	assert_true(run.chosen.kind != PlacementKind::product);
	assert_true(run.chosen.hsd_alone > 1.0);
	assert_false(run.chosen.congestion_free);
	World w(Remainder::exact, "3;18,18,6;1,18,6;1,1,3", true);
	Placement p = w.place(756);
	assert_true(p.chosen.kind == PlacementKind::product);
	assert_congestion_free(w, p.chosen);
}

// 70 hosts as 5 leaves x 14, then 20: the 20 take the 4 positions left in
// those 5 leaves (complementary positions, no link shared), not 2 whole
// free leaves.
void products_fill_used_leaves_first(void **)
{
	World w(Remainder::exact, "3;18,18,6;1,18,6;1,1,3", true);
	Placement a = w.place(70);
	assert_string_equal(a.chosen.shape.c_str(), "1x5x14");
	w.placer->add_running(1, a.chosen.hosts);
	Placement b = w.place(20);
	assert_string_equal(b.chosen.shape.c_str(), "1x5x4");
	std::set<uint64_t> leaves_a, leaves_b;
	for (HostOrd h : a.chosen.hosts)
		leaves_a.insert(w.tree->host_index(h) / 18);
	for (HostOrd h : b.chosen.hosts)
		leaves_b.insert(w.tree->host_index(h) / 18);
	assert_true(leaves_a == leaves_b);
	assert_congestion_free(w, b.chosen, {a.chosen.hosts});
}

// 97 is prime: as 6 leaves x 14 + 13 it congests (HSD 1.68). A job of
// 90-97 nodes gets the largest product in its range, 96, congestion-free;
// one of exactly 97 does not get a product.
void product_in_a_node_range(void **)
{
	World w(Remainder::exact, "3;18,18,6;1,18,6;1,1,3", true);
	PlacementRequest req;
	req.nodes = 97;
	req.nodes_min = 90;
	req.eligible.assign(w.fabric.hosts().size(), true);
	Placement p = w.placer->place(req);
	assert_true(p.chosen.kind == PlacementKind::product);
	assert_int_equal(p.chosen.hosts.size(), 96);
	assert_congestion_free(w, p.chosen);
	Placement exact = w.place(97);
	assert_true(exact.chosen.kind != PlacementKind::product);
	assert_int_equal(exact.chosen.hosts.size(), 97);
	assert_true(exact.chosen.hsd_alone > 1.0);
}

// Switch links two jobs both use, all-to-all in each (lib/score).
long links_shared(const World &w, const std::vector<std::vector<HostOrd>> &jobs)
{
	std::vector<Job> js;
	for (const auto &hosts : jobs)
		js.push_back(Job{hosts, {}, LidChoice::source});
	ScoreOptions opt;
	opt.shared_links = true;
	auto shift = make_pattern("shift", &w.tree->pgft());
	return score_jobs(w.fabric, *w.router, *shift, js, opt).shared_links;
}

// The links a candidate would share with a running job (Candidate::shared,
// from D-Mod-K's link names) are the links lib/score counts as shared
// between the two, all-to-all in each: for every candidate considered,
// beside a running job of each kind.
void shared_links_of_candidates_are_exact(void **)
{
	size_t checked = 0, sharing = 0;
	for (uint32_t first : {97u, 41u, 70u, 12u}) {
		World w(Remainder::exact, "2;18,18;1,18;1,1", true);
		Placement a = w.place(first);
		w.placer->add_running(1, a.chosen.hosts);
		for (uint32_t n : {20u, 23u, 30u, 60u, 100u}) {
			Placement p = w.place(n);
			for (const Candidate &c : p.considered) {
				assert_int_equal(c.shared, links_shared(w, {a.chosen.hosts, c.hosts}));
				checked++;
				sharing += c.shared > 0;
			}
		}
	}
	print_message("%zu candidates, %zu sharing links with the running job: counts exact\n",
		      checked, sharing);
	assert_true(sharing > 0 && sharing < checked);
}

// --- isolation (--qft-isolate, issue 33) ----------------------------------

// The level-l subtrees (l >= 1) a host set spans out of: (level, subtree)
// for every level below the one whose single subtree holds it all.
std::set<std::pair<unsigned, uint64_t>> spanned(const World &w, const std::vector<HostOrd> &hosts)
{
	std::set<std::pair<unsigned, uint64_t>> out;
	const Pgft &g = w.tree->pgft();
	for (unsigned l = 1; l < g.h(); l++) {
		std::set<uint64_t> ys;
		for (HostOrd h : hosts)
			ys.insert(w.tree->host_index(h) / g.M(l));
		if (ys.size() < 2)
			break;
		for (uint64_t y : ys)
			out.insert({l, y});
	}
	return out;
}

bool meet(const std::vector<HostOrd> &a, const std::vector<HostOrd> &b)
{
	std::set<HostOrd> sa(a.begin(), a.end());
	return std::any_of(b.begin(), b.end(), [&](HostOrd h) { return sa.count(h) > 0; });
}

// An isolated running job: every job placed after it shares no switch
// link with it (lib/score's count, all-to-all in both) and none of its
// hosts, shared nodes included; a job that asks isolation shares no link
// with any running job, or is not placed now, saying why. With LID offsets
// (every_key) the subtrees the jobs span out of are disjoint. The same
// stream without the isolation shares links: the rule is what keeps them
// apart.
void isolated_jobs_share_no_link(void **)
{
	for (bool offsets : {false, true}) {
		World w;
		PlacementPolicy pol = w.placer->policy();
		pol.lid_offsets = offsets;
		w.set_policy(pol);
		World plain; // the same stream, no one isolated
		Placement a = w.place(400); // two pods and some
		w.placer->add_running(1, a.chosen.hosts);
		plain.placer->add_running(1, a.chosen.hosts);
		assert_true(w.placer->isolate_running(1, true));
		assert_false(w.placer->isolate_running(99, true));
		assert_int_equal(w.placer->isolated(), 1);
		std::vector<std::vector<HostOrd>> running{a.chosen.hosts};
		size_t placed = 0, waits = 0, shared_plain = 0;
		uint32_t id = 2;
		// four pods nearly full: 260 fits only with the rest of A's
		// second pod, sharing its links with A; isolated, it waits
		for (uint32_t n : {320u, 320u, 320u, 320u, 260u, 23u, 30u, 7u, 41u, 12u}) {
			PlacementRequest req;
			req.nodes = n;
			req.eligible.assign(w.fabric.hosts().size(), true);
			Placement p = w.placer->place(req);
			Placement q = plain.placer->place(req);
			if (q.outcome == Placement::placed)
				shared_plain += links_shared(plain, {a.chosen.hosts, q.chosen.hosts}) > 0;
			if (p.outcome != Placement::placed) {
				assert_int_equal(p.outcome, Placement::not_now);
				assert_true(p.reason.rfind("isolation:", 0) == 0);
				waits++;
				continue;
			}
			placed++;
			assert_false(meet(a.chosen.hosts, p.chosen.hosts));
			assert_int_equal(links_shared(w, {a.chosen.hosts, p.chosen.hosts}), 0);
			if (offsets)
				for (const auto &ly : spanned(w, p.chosen.hosts))
					assert_int_equal(spanned(w, a.chosen.hosts).count(ly), 0);
			w.placer->add_running(id, p.chosen.hosts);
			plain.placer->add_running(id++, p.chosen.hosts);
			running.push_back(p.chosen.hosts);
		}
		// A job that asks isolation beside all of them.
		size_t apart = 0, refused = 0;
		for (uint32_t n : {6u, 18u, 36u, 90u, 120u}) {
			PlacementRequest req;
			req.nodes = n;
			req.eligible.assign(w.fabric.hosts().size(), true);
			req.isolate = true;
			Placement p = w.placer->place(req);
			if (p.outcome != Placement::placed) {
				assert_int_equal(p.outcome, Placement::not_now);
				print_message("offsets %d: %u nodes apart from all: %s\n", offsets, n,
					      p.reason.c_str());
				refused += p.reason.rfind("isolation: ", 0) == 0;
				continue;
			}
			apart++;
			for (const auto &r : running) {
				assert_false(meet(r, p.chosen.hosts));
				assert_int_equal(links_shared(w, {r, p.chosen.hosts}), 0);
			}
		}
		assert_true(apart > 0 && refused > 0);
		// Shared nodes (CR_Core): never the isolated job's, a running
		// job's otherwise.
		PlacementRequest beside;
		beside.nodes = 1;
		beside.eligible.assign(w.fabric.hosts().size(), true);
		beside.shared.assign(w.fabric.hosts().size(), true);
		beside.required = {running[1].front()};
		assert_int_equal(w.placer->place(beside).outcome, Placement::placed);
		beside.required = {a.chosen.hosts.front()};
		Placement b = w.placer->place(beside);
		assert_int_equal(b.outcome, Placement::not_now);
		assert_true(b.reason.find("is busy") != std::string::npos);
		print_message("offsets %d: %zu of 10 jobs placed beside the isolated one, none sharing, %zu wait; %zu of the same without isolation share links\n",
			      offsets, placed, waits, shared_plain);
		assert_true(placed >= 5 && waits > 0);
		assert_true(shared_plain > 0);
		// The isolation ends with the job, or when lifted.
		assert_true(w.placer->isolate_running(1, false));
		assert_int_equal(w.placer->isolated(), 0);
	}
	// An isolated job across the pods leaves no room for another across them.
	World w;
	PlacementPolicy pol = w.placer->policy();
	pol.lid_offsets = true;
	w.set_policy(pol);
	Placement big = w.place(1000);
	w.placer->add_running(1, big.chosen.hosts);
	w.placer->add_running(1, big.chosen.hosts); // replaced: stays as it was
	assert_true(w.placer->isolate_running(1, true));
	w.placer->add_running(1, big.chosen.hosts); // replaced: stays isolated
	assert_int_equal(w.placer->isolated(), 1);
	Placement p = w.place(800);
	assert_int_equal(p.outcome, Placement::not_now);
	print_message("800 nodes beside an isolated 1000: %s\n", p.reason.c_str());
	// backfill's plan at the isolated job's end: its hosts and links free
	PlacementRequest later;
	later.nodes = 800;
	later.eligible.assign(w.fabric.hosts().size(), true);
	later.ended = {1, 77}; // an unknown id is no job
	Placement q = w.placer->place(later);
	assert_int_equal(q.outcome, Placement::placed);
	assert_true(meet(big.chosen.hosts, q.chosen.hosts));
	later.isolate = true;
	assert_int_equal(w.placer->place(later).outcome, Placement::placed);
	later.ended.clear();
	assert_int_equal(w.placer->place(later).outcome, Placement::not_now);
	assert_int_equal(w.placer->isolated(), 1); // a plan changes nothing
	w.placer->remove_running(1);
	assert_int_equal(w.placer->isolated(), 0);
	assert_int_equal(w.place(800).outcome, Placement::placed);
}

// A job the placer cannot size goes to cons_tres inside a subtree apart
// (Placer::subtree_apart): any hosts cons_tres picks there share no link
// with the isolated job (lib/score's count), nor, asked from every job,
// with any running job; the smallest level first, the fewest eligible
// hosts first; none when every subtree holds an isolated host. On a tree
// with a missing cable only leaves.
void subtrees_apart_for_hosts_chosen_elsewhere(void **)
{
	World w;
	const size_t hosts = w.fabric.hosts().size();
	const Pgft &g = w.tree->pgft();
	Placement a = w.place(400); // two pods and some
	w.placer->add_running(1, a.chosen.hosts);
	assert_true(w.placer->isolate_running(1, true));
	Placement b = w.place(30);
	w.placer->add_running(2, b.chosen.hosts);
	std::vector<uint8_t> eligible(hosts, 1);
	for (const auto *job : {&a.chosen.hosts, &b.chosen.hosts})
		for (HostOrd h : *job)
			eligible[h] = 0;
	auto subtree_of = [&](const std::vector<HostOrd> &zone, unsigned l) {
		std::set<uint64_t> ys;
		for (HostOrd h : zone)
			ys.insert(w.tree->host_index(h) / w.tree->subtree_hosts(l));
		return ys.size() == 1;
	};
	std::vector<HostOrd> zone;
	for (auto [min, every, level] : {std::tuple{10u, false, 1u}, std::tuple{5u, false, 1u},
					 std::tuple{5u, true, 1u}, std::tuple{100u, false, 2u},
					 std::tuple{100u, true, 2u}}) {
		assert_int_equal(w.placer->subtree_apart(eligible, min, every, 0, zone), level);
		assert_true(subtree_of(zone, level));
		assert_true(zone.size() >= min);
		for (HostOrd h : zone)
			assert_true(eligible[h]);
		assert_false(meet(zone, a.chosen.hosts));
		assert_int_equal(links_shared(w, {a.chosen.hosts, zone}), 0);
		assert_true(w.placer->hosts_apart(zone, every));
		if (every)
			assert_int_equal(links_shared(w, {b.chosen.hosts, zone}), 0);
		for (size_t k = 2; k < 6; k++) { // any hosts cons_tres may pick there
			std::vector<HostOrd> some;
			for (size_t i = 0; i < zone.size(); i++)
				if (i % k == 1 || i == 0)
					some.push_back(zone[i]);
			assert_int_equal(links_shared(w, {a.chosen.hosts, some}), 0);
		}
		print_message("%u hosts%s: level %u, %zu eligible\n", min,
			      every ? " apart from every job" : "", level, zone.size());
	}
	// best fit: B's second leaf has the fewest free hosts (6 of 18)
	assert_int_equal(w.placer->subtree_apart(eligible, 5, false, 0, zone), 1);
	assert_true(zone.size() < g.M(1));
	assert_int_equal(w.placer->subtree_apart(eligible, 5, true, 0, zone), 1);
	assert_int_equal(zone.size(), g.M(1)); // not B's leaf: a whole free one
	// above the leaves: not the pods A spans, and never the whole tree
	assert_int_equal(w.placer->subtree_apart(eligible, 100, false, 2, zone), 0);
	assert_true(zone.empty());
	assert_int_equal(w.placer->subtree_apart(eligible, 2000, false, 0, zone), 0);
	// hosts cons_tres chose on A's links or beside B are not apart
	assert_false(w.placer->hosts_apart({a.chosen.hosts[0], a.chosen.hosts[1]}, false));
	assert_false(w.placer->hosts_apart(b.chosen.hosts, true));
	assert_true(w.placer->hosts_apart(b.chosen.hosts, false));
	expect_error([&] { w.placer->subtree_apart({1, 0}, 2, false, 0, zone); },
		     Status::invalid, "eligible entries");

	// a missing cable: leaves only (a detour may leave a larger subtree)
	test::Modelled cut(test::degraded("3;18,18,6;1,18,6;1,1,3", {2000}));
	PlacementPolicy pol;
	Placer dp(cut.fabric, *cut.tree, *cut.router, pol);
	std::vector<uint8_t> all(cut.fabric.hosts().size(), 1);
	assert_int_equal(dp.subtree_apart(all, 10, false, 0, zone), 1);
	assert_int_equal(dp.subtree_apart(all, 100, false, 0, zone), 0);
}

// Sizes with no product up to 2 m_1 = 36 (19, 23, 29, 31 are prime): two
// leaves of one level-2 subtree, congestion-free by construction and by
// lib/score, the pair leaving the fewest free hosts.
void two_leaves_when_no_product_fits(void **)
{
	World w(Remainder::exact, "3;18,18,6;1,18,6;1,1,3", true);
	Placement a = w.place(12); // leaf 0 keeps 6 free: 23 = 6 + 17 fits it best
	w.placer->add_running(1, a.chosen.hosts);
	uint32_t id = 2;
	for (uint32_t n : {23u, 19u, 29u, 31u}) {
		Placement p = w.place(n);
		assert_true(p.chosen.kind == PlacementKind::two_leaves);
		assert_true(p.chosen.congestion_free);
		assert_congestion_free(w, p.chosen);
		std::set<uint64_t> leaves;
		for (HostOrd h : p.chosen.hosts)
			leaves.insert(w.tree->host_index(h) / 18);
		assert_int_equal(leaves.size(), 2);
		assert_int_equal(*leaves.begin() / 18, *leaves.rbegin() / 18);
		if (n == 23)
			assert_int_equal(*leaves.begin(), w.tree->host_index(a.chosen.hosts[0]) / 18);
		w.placer->add_running(id++, p.chosen.hosts);
	}
}

// 97 hosts (prime) with no node range: the first 97 hosts of a free
// 7 x 14 product (RoundUp 5%), sharing no link with a product running in
// the same leaves; under Remainder::reserve its 98th host stays idle. With
// RoundUp 0 (the default) no near product.
void near_product_when_no_product_fits(void **)
{
	for (Remainder rem : {Remainder::exact, Remainder::reserve}) {
		World w(rem, "3;18,18,6;1,18,6;1,1,3", true);
		PlacementPolicy pol = w.placer->policy();
		pol.round_up = 5;
		w.set_policy(pol);
		Placement a = w.place(12); // 1x1x12, in the leaf the near product will use
		w.placer->add_running(1, a.chosen.hosts);
		Placement p = w.place(97);
		assert_true(p.chosen.kind == PlacementKind::near_product);
		assert_int_equal(p.chosen.hosts.size(), 97);
		assert_string_equal(p.chosen.shape.c_str(), "1x7x14-1");
		assert_int_equal(p.chosen.shared, 0);
		assert_int_equal(links_shared(w, {a.chosen.hosts, p.chosen.hosts}), 0);
		w.placer->add_running(2, p.chosen.hosts);
		// the product's last host, not given to the job
		const HostOrd last = p.chosen.hosts.back();
		HostOrd rest = HostOrd(w.fabric.hosts().size());
		for (HostOrd h = 0; h < w.fabric.hosts().size(); h++)
			if (w.tree->host_index(h) > w.tree->host_index(last) &&
			    w.tree->host_index(h) / 18 == w.tree->host_index(last) / 18 &&
			    (rest == w.fabric.hosts().size() ||
			     w.tree->host_index(h) < w.tree->host_index(rest)))
				rest = h;
		assert_true(w.placer->holds(rest) == (rem == Remainder::reserve));
	}
	World w(Remainder::exact, "3;18,18,6;1,18,6;1,1,3", true);
	assert_true(w.place(97).chosen.kind != PlacementKind::near_product);
}

// The placer's "congestion-free by construction" is never wrong: a seeded
// stream of jobs of every kind and size, placed beside each other with
// products on and off; each claim checked against every Shift stage.
void claims_of_congestion_freedom_hold(void **)
{
	for (bool products : {true, false}) {
		World w(Remainder::exact, "2;18,18;1,18;1,1", products);
		Rng rng(products ? 7 : 8);
		size_t claimed = 0, checked = 0;
		for (uint32_t id = 1; id < 120; id++) {
			Placement p = w.place(uint32_t(2 + rng.below(60))); // 1 host: no traffic
			if (p.outcome != Placement::placed) {
				w.placer->remove_running(uint32_t(1 + rng.below(id)));
				continue;
			}
			for (const Candidate &c : p.considered) {
				checked++;
				if (!c.congestion_free)
					continue;
				claimed++;
				assert_int_equal(independent(w, c).max_hsd, 1);
			}
			w.placer->add_running(id, p.chosen.hosts);
		}
		print_message("products %s: %zu of %zu candidates claimed congestion-free, all 1.0\n",
			      products ? "on" : "off", claimed, checked);
		assert_true(claimed > 0);
	}
}

// ShapeWait= (docs/product-shapes.md section 11): 40 hosts on the 324-host
// tree. Free now: positions 0-8 of leaves 0-1; at 30 s leaf 10 (36 free);
// at 40 s leaf 11 (54 free, two whole leaves and the rest: no product,
// no congestion-free shape); at 50 s positions 0-8 of leaves 2-4 (5 leaves
// x 8). The earliest shape is at 50 s, among the hosts free by then, and
// the scorer agrees it is 1.0.
void the_earliest_shape_ahead(void **)
{
	World w(Remainder::exact, "2;18,18;1,18;1,1", true);
	const size_t n = w.fabric.hosts().size();
	std::vector<double> free_at(n, INFINITY);
	for (HostOrd h = 0; h < n; h++) {
		const uint64_t j = w.tree->host_index(h), leaf = j / 18, pos = j % 18;
		if (leaf < 2 && pos < 9)
			free_at[h] = 0;
		else if (leaf == 10)
			free_at[h] = 30;
		else if (leaf == 11)
			free_at[h] = 40;
		else if (leaf >= 2 && leaf <= 4 && pos < 9)
			free_at[h] = 50;
	}
	PlacementRequest req;
	req.nodes = 40;
	req.eligible.assign(n, true);
	assert_false(w.placer->shape_ahead(req, free_at, 49).has_value());
	std::optional<Placer::Ahead> a = w.placer->shape_ahead(req, free_at, 60);
	assert_true(a.has_value());
	assert_true(a->at == 50);
	assert_int_equal(a->chosen.hosts.size(), 40);
	assert_true(a->chosen.congestion_free);
	assert_true(a->chosen.kind == PlacementKind::product);
	for (HostOrd h : a->chosen.hosts)
		assert_true(free_at[h] <= 50);
	assert_int_equal(independent(w, a->chosen).max_hsd, 1);
	// a node range down to 36 has 4 x 9 at 40 s
	req.nodes_min = 36;
	a = w.placer->shape_ahead(req, free_at, 60);
	assert_true(a.has_value() && a->at == 40 && a->chosen.hosts.size() == 36);
	assert_true(a->chosen.congestion_free);
	// a required host that is never free: no shape
	req.nodes_min = 0;
	for (HostOrd h = 0; h < n; h++)
		if (w.tree->host_index(h) == 9 * 18) // leaf 9: never free
			req.required = {h};
	assert_false(w.placer->shape_ahead(req, free_at, 1e9).has_value());
	// the running jobs' holds are not looked at: free_at says it all
	req.required.clear();
	std::vector<HostOrd> all(n);
	for (HostOrd h = 0; h < n; h++)
		all[h] = h;
	w.placer->add_running(1, all);
	a = w.placer->shape_ahead(req, free_at, 60);
	assert_true(a.has_value() && a->at == 50);
}

// ShapeWait= at LMC > 0 (Candidate::offset_shape): 40 hosts on the
// 1944-host tree. Free now: positions 0-4 of leaf 0, 0-5 of leaf 1, ...,
// 0-9 of leaf 5 (pod 0), so the placer takes part of a level-3 block
// across shared leaves, no product; at 100 s leaves 20-22 of
// pod 1 free whole: two whole leaves and 4 hosts of a third, an unaligned
// block candidate that no proof covers. Only with LID offsets is it a shape
// to wait for, and once it is free the placer takes it and does not wait.
void whole_leaves_are_a_shape_with_offsets(void **)
{
	World w;
	const size_t n = w.fabric.hosts().size();
	std::vector<double> free_at(n, INFINITY);
	for (HostOrd h = 0; h < n; h++) {
		const uint64_t j = w.tree->host_index(h), leaf = j / 18, pos = j % 18;
		if (leaf < 6 && pos < 5 + leaf)
			free_at[h] = 0;
		else if (leaf >= 20 && leaf <= 22)
			free_at[h] = 100;
	}
	auto now = [&](double t) {
		PlacementRequest req;
		req.nodes = 40;
		req.eligible.assign(n, true);
		req.busy.assign(n, false);
		for (HostOrd h = 0; h < n; h++)
			req.busy[h] = free_at[h] > t;
		return w.placer->place(req);
	};
	PlacementRequest req;
	req.nodes = 40;
	req.eligible.assign(n, true);
	for (bool offsets : {false, true}) {
		PlacementPolicy pol;
		pol.lid_offsets = offsets;
		w.set_policy(pol);
		const Placement p = now(0);
		assert_int_equal(p.outcome, Placement::placed);
		// part of a level-3 block of 108: the shared leaves 0-5
		assert_true(p.chosen.kind == PlacementKind::unaligned && p.chosen.level == 3);
		assert_false(p.chosen.offset_shape || p.chosen.congestion_free);
		const std::optional<Placer::Ahead> a = w.placer->shape_ahead(req, free_at, 1e9);
		if (!offsets) { // no proven shape of 40 ever
			assert_false(a.has_value());
			continue;
		}
		assert_true(a.has_value() && a->at == 100);
		assert_true(a->chosen.offset_shape && !a->chosen.congestion_free);
		assert_true(a->chosen.kind == PlacementKind::unaligned && a->chosen.level == 2);
		assert_int_equal(a->chosen.hosts.size(), 40);
		for (HostOrd h : a->chosen.hosts)
			assert_int_equal(w.tree->host_index(h) / 324, 1); // pod 1 only
		assert_true(decline_for_shape(p.chosen.offset_shape, 40, a->at));
		// at 100 s the placer takes the whole leaves: nothing to wait for
		const Placement q = now(100);
		assert_true(q.chosen.kind == PlacementKind::unaligned && q.chosen.offset_shape);
		assert_false(decline_for_shape(q.chosen.offset_shape, 40, 0));
		assert_true(q.chosen.hosts == a->chosen.hosts);
	}
}

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
		assert_congestion_free(w, p.chosen);
		assert_int_equal(first(p) % p.chosen.block, 0);
	}
	// 100 is no multiple of 18: exact gives 100 hosts, not congestion-free
	Placement p = w.place(100);
	assert_int_equal(p.chosen.hosts.size(), 100);
	assert_true(p.chosen.kind != PlacementKind::aligned);
	assert_true(p.chosen.hsd > 1.0);
	assert_true(independent(w, p.chosen).max_hsd > 1);
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
	assert_congestion_free(w, b.chosen, {a.chosen.hosts}); // together with the first
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
	assert_true(p.chosen.kind == PlacementKind::aligned);
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
	assert_true(p.chosen.kind == PlacementKind::aligned);
	assert_congestion_free(w, p.chosen, {{4, 5, 6, 7}, {12, 13, 14, 15}});
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
	assert_true(p.chosen.kind == PlacementKind::best_fit);
	assert_non_null(strstr(p.chosen.label().c_str(), "best fit"));
	std::vector<HostOrd> want = {1, 2, 3, 9, 10, 11};
	assert_true(p.chosen.hosts == want);
	// 4 nodes: no leaf holds them; leaf 0's three, and the last one in
	// the leaf with a single free host (3), which no other job could use
	Placement q = w.place(4);
	std::vector<HostOrd> want4 = {1, 2, 3, 15};
	assert_true(q.chosen.kind == PlacementKind::best_fit);
	assert_true(q.chosen.hosts == want4);
}

// Path pressure (lib/place/pressure.hpp): the running jobs' hosts in each
// subtree they span out of, and a candidate's weighted sum of it.
void path_pressure_counts_traffic_out_of_subtrees(void **)
{
	World w(Remainder::exact, "3;4,2,3;1,4,2;1,1,1"); // leaves of 4, pods of 8
	PathPressure pr(*w.tree);
	pr.add({0, 1, 4}, 1);        // leaves 0 and 1, one pod: level 1 only
	pr.add({8, 9}, 1);           // one leaf: nothing leaves it
	pr.add({12, 13, 14, 16}, 1); // leaves 3 and 4, pods 1 and 2
	assert_int_equal(pr.at(1, 0), 2);
	assert_int_equal(pr.at(1, 1), 1);
	assert_int_equal(pr.at(1, 2), 0);
	assert_int_equal(pr.at(1, 3), 3);
	assert_int_equal(pr.at(1, 4), 1);
	assert_int_equal(pr.at(2, 0), 0);
	assert_int_equal(pr.at(2, 1), 3);
	assert_int_equal(pr.at(2, 2), 1);
	// hosts 2, 3 (leaf 0: 2 x 2/4) and 10 (leaf 2: 0), in pods 0 and 1:
	// pods 0 (2 hosts, 0/8) and 1 (1 host, 3/8)
	assert_true(std::fabs(pr.of({2, 3, 10}) - (1.0 + 3.0 / 8)) < 1e-12);
	assert_true(pr.of({2, 3}) == 0); // one leaf
	pr.add({12, 13, 14, 16}, -1);
	pr.add({0, 1, 4}, -1);
	for (unsigned l = 1; l <= 2; l++)
		for (uint64_t y = 0; y < 24 / w.tree->subtree_hosts(l); y++)
			assert_int_equal(pr.at(l, y), 0);
}

// With LID offsets and PathPressure, a best fit keeps off the leaves whose
// running jobs send out of them; without either, the tightest fit as before.
void best_fit_keeps_off_busy_subtrees(void **)
{
	auto busy = [](World &w) {
		w.placer->add_running(1, {0, 1, 4, 5}); // leaves 0 and 1: pressure 2 each
		w.placer->add_running(2, {8, 9});       // leaf 2 alone
		w.placer->add_running(3, {12, 13});     // leaf 3 alone
	};
	const std::vector<HostOrd> tightest = {2, 3, 6, 7}, quietest = {10, 11, 14, 15};
	for (int on = 0; on < 4; on++) {
		World w(Remainder::exact, "2;4,4;1,4;1,1");
		PlacementPolicy pol;
		pol.lid_offsets = on & 1;
		pol.path_pressure = on & 2;
		w.set_policy(pol);
		busy(w);
		const Placement p = w.place(4); // no leaf holds 4: a best fit
		assert_int_equal(p.outcome, Placement::placed);
		assert_true(p.chosen.kind == PlacementKind::best_fit);
		if (on != 3) {
			assert_true(p.chosen.hosts == tightest);
			assert_int_equal(p.considered.size(), 1);
			continue;
		}
		assert_true(p.chosen.hosts == quietest);
		assert_true(p.chosen.quiet && p.chosen.pressure == 0);
		assert_non_null(strstr(p.chosen.label().c_str(), "quietest"));
		assert_int_equal(p.considered.size(), 2); // the tightest, ranked second
		assert_true(p.considered[1].hosts == tightest);
		assert_true(std::fabs(p.considered[1].pressure - 2.0) < 1e-12);
		// backfill's plan with job 1 ended: no pressure left, the tightest
		PlacementRequest req;
		req.nodes = 4;
		req.eligible.assign(w.fabric.hosts().size(), true);
		req.ended = {1};
		const Placement q = w.placer->place(req);
		assert_int_equal(q.outcome, Placement::placed);
		assert_true(q.chosen.pressure == 0);
		w.placer->remove_running(1);
		const Placement r = w.place(4);
		assert_true(r.chosen.hosts == q.chosen.hosts);
	}
}

// With LID offsets and WholeLeaves, whole free leaves across pods beat a
// best fit that takes leaves in part (lib/place/leaves.cpp); without
// either, the best fit alone as before.
void whole_leaves_beat_partial_ones(void **)
{
	// leaves of 4 hosts, pods of 2 leaves, 3 pods: 24 hosts; every pod
	// partly held (free 6, 7, 6), whole free leaves 2 and 4 only
	auto busy = [](World &w) {
		w.placer->add_running(1, {0, 4});
		w.placer->add_running(2, {15});
		w.placer->add_running(3, {22, 23});
	};
	const std::vector<HostOrd> whole8 = {8, 9, 10, 11, 16, 17, 18, 19};
	const std::vector<HostOrd> whole10 = {8, 9, 10, 11, 16, 17, 18, 19, 20, 21};
	const std::vector<HostOrd> fit10 = {1, 2, 3, 8, 9, 10, 11, 12, 13, 14};
	for (int on = 0; on < 4; on++) {
		World w(Remainder::exact, "3;4,2,3;1,4,2;1,1,1");
		PlacementPolicy pol;
		pol.lid_offsets = on & 1;
		pol.whole_leaves = on & 2;
		w.set_policy(pol);
		busy(w);
		// no pod holds 8 or 10 nodes, no pod (an aligned block) is free
		const Placement p = w.place(8), q = w.place(10);
		assert_int_equal(p.outcome, Placement::placed);
		assert_true(p.chosen.kind == PlacementKind::best_fit);
		if (on != 3) {
			// pod 1's seven, then leaf 0
			assert_false(p.chosen.whole_leaves);
			assert_true(p.chosen.hosts != whole8);
			assert_true(q.chosen.hosts == fit10);
			assert_int_equal(q.considered.size(), 1);
			continue;
		}
		assert_true(p.chosen.hosts == whole8);
		assert_true(p.chosen.whole_leaves);
		assert_int_equal(p.chosen.partial_leaves, 0);
		assert_non_null(strstr(p.chosen.label().c_str(), "whole free leaves"));
		// 10: the rest of 2 in the leaf with the fewest free hosts (5),
		// one leaf in part, ranked before the best fit's two
		assert_true(q.chosen.hosts == whole10);
		assert_int_equal(q.chosen.partial_leaves, 1);
		assert_int_equal(q.considered.size(), 2);
		assert_true(q.considered[1].hosts == fit10);
		assert_int_equal(q.considered[1].partial_leaves, 2);
		// a leaf whose hosts are all held but one: whole leaves too few
		w.placer->add_running(4, {8, 9, 10});
		const Placement r = w.place(8);
		assert_false(r.chosen.whole_leaves);
		assert_int_equal(r.considered.size(), 1);
	}
	// The leaves come before the congestion score, which plays base LIDs
	// only: here it prefers the best fit's two leaves in part.
	World w(Remainder::exact, "3;4,2,3;1,4,2;1,1,1");
	PlacementPolicy pol;
	pol.lid_offsets = pol.whole_leaves = true;
	w.set_policy(pol);
	w.placer->add_running(1, {3});
	w.placer->add_running(2, {12, 20});
	const Placement p = w.place(12);
	const std::vector<HostOrd> whole12 = {4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19};
	assert_true(p.by_leaves);
	assert_true(p.chosen.hosts == whole12);
	assert_int_equal(p.considered.size(), 2);
	assert_int_equal(p.considered[1].partial_leaves, 2);
	assert_true(p.considered[1].hsd < p.chosen.hsd);
	assert_non_null(strstr(explain(p).c_str(), "0 leaves in part, HSD"));
}

// --- degraded fabrics --------------------------------------------------------

// PGFT(2;4,4;1,4;1,1) with cables cut (see tests/unit/degraded.hpp): leaf 3
// cut off from every spine (cables 28-31) reaches only its own hosts.
struct Degraded : test::Modelled {
	std::unique_ptr<Placer> placer;
	Degraded(const std::vector<size_t> &cut, const std::vector<std::string> &unplace = {})
		: Modelled(test::degraded("2;4,4;1,4;1,1", cut, unplace))
	{
		placer = std::make_unique<Placer>(fabric, *tree, *router, PlacementPolicy());
	}
	Placement place(uint32_t n) const
	{
		PlacementRequest req;
		req.nodes = n;
		req.eligible.assign(fabric.hosts().size(), true);
		return placer->place(req);
	}
};

const std::vector<size_t> kLeaf3Cut = {28, 29, 30, 31};

// An unroutable pair thrown in the middle of a stage leaves the scratch
// loads clean: the same sets score the same before and after.
void scratch_is_clean_after_unroutable(void **)
{
	Degraded w(kLeaf3Cut);
	// sets of leaves 0-2 (routable) in scrambled rank order: most congest
	std::vector<std::vector<HostOrd>> sets;
	uint32_t x = 12345;
	for (size_t i = 0; i < 40; i++) {
		std::vector<HostOrd> s;
		for (HostOrd h = 0; h < 12; h++) {
			x = x * 1103515245u + 12345u;
			if ((x >> 16) % 3)
				s.insert(s.begin() + (x >> 8) % (s.size() + 1), h);
		}
		sets.push_back(s);
	}
	std::vector<std::pair<double, double>> fresh;
	bool congested = false;
	for (const auto &s : sets) {
		fresh.push_back(w.placer->score(s));
		congested = congested || fresh.back().first > 1.0;
	}
	assert_true(congested); // a dirty scratch would show
	// every host of leaves 0-2, then n0013 (leaf 3): the first stage
	// routes 11 flows, then throws
	std::vector<HostOrd> cut_off;
	for (HostOrd h = 0; h <= 12; h++)
		cut_off.push_back(h);
	expect_error([&] { w.placer->score(cut_off); }, Status::unroutable, "n0013");
	for (size_t i = 0; i < sets.size(); i++)
		assert_true(w.placer->score(sets[i]) == fresh[i]);
}

bool on_leaf3(const Candidate &c)
{
	return std::any_of(c.hosts.begin(), c.hosts.end(), [](HostOrd h) { return h >= 12; });
}

// One unroutable candidate is skipped, not fatal; when every aligned
// candidate is unroutable, the best fit below takes over.
void unroutable_candidates_are_skipped(void **)
{
	Degraded w(kLeaf3Cut);
	// 6 nodes: leaf 0 and 2 of leaf 1, or leaf 2 and 2 of leaf 3 (unroutable)
	w.placer->add_running(1, {4, 5});
	Placement p = w.place(6);
	assert_int_equal(p.outcome, Placement::placed);
	assert_false(on_leaf3(p.chosen));
	for (const Candidate &c : p.considered)
		assert_false(on_leaf3(c));
	// 8 nodes: the only whole free blocks are leaves 0 and 3: a best fit
	w.placer->add_running(2, {8, 9});
	Placement q = w.place(8);
	assert_int_equal(q.outcome, Placement::placed);
	assert_true(q.chosen.kind == PlacementKind::best_fit ||
		    q.chosen.kind == PlacementKind::tree_order);
	assert_false(on_leaf3(q.chosen));
	// leaf 3 alone routes: a 4-node job fits there
	w.placer->add_running(3, q.chosen.hosts);
	Placement r = w.place(4);
	assert_int_equal(r.outcome, Placement::placed);
	assert_true(on_leaf3(r.chosen));
}

// A host without a tree position (its cable cut) is loaded and never
// placed, whatever the job size and the running jobs.
void unplaced_hosts_are_never_placed(void **)
{
	Degraded w({1}, {"n0002"});
	auto without_n0002 = [&](uint32_t n) {
		Placement p = w.place(n);
		assert_int_equal(p.outcome, Placement::placed);
		assert_true(std::find(p.chosen.hosts.begin(), p.chosen.hosts.end(), 1) ==
			    p.chosen.hosts.end());
		return p.chosen.hosts;
	};
	for (uint32_t n = 1; n <= 15; n++)
		without_n0002(n);
	assert_int_equal(w.place(16).outcome, Placement::never);
	w.placer->add_running(1, without_n0002(3)); // leaf 0's other hosts
	w.placer->add_running(2, without_n0002(5));
	for (uint32_t n = 1; n <= 7; n++)
		without_n0002(n);
}

std::vector<HostOrd> first_hosts(uint32_t n)
{
	std::vector<HostOrd> v(n);
	for (uint32_t i = 0; i < n; i++)
		v[i] = i;
	return v;
}

// A placer that plays every stage (up to kPredictStages): the full figure.
Prediction unbounded(const World &w, const std::vector<HostOrd> &ranks)
{
	PlacementPolicy pol;
	pol.flow_budget = SIZE_MAX;
	return Placer(w.fabric, *w.tree, *w.router, pol).predict(ranks);
}

Prediction with_budget(const World &w, const std::vector<HostOrd> &ranks, size_t flows)
{
	PlacementPolicy pol;
	pol.flow_budget = flows;
	return Placer(w.fabric, *w.tree, *w.router, pol).predict(ranks);
}

void sampled_prediction_of_an_aligned_block(void **)
{
	World w; // 1944 hosts, W_2 = 18, W_3 = 108
	std::vector<HostOrd> block = first_hosts(648);
	Prediction full = unbounded(w, block);
	assert_int_equal(full.stages_played, 647);
	assert_true(full.avg_hsd == 1.0);
	// the default budget: 32768 / 648 = 50 of the 647 Shift stages
	Prediction p = w.placer->predict(block);
	assert_int_equal(p.stages_total, 647);
	assert_int_equal(p.stages_played, kFlowBudget / 648);
	assert_true(p.avg_hsd == 1.0);
	assert_int_equal(p.max_hsd, 1);
	// one stage at least, whatever the budget
	Prediction one = with_budget(w, block, 1);
	assert_int_equal(one.stages_played, 1);
	assert_true(one.avg_hsd == 1.0);
}

void sampled_prediction_of_congested_sets(void **)
{
	World w;
	// 325 hosts from host 0: most Shift stages congest (HSD 2), none with a
	// shift of 1 mod 18. A stride of 324 / 18 = 18 stages samples only
	// those and said 1.0; the spread sample must find the congestion.
	std::vector<HostOrd> run = first_hosts(325);
	Prediction full = unbounded(w, run);
	assert_int_equal(full.stages_played, 324);
	assert_true(full.avg_hsd > 1.8);
	Prediction p = with_budget(w, run, 18 * 325);
	assert_int_equal(p.stages_played, 18);
	assert_int_equal(p.stages_total, 324);
	assert_true(std::abs(p.avg_hsd - full.avg_hsd) < 0.05 * full.avg_hsd);
	// an aligned block in a random rank order congests far more
	std::vector<HostOrd> shuffled = first_hosts(648);
	Rng rng(7);
	shuffle(shuffled, rng);
	full = unbounded(w, shuffled);
	p = w.placer->predict(shuffled);
	assert_true(full.avg_hsd > 3.0);
	assert_true(p.stages_played < p.stages_total);
	assert_true(std::abs(p.avg_hsd - full.avg_hsd) < 0.1 * full.avg_hsd);
}

void running_jobs_cost_one_bounded_replay(void **)
{
	World w;
	std::vector<HostOrd> job = first_hosts(100);
	std::reverse(job.begin(), job.end()); // congests: the loads it adds matter
	std::vector<HostOrd> other = first_hosts(300);
	other.erase(other.begin(), other.begin() + 100);
	auto before = w.placer->score(other);
	w.placer->add_running(1, job);
	// predict() right after add_running(): its figures, equal to a replay
	Prediction kept = w.placer->predict(job), fresh = with_budget(w, job, kFlowBudget);
	assert_true(kept.avg_hsd == fresh.avg_hsd);
	assert_int_equal(kept.max_hsd, fresh.max_hsd);
	assert_int_equal(kept.stages_played, fresh.stages_played);
	assert_true(kept.avg_hsd > 1.0);
	// its loads weigh on a neighbour sharing its leaves' uplinks, and
	// leave no trace once it ends
	assert_true(w.placer->score(other).second > before.second);
	w.placer->remove_running(1);
	assert_true(w.placer->score(other) == before);
	assert_int_equal(w.placer->running(), 0);
}

// 144-port switches give leaves of 72 hosts, more than the product
// search's one-word masks hold: with Shapes=products the placer searches no
// product there and places what is free. Before, leaf_masks() shifted hosts
// 64-71 of each leaf onto bits 0-7 (undefined behaviour; on x86 the shift
// wraps), so busy hosts 0-7 looked free and were chosen.
void wide_leaves_place_only_free_hosts(void **)
{
	World w(Remainder::exact, "2;72,72;1,72;1,1", true);
	for (const Placement &p : test::place_beside_busy_positions(w, *w.placer, 72, {100, 72, 20, 144}))
		assert_true(p.chosen.kind != PlacementKind::product);
}

// add_running() of a job a cut cable leaves unroutable throws and keeps
// nothing: no job, no link loads, no stale peak scratch for the next one.
void unroutable_running_job_leaves_no_trace(void **)
{
	Degraded w(kLeaf3Cut);
	// recursive doubling: on {n0013, n0014, n0001, n0002} its first stage
	// stays in the leaves (routable), the second crosses to leaf 3: throws
	// after one stage's peaks are kept
	PlacementPolicy pol;
	pol.pattern = "recdbl";
	Placer p(w.fabric, *w.tree, *w.router, pol), fresh(w.fabric, *w.tree, *w.router, pol);
	std::vector<HostOrd> cut_off = {12, 13, 0, 1}, job = {0, 1};
	expect_error([&] { p.add_running(1, cut_off); }, Status::unroutable, "n0013");
	assert_int_equal(p.running(), 0);
	// the next job on the links of n0001 <-> n0002 records its own load
	// on them, as on a placer that never threw: a set on the same links
	// sees it
	p.add_running(2, job);
	fresh.add_running(2, job);
	assert_true(p.score(job) == fresh.score(job));
	assert_true(p.score(job).first == 1.0 && p.score(job).second == 2.0);
	// nor did it leave links counted (Candidate::shared): jobs with n0003
	// (leaf 0) and n0005 (leaf 1, position 0) use the up-link of leaf 0
	// that the cut-off job's n0013 would have
	PlacementRequest req;
	req.eligible.assign(w.fabric.hosts().size(), true);
	req.required = {2, 4};
	for (uint32_t n : {2u, 3u, 6u}) {
		req.nodes = n;
		const Placement a = p.place(req), b = fresh.place(req);
		assert_int_equal(a.considered.size(), b.considered.size());
		for (size_t i = 0; i < a.considered.size(); i++)
			assert_int_equal(a.considered[i].shared, b.considered[i].shared);
	}
	p.remove_running(2);
	assert_true(p.score(job).second == 1.0);
}

} // namespace

// Shared nodes (CR_Core): the hosts of a running job are not free, unless
// the caller says the new job fits beside it there (req.shared); the rest
// of the host's neighbours stay busy or free as they were.
void shared_hosts_fit_beside_running_jobs(void **)
{
	World w;
	Placement a = w.place(18);
	assert_int_equal(a.outcome, Placement::placed);
	w.placer->add_running(1, a.chosen.hosts);
	const size_t n = w.fabric.hosts().size();
	PlacementRequest req;
	req.nodes = 18;
	req.eligible.assign(n, false);
	for (HostOrd h : a.chosen.hosts)
		req.eligible[h] = true;
	assert_int_equal(w.placer->place(req).outcome, Placement::not_now);
	req.shared.assign(n, false);
	for (HostOrd h : a.chosen.hosts)
		req.shared[h] = true;
	Placement b = w.placer->place(req);
	assert_int_equal(b.outcome, Placement::placed);
	assert_true(b.chosen.hosts == a.chosen.hosts);
	// one host too full for the job: 17 are left, not now
	req.shared[a.chosen.hosts[5]] = false;
	assert_int_equal(w.placer->place(req).outcome, Placement::not_now);
	// busy wins over shared: a host the caller says is busy stays busy
	req.shared[a.chosen.hosts[5]] = true;
	req.busy.assign(n, false);
	req.busy[a.chosen.hosts[0]] = true;
	assert_int_equal(w.placer->place(req).outcome, Placement::not_now);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(multiples_of_the_block_are_aligned),
		cmocka_unit_test(products_are_congestion_free_and_disjoint),
		cmocka_unit_test(product_beats_an_odd_run),
		cmocka_unit_test(products_fill_used_leaves_first),
		cmocka_unit_test(product_in_a_node_range),
		cmocka_unit_test(claims_of_congestion_freedom_hold),
		cmocka_unit_test(the_earliest_shape_ahead),
		cmocka_unit_test(whole_leaves_are_a_shape_with_offsets),
		cmocka_unit_test(shared_links_of_candidates_are_exact),
		cmocka_unit_test(isolated_jobs_share_no_link),
		cmocka_unit_test(subtrees_apart_for_hosts_chosen_elsewhere),
		cmocka_unit_test(two_leaves_when_no_product_fits),
		cmocka_unit_test(near_product_when_no_product_fits),
		cmocka_unit_test(running_jobs_steer_new_ones),
		cmocka_unit_test(remainder_policies),
		cmocka_unit_test(not_now_and_never),
		cmocka_unit_test(required_hosts_are_kept),
		cmocka_unit_test(scattered_whole_blocks_when_no_run_is_free),
		cmocka_unit_test(candidates_are_in_tree_order),
		cmocka_unit_test(best_fit_when_no_block_is_free),
		cmocka_unit_test(path_pressure_counts_traffic_out_of_subtrees),
		cmocka_unit_test(best_fit_keeps_off_busy_subtrees),
		cmocka_unit_test(whole_leaves_beat_partial_ones),
		cmocka_unit_test(scratch_is_clean_after_unroutable),
		cmocka_unit_test(unroutable_candidates_are_skipped),
		cmocka_unit_test(unplaced_hosts_are_never_placed),
		cmocka_unit_test(sampled_prediction_of_an_aligned_block),
		cmocka_unit_test(sampled_prediction_of_congested_sets),
		cmocka_unit_test(running_jobs_cost_one_bounded_replay),
		cmocka_unit_test(unroutable_running_job_leaves_no_trace),
		cmocka_unit_test(wide_leaves_place_only_free_hosts),
		cmocka_unit_test(shared_hosts_fit_beside_running_jobs),
	};
	return cmocka_run_group_tests_name("place", tests, nullptr, nullptr);
}
