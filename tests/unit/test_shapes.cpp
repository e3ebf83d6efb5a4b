// SPDX-License-Identifier: GPL-2.0-or-later
// Product shapes (lib/place/shape.hpp, docs/product-shapes.md) against the
// scorer, exhaustively on small trees: every product's Shift HSD in tree
// order, pairs of disjoint products' shared links, every host subset of
// 16- and 12-host trees, contiguous runs, and degraded trees. The closed forms are exact, so every
// check is an equality, and the counts are printed for the record.
#include <cstdio>
#include <memory>

#include "lib/common/random.hpp"
#include "lib/place/links.hpp"
#include "lib/place/shape.hpp"
#include "lib/score/score.hpp"
#include "lib/tree/tree.hpp"

#include "tests/unit/cmocka.hpp"
#include "tests/unit/degraded.hpp"
#include "tests/unit/model.hpp"

using namespace qft;

namespace {

// A generated (or degraded) tree, hosts addressed by tree index.
struct Bench : test::Modelled {
	const Pgft &g;
	std::vector<HostOrd> host_of; // tree index -> host, kNoHost if absent
	static constexpr HostOrd kNoHost = UINT32_MAX;

	explicit Bench(Fabric f) : Modelled(std::move(f)), g(tree->pgft()), host_of(g.hosts(), kNoHost)
	{
		for (HostOrd h = 0; h < fabric.hosts().size(); h++)
			if (tree->host_index(h) < g.hosts())
				host_of[tree->host_index(h)] = h;
	}
	explicit Bench(const char *tuple) : Bench(generated(tuple)) {}

