// SPDX-License-Identifier: GPL-2.0-or-later
// The PGFT as a strict tree of host groups, the shape Slurm's switch table
// (topology plugins, --switches) understands. A level-l group is one
// level-l subtree: the hosts with equal digits a_{l+1}..a_h, that is equal
// floor(j / prod_{k<=l} m_k). Its W_l physical level-l switches all reach
// exactly these hosts, so they form one Slurm switch record; the group's
// parent is the level-(l+1) subtree holding it.
//
// On a QFT (seed 002, lib/tree/qft_wiring.hpp) a level-l switch reaches p_l
// PGFT subtrees on a side-linked level (slide 16's descendant criterion):
// the group is that QFT sub-tree, floor(j / (M_l p_l)), with its W_l p_l
// switches (Tree::subtree_hosts). Still a strict tree: p_l divides
// m_{l+1} (check_qft), so a level-l sub-tree lies in one level-(l+1) one.
#ifndef QFT_SLURM_GROUPS_HPP
#define QFT_SLURM_GROUPS_HPP

#include <cstdint>
#include <string>
#include <vector>

#include "lib/fabric/fabric.hpp"
#include "lib/tree/tree.hpp"

namespace qft {

struct SwitchGroup {
	unsigned level = 0;           // 1 = leaf switches .. h = top
	uint64_t subtree = 0;         // floor(j / Tree::subtree_hosts(level))
	std::string name;             // "L2-3"
	size_t parent = SIZE_MAX;     // index in the group list; none at the top
	std::vector<size_t> children; // indexes in the group list
	std::vector<HostOrd> hosts;   // present hosts, in tree order
	std::vector<NodeId> switches; // present physical switches
	uint32_t link_gbps = 0;       // data rate of the group's down cables
};

// Groups with at least one present host, leaves first, each level in
// subtree order.
std::vector<SwitchGroup> switch_groups(const Fabric &fabric, const Tree &tree);

// Data rate of a link in Gb/s (4x HDR = 200); 0 for unknown text.
uint32_t link_gbps(const LinkRate &rate);

} // namespace qft

#endif
