// SPDX-License-Identifier: GPL-2.0-or-later
// qft topology-conf: the tree as topology.conf for stock topology/tree.
#include <cstdio>

#include "contribs/qft/cli.hpp"
#include "lib/common/error.hpp"
#include "lib/tree/topology_conf.hpp"

namespace qft::cli {

int cmd_topology_conf(int argc, char **argv)
{
	Args args(argc, argv, 2, {"--fabric", "-o"}, {});
	if (!args.positional().empty())
		throw UsageError{"unexpected argument " + args.positional()[0]};
	std::unique_ptr<Model> m = load_model(args.need("--fabric"), "dmodk");
	if (!m->tree)
		fail(Status::invalid, args.need("--fabric"),
		     ": the fabric has no PGFT tree to export");
	std::string text = topology_conf_text(m->fabric, *m->tree);
	if (args.get("-o", "-") == "-")
		std::fputs(text.c_str(), stdout);
	else
		write_file(args.get("-o"), text);
	return 0;
}

} // namespace qft::cli