	bool present(const std::vector<uint64_t> &js) const
	{
		for (uint64_t j : js)
			if (host_of[j] == kNoHost)
				return false;
		return true;
	}
	Job job(const std::vector<uint64_t> &js) const
	{
		Job jb;
		for (uint64_t j : js)
			jb.ranks.push_back(host_of[j]);
		return jb;
	}
	double hsd(const char *pattern, const std::vector<uint64_t> &js) const
	{
		auto p = make_pattern(pattern, &g);
		return score_jobs(fabric, *router, *p, {job(js)}).avg_hsd;
	}
	// Links both carry, all-to-all (every Shift stage) within each.
	long shared(const std::vector<uint64_t> &a, const std::vector<uint64_t> &b) const
	{
		auto p = make_pattern("shift", &g);
		ScoreOptions opt;
		opt.shared_links = true;
		return score_jobs(fabric, *router, *p, {job(a), job(b)}, opt).shared_links;
	}
};

// Every product shape of `g`: every non-empty digit set at every level.
std::vector<Shape> all_shapes(const Pgft &g)
{
	std::vector<Shape> out{Shape{}};
	for (unsigned l = 1; l <= g.h(); l++) {
		std::vector<Shape> next;
		for (const Shape &s : out)
			for (uint32_t mask = 1; mask < (1u << g.m(l)); mask++) {
				Shape t = s;
				t.digits.emplace_back();
				for (uint32_t d = 0; d < g.m(l); d++)
					if (mask >> d & 1)
						t.digits.back().push_back(d);
				next.push_back(std::move(t));
			}
		out.swap(next);
	}
	return out;
}

bool disjoint(const Pgft &g, const Shape &a, const std::vector<uint64_t> &b_hosts)
{
	for (uint64_t j : b_hosts)
		if (a.contains(g, j))
			return false;
	return true;
}

// The trees of the exhaustive checks: full bisection (2 and 3 levels,
// parallel top links), oversubscribed (U_l dividing M_l or not), parallel
// links at level 2.
const char *const kTrees[] = {
	"2;4,4;1,4;1,1", "2;6,6;1,6;1,1",     "3;4,4,2;1,4,2;1,1,2", "2;4,4;1,2;1,1",
	"2;4,4;1,2;1,2", "2;6,6;1,4;1,1", "3;4,4,4;1,2,2;1,2,1",
};

// Every product with two hosts or more, on every tree: congestion_free()
// is true iff Shift in tree order has HSD 1.0 (so the claim is never
// wrong, and never too cautious); when true, the Shift family is 1.0 too;
// the general host-set check agrees; shape_of() gives the shape back.
void every_product_against_the_scorer(void **)
{
	const char *family[] = {"ring", "dissemination", "tournament", "binomial"};
	size_t trees = 0, shapes = 0, free = 0, claimed = 0, cautious = 0;
	for (const char *tuple : kTrees) {
		Bench b(tuple);
		trees++;
		for (const Shape &s : all_shapes(b.g)) {
			const std::vector<uint64_t> js = s.tree_indexes(b.g);
			assert_int_equal(js.size(), s.size());
			assert_true(std::is_sorted(js.begin(), js.end()));
			std::optional<Shape> back = shape_of(b.g, js);
			assert_true(back && back->digits == s.digits);
			if (js.size() < 2)
				continue;
			shapes++;
			const bool is_free = b.hsd("shift", js) == 1.0, claim = congestion_free(b.g, s);
			free += is_free;
			claimed += claim;
			cautious += is_free && !claim;
			if (claim != is_free)
				std::fprintf(stderr, "%s %s: claim %d, Shift HSD %.3f (%s)\n", tuple,
					     s.text().c_str(), claim, b.hsd("shift", js),
					     why_not_congestion_free(b.g, s).c_str());
			assert_true(claim == is_free);
			assert_true(claim == why_not_congestion_free(b.g, s).empty());
			assert_true(congestion_free_hosts(b.g, js) == is_free);
			if (claim)
				for (const char *p : family)
					assert_true(b.hsd(p, js) == 1.0);
		}
	}
	std::printf("products: %zu trees, %zu shapes of 2+ hosts, %zu congestion-free, "
		    "%zu claimed, %zu free but not claimed\n",
		    trees, shapes, free, claimed, cautious);
}

// Pairs of disjoint products: link_disjoint() is true iff all-to-all
// traffic of the two shares no directed link. Every pair on the two
// 16-host trees, a seeded sample of 10^4 on each other tree.
void disjoint_products_against_the_scorer(void **)
{
	size_t pairs = 0, apart = 0;
	Rng rng(12);
	for (const char *tuple : kTrees) {
		Bench b(tuple);
		const std::vector<Shape> shapes = all_shapes(b.g);
		std::vector<std::vector<uint64_t>> hosts;
		for (const Shape &s : shapes)
			hosts.push_back(s.tree_indexes(b.g));
		auto check = [&](size_t i, size_t k) {
			const long shared = b.shared(hosts[i], hosts[k]);
			const bool claim = link_disjoint(b.g, shapes[i], shapes[k]);
			if (claim != (shared == 0))
				std::fprintf(stderr, "%s %s / %s: claim %d, %ld links shared\n", tuple,
					     shapes[i].text().c_str(), shapes[k].text().c_str(), claim,
					     shared);
			assert_true(claim == (shared == 0));
			assert_true(claim == link_disjoint(b.g, shapes[k], shapes[i]));
			pairs++;
			apart += claim;
		};
		if (b.g.hosts() <= 16) {
			for (size_t i = 0; i < shapes.size(); i++)
				for (size_t k = i + 1; k < shapes.size(); k++)
					if (disjoint(b.g, shapes[i], hosts[k]))
						check(i, k);
			continue;
		}
		for (size_t n = 0; n < 10000;) {
			size_t i = rng.below(shapes.size()), k = rng.below(shapes.size());
			if (i != k && disjoint(b.g, shapes[i], hosts[k])) {
				check(i, k);
				n++;
			}
		}
	}
	std::printf("pairs: %zu disjoint product pairs, %zu link-disjoint\n", pairs, apart);
}

// Every host subset of a 16-host full-bisection tree and of two 12-host
// oversubscribed ones (U_1 = 2 dividing M_1 = 4, U_1 = 3 not):
// congestion_free_hosts() is true iff Shift has HSD 1.0. On the full
// bisection tree every set within two leaves is congestion-free.
void every_host_set_against_the_scorer(void **)
{
	size_t sets = 0, free = 0;
	for (const char *tuple : {"2;4,4;1,4;1,1", "2;4,3;1,2;1,1", "2;4,3;1,3;1,1"}) {
		Bench b(tuple);
		const bool rlft = b.g.rlft_violations().empty();
		const uint32_t hosts = uint32_t(b.g.hosts());
		for (uint32_t mask = 1; mask < (1u << hosts); mask++) {
			std::vector<uint64_t> js;
			for (uint64_t j = 0; j < hosts; j++)
				if (mask >> j & 1)
					js.push_back(j);
			if (js.size() < 2)
				continue;
			const bool is_free = b.hsd("shift", js) == 1.0;
			assert_true(congestion_free_hosts(b.g, js) == is_free);
			uint32_t leaves = 0; // bit y: leaf y holds a host
			for (uint64_t j : js)
				leaves |= 1u << (j / b.g.m(1));
			if (rlft && __builtin_popcount(leaves) <= 2)
				assert_true(is_free);
			sets++;
			free += is_free;
		}
	}
	// Larger trees: a seeded sample of sets of every size.
	Rng rng(7);
	for (const char *tuple : {"3;4,4,2;1,4,2;1,1,2", "3;4,4,4;1,2,2;1,2,1", "2;6,6;1,4;1,1"}) {
		Bench b(tuple);
		for (int n = 0; n < 1500; n++) {
			std::vector<uint64_t> all(b.g.hosts());
			for (uint64_t j = 0; j < all.size(); j++)
				all[j] = j;
			shuffle(all, rng);
			all.resize(2 + rng.below(all.size() - 1));
			std::sort(all.begin(), all.end()); // tree order
			const bool is_free = b.hsd("shift", all) == 1.0;
			assert_true(congestion_free_hosts(b.g, all) == is_free);
			sets++;
			free += is_free;
		}
	}
	std::printf("host sets: %zu checked, %zu congestion-free\n", sets, free);
}

// LinkUse (lib/place/links.hpp) against the scorer: random disjoint host
// sets of any size on every tree, the links one shares with the other
// (all-to-all in each) counted both ways; then with a third set added and
// removed again, which must leave the counts as they were.
void link_use_against_the_scorer(void **)
{
	size_t pairs = 0, sharing = 0;
	Rng rng(21);
	for (const char *tuple : kTrees) {
		Bench b(tuple);
		for (int n = 0; n < 400; n++) {
			std::vector<uint64_t> all(b.g.hosts());
			for (uint64_t j = 0; j < all.size(); j++)
				all[j] = j;
			shuffle(all, rng);
			const size_t na = 1 + rng.below(all.size() - 2);
			const size_t nb = 1 + rng.below(all.size() - na - 1);
			std::vector<uint64_t> a(all.begin(), all.begin() + long(na)),
				c(all.begin() + long(na), all.begin() + long(na + nb)),
				rest(all.begin() + long(na + nb), all.end());
			LinkUse use(b.g);
			use.add(a, 1);
			const long scored = b.shared(a, c);
			if (long(use.shared(c)) != scored)
				std::fprintf(stderr, "%s: %zu and %zu hosts: %zu links shared, scorer %ld\n",
					     tuple, na, nb, use.shared(c), scored);
			assert_int_equal(use.shared(c), scored);
			use.add(c, 1);
			assert_int_equal(use.shared(), scored); // counted over the added jobs
			use.add(c, -1);
			use.add(rest, 1);
			use.add(rest, -1);
			assert_int_equal(use.shared(c), scored);
			use.add(a, -1);
			assert_int_equal(use.shared(c), 0);
			pairs++;
			sharing += scored > 0;
		}
	}
	std::printf("link use: %zu pairs of host sets, %zu sharing links\n", pairs, sharing);
}

// Contiguous runs on a full-bisection tree, any start: congestion-free iff
// at every level N <= 2 M_l or M_l divides N. 756 = 7 x 108 hosts from 0
// congest on PGFT(3;18,18,6;...) (parallel top links), the product
// 6 x 7 x 18 does not.
void contiguous_runs_and_the_issue_examples(void **)
{
	const Pgft big = Pgft::parse("3;18,18,6;1,18,6;1,1,3");
	size_t runs = 0;
	for (const char *tuple : {"2;18,18;1,18;1,1", "3;4,4,4;1,4,4;1,1,1", "3;18,18,6;1,18,6;1,1,3"}) {
		const Pgft g = Pgft::parse(tuple);
		for (uint64_t start : {uint64_t(0), uint64_t(5), g.M(1) + 1}) {
			std::vector<uint64_t> js{start};
			for (uint64_t j = start + 1; j < g.hosts(); j++) {
				js.push_back(j);
				bool rule = true;
				for (unsigned l = 1; l < g.h(); l++)
					rule = rule && (js.size() <= 2 * g.M(l) || js.size() % g.M(l) == 0);
				assert_true(congestion_free_hosts(g, js) == rule);
				runs++;
			}
		}
	}
	std::printf("contiguous runs: %zu checked against the rule\n", runs);

	Bench b("3;18,18,6;1,18,6;1,1,3");
	std::vector<uint64_t> run(756);
	for (uint64_t j = 0; j < run.size(); j++)
		run[j] = j;
	assert_false(congestion_free_hosts(big, run));
	assert_true(b.hsd("shift", run) > 1.4);
	Shape s = Shape::of(big, {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17},
				  {0, 1, 2, 3, 4, 5, 6},
				  {0, 1, 2, 3, 4, 5}});
	assert_string_equal(s.text().c_str(), "6x7x18");
	assert_true(congestion_free(big, s));
	assert_true(b.hsd("shift", s.tree_indexes(big)) == 1.0);
	// Four products in the same pods and leaves, two of them on
	// complementary positions: pairwise link-disjoint.
	std::vector<Shape> four = {
		Shape::of(big, {{0, 1, 2, 3, 4, 5, 6}, {0, 1, 2, 3, 4}, {0, 2}}),
		Shape::of(big, {{7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}, {0, 1, 2, 3, 4}, {0, 2}}),
		Shape::of(big, {{0, 1, 2, 3}, {5, 6, 7, 8, 9, 10}, {0, 1, 2, 3, 4, 5}}),
		Shape::of(big, {{4, 5, 6, 7, 8}, {5, 6, 7, 8, 9, 10}, {0, 1, 2, 3, 4, 5}}),
	};
	std::vector<Job> jobs;
	for (size_t i = 0; i < four.size(); i++) {
		assert_true(congestion_free(big, four[i]));
		jobs.push_back(b.job(four[i].tree_indexes(big)));
		for (size_t k = 0; k < i; k++)
			assert_true(link_disjoint(big, four[i], four[k]));
	}
	ScoreOptions opt;
	opt.shared_links = true;
	auto shift = make_pattern("shift", &big);
	assert_int_equal(score_jobs(b.fabric, *b.router, *shift, jobs, opt).shared_links, 0);
}

