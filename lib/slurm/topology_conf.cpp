// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/slurm/topology_conf.hpp"

#include "lib/common/error.hpp"
#include "lib/common/hostlist.hpp"
#include "lib/slurm/groups.hpp"

namespace qft {

std::string topology_conf_text(const Fabric &fabric, const Tree &tree)
{
	std::vector<SwitchGroup> groups = switch_groups(fabric, tree);
	std::string out = cat("# topology.conf for topology/tree, written by qft from ",
			      tree.qft() ? "the QFT of " : "", "PGFT(",
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

namespace {

std::vector<std::string> named_hosts(const Fabric &fabric, const SwitchGroup &g)
{
	std::vector<std::string> names;
	for (HostOrd h : g.hosts)
		if (!fabric.node(fabric.hosts()[h]).name.empty())
			names.push_back(fabric.node(fabric.hosts()[h]).name);
	return names;
}

// Aggregate sizes, in leaves, that tile every level-l subtree (l >= 2).
// On a QFT a "leaf" is a level-1 sub-tree (a leaf group when level 1 is
// side-linked) and the subtrees are QFT sub-trees, as switch_groups().
std::vector<uint64_t> tree_aggregates(const Tree &tree)
{
	std::vector<uint64_t> sizes;
	const Pgft &pgft = tree.pgft();
	uint64_t leaves = pgft.hosts() / tree.subtree_hosts(1);
	for (uint64_t s = 1; s <= leaves; s *= 2) {
		bool tiles = true;
		for (unsigned l = 2; l <= pgft.h(); l++) {
			// leaves of a level-l subtree
			uint64_t sub = tree.subtree_hosts(l) / tree.subtree_hosts(1);
			tiles = tiles && (sub % s == 0 || s % sub == 0);
		}
		if (tiles)
			sizes.push_back(s);
	}
	return sizes;
}

} // namespace

std::string topology_block_conf_text(const Fabric &fabric, const Tree &tree)
{
	std::vector<SwitchGroup> groups = switch_groups(fabric, tree);
	std::string blocks;
	size_t base = SIZE_MAX;
	for (const SwitchGroup &g : groups) { // leaves first, in tree order
		if (g.level != 1)
			continue;
		std::vector<std::string> names = named_hosts(fabric, g);
		if (names.empty())
			continue;
		base = std::min(base, names.size());
		blocks += cat("BlockName=", g.name, " Nodes=", hostlist_compress(names), "\n");
	}
	if (base == SIZE_MAX)
		fail(Status::invalid, "no leaf switch has a host with a Slurm name: no block to write");
	std::string sizes;
	for (uint64_t s : tree_aggregates(tree))
		sizes += cat(sizes.empty() ? "" : ",", s * base);
	return cat("# topology.conf for topology/block (Slurm 24.11), written by qft from ",
		   tree.qft() ? "the QFT of " : "", "PGFT(", tree.pgft().text(),
		   ")\n# one base block per leaf switch, in tree order; "
		   "BlockSizes: the aggregates of 2^k leaves\n# that never straddle two subtrees; "
		   "hosts without a Slurm name are left out\n",
		   blocks, "BlockSizes=", sizes, "\n");
}

} // namespace qft
