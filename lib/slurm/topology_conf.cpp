// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/slurm/topology_conf.hpp"

#include "lib/common/error.hpp"
#include "lib/common/hostlist.hpp"
#include "lib/slurm/groups.hpp"

namespace qft {

std::string topology_conf_text(const Fabric &fabric, const Tree &tree)
{
	std::vector<SwitchGroup> groups = switch_groups(fabric, tree);
	std::string out = cat("# topology.conf for topology/tree, written by qft from PGFT(",
			      tree.pgft().text(), ")\n# one switch per subtree; "
			      "hosts without a Slurm name are left out\n");
	// Top level first, each level in subtree order.
	for (unsigned level = tree.pgft().h(); level >= 1; level--)
	for (const SwitchGroup &g : groups) {
		if (g.level != level)
			continue;
		out += cat("SwitchName=", g.name);
		if (g.level == 1) {
			std::vector<std::string> names;
			for (HostOrd h : g.hosts)
				if (!fabric.node(fabric.hosts()[h]).name.empty())
					names.push_back(fabric.node(fabric.hosts()[h]).name);
			out += cat(" Nodes=", names.empty() ? std::string("") : hostlist_compress(names));
		} else {
			std::vector<std::string> kids;
			for (size_t c : g.children)
				kids.push_back(groups[c].name);
			out += cat(" Switches=", hostlist_compress(kids));
		}
		if (g.link_gbps)
			out += cat(" LinkSpeed=", g.link_gbps);
		out += "\n";
	}
	return out;
}

} // namespace qft
