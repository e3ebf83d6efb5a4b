// SPDX-License-Identifier: GPL-2.0-or-later
// The fabric's tree as a topology.conf for Slurm's stock topology/tree:
// the same switch records topology/qft builds (lib/slurm/groups.hpp), so an
// admin can compare the two plugins on one tree.
#ifndef QFT_SLURM_TOPOLOGY_CONF_HPP
#define QFT_SLURM_TOPOLOGY_CONF_HPP

#include <string>

#include "lib/fabric/fabric.hpp"
#include "lib/tree/tree.hpp"

namespace qft {

std::string topology_conf_text(const Fabric &fabric, const Tree &tree);

// The tree as a topology.conf for Slurm 24.11's topology/block: one base
// block per leaf switch (BlockName=L1-<s>, the leaf's named hosts), in
// tree order, since topology/block pairs neighbouring blocks into
// aggregates of 2^k base blocks aligned at multiples of 2^k. BlockSizes
// keeps only the aggregates that tile every subtree: 2^k leaves where,
// for every level l >= 2, 2^k divides the leaves of a level-l subtree or
// is a multiple of them, so no aggregate straddles two subtrees. The base
// size is the smallest leaf's named host count (topology/block refuses a
// block smaller than the base). On a QFT, leaves and subtrees are its
// sub-trees (switch_groups()). Throws Error(invalid) when no leaf has a
// named host.
std::string topology_block_conf_text(const Fabric &fabric, const Tree &tree);

} // namespace qft

#endif
