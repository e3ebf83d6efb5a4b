// SPDX-License-Identifier: GPL-2.0-or-later
// Quasi Fat Trees (seed 002): the wiring against slide 16's descendant
// criterion, and the closed-form routing against full-fabric Shift.
#include <algorithm>
#include <chrono>
#include <iterator>
#include <cstdio>
#include <memory>
#include <set>
#include <sstream>
#include <vector>

#include "lib/common/random.hpp"
#include "lib/fabric/fabric_json.hpp"
#include "lib/model/model.hpp"
#include "lib/place/placement.hpp"
#include "lib/place/qft_runs.hpp"
#include "lib/route/dmodk.hpp"
#include "lib/route/lft.hpp"
#include "lib/route/qft_route.hpp"
#include "lib/score/score.hpp"
#include "lib/slurm/groups.hpp"
#include "lib/tree/generate.hpp"
#include "lib/tree/qft_wiring.hpp"
#include "lib/tree/recognise.hpp"
#include "lib/tree/tree.hpp"
#include "lib/traffic/pattern.hpp"

#include "tests/unit/cmocka.hpp"
#include "tests/unit/degraded.hpp"
#include "tests/unit/model.hpp"
#include "tests/unit/busy_positions.hpp"

using namespace qft;

namespace {

struct Qnet : test::Modelled {
	explicit Qnet(const char *tuple, unsigned lmc = 0) : Modelled(qft_fabric(tuple, lmc)) {}
	static Fabric qft_fabric(const char *tuple, unsigned lmc)
	{
		GenOptions opt;
		opt.lmc = lmc;
		return generate_qft(Pgft::parse(tuple), opt);
	}
	std::vector<HostOrd> all() const
	{
		std::vector<HostOrd> v(fabric.hosts().size());
		for (HostOrd h = 0; h < v.size(); h++)
			v[h] = h; // generated: ordinal == tree index
		return v;
	}
	Score shift(const Router &r, const std::vector<HostOrd> &ranks, uint8_t offset = 0) const
	{
		Job job;
		job.ranks = ranks;
		if (offset)
			job.offsets.assign(ranks.size(), offset);
		return score_jobs(fabric, r, *make_pattern("shift", &tree->pgft()), {job});
	}
};

// Side-linked levels at 1 (multi-port hosts), 2, 3 and 4; groups of 2 and 3.
const char *kWirings[] = {
	"2;4,4;1,2;1,2",           // no side link: the PGFT's cables
	"3;8,4,4;1,4,4;1,2,2",     // the first tuple
	"3;4,2,8;1,2,4;1,2,1",
	"3;4,6,3;1,2,3;1,3,2",     // a group of 3
	"3;4,4,4;2,2,2;2,2,2",     // hosts with cables into two leaf groups
	"4;4,4,4,4;1,2,4,4;1,2,2,2",
	"5;2,2,2,2,2;1,2,2,2,2;1,2,2,2,2",
};

// The QFTs routed: 2 and 3 levels (the 2-level RLFT keeps its PGFT
// cables), >= 1000 hosts with p > 1 at two levels, and 4 levels, where
// slide 16's u term first matters.
const char *kRouted[] = {
	"2;8,8;1,4;1,2",
	"3;8,4,4;1,4,4;1,2,2",
	"3;4,2,8;1,2,4;1,2,1",
	"3;16,8,8;1,8,8;1,2,2",       // 1024 hosts, p2 = p3 = 2
	"4;4,4,4,4;1,2,4,4;1,2,2,2",
	"4;8,4,4,8;1,4,4,4;1,2,2,2",  // 1024 hosts, side links at 2 and 3
};

// Hosts below every switch, walking the generated cables downward.
std::vector<std::set<uint64_t>> hosts_below(const Fabric &f, const Pgft &g, unsigned l,
					    const std::vector<std::vector<std::set<uint64_t>>> &lower)
{
	std::vector<std::set<uint64_t>> out(g.nodes_at(l));
	for (NodeId id = 0; id < f.node_count(); id++) {
		const Node &n = f.node(id);
		if (n.level != int(l))
			continue;
		for (unsigned p = 0; p < n.num_ports; p++) {
			const PortIdx peer = f.port(n.first_port + p).peer;
			if (peer == kNone)
				continue;
			const Node &c = f.node(f.port(peer).node);
			if (c.level == int(l) - 1)
				out[n.tree_index].insert(lower[l - 1][c.tree_index].begin(),
							 lower[l - 1][c.tree_index].end());
		}
	}
	return out;
}

// --- wiring ------------------------------------------------------------------

// Slide 16's descendant criterion names exactly the hosts each switch
// reaches downward over the generated cables, on every switch of every
// tuple; every switch has its ports full and Tree reads the graph back.
void descendant_criterion_matches_the_wiring(void **)
{
	for (const char *t : kWirings) {
		const Pgft g = Pgft::parse(t);
		const Fabric f = generate_qft(g, GenOptions());
		std::vector<std::vector<std::set<uint64_t>>> below(g.h() + 1);
		below[0].resize(g.hosts());
		for (uint64_t j = 0; j < g.hosts(); j++)
			below[0][j] = {j};
		size_t side_switches = 0;
		for (unsigned l = 1; l <= g.h(); l++) {
			below[l] = hosts_below(f, g, l, below);
			for (uint64_t s = 0; s < g.nodes_at(l); s++) {
				const std::vector<unsigned> sd = g.digits(l, s);
				std::set<uint64_t> named;
				for (uint64_t j = 0; j < g.hosts(); j++)
					if (qft_descends(g, l, sd, g.digits(0, j)))
						named.insert(j);
				if (named != below[l][s])
					fail_msg("QFT of %s: switch L%u #%llu reaches %zu hosts, the "
						 "criterion names %zu",
						 t, l, (unsigned long long)s, below[l][s].size(), named.size());
				// wider than the PGFT's subtree on a side-linked level
				if (l < g.h() && below[l][s].size() > g.M(l))
					side_switches++;
			}
		}
		bool any_side = false;
		for (unsigned l = 1; l < g.h(); l++)
			any_side |= qft_side_linked(g, l);
		assert_true(any_side == (side_switches > 0));
		size_t cables = 0;
		for (PortIdx p = 0; p < f.port_count(); p++)
			cables += f.port(p).peer != kNone;
		assert_int_equal(cables, f.port_count()); // every port cabled
		const Tree tree = Tree::from_fabric(f);
		assert_true(tree.qft());
		assert_true(tree.missing().empty());
	}
}

// Slide 16's f is the upper end's down-port of every side-linked cable:
// r = d_l + m_l (d_{l+1} mod p_l), d the lower node's digits.
void side_cables_arrive_at_slide_f(void **)
{
	const Pgft g = Pgft::parse("4;4,4,4,4;1,2,4,4;1,2,2,2");
	const Fabric f = generate_qft(g, GenOptions());
	const Tree t = Tree::from_fabric(f);
	for (unsigned l = 0; l < g.h(); l++)
		for (uint64_t idx = 0; idx < g.nodes_at(l); idx++) {
			const std::vector<unsigned> a = g.digits(l, idx);
			for (unsigned q = 0; q < g.up_ports(l); q++) {
				const Port &peer = f.port(f.port(t.up_port(l, idx, q)).peer);
				const unsigned L = l + 1, r = peer.num - 1;
				const std::vector<unsigned> b = g.digits(L, f.node(peer.node).tree_index);
				assert_int_equal(b[L - 1], q % g.w(L));
				if (qft_side_linked(g, L)) {
					assert_int_equal(r, a[L - 1] + g.m(L) * (a[L] % g.p(L)));
					assert_int_equal(b[L], a[L] / g.p(L) * g.p(L) + q / g.w(L));
				} else {
					assert_int_equal(r, a[L - 1] + g.m(L) * (q / g.w(L)));
				}
			}
		}
}

void qft_rejects_partial_groups(void **)
{
	expect_error([] { generate_qft(Pgft::parse("3;4,2,3;1,2,2;1,2,1"), GenOptions()); },
		     Status::invalid, "p2 = 2 does not divide m3 = 3");
}

// The kind travels in the JSON: a QFT round-trips byte for byte; read as
// a PGFT (its kind removed) its cables break the PGFT rule.
void qft_json_round_trip(void **)
{
	const Fabric f = generate_qft(Pgft::parse("3;8,4,4;1,4,4;1,2,2"), GenOptions());
	const std::string json = fabric_to_json(f);
	assert_non_null(strstr(json.c_str(), "\"tree_kind\": \"qft\""));
	const Fabric back = fabric_parse_json(json, "qft.json");
	assert_true(back.tree_kind() == TreeKind::qft);
	assert_string_equal(fabric_to_json(back).c_str(), json.c_str());
	assert_true(Tree::from_fabric(back).qft());
	std::string as_pgft = json;
	as_pgft.erase(as_pgft.find(" \"tree_kind\""), strlen(" \"tree_kind\": \"qft\",\n"));
	expect_error([&] { Tree::from_fabric(fabric_parse_json(as_pgft, "x")); }, Status::invalid,
		     "breaks the PGFT connection rule");
	std::string bad = json;
	bad.replace(bad.find("\"qft\""), 5, "\"xgft\"");
	expect_error([&] { fabric_parse_json(bad, "bad.json"); }, Status::parse,
		     "tree_kind: expected \"pgft\" or \"qft\"");
	// a PGFT's file says no kind, as before QFTs
	const std::string pgft = fabric_to_json(generate_pgft(Pgft::parse("2;4,4;1,4;1,1"), GenOptions()));
	assert_null(strstr(pgft.c_str(), "tree_kind"));
}

// --- routing -----------------------------------------------------------------

// "dmodk" on a QFT is its closed form; D-Mod-K itself refuses a QFT, and
// the QFT router a PGFT.
void routing_by_tree_kind(void **)
{
	Qnet n("3;8,4,4;1,4,4;1,2,2");
	assert_string_equal(n.model->routing().c_str(), "dmodk");
	assert_string_equal(n.router->name(), "qft");
	expect_error([&] { DModK d(n.fabric, *n.tree); }, Status::invalid, "routes a PGFT");
	test::Modelled p(test::Modelled::generated("2;4,4;1,4;1,1"));
	expect_error([&] { QftRoute r(p.fabric, *p.tree); }, Status::invalid,
		     "expected the QFT of a PGFT");
}

// Slide 16's g: R'_l = W_l p_{l-1} p_l, u_l the side member two levels
// down.
void up_port_is_slide_g(void **)
{
	Qnet n("4;4,4,4,4;1,2,4,4;1,2,2,2");
	const auto &r = dynamic_cast<const QftRoute &>(*n.router);
	// R'_0 = 1, R'_1 = 1, R'_2 = 2*2 = 4, R'_3 = 8*2*2 = 32
	for (uint64_t d : {0ull, 1ull, 5ull, 37ull, 200ull, 255ull}) {
		assert_int_equal(r.up_port(0, d), 0);
		assert_int_equal(r.up_port(1, d), d % 4);
		assert_int_equal(r.up_port(2, d), (d / 4) % 8);
		const uint64_t u = (d % 4) / 2; // floor(d / R'_1) mod (w_2 p_2), div w_2
		assert_int_equal(r.up_port(3, d), (d / 32 * 2 + u) % 8);
	}
}

// Every host reaches every host at every offset: the path starts at the
// source, each link starts where the previous ended, it climbs and then
// descends, and ends at the destination.
void every_host_reaches_every_host(void **)
{
	for (const char *t : {"3;8,4,4;1,4,4;1,2,2", "4;4,4,4,4;1,2,4,4;1,2,2,2"}) {
		Qnet n(t, 1);
		const Fabric &f = n.fabric;
		PortIdx links[kMaxPathLinks];
		for (HostOrd s = 0; s < f.hosts().size(); s++)
			for (HostOrd d = 0; d < f.hosts().size(); d++)
				for (unsigned k = 0; k < n.router->offsets(); k++) {
					const unsigned len = n.router->path(s, d, k, links);
					if (s == d) {
						assert_int_equal(len, 0);
						continue;
					}
					NodeId at = f.hosts()[s];
					int level = 0;
					for (unsigned i = 0; i < len; i++) {
						assert_int_equal(f.port(links[i]).node, at);
						at = f.port(f.port(links[i]).peer).node;
						const int next = f.node(at).level;
						assert_int_equal(next, i < len / 2 ? level + 1 : level - 1);
						level = next;
					}
					assert_int_equal(at, f.hosts()[d]);
				}
	}
}

// The scoring fast path adds the links path() gives.
void add_loads_matches_paths(void **)
{
	Qnet n("4;4,4,4,4;1,2,4,4;1,2,2,2", 2);
	std::vector<Flow> flows;
	for (HostOrd s = 0; s < 256; s += 3)
		for (HostOrd d = 0; d < 256; d += 5)
			flows.emplace_back(s, d, uint8_t((s + d) % 4));
	for (bool sparse : {true, false}) {
		LinkLoads fast(n.fabric.port_count()), slow(n.fabric.port_count());
		fast.set_sparse(sparse);
		slow.set_sparse(sparse);
		n.router->add_loads(flows.data(), flows.size(), fast);
		n.router->Router::add_loads(flows.data(), flows.size(), slow);
		assert_true(fast.dense() == slow.dense());
	}
}

// Full-fabric Shift in tree order, every stage, at LID offset 0 and at a
// uniform offset: no link carries two flows.
void full_shift_is_congestion_free(void **)
{
	for (const char *t : kRouted) {
		Qnet n(t, 1);
		for (uint8_t k : {0, 1}) {
			const Score sc = n.shift(*n.router, n.all(), k);
			if (sc.max_hsd != 1)
				fail_msg("QFT of %s, offset %u: Shift HSD %.3f, max %u at stage %zu", t,
					 k, sc.avg_hsd, sc.max_hsd, sc.max_hsd_stage);
			assert_int_equal(sc.stages, n.fabric.hosts().size() - 1);
			assert_int_equal(sc.congested_stages, 0);
		}
	}
}

// Slide 16's down-port f as written: from the top switch of the up-path,
// child by child, port f(l, d). A valid next hop, but it ignores the side
// branch the destination's own up-path took.
class SlideDown final : public Router {
public:
	SlideDown(const Fabric &f, const Tree &t, const Router &up) : f_(f), t_(t), up_(up) {}
	const char *name() const override { return "slide-f"; }
	unsigned offsets() const override { return up_.offsets(); }
	unsigned path(HostOrd s, HostOrd d, unsigned k, PortIdx *out) const override
	{
		const unsigned len = up_.path(s, d, k, out), top = len / 2;
		if (!len)
			return 0;
		const Pgft &g = t_.pgft();
		const std::vector<unsigned> dd = g.digits(0, t_.host_index(d));
		NodeId at = f_.port(f_.port(out[top - 1]).peer).node;
		for (unsigned l = top; l >= 1; l--) {
			unsigned r = dd[l - 1];
			if (g.p(l) > 1)
				r += g.m(l) * (dd[l == g.h() ? l - 2 : l] % g.p(l));
			out[2 * top - l] = f_.port_index(at, r + 1);
			at = f_.port(f_.port(out[2 * top - l]).peer).node;
		}
		assert_int_equal(at, f_.hosts()[d]);
		return len;
	}

private:
	const Fabric &f_;
	const Tree &t_;
	const Router &up_;
};

void slide_f_congests_shift(void **)
{
	Qnet n("3;8,4,4;1,4,4;1,2,2");
	SlideDown slide(n.fabric, *n.tree, *n.router);
	const Score sc = n.shift(slide, n.all());
	assert_true(sc.max_hsd > 1);
	print_message("slide f on the QFT of 3;8,4,4;1,4,4;1,2,2: Shift HSD %.3f (max %u)\n",
		      sc.avg_hsd, sc.max_hsd);
}

// Slide 11: the QFT's level-2 switches reach 64 hosts, the PGFT's 32, so
// the mean path falls from 686/127 to 622/127 links.
void qft_shortens_mean_distance(void **)
{
	Qnet q("3;8,4,4;1,4,4;1,2,2");
	test::Modelled p(test::Modelled::generated("3;8,4,4;1,4,4;1,2,2"));
	PortIdx links[kMaxPathLinks];
	uint64_t qsum = 0, psum = 0;
	for (HostOrd s = 0; s < 128; s++)
		for (HostOrd d = 0; d < 128; d++) {
			qsum += q.router->path(s, d, 0, links);
			psum += p.router->path(s, d, 0, links);
		}
	assert_int_equal(psum, 128 * 686);
	assert_int_equal(qsum, 128 * 622);
}


// --- forwarding tables and missing cables (slide 17) -------------------------

// `f` re-read from its JSON without `count` of its cables between
// switches, picked at random by `seed` (the JSON lists the host cables
// first, then the switch cables level by level).
Fabric without_switch_cables(const Fabric &f, size_t count, uint64_t seed)
{
	size_t host_cables = 0;
	for (HostOrd h = 0; h < f.hosts().size(); h++) {
		const Node &n = f.node(f.hosts()[h]);
		for (unsigned p = 0; p < n.num_ports; p++)
			host_cables += f.port(n.first_port + p).peer != kNone;
	}
	const std::string json = fabric_to_json(f);
	const size_t open = json.find('[', json.find("\"links\"")) + 1, close = json.rfind(']');
	std::vector<std::string> lines;
	std::istringstream in(json.substr(open, close - open));
	for (std::string line; std::getline(in, line);) {
		line = line.substr(0, line.find_last_of(']') + 1);
		if (line.find('[') != std::string::npos)
			lines.push_back(line);
	}
	std::vector<size_t> sw(lines.size() - host_cables);
	for (size_t i = 0; i < sw.size(); i++)
		sw[i] = host_cables + i;
	Rng rng(seed);
	shuffle(sw, rng);
	std::vector<bool> cut(lines.size(), false);
	for (size_t i = 0; i < count; i++)
		cut[sw[i]] = true;
	std::string kept;
	for (size_t i = 0; i < lines.size(); i++)
		if (!cut[i])
			kept += (kept.empty() ? "\n" : ",\n") + lines[i];
	return fabric_parse_json(json.substr(0, open) + kept + "\n" + json.substr(close), "cut");
}

size_t switch_cables(const Pgft &g)
{
	size_t n = 0;
	for (unsigned l = 1; l < g.h(); l++)
		n += g.nodes_at(l) * g.up_ports(l);
	return n;
}

// The closed form's tables, walked switch by switch as OpenSM's file
// engine would program them, give path() exactly, for every pair and
// offset: on whole QFTs (every switch has an entry for every host LID)
// and with cables missing (one rule gives both). Not on hosts with several
// cables (w_1 p_1 > 1): which one a host sends from is not in the tables.
void qft_routes_match_their_tables(void **)
{
	struct Case {
		const char *tuple;
		unsigned lmc;
		size_t cut;
		uint64_t seed;
	} cases[] = {
		{"3;8,4,4;1,4,4;1,2,2", 1, 0, 0},
		{"4;4,4,4,4;1,2,4,4;1,2,2,2", 0, 0, 0},
		{"3;8,4,4;1,4,4;1,2,2", 1, 25, 1},  // 10% of its 256 switch cables
		{"3;8,4,4;1,4,4;1,2,2", 2, 25, 4},  // offsets turn levels 1 and 2
		{"3;8,4,4;1,4,4;1,2,2", 0, 50, 2},  // 20%
		{"4;4,4,4,4;1,2,4,4;1,2,2,2", 1, 40, 3}, // 5% of 768
	};
	for (const Case &c : cases) {
		Fabric f = Qnet::qft_fabric(c.tuple, c.lmc);
		if (c.cut)
			f = without_switch_cables(f, c.cut, c.seed);
		const Tree t = Tree::from_fabric(f);
		assert_true(t.qft());
		assert_int_equal(t.missing().size(), c.cut);
		QftRoute r(f, t);
		const Lfts lfts = r.tables();
		TableRouter table(f, lfts);
		size_t unroutable = 0, entries = 0;
		for (HostOrd s = 0; s < f.hosts().size(); s++)
			for (HostOrd d = 0; d < f.hosts().size(); d++)
				for (unsigned k = 0; k < r.offsets(); k++) {
					const std::string a = test::path_text(r, s, d, k);
					if (a != test::path_text(table, s, d, k))
						fail_msg("QFT of %s, %zu cut: %u -> %u offset %u: path %s, "
							 "tables %s", c.tuple, c.cut, s, d, k, a.c_str(),
							 test::path_text(table, s, d, k).c_str());
					unroutable += a == "unroutable";
				}
		for (NodeId id = 0; id < f.node_count(); id++)
			if (f.node(id).type == NodeType::switch_node)
				for (HostOrd d = 0; d < f.hosts().size(); d++)
					for (unsigned k = 0; k < r.offsets(); k++)
						entries += lfts.port(id, f.host_lid(d) + k) != kNoRoute;
		assert_int_equal(unroutable, 0);
		if (!c.cut)
			assert_int_equal(entries, (f.node_count() - f.hosts().size()) *
							  f.hosts().size() * r.offsets());
	}
}

// The tables of the 1024-host QFT against D-Mod-K's for the PGFT of the
// same tuple, same run; the QFT's are exact (they route as path()).
void qft_table_time(void **)
{
	const char *tuple = "3;16,8,8;1,8,8;1,2,2";
	for (unsigned lmc : {0u, 1u}) {
		Qnet q(tuple, lmc);
		test::Modelled p(test::Modelled::generated(tuple, lmc));
		const auto &qr = dynamic_cast<const QftRoute &>(*q.router);
		const auto &pr = dynamic_cast<const DModK &>(*p.router);
		using Clock = std::chrono::steady_clock;
		const auto t0 = Clock::now();
		const Lfts ql = qr.tables();
		const auto t1 = Clock::now();
		const Lfts pl = pr.tables();
		const auto t2 = Clock::now();
		const double qs = std::chrono::duration<double>(t1 - t0).count();
		const double ps = std::chrono::duration<double>(t2 - t1).count();
		print_message("tables of %s, LMC %u: QFT %.3f s, PGFT (D-Mod-K) %.3f s\n", tuple,
			      lmc, qs, ps);
		assert_int_equal(ql.switches_with_tables(), pl.switches_with_tables());
		if (lmc)
			continue;
		TableRouter table(q.fabric, ql);
		PortIdx a[kMaxPathLinks], b[kMaxPathLinks];
		for (HostOrd s = 0; s < 1024; s++)
			for (HostOrd d = 0; d < 1024; d++) {
				const unsigned n = qr.path(s, d, 0, a);
				assert_int_equal(table.path(s, d, 0, b), n);
				for (unsigned i = 0; i < n; i++)
					assert_int_equal(a[i], b[i]);
			}
	}
}

// "Down" by Node::level: a side link joins levels l-1 and l like any
// other cable, so a link is down when it goes to a lower level. On a
// whole QFT every down-link carries one destination (the descent mirrors
// the destination's own up-path): no destination shares one.
void whole_qft_shares_no_down_link(void **)
{
	for (const char *t : kRouted) {
		Qnet n(t);
		const std::vector<HostOrd> lost = shared_down_destinations(n.fabric, *n.router);
		if (!lost.empty())
			fail_msg("QFT of %s: %zu destinations share a down-link", t, lost.size());
	}
}

// One degraded fabric routed: every ordered pair has a path at offset 0
// that starts at the source, is contiguous, climbs then descends (so no
// loop), visits no node twice and ends at the destination; a pair whose
// path on the whole fabric has all its cables (and no parallel sibling
// of one cut) keeps that path. Returns the number of pairs whose path
// changed (moved off a cut cable, or to a parallel sibling).
size_t check_routing(const Fabric &f, const Router &r, const Fabric &whole,
		     const Router &rw, const char *what)
{
	// whole's links in f, by node GUID and port number; kNone: cut.
	// kept: neither cut nor a parallel cable whose sibling is cut (Tree
	// numbers the parallel cables left in port order, so the closed form
	// may take the sibling).
	std::vector<PortIdx> map(whole.port_count(), kNone);
	std::vector<bool> kept(whole.port_count(), false);
	std::set<std::pair<NodeId, NodeId>> cut_pairs;
	for (PortIdx p = 0; p < whole.port_count(); p++) {
		const NodeId id = f.find_guid(whole.node(whole.port(p).node).guid);
		const PortIdx q = f.port_index(id, whole.port(p).num);
		map[p] = f.port(q).peer == kNone ? kNone : q;
		if (whole.port(p).peer != kNone && map[p] == kNone)
			cut_pairs.insert({whole.port(p).node, whole.port(whole.port(p).peer).node});
	}
	for (PortIdx p = 0; p < whole.port_count(); p++)
		kept[p] = map[p] != kNone && whole.port(p).peer != kNone &&
			  !cut_pairs.count({whole.port(p).node, whole.port(whole.port(p).peer).node});
	PortIdx links[kMaxPathLinks], before[kMaxPathLinks];
	size_t rerouted = 0;
	for (HostOrd s = 0; s < f.hosts().size(); s++)
		for (HostOrd d = 0; d < f.hosts().size(); d++) {
			unsigned len = 0;
			try {
				len = r.path(s, d, 0, links);
			} catch (const Error &e) {
				fail_msg("%s: %u -> %u: %s", what, s, d, e.what());
			}
			if (s == d) {
				assert_int_equal(len, 0);
				continue;
			}
			NodeId at = f.hosts()[s];
			std::vector<NodeId> seen{at};
			bool down = false;
			for (unsigned i = 0; i < len; i++) {
				assert_int_equal(f.port(links[i]).node, at);
				const NodeId next = f.port(f.port(links[i]).peer).node;
				const bool up = f.node(next).level > f.node(at).level;
				if (up && down)
					fail_msg("%s: %u -> %u goes up after going down", what, s, d);
				down = !up;
				for (NodeId v : seen)
					if (v == next)
						fail_msg("%s: %u -> %u visits a node twice", what, s, d);
				seen.push_back(next);
				at = next;
			}
			assert_int_equal(at, f.hosts()[d]);
			const unsigned wlen = rw.path(s, d, 0, before);
			bool intact = true;
			for (unsigned i = 0; i < wlen; i++)
				intact = intact && kept[before[i]];
			bool same = wlen == len;
			for (unsigned i = 0; same && i < len; i++)
				same = map[before[i]] == links[i];
			if (intact && !same)
				fail_msg("%s: %u -> %u has its closed-form cables but another path", what,
					 s, d);
			rerouted += !same;
		}
	return rerouted;
}

// Slide 17: 1%, 2% and 5% of the cables between switches removed at random
// (three seeds) on the 1024-host QFT with p > 1 at two levels and on the
// 128-host 3-level one, and the same number removed from the PGFT of the
// same tuple (D-Mod-K's fallback): routing stays complete, and the
// full-fabric Shift HSD and the destinations that lost congestion freedom
// (share a down-link) are printed for both.
void random_cable_loss(void **)
{
	const char *tuples[] = {"3;16,8,8;1,8,8;1,2,2", "3;8,4,4;1,4,4;1,2,2"};
	print_message("%-22s %5s %4s %5s | %-26s | %-26s\n", "tuple", "cut%", "seed", "cut",
		      "QFT: rerouted HSD max lost", "PGFT: rerouted HSD max lost");
	for (const char *tuple : tuples) {
		const Pgft g = Pgft::parse(tuple);
		Qnet qwhole(tuple);
		test::Modelled pwhole(test::Modelled::generated(tuple));
		for (unsigned pct : {1u, 2u, 5u})
			for (uint64_t seed : {1u, 2u, 3u}) {
				const size_t cut = (switch_cables(g) * pct + 50) / 100;
				char line[2][80];
				for (int kind = 0; kind < 2; kind++) {
					const test::Modelled &whole = kind ? pwhole : qwhole;
					test::Modelled m(without_switch_cables(whole.fabric, cut, seed));
					assert_int_equal(m.tree->missing().size(), cut);
					assert_true(m.tree->qft() == (kind == 0));
					char what[96];
					std::snprintf(what, sizeof(what), "%s of %s, %zu cut, seed %u",
						      kind ? "PGFT" : "QFT", tuple, cut, unsigned(seed));
					const size_t rerouted = check_routing(m.fabric, *m.router,
									      whole.fabric, *whole.router, what);
					Job job;
					for (HostOrd h = 0; h < m.fabric.hosts().size(); h++)
						job.ranks.push_back(h);
					const Score sc = score_jobs(m.fabric, *m.router,
								    *make_pattern("shift", &m.tree->pgft()),
								    {job});
					const size_t lost =
						shared_down_destinations(m.fabric, *m.router).size();
					std::snprintf(line[kind], sizeof(line[kind]), "%8zu %6.3f %3u %4zu",
						      rerouted, sc.avg_hsd, sc.max_hsd, lost);
				}
				print_message("%-22s %5u %4u %5zu | %-26s | %-26s\n", tuple, pct,
					      unsigned(seed), cut, line[0], line[1]);
			}
	}
}

// --- recognition ---------------------------------------------------------------

// `f` as a discovery hands it over: no tree annotation, nodes and cables
// in an order of their own (from `seed`), switch GUIDs drawn anew when
// `new_guids` (the recogniser's reference switches change), and `cut`
// switch-to-switch cables left out.
struct Bare {
	Fabric fabric;
	std::vector<NodeId> origin;                 // bare node -> node of `f`
	std::set<std::pair<NodeId, NodeId>> cut;    // nodes of `f`, ordered pairs
};

Bare bare(const Fabric &f, uint64_t seed, size_t cut = 0, bool new_guids = false)
{
	std::mt19937_64 rng(seed);
	std::vector<NodeId> order(f.node_count()), to(f.node_count());
	std::iota(order.begin(), order.end(), 0);
	std::shuffle(order.begin(), order.end(), rng);
	Bare b;
	std::set<uint64_t> guids;
	for (NodeId o : order) {
		const Node &n = f.node(o);
		uint64_t guid = n.guid;
		while (new_guids && n.type == NodeType::switch_node &&
		       !guids.insert(guid = 0x0002c90500000000ull + rng() % 1000000).second) {
		}
		to[o] = n.type == NodeType::host ? b.fabric.add_host(guid, n.desc, n.name, n.num_ports)
						 : b.fabric.add_switch(guid, n.desc, n.num_ports, n.lid);
		b.origin.push_back(o);
		for (unsigned p = 1; p <= n.num_ports; p++)
			b.fabric.port(b.fabric.port_index(to[o], p)).lid =
				f.port(f.port_index(o, p)).lid;
	}
	std::vector<PortIdx> cables;
	for (PortIdx p = 0; p < f.port_count(); p++)
		if (f.port(p).peer != kNone && p < f.port(p).peer)
			cables.push_back(p);
	std::shuffle(cables.begin(), cables.end(), rng);
	for (PortIdx p : cables) {
		const Port &a = f.port(p), &c = f.port(a.peer);
		if (b.cut.size() < cut && f.node(a.node).type == NodeType::switch_node &&
		    f.node(c.node).type == NodeType::switch_node) {
			b.cut.insert(std::minmax(a.node, c.node));
			continue;
		}
		b.fabric.connect(to[a.node], a.num, to[c.node], c.num);
	}
	return b;
}

// Nodes of the recognised bare fabric whose (level, index) differ from
// the generator's.
std::vector<NodeId> moved(const Bare &b, const Fabric &f)
{
	std::vector<NodeId> out;
	for (NodeId id = 0; id < b.fabric.node_count(); id++) {
		const Node &r = b.fabric.node(id), &g = f.node(b.origin[id]);
		if (r.level != g.level || r.tree_index != g.tree_index)
			out.push_back(b.origin[id]);
	}
	return out;
}

bool any_side_link(const Pgft &g)
{
	for (unsigned l = 1; l < g.h(); l++)
		if (qft_side_linked(g, l))
			return true;
	return false;
}

// QFTs with side links (2 to 5 levels, side links at levels 1 to 4, hosts
// on two leaves, groups of 2 and 3), and the 1024-host one with p > 1 at
// two levels: the bare graph, shuffled, is the QFT of its tuple with every
// node where the generator put it, whichever switch GUIDs it has.
void recognises_qft_positions(void **)
{
	std::vector<const char *> tuples(std::begin(kWirings), std::end(kWirings));
	tuples.push_back("3;16,8,8;1,8,8;1,2,2");
	for (const char *t : tuples) {
		const Pgft g = Pgft::parse(t);
		if (!any_side_link(g))
			continue;
		const Fabric f = generate_qft(g, GenOptions());
		for (uint64_t seed : {1, 2})
			for (bool new_guids : {false, true}) {
				Bare b = bare(f, seed, 0, new_guids);
				const Recognition r = recognise(b.fabric);
				if (r.kind != TreeKind::qft || !(r.pgft == g))
					fail_msg("QFT of %s read as %s of %s", t,
						 r.kind == TreeKind::qft ? "QFT" : "PGFT",
						 r.pgft.text().c_str());
				if (!moved(b, f).empty())
					fail_msg("QFT of %s, seed %llu%s: %zu nodes moved", t,
						 (unsigned long long)seed, new_guids ? ", new GUIDs" : "",
						 moved(b, f).size());
				assert_true(r.missing_cables.empty() && r.missing_switches.empty());
				assert_true(b.fabric.tree_kind() == TreeKind::qft);
			}
	}
}

// A PGFT is read as a PGFT, a QFT with side links as a QFT; the QFT of a
// tuple without side links (p_l = 1 below the top) has its PGFT's cables,
// and a graph both fit is read as the PGFT (same positions).
void recognition_tells_pgft_from_qft(void **)
{
	std::vector<const char *> tuples(std::begin(kRouted), std::end(kRouted));
	tuples.insert(tuples.end(), std::begin(kWirings), std::end(kWirings));
	for (const char *t : tuples) {
		const Pgft g = Pgft::parse(t);
		const Fabric q = generate_qft(g, GenOptions());
		Bare bq = bare(q, 5);
		if (g.w(1) > 1 && !any_side_link(g)) { // a PGFT with hosts on two leaves
			expect_error([&] { recognise(bq.fabric); }, Status::unsupported, "w1 > 1");
			continue;
		}
		const Recognition rq = recognise(bq.fabric);
		assert_true(rq.pgft == g);
		assert_true((rq.kind == TreeKind::qft) == any_side_link(g));
		assert_true(moved(bq, q).empty());
		if (g.w(1) > 1)
			continue; // PGFTs with w1 > 1 are not recognised
		const Fabric p = generate_pgft(g, GenOptions());
		Bare bp = bare(p, 5);
		const Recognition rp = recognise(bp.fabric);
		assert_true(rp.kind == TreeKind::pgft && rp.pgft == g);
		assert_true(moved(bp, p).empty());
	}
}

// With 1 or 5 switch cables cut the QFT is still recognised, every node in
// place, and the missing cables are exactly the cut ones.
void recognition_lists_cut_cables(void **)
{
	for (const char *t : {"3;8,4,4;1,4,4;1,2,2", "3;16,8,8;1,8,8;1,2,2",
			      "4;4,4,4,4;1,2,4,4;1,2,2,2"}) {
		const Pgft g = Pgft::parse(t);
		const Fabric f = generate_qft(g, GenOptions());
		for (size_t cut : {1, 5})
			for (uint64_t seed = 1; seed <= 8; seed++) {
				Bare b = bare(f, seed, cut);
				const Recognition r = recognise(b.fabric);
				assert_true(r.kind == TreeKind::qft && r.pgft == g);
				if (!moved(b, f).empty())
					fail_msg("QFT of %s, %zu cut, seed %llu: %zu nodes moved", t, cut,
						 (unsigned long long)seed, moved(b, f).size());
				std::set<std::pair<NodeId, NodeId>> missing;
				for (const RecognisedCable &c : r.missing_cables) {
					assert_true(c.upper != kNone);
					missing.insert(std::minmax(b.origin[c.lower], b.origin[c.upper]));
				}
				if (missing != b.cut)
					fail_msg("QFT of %s, %zu cut, seed %llu: %zu cables missing, %zu "
						 "of them cut",
						 t, cut, (unsigned long long)seed, missing.size(),
						 size_t(std::count_if(missing.begin(), missing.end(),
								      [&](const auto &m) { return b.cut.count(m); })));
			}
	}
}

// Twins (side-linked switches that differ only in their member of the
// group) have the same neighbours: with every leaf's cables to the two
// twins of route 0 swapped, the recogniser gives those twins each other's
// positions (an automorphism of the graph) and the routing on it is still
// congestion-free for full-fabric Shift.
void twins_are_automorphic(void **)
{
	const char *t = "3;8,4,4;1,4,4;1,2,2";
	const Pgft g = Pgft::parse(t);
	Fabric f = generate_qft(g, GenOptions());
	const unsigned first_up = g.down_ports(1) + 1; // IB port of up-port 0
	for (NodeId id = 0; id < f.node_count(); id++) {
		if (f.node(id).level != 1)
			continue;
		// up-ports q = 0 and q = w_2: parents of b_2 = 0, members 0 and 1
		Port &a = f.port(f.port_index(id, first_up));
		Port &c = f.port(f.port_index(id, first_up + g.w(2)));
		std::swap(a.peer, c.peer);
		f.port(a.peer).peer = f.port_index(id, first_up);
		f.port(c.peer).peer = f.port_index(id, first_up + g.w(2));
	}
	Bare b = bare(f, 3);
	const Recognition r = recognise(b.fabric);
	assert_true(r.kind == TreeKind::qft && r.pgft == g && r.missing_cables.empty());
	const std::vector<NodeId> m = moved(b, f);
	// every level-2 switch of route 0 (b_1 = b_2 = 0) takes its twin's place
	assert_int_equal(m.size(), g.nodes_at(2) / g.W(2));
	for (NodeId id = 0; id < b.fabric.node_count(); id++) {
		const Node &orig = f.node(b.origin[id]);
		if (orig.level != 2 || orig.tree_index % g.W(2) != 0)
			continue;
		std::vector<unsigned> d = g.digits(2, orig.tree_index);
		d[2] ^= 1; // the other member of the group
		assert_int_equal(b.fabric.node(id).tree_index, g.index(2, d));
	}
	test::Modelled rec(std::move(b.fabric));
	assert_true(rec.tree->qft() && rec.tree->missing().empty());
	assert_string_equal(rec.router->name(), "qft");
	std::vector<HostOrd> ranks(rec.fabric.hosts().size());
	for (HostOrd h = 0; h < ranks.size(); h++)
		ranks[rec.tree->host_index(h)] = h;
	Job job;
	job.ranks = ranks;
	const Score sc = score_jobs(rec.fabric, *rec.router, *make_pattern("shift", &g), {job});
	assert_int_equal(sc.max_hsd, 1);
	assert_int_equal(sc.stages, ranks.size() - 1);
}

// Recognition time of the 1024-host QFT and of the PGFT of its tuple.
void recognition_time(void **)
{
	const char *t = "3;16,8,8;1,8,8;1,2,2";
	const Pgft g = Pgft::parse(t);
	for (bool qft : {true, false}) {
		const Fabric f = qft ? generate_qft(g, GenOptions()) : generate_pgft(g, GenOptions());
		double best = 1e9;
		for (uint64_t seed = 1; seed <= 5; seed++) {
			Bare b = bare(f, seed);
			const auto start = std::chrono::steady_clock::now();
			const Recognition r = recognise(b.fabric);
			const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
			assert_true((r.kind == TreeKind::qft) == qft);
			best = std::min(best, took.count());
		}
		print_message("recognise %s%s (%zu nodes): %.1f ms (best of 5)\n",
			      qft ? "the QFT of " : "PGFT ", t, f.node_count(), best * 1e3);
	}
}

// --- Slurm's switch groups ------------------------------------------------------

// On a QFT a level-l group is what its switches reach downward (slide 16's
// criterion): M_l p_l hosts on a side-linked level, with its W_l p_l
// switches; groups nest (each inside its parent, children partitioning
// it), so the table is a strict tree.
void qft_switch_groups(void **)
{
	std::vector<const char *> tuples(std::begin(kWirings), std::end(kWirings));
	tuples.push_back("3;16,8,8;1,8,8;1,2,2");
	for (const char *t : tuples) {
		Qnet n(t);
		const Pgft &g = n.tree->pgft();
		const std::vector<SwitchGroup> groups = switch_groups(n.fabric, *n.tree);
		std::vector<size_t> per_level(g.h() + 1, 0);
		for (const SwitchGroup &grp : groups) {
			const unsigned l = grp.level, width = qft_width(g, l);
			per_level[l]++;
			assert_int_equal(n.tree->subtree_hosts(l), g.M(l) * width);
			assert_int_equal(grp.hosts.size(), g.M(l) * width);
			assert_int_equal(grp.switches.size(), g.W(l) * width);
			std::set<uint64_t> hosts;
			for (HostOrd h : grp.hosts)
				hosts.insert(n.tree->host_index(h));
			for (NodeId sw : grp.switches) {
				const std::vector<unsigned> sd = g.digits(l, n.fabric.node(sw).tree_index);
				std::set<uint64_t> named;
				for (uint64_t j = 0; j < g.hosts(); j++)
					if (qft_descends(g, l, sd, g.digits(0, j)))
						named.insert(j);
				if (named != hosts)
					fail_msg("QFT of %s: group %s holds %zu hosts, its switch %s reaches %zu",
						 t, grp.name.c_str(), hosts.size(),
						 n.fabric.node_label(sw).c_str(), named.size());
			}
			if (l == g.h()) {
				assert_true(grp.parent == SIZE_MAX);
			} else {
				const SwitchGroup &up = groups[grp.parent];
				assert_int_equal(up.level, l + 1);
				for (HostOrd h : grp.hosts)
					assert_true(std::count(up.hosts.begin(), up.hosts.end(), h));
			}
			if (l > 1) {
				size_t below = 0;
				for (size_t c : grp.children)
					below += groups[c].hosts.size();
				assert_int_equal(below, grp.hosts.size());
			}
		}
		for (unsigned l = 1; l <= g.h(); l++)
			assert_int_equal(per_level[l], g.hosts() / n.tree->subtree_hosts(l));
	}
}
// --- placement in QFT sub-trees (lib/place/qft_runs.hpp) -------------------

// Every QFT-aligned run, exhaustively: whole level-(l-1) QFT sub-trees,
// contiguous, inside one level-l QFT sub-tree, at every level, every size
// and every start. Shift HSD 1.0 on each, and qft_aligned_run() says so.
// The 1024-host tuples: runs at the top two levels (below, they repeat
// the smaller tuples' sub-trees). Ends with the counts it checked.
void aligned_runs_are_congestion_free(void **)
{
	size_t runs = 0;
	for (const char *t : kRouted) {
		Qnet n(t);
		const Pgft &g = n.tree->pgft();
		assert_true(qft_runs_claimed(g));
		const unsigned from = g.hosts() > 512 ? g.h() - 1 : 1;
		size_t here = 0;
		for (unsigned l = from; l <= g.h(); l++) {
			const uint64_t sub = n.tree->subtree_hosts(l);
			const uint64_t unit = l == 1 ? 1 : n.tree->subtree_hosts(l - 1);
			for (uint64_t base = 0; base < g.hosts(); base += sub)
				for (uint64_t len = std::max<uint64_t>(unit, 2); len <= sub; len += unit)
					for (uint64_t a = base; a + len <= base + sub; a += unit) {
						std::vector<HostOrd> ranks;
						std::vector<uint64_t> idx;
						for (uint64_t j = a; j < a + len; j++) {
							ranks.push_back(HostOrd(j));
							idx.push_back(j);
						}
						assert_true(qft_aligned_run(*n.tree, idx));
						const Score sc = n.shift(*n.router, ranks);
						if (sc.max_hsd != 1)
							fail_msg("QFT of %s: run [%llu, %llu) at level %u: "
								 "Shift HSD %.3f",
								 t, (unsigned long long)a,
								 (unsigned long long)(a + len), l, sc.avg_hsd);
						here++;
					}
		}
		std::printf("# QFT of %s: %zu aligned runs, every one HSD 1.0\n", t, here);
		runs += here;
	}
	assert_true(runs > 1000);
}

// What the claim leaves out: on T = QFT of PGFT(3;4,2,8;1,2,4;1,2,1) a run
// of 36 hosts (two 16-host sub-trees and a leaf) congests and is not
// claimed; 20 hosts across a sub-tree boundary are not claimed either
// (though congestion-free); an oversubscribed tuple claims nothing.
void unaligned_runs_are_not_claimed(void **)
{
	Qnet n("3;4,2,8;1,2,4;1,2,1");
	auto run = [](uint64_t a, uint64_t len) {
		std::vector<uint64_t> v;
		for (uint64_t j = a; j < a + len; j++)
			v.push_back(j);
		return v;
	};
	assert_false(qft_aligned_run(*n.tree, run(0, 36)));
	std::vector<HostOrd> ranks(36);
	for (HostOrd h = 0; h < 36; h++)
		ranks[h] = h;
	assert_true(n.shift(*n.router, ranks).max_hsd > 1);
	assert_false(qft_aligned_run(*n.tree, run(12, 20)));
	assert_true(qft_aligned_run(*n.tree, run(16, 32)));
	assert_true(qft_aligned_run(*n.tree, run(1, 3))); // inside a leaf
	assert_false(qft_aligned_run(*n.tree, run(2, 4))); // across leaves, not whole
	Qnet over("3;4,6,3;1,2,3;1,3,2");
	assert_false(qft_runs_claimed(over.tree->pgft()));
	assert_false(qft_aligned_run(*over.tree, run(0, 20)));
	test::Modelled pgft(test::Modelled::generated("3;4,2,8;1,2,4;1,2,1"));
	assert_false(qft_aligned_run(*pgft.tree, run(0, 16)));
}

// A QFT of 144-port leaf switches (72 hosts each, more than the product
// search's one-word masks hold), positions 0-7 of every leaf busy: with
// Shapes=products the placer places only free hosts (test_place has the
// PGFT of that radix).
void wide_qft_leaves_place_only_free_hosts(void **)
{
	Qnet n("3;72,4,4;1,36,4;1,2,2");
	PlacementPolicy pol;
	pol.products = true;
	Placer placer(n.fabric, *n.tree, *n.router, pol);
	test::place_beside_busy_positions(n, placer, 72, {100, 64, 20, 288});
}

// select/rlft's placer on a QFT: jobs land in QFT sub-trees (48 hosts of
// T = QFT of PGFT(3;8,4,4;1,4,4;1,2,2) are six leaves of one 64-host
// level-2 sub-tree, where the PGFT's hold 32), with Shapes=products a 12-
// host job is a QFT product (3 leaves x 4 positions), and a random stream
// of jobs, placed and released, never sees the placer claim congestion-
// free for hosts whose every Shift stage does not have HSD 1.0: blocks,
// then products.
void placer_uses_qft_subtrees(void **)
{
	Qnet n("3;8,4,4;1,4,4;1,2,2");
	for (bool products : {false, true}) {
		PlacementPolicy pol;
		pol.products = products;
		Placer placer(n.fabric, *n.tree, *n.router, pol);
		auto place = [&](uint32_t nodes) {
			PlacementRequest req;
			req.nodes = nodes;
			req.eligible.assign(n.fabric.hosts().size(), true);
			return placer.place(req);
		};
		if (!products) {
			const Placement p48 = place(48);
			assert_int_equal(p48.outcome, Placement::placed);
			assert_int_equal(p48.chosen.level, 2);
			assert_int_equal(p48.chosen.block, 8);
			assert_true(p48.chosen.congestion_free);
			assert_int_equal(n.tree->host_index(p48.chosen.hosts.back()) / 64,
					 n.tree->host_index(p48.chosen.hosts.front()) / 64);
		} else {
			const Placement p12 = place(12);
			assert_int_equal(p12.chosen.kind, PlacementKind::product);
			assert_true(p12.chosen.congestion_free);
			assert_true(n.shift(*n.router, p12.chosen.hosts).max_hsd == 1);
		}
		Rng rng(14);
		std::vector<std::pair<uint32_t, std::vector<HostOrd>>> running;
		size_t claimed = 0, checked = 0;
		for (uint32_t id = 1; id <= 300; id++) {
			if (!running.empty() && rng.below(3) == 0) {
				const size_t k = rng.below(running.size());
				placer.remove_running(running[k].first);
				running.erase(running.begin() + long(k));
			}
			const uint32_t nodes = 2 + uint32_t(rng.below(70));
			const Placement p = place(nodes);
			if (p.outcome != Placement::placed)
				continue;
			assert_int_equal(p.chosen.hosts.size(), nodes);
			if (p.chosen.congestion_free) {
				claimed++;
				const Score sc = n.shift(*n.router, p.chosen.hosts);
				if (sc.max_hsd != 1)
					fail_msg("%u hosts, %s: claimed congestion-free, Shift HSD %.3f",
						 nodes, p.chosen.label().c_str(), sc.avg_hsd);
			}
			checked++;
			placer.add_running(id, p.chosen.hosts);
			running.push_back({id, p.chosen.hosts});
		}
		std::printf("# placer on a QFT, %s: %zu jobs placed, %zu claimed congestion-free, "
			    "each checked\n", products ? "products" : "blocks", checked, claimed);
		assert_true(claimed > 20);
	}
}

// Hosts of two leaves of one level-2 QFT sub-tree, any subset: random
// draws on every routed QFT, each Shift HSD 1.0 and claimed; three leaves
// (no product) and two leaves of different level-2 QFT sub-trees are not.
void two_leaves_are_congestion_free(void **)
{
	size_t sets = 0;
	for (const char *t : kRouted) {
		Qnet n(t);
		const Pgft &g = n.tree->pgft();
		const uint64_t leaf = g.M(1), per = n.tree->subtree_hosts(2) / leaf;
		Rng rng(7);
		for (int trial = 0; trial < 400; trial++) {
			const uint64_t sub = rng.below(g.hosts() / n.tree->subtree_hosts(2));
			const uint64_t x = rng.below(per), y = (x + 1 + rng.below(per - 1)) % per;
			std::vector<uint64_t> pool;
			for (uint64_t l : {x, y})
				for (uint64_t d = 0; d < leaf; d++)
					pool.push_back((sub * per + l) * leaf + d);
			const size_t k = 2 + size_t(rng.below(pool.size() - 1));
			for (size_t i = 0; i < k; i++)
				std::swap(pool[i], pool[i + rng.below(pool.size() - i)]);
			pool.resize(k);
			std::sort(pool.begin(), pool.end());
			assert_true(qft_congestion_free_hosts(*n.tree, pool));
			std::vector<HostOrd> ranks(pool.begin(), pool.end());
			const Score sc = n.shift(*n.router, ranks);
			if (sc.max_hsd != 1)
				fail_msg("QFT of %s: %zu hosts in leaves %llu and %llu of level-2 "
					 "sub-tree %llu: Shift HSD %.3f",
					 t, k, (unsigned long long)x, (unsigned long long)y,
					 (unsigned long long)sub, sc.avg_hsd);
			sets++;
		}
		// three leaves, no product; two leaves of two sub-trees
		assert_false(qft_congestion_free_hosts(*n.tree, {0, 1, leaf, 2 * leaf}));
		if (g.hosts() > n.tree->subtree_hosts(2))
			assert_false(qft_congestion_free_hosts(*n.tree, {0, 1, n.tree->subtree_hosts(2)}));
	}
	std::printf("# %zu random sets in two leaves of a level-2 QFT sub-tree, every one "
		    "HSD 1.0\n", sets);
}
// Product shapes in the QFT's digits (lib/place/qft_runs.hpp), random on
// every routed QFT but the 1024-host ones: each is qft_product() and
// claimed, Shift HSD 1.0; host-disjoint pairs scored together share no
// link. Two positions of one leaf and one of another are no product.
void qft_products_are_congestion_free_and_disjoint(void **)
{
	size_t products = 0, pairs = 0;
	for (const char *t : kRouted) {
		Qnet n(t);
		const Pgft &g = n.tree->pgft();
		if (g.hosts() > 512)
			continue;
		Rng rng(11);
		auto product = [&] {
			std::vector<uint64_t> hosts = {0};
			for (unsigned l = g.h(); l >= 1; l--) {
				const uint64_t below = l > 1 ? n.tree->subtree_hosts(l - 1) : 1;
				const uint64_t radix = n.tree->subtree_hosts(l) / below;
				std::vector<uint64_t> digits(radix);
				for (uint64_t d = 0; d < radix; d++)
					digits[d] = d;
				const uint64_t k = 1 + rng.below(radix);
				for (uint64_t i = 0; i < k; i++)
					std::swap(digits[i], digits[i + rng.below(radix - i)]);
				std::vector<uint64_t> next;
				for (uint64_t b : hosts)
					for (uint64_t i = 0; i < k; i++)
						next.push_back(b + digits[i] * below);
				hosts = next;
			}
			std::sort(hosts.begin(), hosts.end());
			return hosts;
		};
		for (int trial = 0; trial < 300; trial++) {
			const std::vector<uint64_t> a = product(), b = product();
			assert_true(qft_product(*n.tree, a));
			if (a.size() < 2)
				continue;
			assert_true(qft_congestion_free_hosts(*n.tree, a));
			Job ja;
			ja.ranks.assign(a.begin(), a.end());
			const Score sc = score_jobs(n.fabric, *n.router,
						    *make_pattern("shift", &g), {ja});
			if (sc.max_hsd != 1)
				fail_msg("QFT of %s: a product of %zu hosts: Shift HSD %.3f", t,
					 a.size(), sc.avg_hsd);
			products++;
			std::vector<uint64_t> both;
			std::set_intersection(a.begin(), a.end(), b.begin(), b.end(),
					      std::back_inserter(both));
			if (!both.empty() || b.size() < 2)
				continue;
			Job jb;
			jb.ranks.assign(b.begin(), b.end());
			ScoreOptions opt;
			opt.shared_links = true;
			const Score two = score_jobs(n.fabric, *n.router, *make_pattern("shift", &g),
						     {ja, jb}, opt);
			if (two.shared_links != 0)
				fail_msg("QFT of %s: disjoint products of %zu and %zu hosts share %ld "
					 "links", t, a.size(), b.size(), two.shared_links);
			pairs++;
		}
	}
	Qnet q("3;8,4,4;1,4,4;1,2,2");
	assert_false(qft_product(*q.tree, {0, 1, 8}));
	assert_true(qft_product(*q.tree, {0, 1, 8, 9}));
	assert_true(qft_product(*q.tree, {0, 8, 16}));
	std::printf("# %zu QFT products HSD 1.0, %zu disjoint pairs sharing no link\n", products,
		    pairs);
	assert_true(products > 1000 && pairs > 100);
}
} // namespace

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(descendant_criterion_matches_the_wiring),
		cmocka_unit_test(side_cables_arrive_at_slide_f),
		cmocka_unit_test(qft_rejects_partial_groups),
		cmocka_unit_test(qft_json_round_trip),
		cmocka_unit_test(routing_by_tree_kind),
		cmocka_unit_test(up_port_is_slide_g),
		cmocka_unit_test(every_host_reaches_every_host),
		cmocka_unit_test(add_loads_matches_paths),
		cmocka_unit_test(full_shift_is_congestion_free),
		cmocka_unit_test(slide_f_congests_shift),
		cmocka_unit_test(qft_shortens_mean_distance),
		cmocka_unit_test(recognises_qft_positions),
		cmocka_unit_test(recognition_tells_pgft_from_qft),
		cmocka_unit_test(recognition_lists_cut_cables),
		cmocka_unit_test(twins_are_automorphic),
		cmocka_unit_test(recognition_time),
		cmocka_unit_test(qft_switch_groups),
		cmocka_unit_test(qft_routes_match_their_tables),
		cmocka_unit_test(qft_table_time),
		cmocka_unit_test(whole_qft_shares_no_down_link),
		cmocka_unit_test(random_cable_loss),
		cmocka_unit_test(aligned_runs_are_congestion_free),
		cmocka_unit_test(unaligned_runs_are_not_claimed),
		cmocka_unit_test(two_leaves_are_congestion_free),
		cmocka_unit_test(qft_products_are_congestion_free_and_disjoint),
		cmocka_unit_test(placer_uses_qft_subtrees),
		cmocka_unit_test(wide_qft_leaves_place_only_free_hosts),
	};
	return cmocka_run_group_tests_name("qft", tests, nullptr, nullptr);
}
