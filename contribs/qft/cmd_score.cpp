// SPDX-License-Identifier: GPL-2.0-or-later
// qft score: congestion of a collective pattern for one job or several
// jobs in lock-step.
#include <cstdio>

#include "lib/fabric/fabric.hpp"

#include "contribs/qft/cli.hpp"
#include "lib/common/error.hpp"
#include "lib/place/order.hpp"
#include "lib/score/report.hpp"
#include "lib/score/score.hpp"
#include "lib/traffic/pattern.hpp"

namespace qft::cli {

int cmd_score(int argc, char **argv)
{
	Args args(argc, argv, 2,
		  {"--fabric", "--hosts", "--jobs", "--pattern", "--order", "--routing",
		   "--lid-offset", "--worst", "--lft", "--link-loads", "--flows"},
		  {"--json", "--bandwidth"});
	if (!args.positional().empty())
		throw UsageError{"unexpected argument " + args.positional()[0]};
	if (args.has("--hosts") == args.has("--jobs"))
		throw UsageError{"give exactly one of --hosts and --jobs"};
	if (args.has("--lft") && args.has("--routing"))
		throw UsageError{"give --routing or --lft, not both"};
	std::string routing = args.has("--lft") ? "lft:" + args.get("--lft")
						: args.get("--routing", "dmodk");
	std::unique_ptr<Model> m =
		load_model(args.need("--fabric"), routing, args.get("--lft"));
	const Fabric &f = m->fabric;
	const Tree *tree = m->tree ? &*m->tree : nullptr;

	std::string pattern_spec = args.get("--pattern", "shift");
	std::unique_ptr<Pattern> pattern =
		make_pattern(pattern_spec, tree ? &tree->pgft() : nullptr);
	std::string order_text = args.get("--order", "tree");
	RankOrder order = RankOrder::parse(order_text);
	unsigned offset = unsigned(args.number("--lid-offset", 0, 127));

	std::vector<std::vector<std::string>> job_names;
	if (args.has("--hosts"))
		job_names.push_back(host_names(f, args.get("--hosts")));
	else
		job_names = job_lines(args.get("--jobs"));

	std::vector<Job> jobs;
	size_t hosts = 0;
	for (size_t i = 0; i < job_names.size(); i++) {
		Job job;
		RankOrder o = order;
		o.seed += i; // each job its own random order, reproducibly
		try {
			job.ranks = apply_order(o, f, tree, resolve_hosts(f, job_names[i]));
		} catch (const Error &e) {
			if (job_names.size() == 1)
				throw;
			fail(e.status(), "job ", i + 1, ": ", e.what());
		}
		if (offset)
			job.offsets.assign(job.ranks.size(), uint8_t(offset));
		hosts += job.ranks.size();
		jobs.push_back(std::move(job));
	}
	// Two jobs cannot share a host.
	std::vector<size_t> owner(f.hosts().size(), 0);
	for (size_t i = 0; i < jobs.size(); i++)
		for (HostOrd h : jobs[i].ranks) {
			if (owner[h])
				fail(Status::invalid, "host ", f.node(f.hosts()[h]).name,
				     " is in job ", owner[h], " and job ", i + 1);
			owner[h] = i + 1;
		}

	ScoreOptions opt;
	opt.worst_links = args.number("--worst", 5, 1000);
	opt.bandwidth = args.has("--bandwidth") || pattern_spec.rfind("bisect", 0) == 0;
	opt.shared_links = jobs.size() > 1;
	// Per-stage detail for comparisons with other tools (ibdm): the flows
	// by host name and LID, and every loaded link.
	std::FILE *flows_out = nullptr, *loads_out = nullptr;
	auto open_out = [](const std::string &path) {
		std::FILE *fp = std::fopen(path.c_str(), "w");
		if (!fp)
			fail(Status::io, path, ": cannot write");
		return fp;
	};
	if (args.has("--flows"))
		flows_out = open_out(args.get("--flows"));
	if (args.has("--link-loads"))
		loads_out = open_out(args.get("--link-loads"));
	if (flows_out || loads_out)
		opt.observer = [&](size_t stage, const std::vector<Flow> &flows,
				   const std::vector<uint32_t> &load) {
			for (const Flow &fl : flows)
				if (flows_out)
					std::fprintf(flows_out, "%zu %s %s %u\n", stage,
						     f.node(f.hosts()[fl.src]).name.c_str(),
						     f.node(f.hosts()[fl.dst]).name.c_str(),
						     f.host_lid(fl.dst) + fl.offset);
			for (PortIdx l = 0; loads_out && l < load.size(); l++)
				if (load[l])
					std::fprintf(loads_out, "%zu %s %u %s %u %u\n", stage,
						     guid_text(f.node(f.port(l).node).guid).c_str(),
						     f.port(l).num,
						     guid_text(f.node(f.port(f.port(l).peer).node).guid).c_str(),
						     f.port(f.port(l).peer).num, load[l]);
		};
	Score sc = score_jobs(f, *m->router, *pattern, jobs, opt);
	for (std::FILE *fp : {flows_out, loads_out})
		if (fp && std::fclose(fp))
			fail(Status::io, "cannot finish writing --flows / --link-loads");
	ScoreContext ctx{routing, order_text, jobs.size(), hosts};
	std::fputs(args.has("--json") ? score_json(f, sc, ctx).c_str()
				      : score_text(f, sc, ctx).c_str(),
		   stdout);
	return 0;
}

} // namespace qft::cli
