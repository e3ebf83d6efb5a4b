// SPDX-License-Identifier: GPL-2.0-or-later
// The routing core against the theorems and figures of seed 000.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include <unistd.h>

#include "lib/model/model.hpp"
#include "lib/fabric/fabric_json.hpp"
#include "lib/place/order.hpp"
#include "lib/route/dmodk.hpp"
#include "lib/route/lft.hpp"
#include "lib/score/score.hpp"
#include "lib/slurm/status.hpp"
#include "lib/tree/generate.hpp"
#include "lib/tree/tree.hpp"
#include "lib/traffic/pattern.hpp"

#include "tests/unit/cmocka.hpp"
#include "tests/unit/degraded.hpp"
#include "tests/unit/model.hpp"

using namespace qft;
using qft::test::degraded;
using qft::test::path_text;

namespace {

struct Net : test::Modelled {
	explicit Net(const char *tuple, unsigned lmc = 0) : Modelled(generated(tuple, lmc)) {}
	std::vector<HostOrd> range(uint64_t first, uint64_t count) const
	{
		std::vector<HostOrd> v;
		for (uint64_t j = first; j < first + count; j++)
			v.push_back(HostOrd(j)); // generated: ordinal == tree index
		return v;
	}
	Score score(const std::vector<HostOrd> &ranks, const char *pattern = "shift",
		    std::vector<uint8_t> offsets = {}) const
	{
		Job job;
		job.ranks = ranks;
		job.offsets = std::move(offsets);
		auto p = make_pattern(pattern, &tree->pgft());
		return score_jobs(fabric, *router, *p, {job});
	}
};

const char *kTrees[] = {
	"2;12,12;1,12;1,1",
	"2;18,18;1,18;1,1",
	"3;12,12,12;1,12,12;1,1,1",
	"3;18,18,6;1,18,6;1,1,3", // parallel links at the top
	"2;18,18;1,9;1,2",        // the K = 18 RLFT, parallel links
};

// --- PGFT tuples -----------------------------------------------------------

void pgft_parses(void **)
{
	Pgft g = Pgft::parse("3;18,18,6;1,18,6;1,1,3");
	assert_int_equal(g.h(), 3);
	assert_int_equal(g.hosts(), 1944);
	assert_int_equal(g.block(), 108);
	assert_int_equal(g.nodes_at(1), 108);
	assert_int_equal(g.nodes_at(2), 108);
	assert_int_equal(g.nodes_at(3), 108);
	assert_int_equal(g.up_ports(1), 18);
	assert_int_equal(g.down_ports(3), 18);
	assert_true(Pgft::parse("PGFT(3;18,18,6;1,18,6;1,1,3)") == g);
	assert_string_equal(g.text().c_str(), "3;18,18,6;1,18,6;1,1,3");
	// digits round trip at every level
	for (unsigned l = 0; l <= 3; l++)
		for (uint64_t i = 0; i < g.nodes_at(l); i += 7)
			assert_int_equal(g.index(l, g.digits(l, i)), i);
}

void pgft_rejects_empty(void **) { expect_error([] { Pgft::parse(""); }, Status::parse, "expected the number of levels"); }
void pgft_rejects_letters(void **) { expect_error([] { Pgft::parse("2;a,18;1,18;1,1"); }, Status::parse, "character 3"); }
void pgft_rejects_short_field(void **) { expect_error([] { Pgft::parse("2;18;1,18;1,1"); }, Status::parse, "has 1 values, expected h = 2"); }
void pgft_rejects_missing_field(void **) { expect_error([] { Pgft::parse("2;18,18;1,18"); }, Status::parse, "expected ';'"); }
void pgft_rejects_trailing(void **) { expect_error([] { Pgft::parse("2;18,18;1,18;1,1;"); }, Status::parse, "end of tuple"); }
void pgft_rejects_zero(void **) { expect_error([] { Pgft::parse("2;18,0;1,18;1,1"); }, Status::invalid, "m_2 = 0"); }
void pgft_rejects_deep(void **) { expect_error([] { Pgft::parse("9;2,2,2,2,2,2,2,2,2;1,2,2,2,2,2,2,2,2;1,1,1,1,1,1,1,1,1"); }, Status::invalid, "h = 9"); }
void pgft_rejects_radix(void **) { expect_error([] { Pgft::parse("2;200,200;1,200;1,1"); }, Status::invalid, "needs 400 ports"); }
void pgft_rejects_huge(void **) { expect_error([] { Pgft::parse("3;200,200,200;1,1,1;1,1,1"); }, Status::invalid, "exceeds"); }
void pgft_rejects_overflow_number(void **) { expect_error([] { Pgft::parse("2;99999999999,1;1,1;1,1"); }, Status::parse, "below 1000000"); }

void rlft_rules(void **)
{
	assert_true(Pgft::parse("2;18,18;1,9;1,2").rlft_violations().empty());
	assert_true(Pgft::parse("3;18,18,36;1,18,18;1,1,1").rlft_violations().empty());
	auto why = Pgft::parse("2;12,12;1,12;1,2").rlft_violations();
	assert_int_equal(why.size(), 2);
	assert_non_null(strstr(why[0].c_str(), "bisection is not constant at level 1"));
	why = Pgft::parse("2;18,18;2,18;1,1").rlft_violations();
	assert_non_null(strstr(why[0].c_str(), "w1 = p1 = 1"));
	why = Pgft::parse("2;18,18;1,18;1,1").rlft_violations();
	assert_int_equal(why.size(), 1);
	assert_non_null(strstr(why[0].c_str(), "radix"));
}

// --- generator and tree ----------------------------------------------------

void generator_follows_connection_rule(void **)
{
	// Parallel links at two levels: every cable checked against IV-B.
	Net n("3;4,4,2;1,4,2;1,2,2");
	const Pgft &g = n.tree->pgft();
	assert_true(n.tree->missing().empty());
	size_t cables = 0;
	for (PortIdx p = 0; p < n.fabric.port_count(); p++)
		cables += n.fabric.port(p).peer != kNone;
	size_t want = 0;
	for (unsigned l = 0; l < g.h(); l++)
		want += g.nodes_at(l) * g.up_ports(l);
	assert_int_equal(cables / 2, want);
	for (unsigned l = 0; l < g.h(); l++)
		for (uint64_t idx = 0; idx < g.nodes_at(l); idx++)
			for (unsigned q = 0; q < g.up_ports(l); q++) {
				PortIdx up = n.tree->up_port(l, idx, q);
				const Port &peer = n.fabric.port(n.fabric.port(up).peer);
				const Node &parent = n.fabric.node(peer.node);
				auto a = g.digits(l, idx), b = g.digits(l + 1, parent.tree_index);
				unsigned k = q / g.w(l + 1);
				assert_int_equal(b[l], q % g.w(l + 1));
				assert_int_equal(peer.num - 1, a[l] + k * g.m(l + 1)); // r
				for (unsigned i = 0; i < g.h(); i++)
					if (i != l)
						assert_int_equal(a[i], b[i]);
			}
}

void tree_rejects_two_nodes_at_one_position(void **)
{
	Fabric f = generate_pgft(Pgft::parse("2;4,4;1,4;1,1"), GenOptions());
	f.node(f.hosts()[1]).tree_index = 0;
	expect_error([&] { Tree::from_fabric(f); }, Status::invalid, "both sit at L0 0.0");
}

void tree_lists_missing_cables(void **)
{
	Fabric f = generate_pgft(Pgft::parse("2;4,4;1,4;1,1"), GenOptions());
	// Re-build the fabric without one leaf-to-spine cable.
	std::string json = fabric_to_json(f);
	size_t at = json.find("\"links\"");
	size_t cut = json.find("[\"0x0002c90401", at); // first leaf->spine link
	size_t end = json.find('\n', cut);
	json.erase(cut, end - cut + 1);
	// keep valid JSON: the previous line now ends with ',' before the next
	Fabric g = fabric_parse_json(json, "edited");
	Tree t = Tree::from_fabric(g);
	assert_int_equal(t.missing().size(), 1);
	assert_int_equal(t.missing()[0].level, 1);
	DModK r(g, t);
	PortIdx links[kMaxPathLinks];
	// n0001 (leaf 0) to every host on another leaf, the route of one of
	// them over the lost cable: the next up-port takes it (one hop up, one
	// down; the lost cable is no link, so no path can hold it)
	for (HostOrd d = 4; d < 16; d++)
		assert_int_equal(r.path(0, d, 0, links), 4);
}

// A cut parallel cable is the one missing: the cables left to that parent
// keep their parallel index (the k their port numbers have on the leaves
// with all their cables), so only the pairs routed over the cut cable
// move. Numbered in port order, the cable after a cut one took its index
// and the pairs of both moved.
void cut_parallel_cable_keeps_the_others(void **)
{
	const char *tuple = "2;6,6;1,3;1,2"; // each leaf: 2 cables to each of 3 spines
	Fabric whole = generate_pgft(Pgft::parse(tuple), GenOptions());
	Tree tw = Tree::from_fabric(whole);
	DModK rw(whole, tw);
	const size_t hosts = whole.hosts().size();
	size_t checked = 0;
	for (size_t cut = hosts; cut < hosts + 6; cut++) { // leaf 0's up-cables
		Fabric f = degraded(tuple, {cut});
		Tree t = Tree::from_fabric(f);
		assert_int_equal(t.missing().size(), 1);
		const MissingCable m = t.missing()[0];
		assert_int_equal(m.level, 1);
		assert_int_equal(m.index, 0);
		// the missing slot is the cable that was cut
		const PortIdx lost = tw.up_port(1, 0, m.up_port);
		assert_string_equal(f.port_label(lost).c_str(), whole.port_label(lost).c_str());
		if (f.port(lost).peer != kNone)
			fail_msg("cable %zu cut: up-port %u of the leaf is missing, but its cable %s is there",
				 cut, m.up_port, f.port_label(lost).c_str());
		const PortIdx lost_down = whole.port(lost).peer; // the spine's end
		DModK r(f, t);
		size_t moved = 0, over_lost = 0;
		for (HostOrd s = 0; s < hosts; s++)
			for (HostOrd d = 0; d < hosts; d++) {
				PortIdx links[kMaxPathLinks];
				const unsigned n = rw.path(s, d, 0, links);
				over_lost += std::find(links, links + n, lost) != links + n ||
					     std::find(links, links + n, lost_down) != links + n;
				moved += path_text(rw, s, d, 0) != path_text(r, s, d, 0);
			}
		assert_true(over_lost > 0);
		if (moved != over_lost)
			fail_msg("cable %zu cut: %zu pairs moved, %zu crossed it", cut, moved, over_lost);
		checked++;
	}
	assert_int_equal(checked, 6);
}

// One fallback rule: D-Mod-K's paths on a fabric with missing cables are
// the paths of the tables it exports (qft lft), pair by pair, offset by
// offset; a single missing cable leaves every pair routable.
void degraded_routes_match_their_tables(void **)
{
	struct Case {
		const char *tuple;
		std::vector<size_t> cut; // cable indexes, host cables first
		unsigned lmc;
		bool all_route;
	} cases[] = {
		{"2;4,4;1,4;1,1", {16}, 0, true},          // one leaf-to-spine cable
		{"2;4,4;1,4;1,1", {16, 21, 30}, 1, true},  // three, LMC 1
		{"2;4,4;1,4;1,1", {28, 29, 30, 31}, 0, false}, // a leaf cut off
		{"3;4,4,2;1,4,2;1,1,2", {32, 40, 47, 60, 75}, 0, true}, // parallel top links
		{"3;4,4,2;1,4,2;1,1,2", {32, 40, 47, 60, 75}, 2, true}, // offsets turn level 2
		{"2;6,6;1,3;1,2", {36, 37, 50}, 1, true},  // parallel cables
	};
	for (const Case &c : cases) {
		Fabric f = degraded(c.tuple, c.cut, {}, c.lmc);
		Tree t = Tree::from_fabric(f);
		assert_int_equal(t.missing().size(), c.cut.size());
		DModK r(f, t);
		Lfts lfts = r.tables();
		TableRouter table(f, lfts);
		size_t unroutable = 0;
		for (HostOrd s = 0; s < f.hosts().size(); s++)
			for (HostOrd d = 0; d < f.hosts().size(); d++)
				for (unsigned k = 0; k < r.offsets(); k++) {
					std::string a = path_text(r, s, d, k);
					if (a != path_text(table, s, d, k))
						fail_msg("%s: %u -> %u offset %u: dmodk %s, tables %s", c.tuple,
							 s, d, k, a.c_str(), path_text(table, s, d, k).c_str());
					unroutable += a == "unroutable";
				}
		assert_true(c.all_route ? unroutable == 0 : unroutable > 0);
	}
}

// Routings by name: the model routes by D-Mod-K until told otherwise;
// "lft:FILE" reads a dump of the tables and scores exactly as the closed
// form that wrote them; a bad spec names what is expected and keeps the
// routing that was there.
void model_routing_by_name(void **)
{
	Net n("2;6,6;1,3;1,2");
	assert_string_equal(n.model->routing().c_str(), "dmodk");
	assert_string_equal(n.model->router().name(), "dmodk");
	DModK d(n.fabric, *n.tree); // outlives the model's, which set_routing() replaces
	char path[] = "/tmp/qft-test-lft-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	std::string dump = lfts_dump_text(n.fabric, d.tables());
	assert_int_equal(write(fd, dump.data(), dump.size()), ssize_t(dump.size()));
	close(fd);
	const Score closed = n.score(n.range(0, 36));
	n.model->set_routing(std::string("lft:") + path);
	assert_string_equal(n.model->router().name(), "lft");
	n.router = &n.model->router();
	const Score tables = n.score(n.range(0, 36));
	assert_int_equal(tables.stages, closed.stages);
	assert_true(tables.stage_hsd == closed.stage_hsd);
	for (HostOrd s = 0; s < 36; s += 5)
		for (HostOrd t = 0; t < 36; t += 7)
			assert_string_equal(path_text(d, s, t, 0).c_str(),
					    path_text(n.model->router(), s, t, 0).c_str());
	unlink(path);
	expect_error([&] { n.model->set_routing("ftree"); }, Status::invalid,
		     "expected one of dmodk, lft:FILE");
	expect_error([&] { n.model->set_routing("lft"); }, Status::invalid, "expected lft:FILE");
	expect_error([&] { n.model->set_routing("dmodk:x"); }, Status::invalid, "takes no argument");
	expect_error([&] { n.model->set_routing(std::string("lft:") + path); }, Status::io, path);
	assert_string_equal(n.model->routing().c_str(), (std::string("lft:") + path).c_str());
}

// A host without a tree position (its cable cut): the router is built,
// routes the rest, and reports paths to or from the host unroutable,
// naming it.
void host_without_position_is_unroutable(void **)
{
	Fabric f = degraded("2;4,4;1,4;1,1", {1}, {"n0002"});
	Tree t = Tree::from_fabric(f);
	assert_true(t.host_index(1) == kNone);
	DModK r(f, t);
	PortIdx links[kMaxPathLinks];
	assert_int_equal(r.path(0, 5, 0, links), 4);
	expect_error([&] { r.path(1, 5, 0, links); }, Status::unroutable, "n0002");
	expect_error([&] { r.path(5, 1, 0, links); }, Status::unroutable, "n0002");
	Lfts lfts = r.tables();
	TableRouter table(f, lfts);
	assert_string_equal(path_text(table, 0, 5, 0).c_str(), path_text(r, 0, 5, 0).c_str());
	assert_false(t.host_attached(1));

	// n0007's cable cut, its position kept (a fabric JSON with its tree):
	// cut off, and left out of the destinations' check, which the cut of a
	// host cable alone costs nothing.
	Fabric g = degraded("2;4,4;1,4;1,1", {6});
	Tree u = Tree::from_fabric(g);
	assert_true(u.host_index(6) != kNone);
	assert_false(u.host_attached(6));
	assert_true(u.host_attached(5));
	assert_int_equal(u.attached_hosts().size(), 15);
	DModK ru(g, u);
	assert_int_equal(shared_down_destinations(g, ru, u.attached_hosts()).size(), 0);
	expect_error([&] { shared_down_destinations(g, ru); }, Status::unroutable, "n0007");
}


// --- D-Mod-K ---------------------------------------------------------------

void dmodk_route_digits(void **)
{
	// Eq. 1 on the 1944-host tree: q_l(j) = floor(j / W_l) mod (w_{l+1} p_{l+1}).
	Net n("3;18,18,6;1,18,6;1,1,3");
	const DModK &d = dynamic_cast<const DModK &>(*n.router); // the fabric's default
	assert_int_equal(d.up_port(0, 1000), 0);
	assert_int_equal(d.up_port(1, 1000), 1000 % 18);
	assert_int_equal(d.up_port(2, 1000), (1000 / 18) % 18);
	// Down-ports carry one destination each (theorem 2): count the
	// destinations routed over every down link from all sources.
	Net s("2;12,12;1,6;1,2");
	std::vector<std::vector<HostOrd>> dests(s.fabric.port_count());
	PortIdx links[kMaxPathLinks];
	for (HostOrd a = 0; a < 144; a++)
		for (HostOrd b = 0; b < 144; b++) {
			unsigned len = s.router->path(a, b, 0, links);
			for (unsigned k = len / 2; k < len; k++) {
				auto &v = dests[links[k]];
				if (std::find(v.begin(), v.end(), b) == v.end())
					v.push_back(b);
			}
		}
	for (auto &v : dests)
		assert_true(v.size() <= 1);
}

void full_shift_is_congestion_free(void **)
{
	for (const char *t : kTrees) {
		Net n(t);
		Score sc = n.score(n.range(0, n.fabric.hosts().size()));
		assert_int_equal(sc.stages, n.fabric.hosts().size() - 1);
		assert_int_equal(sc.max_hsd, 1);
		assert_true(sc.avg_hsd == 1.0);
		assert_int_equal(sc.congested_stages, 0);
	}
}

// Threads play ranges of stages: every figure is the same as on one.
void threads_do_not_change_the_score(void **)
{
	Net n("2;18,18;1,18;1,1");
	std::vector<Job> jobs(3);
	RankOrder random = RankOrder::parse("random:7");
	jobs[0].ranks = apply_order(random, n.fabric, n.tree, n.range(0, 150));
	jobs[1].ranks = n.range(150, 100);
	jobs[2].ranks = apply_order(random, n.fabric, n.tree, n.range(250, 74));
	std::unique_ptr<Pattern> p = make_pattern("shift", nullptr);
	ScoreOptions one;
	one.worst_links = 20;
	one.bandwidth = true;
	one.shared_links = true;
	const Score a = score_jobs(n.fabric, *n.router, *p, jobs, one);
	assert_true(a.max_hsd > 1); // random orders congest: the peaks matter
	for (size_t threads : {2, 3, 8}) {
		ScoreOptions many = one;
		many.threads = threads;
		const Score b = score_jobs(n.fabric, *n.router, *p, jobs, many);
		assert_true(b.stage_hsd == a.stage_hsd);
		assert_int_equal(b.flows, a.flows);
		assert_int_equal(b.max_hsd_stage, a.max_hsd_stage);
		assert_int_equal(b.congested_stages, a.congested_stages);
		assert_true(b.bandwidth == a.bandwidth);
		assert_int_equal(b.shared_links, a.shared_links);
		assert_int_equal(b.worst_links.size(), a.worst_links.size());
		for (size_t i = 0; i < a.worst_links.size(); i++) {
			assert_int_equal(b.worst_links[i].link, a.worst_links[i].link);
			assert_int_equal(b.worst_links[i].peak, a.worst_links[i].peak);
			assert_int_equal(b.worst_links[i].peak_stages, a.worst_links[i].peak_stages);
		}
	}
}

void random_order_matches_table_3(void **)
{
	// Seed 000 table 3, "Rand Rank Avg HSD", Shift, all hosts, 25 orders.
	struct Row {
		const char *tuple;
		double paper;
	} rows[] = {{"2;12,12;1,12;1,1", 3.75}, {"2;18,18;1,18;1,1", 4.32}};
	for (const Row &row : rows) {
		Net n(row.tuple);
		double sum = 0;
		for (uint64_t seed = 1; seed <= 25; seed++) {
			RankOrder o;
			o.kind = RankOrder::random;
			o.seed = seed;
			sum += n.score(apply_order(o, n.fabric, &*n.tree,
						   n.range(0, n.fabric.hosts().size())))
				       .avg_hsd;
		}
		double mean = sum / 25;
		std::fprintf(stderr, "  %s: mean random-order avg HSD %.4f, paper %.2f\n",
			     row.tuple, mean, row.paper);
		assert_true(std::fabs(mean - row.paper) / row.paper < 0.03);
	}
}

void aligned_blocks_are_congestion_free(void **)
{
	Net n("3;18,18,6;1,18,6;1,1,3"); // block 108
	uint64_t block = n.tree->pgft().block();
	for (uint64_t i : {1, 2, 3, 5})
		for (uint64_t start : {uint64_t(0), block, 7 * block})
			if (start + i * block <= 1944) {
				Score sc = n.score(n.range(start, i * block));
				assert_int_equal(sc.max_hsd, 1);
			}
	// Whole leaves, not adjacent: also 1.0 (DESIGN.md section 3).
	Net two("2;18,18;1,18;1,1");
	std::vector<HostOrd> leaves = two.range(0, 18);
	for (HostOrd h : two.range(5 * 18, 18))
		leaves.push_back(h);
	assert_int_equal(two.score(leaves).max_hsd, 1);
}

void misaligned_sets_congest(void **)
{
	Net n("2;18,18;1,18;1,1");
	// Two hosts of leaf 0 whose partners (hosts 18 and 36) share the
	// residue j mod 18: stage s = 2 sends both up leaf 0's port 0.
	Score sc = n.score({0, 1, 18, 36});
	assert_int_equal(sc.max_hsd, 2);
	assert_int_equal(sc.stage_hsd[1], 2);
	// Contiguous from 0 but not a multiple of the block.
	sc = n.score(n.range(0, 100));
	assert_int_equal(sc.max_hsd, 2);
	assert_true(sc.avg_hsd > 1.5);
	// A block-sized run across two leaves is still congestion-free: D-Mod-K
	// needs contiguity modulo the block, not alignment (seed 000 lemma 2).
	assert_int_equal(n.score(n.range(9, 18)).max_hsd, 1);
}

void tree_recursive_doubling_is_congestion_free(void **)
{
	for (const char *t : kTrees) {
		Net n(t);
		Score sc = n.score(n.range(0, n.fabric.hosts().size()), "recdbl-tree");
		assert_true(sc.stages > 0);
		assert_int_equal(sc.max_hsd, 1);
	}
	// Plain recursive doubling is not, on a non-power-of-two tree.
	Net n("2;18,18;1,18;1,1");
	assert_true(n.score(n.range(0, 324), "recdbl").max_hsd > 1);
}

void lid_offsets_rotate_roots(void **)
{
	// With LMC 2 on a 2-level tree, offset k moves j's root from j mod K
	// to (j + k) mod K; a uniform offset keeps Shift congestion-free.
	Net n("2;12,12;1,12;1,1", 2);
	PortIdx links[kMaxPathLinks];
	for (unsigned k = 0; k < 4; k++) {
		unsigned len = n.router->path(0, 100, k, links);
		assert_int_equal(len, 4);
		const Node &root = n.fabric.node(n.fabric.port(links[1]).peer == kNone
							 ? 0
							 : n.fabric.port(n.fabric.port(links[1]).peer).node);
		assert_int_equal(root.level, 2);
		assert_int_equal(root.tree_index, (100 + k) % 12);
		Score sc = n.score(n.range(0, 144), "shift", std::vector<uint8_t>(144, uint8_t(k)));
		assert_int_equal(sc.max_hsd, 1);
	}
	expect_error([&] { n.router->path(0, 1, 4, links); }, Status::invalid, "expected 0..3");
}

// Offsets reach every level (tree_router.hpp shift()): on the 1944-host
// tree at LMC 4 a destination's 16 offsets take 16 distinct up-ports at
// level 1 and at level 2, offset 0 is eq. 1, and a pair across pods
// crosses 16 distinct top switches. Before, offset k routed as j + k and
// level 2 moved only on a carry: 2 top switches at most.
void lid_offsets_reach_every_level(void **)
{
	Net n("3;18,18,6;1,18,6;1,1,3", 4);
	const auto &d = dynamic_cast<const DModK &>(*n.router);
	for (uint64_t j : {0ull, 17ull, 1000ull, 1943ull}) {
		std::vector<bool> one(18, false), two(18, false);
		for (unsigned k = 0; k < 16; k++) {
			one[d.up_port(1, j, k)] = true;
			two[d.up_port(2, j, k)] = true;
		}
		assert_int_equal(std::count(one.begin(), one.end(), true), 16);
		assert_int_equal(std::count(two.begin(), two.end(), true), 16);
		assert_int_equal(d.up_port(1, j, 0), j % 18);
		assert_int_equal(d.up_port(2, j, 0), (j / 18) % 18);
	}
	PortIdx links[kMaxPathLinks];
	std::vector<NodeId> tops;
	for (unsigned k = 0; k < 16; k++) {
		assert_int_equal(n.router->path(5, 1900, k, links), 6);
		tops.push_back(n.fabric.port(links[2]).peer == kNone
				       ? kNone
				       : n.fabric.port(n.fabric.port(links[2]).peer).node);
		assert_int_equal(n.fabric.node(tops.back()).level, 3);
	}
	std::sort(tops.begin(), tops.end());
	assert_int_equal(std::unique(tops.begin(), tops.end()) - tops.begin(), 16);
}

// --- patterns --------------------------------------------------------------

std::vector<RankPair> stage(const char *spec, uint32_t n, size_t s)
{
	std::vector<RankPair> out;
	make_pattern(spec, nullptr)->stage(n, s, out);
	return out;
}

void patterns_follow_table_2(void **)
{
	auto p = make_pattern("shift", nullptr);
	assert_int_equal(p->stage_count(5), 4);
	auto st = stage("shift", 5, 1); // s = 2
	assert_int_equal(st.size(), 5);
	assert_int_equal(st[4].src, 4);
	assert_int_equal(st[4].dst, 1);
	// Recursive doubling on 6 ranks: pre, 2 bulk stages over 4 ranks, post.
	auto rd = make_pattern("recdbl", nullptr);
	assert_int_equal(rd->stage_count(6), 4);
	st = stage("recdbl", 6, 0);
	assert_int_equal(st.size(), 2);
	assert_int_equal(st[0].src, 4);
	assert_int_equal(st[0].dst, 0);
	st = stage("recdbl", 6, 2);
	assert_int_equal(st.size(), 4);
	assert_int_equal(st[1].dst, 3); // 1 xor 2
	st = stage("rechalv", 8, 0);
	assert_int_equal(st[0].dst, 4); // halving starts with the far partner
	// Tournament on 5: stage 0 pairs (1->0), (3->2); stage 2 (4->0).
	st = stage("tournament", 5, 0);
	assert_int_equal(st.size(), 2);
	assert_int_equal(st[1].src, 3);
	st = stage("tournament", 5, 2);
	assert_int_equal(st.size(), 1);
	assert_int_equal(st[0].src, 4);
	// Binomial stage 1 on 3 ranks: only 0 -> 2.
	st = stage("binomial", 3, 1);
	assert_int_equal(st.size(), 1);
	assert_int_equal(st[0].dst, 2);
	// Bisection: each stage a perfect matching, both directions.
	st = stage("bisect:3:9", 10, 2);
	assert_int_equal(st.size(), 10);
	std::vector<int> seen(10, 0);
	for (auto &pr : st)
		seen[pr.src]++;
	for (int c : seen)
		assert_int_equal(c, 1);
}

void tree_recursive_doubling_stages(void **)
{
	// m = (6, 4): level 1 has pre/post (6 is not 2^k), level 2 does not.
	Pgft g = Pgft::parse("2;6,4;1,6;1,1");
	auto p = make_pattern("recdbl-tree", &g);
	assert_int_equal(p->stage_count(24), 1 + 2 + 1 + 2);
	std::vector<RankPair> st;
	p->stage(24, 0, st); // pre: digit a_1 in {4,5} hands to a_1 - 4
	assert_int_equal(st.size(), 8);
	assert_int_equal(st[0].src, 4);
	assert_int_equal(st[0].dst, 0);
	p->stage(24, 4, st); // level 2, s = 0: a_2 xor 1; E_2 = 24 = M_2, all ranks
	assert_int_equal(st.size(), 24);
	assert_int_equal(st[0].dst, 6);
}

void unknown_pattern_lists_names(void **)
{
	expect_error([] { make_pattern("alltoall", nullptr); }, Status::invalid,
		     "expected one of shift, ring");
	expect_error([] { make_pattern("bisect:0", nullptr); }, Status::invalid, "expected 1..100000");
	expect_error([] { make_pattern("recdbl-tree", nullptr); }, Status::invalid, "needs the fabric");
	expect_error([] { make_pattern("shift:3", nullptr); }, Status::invalid, "takes no arguments");
}

// --- several jobs, bandwidth -------------------------------------------------

void jobs_in_lock_step(void **)
{
	Net n("2;18,18;1,18;1,1");
	auto p = make_pattern("shift", nullptr);
	Job a, b;
	a.ranks = n.range(0, 36);
	b.ranks = n.range(90, 54);
	Score both = score_jobs(n.fabric, *n.router, *p, {a, b});
	assert_int_equal(both.max_hsd, 1); // aligned jobs do not interfere
	assert_int_equal(both.stages, 53);
	Job c, d;
	c.ranks = n.range(3, 20);
	d.ranks = n.range(40, 25);
	Score alone = score_jobs(n.fabric, *n.router, *p, {c});
	Score mixed = score_jobs(n.fabric, *n.router, *p, {c, d});
	assert_true(mixed.avg_hsd >= alone.avg_hsd);
	Job dup;
	dup.ranks = {1, 2, 1};
	expect_error([&] { score_jobs(n.fabric, *n.router, *p, {dup}); }, Status::invalid,
		     "n0002 appears twice");
}

// Each job's HSD beside the others (ScoreOptions::per_job): a job that
// shares no link with the others keeps its HSD alone, whatever they do;
// jobs that share links meet at least their own; the figures match a
// recount from the observer's loads, and do not depend on threads.
void each_job_beside_the_others(void **)
{
	Net n("2;18,18;1,18;1,1");
	auto p = make_pattern("shift", nullptr);
	RankOrder random = RankOrder::parse("random:3");
	std::vector<Job> jobs(3);
	jobs[0].ranks = apply_order(random, n.fabric, n.tree, n.range(0, 60));
	jobs[1].ranks = apply_order(random, n.fabric, n.tree, n.range(60, 50));
	jobs[2].ranks = n.range(180, 40); // its own leaves, tree order
	ScoreOptions opt;
	opt.per_job = true;
	opt.shared_links = true;
	const Score all = score_jobs(n.fabric, *n.router, *p, jobs, opt);
	assert_int_equal(all.job_hsd.size(), 3);
	assert_true(all.shared_links > 0);
	std::vector<double> alone;
	for (const Job &j : jobs)
		alone.push_back(score_jobs(n.fabric, *n.router, *p, {j}).avg_hsd);
	assert_true(std::fabs(all.job_hsd[2] - alone[2]) < 1e-12);
	assert_true(all.job_hsd[0] >= alone[0] && all.job_hsd[1] >= alone[1]);
	assert_true(all.job_hsd[0] > alone[0] || all.job_hsd[1] > alone[1]);
	// recount: per stage, each job's busiest link among its flows' paths
	std::vector<uint32_t> job_of(n.fabric.hosts().size(), 9);
	for (uint32_t j = 0; j < 3; j++)
		for (HostOrd h : jobs[j].ranks)
			job_of[h] = j;
	std::vector<double> sum(3, 0);
	std::vector<size_t> stages(3, 0);
	ScoreOptions watch;
	watch.observer = [&](size_t, const std::vector<Flow> &flows, const std::vector<uint32_t> &load) {
		std::vector<uint32_t> worst(3, 0);
		PortIdx path[kMaxPathLinks];
		for (const Flow &fl : flows) {
			unsigned len = n.router->path(fl.src, fl.dst, fl.offset, path);
			for (unsigned k = 0; k < len; k++)
				worst[job_of[fl.src]] = std::max(worst[job_of[fl.src]], load[path[k]]);
		}
		for (size_t j = 0; j < 3; j++)
			if (worst[j]) {
				sum[j] += worst[j];
				stages[j]++;
			}
	};
	score_jobs(n.fabric, *n.router, *p, jobs, watch);
	for (size_t j = 0; j < 3; j++)
		assert_true(std::fabs(all.job_hsd[j] - sum[j] / double(stages[j])) < 1e-12);
	ScoreOptions three = opt;
	three.threads = 3;
	assert_true(score_jobs(n.fabric, *n.router, *p, jobs, three).job_hsd == all.job_hsd);
	print_message("job HSD beside the others: %.3f %.3f %.3f (alone %.3f %.3f %.3f)\n",
		      all.job_hsd[0], all.job_hsd[1], all.job_hsd[2], alone[0], alone[1], alone[2]);
}

void bisection_bandwidth(void **)
{
	Net n("2;18,18;1,18;1,1");
	auto p = make_pattern("bisect:50:1", nullptr);
	Job all;
	all.ranks = n.range(0, 324);
	ScoreOptions opt;
	opt.bandwidth = true;
	Score sc = score_jobs(n.fabric, *n.router, *p, {all}, opt);
	std::fprintf(stderr, "  eBB 324 hosts D-Mod-K: %.4f\n", sc.bandwidth);
	assert_true(sc.bandwidth > 0.3 && sc.bandwidth < 1.0);
	// A tree-ordered Shift gets the whole link for every flow.
	Score shift = score_jobs(n.fabric, *n.router, *make_pattern("shift", nullptr), {all}, opt);
	assert_true(shift.bandwidth == 1.0);
}

// --- JSON --------------------------------------------------------------------

void json_round_trip(void **)
{
	Net n("3;4,4,2;1,4,2;1,1,2", 1);
	std::string text = fabric_to_json(n.fabric);
	Fabric back = fabric_parse_json(text, "memory");
	assert_int_equal(back.node_count(), n.fabric.node_count());
	assert_int_equal(back.lmc(), 1);
	assert_string_equal(back.tree_tuple().c_str(), "3;4,4,2;1,4,2;1,1,2");
	assert_string_equal(fabric_to_json(back).c_str(), text.c_str());
	Tree t = Tree::from_fabric(back);
	DModK r(back, t);
	auto p = make_pattern("shift", nullptr);
	Job j;
	j.ranks = n.range(0, 32);
	assert_int_equal(score_jobs(back, r, *p, {j}).max_hsd, 1);
}

const char kTiny[] =
	"{\"format\":\"slurm-qft-fabric\",\"version\":1,\n"
	"\"switches\":[{\"guid\":\"0x10\",\"desc\":\"s\",\"ports\":4,\"lid\":9}],\n"
	"\"hosts\":[{\"guid\":\"0x20\",\"desc\":\"a HCA\",\"name\":\"a\",\"ports\":1,\"lid\":1}],\n"
	"\"links\":[[\"0x10\",1,\"0x20\",1,\"4x\",\"HDR\"]]}\n";

std::string tiny_with(const std::string &from, const std::string &to)
{
	std::string s = kTiny;
	size_t at = s.find(from);
	assert_true(at != std::string::npos);
	s.replace(at, from.size(), to);
	return s;
}

void json_tiny_loads(void **)
{
	Fabric f = fabric_parse_json(kTiny, "tiny.json");
	assert_int_equal(f.hosts().size(), 1);
	assert_int_equal(f.find_host("a"), 0);
	assert_int_equal(f.host_lid(0), 1);
}

void json_syntax_error_has_position(void **)
{
	expect_error([] { fabric_parse_json(tiny_with("\"lid\":9}", "\"lid\":9,}"), "bad.json"); },
		     Status::parse, "bad.json:2:");
}
void json_wrong_format(void **)
{
	expect_error([] { fabric_parse_json(tiny_with("slurm-qft-fabric", "other"), "f.json"); },
		     Status::parse, "f.json: format: expected \"slurm-qft-fabric\"");
}
void json_future_version(void **)
{
	expect_error([] { fabric_parse_json(tiny_with("\"version\":1", "\"version\":2"), "f.json"); },
		     Status::unsupported, "version 2");
}
void json_unknown_guid(void **)
{
	expect_error([] { fabric_parse_json(tiny_with("[\"0x10\",1,\"0x20\"", "[\"0x10\",1,\"0x21\""), "f.json"); },
		     Status::not_found, "links[0][2]: GUID 0x0000000000000021");
}
void json_duplicate_guid(void **)
{
	expect_error([] { fabric_parse_json(tiny_with("\"guid\":\"0x20\"", "\"guid\":\"0x10\""), "f.json"); },
		     Status::invalid, "f.json: duplicate GUID 0x0000000000000010");
}
void json_bad_port(void **)
{
	expect_error([] { fabric_parse_json(tiny_with("[\"0x10\",1,", "[\"0x10\",5,"), "f.json"); },
		     Status::invalid, "port 5 does not exist, expected 1..4");
}
void json_missing_member(void **)
{
	expect_error([] { fabric_parse_json(tiny_with("\"ports\":4,", ""), "f.json"); },
		     Status::parse, "switches[0]: expected a member \"ports\"");
}
void json_bad_guid_text(void **)
{
	expect_error([] { fabric_parse_json(tiny_with("\"guid\":\"0x20\"", "\"guid\":\"twenty\""), "f.json"); },
		     Status::parse, "hosts[0].guid: expected a GUID");
}
void json_missing_file(void **)
{
	expect_error([] { fabric_load_json("/nonexistent/fabric.json"); }, Status::io,
		     "/nonexistent/fabric.json: cannot open");
}

// --- host resolution ---------------------------------------------------------

void resolve_reports_every_unknown_host(void **)
{
	Net n("2;4,4;1,4;1,1");
	expect_error([&] { resolve_hosts(n.fabric, {"n0001", "x1", "x2", "x3", "y"}); },
		     Status::not_found, "4 host(s) not in the fabric: x[1-3],y");
	expect_error([&] { resolve_hosts(n.fabric, {"n0001", "n0001"}); }, Status::invalid,
		     "n0001 is listed twice");
	expect_error([&] { resolve_hosts(n.fabric, {}); }, Status::invalid, "empty");
}

void tree_order_sorts_shuffled_names(void **)
{
	GenOptions opt;
	opt.shuffle_names = 42;
	Fabric f = generate_pgft(Pgft::parse("2;4,4;1,4;1,1"), opt);
	Tree t = Tree::from_fabric(f);
	std::vector<HostOrd> all;
	for (HostOrd h = 0; h < 16; h++)
		all.push_back(15 - h);
	std::vector<HostOrd> sorted = tree_order(f, t, all);
	for (HostOrd h = 0; h < 16; h++)
		assert_int_equal(t.host_index(sorted[h]), h);
	// Names really are shuffled: some name is not at its own position.
	bool moved = false;
	for (HostOrd h = 0; h < 16; h++)
		moved |= f.node(f.hosts()[h]).name != format_host_name("n%04d", h + 1);
	assert_true(moved);
}

void host_name_patterns(void **)
{
	assert_string_equal(format_host_name("n%04d", 7).c_str(), "n0007");
	assert_string_equal(format_host_name("cn%d-ib", 12).c_str(), "cn12-ib");
	assert_string_equal(format_host_name("x%03x", 255).c_str(), "x0ff");
	expect_error([] { format_host_name("node", 1); }, Status::invalid, "one number conversion");
	expect_error([] { format_host_name("n%d%d", 1); }, Status::invalid, "found two");
	expect_error([] { format_host_name("n%s", 1); }, Status::invalid, "expected %d");
	expect_error([] { format_host_name("n %d", 1); }, Status::invalid, "without blanks");
}

// --- qft status's record ------------------------------------------------------

void controller_status_round_trip(void **)
{
	ControllerStatus s;
	s.written = 1700000000;
	s.slurm_version = "22.05.8";
	s.source = "/etc/slurm/fabric.json";
	s.format = "json";
	s.loaded = 1699999990;
	s.tree = "PGFT(2;4,4;1,4;1,1)";
	s.routing = "dmodk";
	s.hosts = 16;
	s.switch_groups = 5;
	s.findings = {"f.json: missing cable: \"a\" up-port 1", "second"};
	s.attempted = 1700000000;
	s.attempt_file = "/etc/slurm/fabric.json";
	s.refused = "/etc/slurm/fabric.json:2:0: string expected";
	s.cut_off = "n[0003-0004]";
	s.cut_off_count = 2;
	const ControllerStatus r = status_from_json(status_to_json(s), "st.json");
	assert_string_equal(status_to_json(r).c_str(), status_to_json(s).c_str());
	assert_int_equal(r.findings.size(), 2);
	assert_string_equal(r.findings[0].c_str(), s.findings[0].c_str());
	const std::string text = status_text(r);
	assert_non_null(strstr(text.c_str(), "refused, the fabric in use stays\n  /etc/slurm/fabric.json:2:0:"));
	assert_non_null(strstr(text.c_str(), "select/rlft's placements leave them out) 2: n[0003-0004]\n"));
	assert_non_null(strstr(text.c_str(), "findings 2\n"));

	expect_error([] { status_from_json("{\"format\": ", "st.json"); }, Status::parse, "st.json:1: ");
	expect_error([] { status_from_json("[]", "st.json"); }, Status::parse, "st.json: expected a JSON object");
	expect_error([] { status_from_json("{\"format\": \"slurm-qft-fabric\"}", "st.json"); },
		     Status::parse, "st.json: \"format\": expected \"slurm-qft-status\"");
	std::string no_hosts = status_to_json(s);
	no_hosts.replace(no_hosts.find("\"hosts\""), 7, "\"hostz\"");
	expect_error([&] { status_from_json(no_hosts, "st.json"); }, Status::parse,
		     "st.json: \"hosts\": expected an integer >= 0");
}

} // namespace

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pgft_parses),
		cmocka_unit_test(pgft_rejects_empty),
		cmocka_unit_test(pgft_rejects_letters),
		cmocka_unit_test(pgft_rejects_short_field),
		cmocka_unit_test(pgft_rejects_missing_field),
		cmocka_unit_test(pgft_rejects_trailing),
		cmocka_unit_test(pgft_rejects_zero),
		cmocka_unit_test(pgft_rejects_deep),
		cmocka_unit_test(pgft_rejects_radix),
		cmocka_unit_test(pgft_rejects_huge),
		cmocka_unit_test(pgft_rejects_overflow_number),
		cmocka_unit_test(rlft_rules),
		cmocka_unit_test(generator_follows_connection_rule),
		cmocka_unit_test(tree_rejects_two_nodes_at_one_position),
		cmocka_unit_test(tree_lists_missing_cables),
		cmocka_unit_test(cut_parallel_cable_keeps_the_others),
		cmocka_unit_test(degraded_routes_match_their_tables),
		cmocka_unit_test(host_without_position_is_unroutable),
		cmocka_unit_test(dmodk_route_digits),
		cmocka_unit_test(model_routing_by_name),
		cmocka_unit_test(full_shift_is_congestion_free),
		cmocka_unit_test(threads_do_not_change_the_score),
		cmocka_unit_test(random_order_matches_table_3),
		cmocka_unit_test(aligned_blocks_are_congestion_free),
		cmocka_unit_test(misaligned_sets_congest),
		cmocka_unit_test(tree_recursive_doubling_is_congestion_free),
		cmocka_unit_test(lid_offsets_rotate_roots),
		cmocka_unit_test(lid_offsets_reach_every_level),
		cmocka_unit_test(patterns_follow_table_2),
		cmocka_unit_test(tree_recursive_doubling_stages),
		cmocka_unit_test(unknown_pattern_lists_names),
		cmocka_unit_test(jobs_in_lock_step),
		cmocka_unit_test(each_job_beside_the_others),
		cmocka_unit_test(bisection_bandwidth),
		cmocka_unit_test(json_round_trip),
		cmocka_unit_test(json_tiny_loads),
		cmocka_unit_test(json_syntax_error_has_position),
		cmocka_unit_test(json_wrong_format),
		cmocka_unit_test(json_future_version),
		cmocka_unit_test(json_unknown_guid),
		cmocka_unit_test(json_duplicate_guid),
		cmocka_unit_test(json_bad_port),
		cmocka_unit_test(json_missing_member),
		cmocka_unit_test(json_bad_guid_text),
		cmocka_unit_test(json_missing_file),
		cmocka_unit_test(resolve_reports_every_unknown_host),
		cmocka_unit_test(tree_order_sorts_shuffled_names),
		cmocka_unit_test(host_name_patterns),
		cmocka_unit_test(controller_status_round_trip),
	};
	return cmocka_run_group_tests_name("core", tests, nullptr, nullptr);
}
