// SPDX-License-Identifier: GPL-2.0-or-later
// qft gen pgft|qft: a PGFT fabric, or the Quasi Fat Tree derived from the
// PGFT tuple (lib/tree/qft_wiring.hpp), as JSON and as an ibsim net file.
#include <cstdio>

#include "contribs/qft/cli.hpp"
#include "lib/common/error.hpp"
#include "lib/fabric/fabric_json.hpp"
#include "lib/fabric/ibsim_net.hpp"
#include "lib/tree/generate.hpp"
#include "lib/tree/qft_wiring.hpp"

namespace qft::cli {

int cmd_gen(int argc, char **argv)
{
	Args args(argc, argv, 2,
		  {"-o", "--output", "--ibsim", "--names", "--first", "--lmc",
		   "--shuffle-names", "--width", "--speed"},
		  {"--require-rlft"});
	const auto &pos = args.positional();
	if (pos.size() != 2 || (pos[0] != "pgft" && pos[0] != "qft"))
		throw UsageError{"expected: gen pgft TUPLE or gen qft TUPLE"};
	const bool qft = pos[0] == "qft";
	Pgft g = Pgft::parse(pos[1]);
	if (qft)
		check_qft(g);
	std::vector<std::string> why = g.rlft_violations();
	for (const std::string &w : why)
		std::fprintf(stderr, "qft gen: %s PGFT(%s) is not an RLFT: %s\n",
			     args.has("--require-rlft") ? "error:" : "warning:",
			     g.text().c_str(), w.c_str());
	if (!why.empty() && args.has("--require-rlft"))
		return 1;

	GenOptions opt;
	opt.name_pattern = args.get("--names", opt.name_pattern);
	opt.first_number = unsigned(args.number("--first", 1, 1u << 30));
	opt.lmc = unsigned(args.number("--lmc", 0, 7));
	if (args.has("--shuffle-names"))
		opt.shuffle_names = args.number("--shuffle-names", 0, ~0ul);
	opt.rate.width = args.get("--width", opt.rate.width);
	opt.rate.speed = args.get("--speed", opt.rate.speed);
	Fabric f = qft ? generate_qft(g, opt) : generate_pgft(g, opt);

	std::string out = args.has("-o") ? args.get("-o") : args.get("--output", "-");
	if (out == "-")
		std::fputs(fabric_to_json(f).c_str(), stdout);
	else
		fabric_save_json(f, out);
	if (args.has("--ibsim"))
		save_ibsim_net(f, args.get("--ibsim"));
	std::fprintf(stderr, "qft gen: %sPGFT(%s): %zu hosts, %zu switches, block %llu\n",
		     qft ? "QFT of " : "", g.text().c_str(), f.hosts().size(),
		     f.node_count() - f.hosts().size(), (unsigned long long)g.block());
	return 0;
}

} // namespace qft::cli
