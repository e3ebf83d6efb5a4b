// SPDX-License-Identifier: GPL-2.0-or-later
// qft discover: the fabric a local InfiniBand port sees (libibnetdisc), as
// fabric JSON, its tree recognised: `qft import ibnetdiscover` without the
// ibnetdiscover run and its text in between.
#include <cstdio>

#include "contribs/qft/cli.hpp"
#include "lib/common/error.hpp"
#include "lib/fabric/discover.hpp"
#include "lib/fabric/fabric_json.hpp"
#include "lib/tree/recognise.hpp"

namespace qft::cli {

int cmd_discover(int argc, char **argv)
{
	Args args(argc, argv, 2, {"-C", "-P", "-o", "--names", "--timeout", "--retries"},
		  {"--raw", "--json"});
	if (!args.positional().empty())
		throw UsageError{"expected: discover [-C CA] [-P PORT] [OPTIONS], no operands"};
	std::string out = args.get("-o", "-");
	if (out == "-" && args.has("--json"))
		throw UsageError{"--json prints the report: give the fabric a file with -o"};
	DiscoverOptions opt;
	opt.ca = args.get("-C");
	opt.port = unsigned(args.number("-P", 0, 254));
	opt.naming.regex = args.get("--names");
	opt.timeout_ms = unsigned(args.number("--timeout", 0, 3600000));
	opt.retries = unsigned(args.number("--retries", 0, 100));
	DiscoverStats st;
	ImportResult imp = discover_fabric(opt, &st);
	std::fprintf(stderr,
		     "qft discover: %u switches, %u CAs from %s port %u in %.3f s "
		     "(%u SMPs, %u hops)\n",
		     st.switches, st.cas, st.ca.c_str(), st.port, st.seconds, st.mads,
		     st.max_hops);
	for (const std::string &w : imp.warnings)
		std::fprintf(stderr, "qft discover: warning: %s\n", w.c_str());
	// As qft import: the report on stderr (JSON: stdout), then the fabric.
	if (!args.has("--raw")) {
		Recognition r = recognise(imp.fabric);
		if (args.has("--json"))
			std::fputs(recognition_json(imp.fabric, r).c_str(), stdout);
		else
			std::fputs(recognition_text(imp.fabric, r).c_str(), stderr);
	}
	if (out == "-")
		std::fputs(fabric_to_json(imp.fabric).c_str(), stdout);
	else
		fabric_save_json(imp.fabric, out);
	return 0;
}

} // namespace qft::cli
