// SPDX-License-Identifier: GPL-2.0-or-later
// Quasi Fat Trees (seed 002): the wiring against slide 16's descendant
// criterion, and the closed-form routing against full-fabric Shift.
#include <memory>
#include <set>
#include <vector>

#include "lib/fabric/fabric_json.hpp"
#include "lib/model/model.hpp"
#include "lib/route/dmodk.hpp"
#include "lib/route/qft_route.hpp"
#include "lib/score/score.hpp"
#include "lib/tree/generate.hpp"
#include "lib/tree/qft_wiring.hpp"
#include "lib/tree/tree.hpp"
#include "lib/traffic/pattern.hpp"

#include "tests/unit/cmocka.hpp"
#include "tests/unit/model.hpp"

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
	};
	return cmocka_run_group_tests_name("qft", tests, nullptr, nullptr);
}
