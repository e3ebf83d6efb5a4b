// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target from fabric construction into placement: fabric JSON ->
// (recognition) -> tree -> D-Mod-K -> Placer::place() for a few job sizes,
// with add_running / remove_running between them. Degraded fabrics (cables
// and hosts missing) are normal input. The first four bytes set the knobs,
// the rest is the JSON. A qft::Error is the expected answer to bad input;
// a crash, a sanitizer report, a hang, any other exception or a broken
// invariant (checked below, then __builtin_trap) is a bug.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/common/error.hpp"
#include "lib/fabric/fabric_json.hpp"
#include "lib/place/placement.hpp"
#include "lib/route/dmodk.hpp"
#include "lib/route/lft.hpp"
#include "lib/tree/pgft.hpp"
#include "lib/tree/recognise.hpp"
#include "lib/tree/tree.hpp"

namespace {

constexpr uint64_t kMaxHosts = 256;      // per input: keeps a run fast
constexpr size_t kMaxTableHosts = 24;    // the all-pairs table check

void check(bool ok)
{
	if (!ok)
		__builtin_trap();
}

bool unroutable(const qft::Error &e) { return e.status() == qft::Status::unroutable; }

// The links of r.path(), or {kNone} for unroutable.
std::vector<qft::PortIdx> path_of(const qft::Router &r, qft::HostOrd s, qft::HostOrd d,
				  unsigned k)
{
	qft::PortIdx links[qft::kMaxPathLinks];
	try {
		unsigned n = r.path(s, d, k, links);
		return std::vector<qft::PortIdx>(links, links + n);
	} catch (const qft::Error &e) {
		check(unroutable(e));
		return {qft::kNone};
	}
}

// Fabrics whose LIDs name one port each: the exported tables can be
// followed (TableRouter) and must give path() exactly (one fallback rule).
bool plain_lids(const qft::Fabric &f, const qft::Tree &t)
{
	std::vector<bool> used(0xc000, false);
	const unsigned per = 1u << f.lmc();
	auto take = [&](uint32_t lid, unsigned n) {
		for (unsigned k = 0; k < n; k++) {
			if (lid == 0 || lid + k >= used.size() || used[lid + k])
				return false;
			used[lid + k] = true;
		}
		return true;
	};
	for (qft::NodeId id = 0; id < f.node_count(); id++) {
		const qft::Node &n = f.node(id);
		if (n.type == qft::NodeType::switch_node) {
			if (n.num_ports > 250 || (n.lid && !take(n.lid, 1)))
				return false;
		} else if (n.num_ports != 1 || t.host_index(f.host_ord(id)) == qft::kNone ||
			   !take(f.port(n.first_port).lid, per)) {
			return false;
		}
	}
	return true;
}

void check_tables(const qft::Fabric &f, const qft::Tree &t, const qft::DModK &r)
{
	if (f.hosts().size() > kMaxTableHosts || !plain_lids(f, t))
		return;
	qft::Lfts lfts = r.tables();
	qft::TableRouter table(f, lfts);
	for (qft::HostOrd s = 0; s < f.hosts().size(); s++)
		for (qft::HostOrd d = 0; d < f.hosts().size(); d++)
			for (unsigned k = 0; k < r.offsets(); k++)
				check(path_of(r, s, d, k) == path_of(table, s, d, k));
}

struct Knobs {
	qft::PlacementPolicy policy;
	uint8_t sizes[3];
	bool recognise;
};

Knobs knobs(const uint8_t *b)
{
	Knobs k;
	k.policy.remainder = b[0] & 1 ? qft::Remainder::reserve : qft::Remainder::exact;
	k.policy.rank_by_congestion = !(b[0] & 2);
	k.policy.pattern = b[0] & 4 ? "recdbl-tree" : "shift";
	k.recognise = b[0] & 8;
	k.policy.sample_stages = 1 + (b[0] >> 4);
	k.policy.max_candidates = 1 + b[1] % 8;
	k.sizes[0] = b[1];
	k.sizes[1] = b[2];
	k.sizes[2] = b[3];
	return k;
}

// What place() answers must hold: n distinct, free, placed hosts.
void check_placement(const qft::Placer &p, const qft::Tree &t, const qft::Placement &pl,
		     uint32_t n, const std::vector<bool> &eligible)
{
	if (pl.outcome != qft::Placement::placed)
		return;
	std::vector<qft::HostOrd> h = pl.chosen.hosts;
	check(h.size() == n);
	std::sort(h.begin(), h.end());
	check(std::adjacent_find(h.begin(), h.end()) == h.end());
	for (qft::HostOrd x : h)
		check(x < eligible.size() && eligible[x] && !p.holds(x) &&
		      t.host_index(x) != qft::kNone);
}

void place_jobs(const qft::Fabric &f, const qft::Tree &t, const qft::DModK &r, const Knobs &k)
{
	qft::Placer placer(f, t, r, k.policy);
	const size_t hosts = f.hosts().size();
	std::vector<qft::HostOrd> probe; // a reference set: its score must not drift
	for (qft::HostOrd h = 0; h < hosts && probe.size() < 5; h++)
		if (t.host_index(h) != qft::kNone)
			probe.push_back(h);
	std::pair<double, double> before{0, 0};
	bool probe_routes = true;
	try {
		before = placer.score(probe);
	} catch (const qft::Error &e) {
		check(unroutable(e));
		probe_routes = false;
	}
	qft::PlacementRequest req;
	req.eligible.assign(hosts, true);
	for (uint32_t i = 0; i < 3; i++) {
		req.nodes = 1 + uint32_t(k.sizes[i] % std::max<size_t>(hosts, 1));
		if (k.sizes[i] & 0x80 && hosts > 1)
			req.eligible[k.sizes[i] % hosts] = false;
		qft::Placement pl = placer.place(req);
		check_placement(placer, t, pl, req.nodes, req.eligible);
		if (pl.outcome != qft::Placement::placed)
			continue;
		try {
			placer.predict(pl.chosen.hosts); // unsampled stages may not route
			placer.add_running(i + 1, pl.chosen.hosts);
		} catch (const qft::Error &e) {
			check(unroutable(e));
		}
		if (i == 1)
			placer.remove_running(1);
	}
	if (probe_routes) // alone: independent of the running jobs
		check(placer.score(probe).first == before.first);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 5 || size > 1 << 16)
		return 0;
	const Knobs k = knobs(data);
	std::string text(reinterpret_cast<const char *>(data + 4), size - 4);
	try {
		qft::Fabric f = qft::fabric_parse_json(text, "fuzz.json");
		if (f.hosts().size() > kMaxHosts || f.node_count() > 4 * kMaxHosts)
			return 0;
		if (k.recognise || f.tree_tuple().empty())
			qft::recognise(f);
		if (f.tree_tuple().empty() || qft::Pgft::parse(f.tree_tuple()).hosts() > kMaxHosts)
			return 0;
		qft::Tree tree = qft::Tree::from_fabric(f);
		qft::DModK router(f, tree);
		check_tables(f, tree, router);
		place_jobs(f, tree, router, k);
	} catch (const qft::Error &) {
	}
	return 0;
}
