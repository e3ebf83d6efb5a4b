// SPDX-License-Identifier: GPL-2.0-or-later
// qft route: the hops of one path.
#include <cstdio>

#include "contribs/qft/cli.hpp"
#include "lib/common/error.hpp"

namespace qft::cli {

int cmd_route(int argc, char **argv)
{
	Args args(argc, argv, 2,
		  {"--fabric", "--src", "--dst", "--lid-offset", "--routing", "--lft"}, {});
	args.no_positional();
	std::unique_ptr<Model> m = load_model(args.need("--fabric"), routing_arg(args));
	const Fabric &f = m->fabric();
	HostOrd ends[2];
	const char *opts[2] = {"--src", "--dst"};
	for (int e = 0; e < 2; e++) {
		std::string name = args.need(opts[e]);
		ends[e] = f.find_host(name);
		if (ends[e] == kNone)
			fail(Status::not_found, "host ", name, " is not in the fabric");
	}
	unsigned offset = unsigned(args.number("--lid-offset", 0, 127));
	PortIdx links[kMaxPathLinks];
	unsigned n = m->router().path(ends[0], ends[1], offset, links);
	std::printf("%s -> %s, LID %u (base %u + offset %u), routing %s, %u hops\n",
		    f.node(f.hosts()[ends[0]]).name.c_str(),
		    f.node(f.hosts()[ends[1]]).name.c_str(),
		    f.host_lid(ends[1]) + offset, f.host_lid(ends[1]), offset,
		    m->router().name(), n);
	for (unsigned i = 0; i < n; i++) {
		const Port &p = f.port(links[i]);
		const Node &from = f.node(p.node);
		const char *dir = "";
		if (from.level >= 0 && f.node(f.port(p.peer).node).level >= 0)
			dir = f.node(f.port(p.peer).node).level > from.level ? " up" : " down";
		std::printf("  %2u%s  %s -> %s\n", i + 1, dir, f.port_label(links[i]).c_str(),
			    f.port_label(p.peer).c_str());
	}
	return 0;
}

} // namespace qft::cli
