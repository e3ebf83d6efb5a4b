// SPDX-License-Identifier: GPL-2.0-or-later
// qft lid: a placed job's LID choice (lib/lid), written as the table the
// verbs interposer reads (docs/lid-table.md), or every choice compared.
#include <cstdio>
#include <memory>
#include <string>

#include "contribs/qft/cli.hpp"
#include "lib/lid/lid.hpp"
#include "lib/place/order.hpp"
#include "lib/traffic/pattern.hpp"

namespace qft::cli {

namespace {

void print_row(const char *what, const LidScore &s)
{
	std::printf("%-8s %9.3f %9.3f %9zu %9zu\n", what, s.avg_hsd, s.max_hsd, s.congested,
		    s.stages);
}

} // namespace

int cmd_lid(int argc, char **argv)
{
	Args args(argc, argv, 2,
		  {"--fabric", "--hosts", "--choice", "--lmc", "--pattern", "--order", "--routing",
		   "--lft", "-o", "--stages", "--threads"},
		  {"--compare"});
	args.no_positional();
	const std::string routing = routing_arg(args);
	std::unique_ptr<Model> m = load_model(args.need("--fabric"), routing);
	lmc_arg(args, *m, routing);
	const Fabric &f = m->fabric();
	const Tree *tree = m->tree();
	std::unique_ptr<Pattern> pattern =
		make_pattern(args.get("--pattern", "shift"), tree ? &tree->pgft() : nullptr);
	const std::vector<HostOrd> ranks =
		apply_order(RankOrder::parse(args.get("--order", "tree")), f, tree,
			    resolve_hosts(f, host_names(f, args.need("--hosts"))));
	LidOptions opt;
	opt.max_stages = args.number("--stages", 0, 1u << 20);
	opt.pair.threads = unsigned(args.number("--threads", 1, 256));

	if (args.has("--compare")) {
		if (args.has("--choice") || args.has("-o"))
			throw UsageError{"--compare compares every choice: no --choice, no -o"};
		std::printf("# %zu hosts, LMC %u, pattern %s\n", ranks.size(), f.lmc(),
			    pattern->name().c_str());
		std::printf("%-8s %9s %9s %9s %9s\n", "choice", "hsd_avg", "hsd_max", "congested",
			    "stages");
		LidTable none;
		none.mode = LidMode::job;
		none.offsets = m->router().offsets();
		none.hosts = ranks;
		none.dest.assign(ranks.size(), 0);
		print_row("one-lid", score_lids(f, m->router(), *pattern, none));
		for (LidMode mode : {LidMode::job, LidMode::dest, LidMode::pair, LidMode::stripe}) {
			LidTable t = choose_lids(f, m->router(), tree, *pattern, ranks, mode, opt);
			print_row(lid_mode_name(mode), score_lids(f, m->router(), *pattern, t));
		}
		return 0;
	}

	const LidMode mode = lid_mode(args.get("--choice", "dest"));
	LidTable t = choose_lids(f, m->router(), tree, *pattern, ranks, mode, opt);
	const LidScore s = score_lids(f, m->router(), *pattern, t);
	std::fprintf(stderr, "qft lid: %s, LMC %u, %zu hosts: %s HSD %.3f avg, %.3f worst, %zu of %zu stages congested\n",
		     lid_mode_name(mode), f.lmc(), ranks.size(), pattern->name().c_str(), s.avg_hsd,
		     s.max_hsd, s.congested, s.stages);
	if (mode == LidMode::stripe)
		return 0;
	const std::string text = lid_table_text(f, t);
	write_output(args, text);
	return 0;
}

} // namespace qft::cli
