// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/slurm/groups.hpp"

#include <map>

#include "lib/common/error.hpp"

namespace qft {

uint32_t link_gbps(const LinkRate &rate)
{
	// Per-lane data rates of the IB generations, in tenths of Gb/s.
	static const std::map<std::string, uint32_t> lane = {
		{"SDR", 25},  {"DDR", 50},   {"QDR", 100}, {"FDR10", 100},
		{"FDR", 140}, {"EDR", 250},  {"HDR", 500}, {"NDR", 1000},
		{"XDR", 2000}};
	auto it = lane.find(rate.speed);
	unsigned lanes = 0;
	if (!rate.width.empty() && rate.width.back() == 'x')
		for (char c : rate.width.substr(0, rate.width.size() - 1)) {
			if (c < '0' || c > '9')
				return 0;
			lanes = lanes * 10 + unsigned(c - '0');
		}
	if (it == lane.end() || lanes == 0 || lanes > 32)
		return 0;
	return it->second * lanes / 10;
}

std::vector<SwitchGroup> switch_groups(const Fabric &fabric, const Tree &tree)
{
	const Pgft &g = tree.pgft();
	// On a QFT a level-l sub-tree is p_l PGFT subtrees wide on a
	// side-linked level; it lies in one level-(l+1) sub-tree when its host
	// count divides theirs, which check_qft()'s p_l | m_{l+1} gives.
	for (unsigned l = 1; l < g.h(); l++)
		if (tree.subtree_hosts(l + 1) % tree.subtree_hosts(l))
			fail(Status::internal, "PGFT(", g.text(), "): a level-", l, " sub-tree of ",
			     tree.subtree_hosts(l), " hosts straddles level-", l + 1,
			     " sub-trees of ", tree.subtree_hosts(l + 1));
	std::vector<SwitchGroup> groups;
	// position of (level, subtree) in `groups`
	std::vector<std::map<uint64_t, size_t>> at(g.h() + 1);
	for (unsigned l = 1; l <= g.h(); l++) {
		for (uint64_t j = 0; j < g.hosts(); j++) {
			NodeId id = tree.node_at(0, j);
			if (id == kNone)
				continue;
			uint64_t sub = j / tree.subtree_hosts(l);
			auto [it, fresh] = at[l].emplace(sub, groups.size());
			if (fresh) {
				SwitchGroup grp;
				grp.level = l;
				grp.subtree = sub;
				grp.name = cat("L", l, "-", sub);
				groups.push_back(std::move(grp));
			}
			groups[it->second].hosts.push_back(fabric.host_ord(id));
		}
	}
	for (size_t i = 0; i < groups.size(); i++) {
		SwitchGroup &grp = groups[i];
		const unsigned l = grp.level;
		if (l < g.h()) {
			grp.parent = at[l + 1].at(grp.subtree /
						  (tree.subtree_hosts(l + 1) / tree.subtree_hosts(l)));
			groups[grp.parent].children.push_back(i);
		}
		// The level-l switches of this sub-tree: indexes sub * S + r,
		// S = W_l (times p_l on a QFT's side-linked level).
		const uint64_t span = g.W(l) * (tree.subtree_hosts(l) / g.M(l));
		for (uint64_t r = 0; r < span; r++) {
			NodeId sw = tree.node_at(l, grp.subtree * span + r);
			if (sw == kNone)
				continue;
			grp.switches.push_back(sw);
			// The rate of the first cable down to the level below stands
			// for the group (recognised fabrics number ports freely).
			const Node &n = fabric.node(sw);
			for (unsigned p = 0; p < n.num_ports && !grp.link_gbps; p++) {
				const Port &port = fabric.port(n.first_port + p);
				if (port.peer != kNone &&
				    fabric.node(fabric.port(port.peer).node).level ==
					    int(grp.level) - 1)
					grp.link_gbps = link_gbps(fabric.rates()[port.rate]);
			}
		}
	}
	return groups;
}

} // namespace qft