// Degraded trees: a product that holds no absent host and uses no missing
// cable keeps its D-Mod-K paths, so congestion_free() still holds; one
// that uses a missing cable may congest (the fallback doubles up a port).
void degraded_trees(void **)
{
	struct Case {
		const char *tuple;
		std::vector<size_t> cut; // JSON link indexes: host cables first
		std::vector<std::string> unplace;
	} cases[] = {
		{"2;4,4;1,4;1,1", {}, {"n0004", "n0011"}},
		{"2;4,4;1,4;1,1", {2, 9}, {}},
		{"2;4,4;1,4;1,1", {17}, {}},
		{"2;4,4;1,2;1,1", {20}, {"n0003"}},
		{"3;4,4,2;1,4,2;1,1,2", {40}, {}},
		{"3;4,4,2;1,4,2;1,1,2", {70}, {"n0020"}},
	};
	size_t checked = 0, claimed = 0, using_missing = 0, congested_using = 0;
	for (const Case &c : cases) {
		Bench b(test::degraded(c.tuple, c.cut, c.unplace));
		for (const Shape &s : all_shapes(b.g)) {
			const std::vector<uint64_t> js = s.tree_indexes(b.g);
			if (js.size() < 2 || !b.present(js))
				continue;
			bool uses = false;
			for (const MissingCable &m : b.tree->missing())
				uses = uses || uses_cable(b.g, s, m);
			double hsd;
			try {
				hsd = b.hsd("shift", js);
			} catch (const Error &e) {
				assert_true(e.status() == Status::unroutable && uses);
				continue;
			}
			checked++;
			using_missing += uses;
			congested_using += uses && hsd > 1.0;
			if (!uses && congestion_free(b.g, s)) {
				claimed++;
				assert_true(hsd == 1.0);
			}
		}
	}
	std::printf("degraded: %zu products scored, %zu claimed congestion-free, "
		    "%zu use a missing cable (%zu of them congest)\n",
		    checked, claimed, using_missing, congested_using);
	assert_true(congested_using > 0);
}

