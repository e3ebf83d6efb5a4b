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

} // namespace qft

#endif
