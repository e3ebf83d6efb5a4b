// SPDX-License-Identifier: GPL-2.0-or-later
// qft place: the placement select/rlft would choose for a job of N nodes,
// with the running jobs of a file: a decision replayed outside slurmctld.
#include <cstdio>

#include "contribs/qft/cli.hpp"
#include "lib/common/error.hpp"
#include "lib/common/hostlist.hpp"
#include "lib/place/explain.hpp"
#include "lib/place/order.hpp"
#include "lib/place/placement.hpp"

namespace qft::cli {

int cmd_place(int argc, char **argv)
{
	Args args(argc, argv, 2,
		  {"--fabric", "--nodes", "--running", "--remainder", "--pattern", "--samples",
		   "--candidates", "--eligible", "--require", "--routing", "--lft", "--round-up",
		   "--shapes", "--min-nodes"},
		  {"--no-congestion", "--explain", "--path-pressure", "--whole-leaves",
		   "--candidate-hosts"});
	args.no_positional();
	std::unique_ptr<Model> m = load_model(args.need("--fabric"), routing_arg(args));
	if (!m->tree())
		fail(Status::invalid, args.need("--fabric"), ": the fabric has no PGFT tree");
	const Fabric &f = m->fabric();
	PlacementPolicy pol;
	std::string rem = args.get("--remainder", "exact");
	if (rem != "exact" && rem != "reserve")
		throw UsageError{"--remainder " + rem + ": expected exact or reserve"};
	pol.remainder = rem == "exact" ? Remainder::exact : Remainder::reserve;
	pol.pattern = args.get("--pattern", pol.pattern);
	pol.sample_stages = args.number("--samples", pol.sample_stages, 100000);
	pol.max_candidates = args.number("--candidates", pol.max_candidates, 100000);
	pol.rank_by_congestion = !args.has("--no-congestion");
	const std::string shapes = args.get("--shapes", "blocks");
	if (shapes != "products" && shapes != "blocks")
		throw UsageError{"--shapes " + shapes + ": expected products or blocks"};
	pol.products = shapes == "products";
	pol.round_up = uint32_t(args.number("--round-up", pol.round_up, 50));
	// as select/rlft: with LMC > 0 any job may take offsets
	pol.lid_offsets = f.lmc() > 0;
	pol.path_pressure = args.has("--path-pressure");
	if (pol.path_pressure && !pol.lid_offsets)
		throw UsageError{"--path-pressure: the fabric has LMC 0 (it ranks for LID offsets)"};
	pol.whole_leaves = args.has("--whole-leaves");
	if (pol.whole_leaves && !pol.lid_offsets)
		throw UsageError{"--whole-leaves: the fabric has LMC 0 (it ranks for LID offsets)"};
	Placer placer(f, m->need_tree(), m->router(), pol);

	if (args.has("--running")) {
		auto jobs = job_lines(args.get("--running"));
		for (size_t i = 0; i < jobs.size(); i++)
			placer.add_running(uint32_t(i + 1),
					   tree_order(f, m->need_tree(), resolve_hosts(f, jobs[i])));
	}
	PlacementRequest req;
	req.nodes = uint32_t(args.number("--nodes", 0, 1u << 20));
	if (!req.nodes)
		throw UsageError{"--nodes N is required (N >= 1)"};
	req.nodes_min = uint32_t(args.number("--min-nodes", req.nodes, req.nodes));
	if (!req.nodes_min)
		throw UsageError{"--min-nodes M: expected 1 <= M <= N"};
	req.eligible.assign(f.hosts().size(), !args.has("--eligible"));
	if (args.has("--eligible"))
		for (HostOrd h : resolve_hosts(f, host_names(f, args.get("--eligible"))))
			req.eligible[h] = true;
	if (args.has("--require"))
		req.required = resolve_hosts(f, host_names(f, args.get("--require")));

	Placement p = placer.place(req);
	if (p.outcome != Placement::placed) {
		std::printf("%s: %s\n", p.outcome == Placement::never ? "never" : "not now",
			    p.reason.c_str());
		return p.outcome == Placement::never ? 3 : 4;
	}
	auto host_list = [&](const std::vector<HostOrd> &hosts) {
		std::vector<std::string> names;
		for (HostOrd h : hosts)
			names.push_back(f.node(f.hosts()[h]).name);
		return hostlist_compress(names);
	};
	std::printf("placed %zu nodes: %s\n%s%s\npredicted %s HSD %.3f with %zu running jobs "
		    "(%.3f alone), %zu switch links shared with them, %zu candidates\n",
		    p.chosen.hosts.size(), host_list(p.chosen.hosts).c_str(), p.chosen.label().c_str(),
		    p.chosen.congestion_free ? ", congestion-free by construction"
		    : p.chosen.offset_shape  ? ", whole leaves of one level-2 subtree (for the offsets)"
					     : "",
		    pol.pattern.c_str(), p.chosen.hsd, placer.running(), p.chosen.hsd_alone,
		    p.chosen.shared, p.considered.size());
	if (args.has("--explain"))
		std::fputs(explain(p).c_str(), stdout);
	// Each candidate's hosts, best first, to score them again elsewhere
	// (contribs/bench/place-beside.py: with the pair choice beside the
	// running jobs' kept offsets).
	if (args.has("--candidate-hosts"))
		for (size_t i = 0; i < p.considered.size(); i++)
			std::printf("candidate %zu: %s\n", i + 1,
				    host_list(p.considered[i].hosts).c_str());
	return 0;
}

} // namespace qft::cli