void invalid_shapes(void **)
{
	const Pgft g = Pgft::parse("2;4,4;1,4;1,1");
	expect_error([&] { Shape::of(g, {{0}}); }, Status::invalid, "one per level");
	expect_error([&] { Shape::of(g, {{}, {0}}); }, Status::invalid, "level 1 has no digit");
	expect_error([&] { Shape::of(g, {{1, 1}, {0}}); }, Status::invalid, "repeats digit 1");
	expect_error([&] { Shape::of(g, {{0}, {4}}); }, Status::invalid, "expected < m_2 = 4");
	expect_error([&] { shape_of(g, {3, 16}); }, Status::invalid, "tree index 16");
	expect_error([&] { congestion_free_hosts(g, {3, 3}); }, Status::invalid, "appears twice");
	assert_false(shape_of(g, {}).has_value());
	assert_false(shape_of(g, {1, 1}).has_value());
	assert_false(shape_of(g, {0, 1, 4}).has_value()); // two leaves, positions {0,1} and {0}
	Shape s = Shape::of(g, {{2, 0}, {3, 1}});
	assert_true((s.at(1) == std::vector<uint32_t>{0, 2}));
	assert_true((s.tree_indexes(g) == std::vector<uint64_t>{4, 6, 12, 14}));
	assert_true(s.contains(g, 6) && !s.contains(g, 5) && !s.contains(g, 99));
	assert_string_equal(s.text().c_str(), "2x2");
	// Oversubscribed 2:1: positions 0 and 2 share an up-link of the leaf.
	const Pgft over = Pgft::parse("2;4,4;1,2;1,1");
	assert_false(congestion_free(over, s));
	assert_non_null(std::strstr(why_not_congestion_free(over, s).c_str(), "level 1"));
	assert_true(congestion_free(over, Shape::of(over, {{0, 1}, {1, 3}})));
}

} // namespace

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_product_against_the_scorer),
		cmocka_unit_test(disjoint_products_against_the_scorer),
		cmocka_unit_test(every_host_set_against_the_scorer),
		cmocka_unit_test(link_use_against_the_scorer),
		cmocka_unit_test(contiguous_runs_and_the_issue_examples),
		cmocka_unit_test(degraded_trees),
		cmocka_unit_test(invalid_shapes),
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
