// SPDX-License-Identifier: GPL-2.0-or-later
// Routing with faults (issue 15), figures and no asserts: on a PGFT, PCT %
// of the switch-to-switch cables cut at random (SEEDS seeds each), the
// closed form with its fallback rule (lib/route/dmodk.hpp):
// - complete: every host reaches every host (a whole-fabric Shift routes
//   every ordered pair once);
// - the whole-fabric Shift HSD, and the mean over stages for jobs of one
//   leaf and of one level-2 subtree each, all playing together;
// - the flows of the whole-fabric Shift that meet a link carrying more
//   than one flow in their stage (a full-bisection job must congest
//   somewhere once a cable is gone: this says how much);
// - the destinations that lost congestion freedom: D-Mod-K gives every
//   down-link the traffic of one destination (seed 000 theorem 2); count
//   the destinations whose traffic, from some source, comes down a link
//   that another destination's traffic uses too.
//
//   bench_faults [TUPLE [SEEDS [PCT...]]]   default 3;18,18,6;1,18,6;1,1,3 3 1 2 5
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include "lib/model/model.hpp"
#include "lib/place/order.hpp"
#include "lib/score/score.hpp"
#include "lib/tree/generate.hpp"

using namespace qft;
using Clock = std::chrono::steady_clock;

namespace {

// The generated fabric with `pct` % of its switch-to-switch cables cut.
Fabric cut(const char *tuple, double pct, unsigned seed, size_t *cables)
{
	Fabric f = generate_pgft(Pgft::parse(tuple), GenOptions());
	std::vector<PortIdx> inter;
	for (PortIdx p = 0; p < f.port_count(); p++) {
		const PortIdx q = f.port(p).peer;
		if (q != kNone && p < q && f.node(f.port(p).node).type == NodeType::switch_node &&
		    f.node(f.port(q).node).type == NodeType::switch_node)
			inter.push_back(p);
	}
	std::mt19937_64 rng(seed);
	std::shuffle(inter.begin(), inter.end(), rng);
	*cables = size_t(double(inter.size()) * pct / 100.0 + 0.5);
	for (size_t i = 0; i < *cables; i++) {
		const PortIdx p = inter[i], q = f.port(p).peer;
		f.port(p).peer = kNone;
		f.port(q).peer = kNone;
	}
	return f;
}

struct Figures {
	bool complete = false;
	std::string why;
	double whole = 0, blocks = 0, flows_congested = 0;
	size_t lost = 0;
};

Figures measure(const Model &m)
{
	Figures out;
	const Fabric &f = m.fabric();
	const Tree &t = m.need_tree();
	const Router &r = m.router();
	auto shift = make_pattern("shift", &t.pgft());
	std::vector<HostOrd> all(f.hosts().size());
	for (HostOrd h = 0; h < all.size(); h++)
		all[h] = h;
	all = tree_order(f, t, all);
	uint64_t flows = 0, congested = 0;
	ScoreOptions opt;
	PortIdx path[kMaxPathLinks];
	opt.observer = [&](size_t, const std::vector<Flow> &fl, const std::vector<uint32_t> &load) {
		for (const Flow &x : fl) {
			const unsigned n = r.path(x.src, x.dst, x.offset, path);
			bool hit = false;
			for (unsigned k = 0; k < n; k++)
				hit |= load[path[k]] > 1;
			congested += hit;
			flows++;
		}
	};
	try {
		out.whole = score_jobs(f, r, *shift, {Job{all, {}, LidChoice::source}}, opt).avg_hsd;
		out.complete = true;
	} catch (const std::exception &e) {
		out.why = e.what();
		return out;
	}
	out.flows_congested = flows ? 100.0 * double(congested) / double(flows) : 0;
	out.lost = shared_down_destinations(f, r).size();
	// one job per leaf and one per level-2 subtree, alternating, together
	const uint64_t leaf = t.pgft().M(1), pod = t.pgft().M(2);
	std::vector<Job> jobs;
	for (uint64_t first = 0; first + pod <= all.size(); first += 2 * pod) {
		jobs.push_back(Job{{all.begin() + first, all.begin() + first + leaf}, {}, LidChoice::source});
		if (first + 2 * pod <= all.size())
			jobs.push_back(Job{{all.begin() + first + pod, all.begin() + first + 2 * pod},
					   {},
					   LidChoice::source});
	}
	out.blocks = score_jobs(f, r, *shift, jobs).avg_hsd;
	return out;
}

} // namespace

int main(int argc, char **argv)
{
	const char *tuple = argc > 1 ? argv[1] : "3;18,18,6;1,18,6;1,1,3";
	const unsigned seeds = argc > 2 ? unsigned(std::strtoul(argv[2], nullptr, 10)) : 3;
	std::vector<double> pcts;
	for (int i = 3; i < argc; i++)
		pcts.push_back(std::strtod(argv[i], nullptr));
	if (pcts.empty())
		pcts = {1, 2, 5};
	std::printf("qft bench: switch cables cut at random on PGFT(%s), D-Mod-K with its fallback\n",
		    tuple);
	std::printf("%5s %4s %6s %8s %9s %9s %11s %10s %8s\n", "pct", "seed", "cut", "complete",
		    "shift_all", "congested", "leaf+pod", "dests_lost", "secs");
	for (double pct : {0.0}) {
		size_t n = 0;
		const auto t0 = Clock::now();
		Model m(cut(tuple, pct, 0, &n));
		Figures fig = measure(m);
		std::printf("%5.1f %4s %6zu %8s %9.3f %8.2f%% %11.3f %10zu %8.2f\n", pct, "-", n, "yes",
			    fig.whole, fig.flows_congested, fig.blocks, fig.lost,
			    std::chrono::duration<double>(Clock::now() - t0).count());
	}
	for (double pct : pcts)
		for (unsigned seed = 1; seed <= seeds; seed++) {
			size_t n = 0;
			const auto t0 = Clock::now();
			Model m(cut(tuple, pct, seed, &n));
			Figures fig = measure(m);
			if (!fig.complete) {
				std::printf("%5.1f %4u %6zu %8s  %s\n", pct, seed, n, "no",
					    fig.why.c_str());
				continue;
			}
			std::printf("%5.1f %4u %6zu %8s %9.3f %8.2f%% %11.3f %10zu %8.2f\n", pct, seed, n,
				    "yes", fig.whole, fig.flows_congested, fig.blocks, fig.lost,
				    std::chrono::duration<double>(Clock::now() - t0).count());
		}
	return 0;
}
