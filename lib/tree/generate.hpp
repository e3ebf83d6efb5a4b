// SPDX-License-Identifier: GPL-2.0-or-later
// Builds the fabric of a PGFT exactly as seed 000 IV-B wires it, with the
// tree annotation set, so that the generated fabric, its JSON and its ibsim
// net file describe one and the same graph.
#ifndef QFT_TREE_GENERATE_HPP
#define QFT_TREE_GENERATE_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/fabric/fabric.hpp"
#include "lib/tree/pgft.hpp"

namespace qft {

struct GenOptions {
	// printf-like, one integer conversion (%d, %04d, %x ...): the host's
	// tree index plus `first_number`.
	std::string name_pattern = "n%04d";
	unsigned first_number = 1;
	unsigned lmc = 0;
	// Permute host names over the tree positions (names no longer follow
	// the tree order), reproducibly from this seed.
	std::optional<uint64_t> shuffle_names;
	LinkRate rate;
};

// Switch ports: down-port r is IB port r+1, up-port q is IB port
// m_l p_l + q + 1; host up-port q is IB port q+1. Hosts get LIDs
// (j+1) << lmc, switches the LIDs after them. Node GUIDs: hosts
// 0x0002c90300000000 + 2(j+1), so that port GUIDs (node GUID + port) stay
// unique, switches 0x0002c90400000000 + (l << 24) + index.
Fabric generate_pgft(const Pgft &pgft, const GenOptions &opt);

// The nodes of `pgft` as generate_pgft() makes them (names, GUIDs, LIDs,
// descriptions, tree positions), tagged `kind`, with no cable yet:
// nodes[l][index] is the node at that position. For the generators of
// other wirings of the same positions (lib/tree/qft_wiring.hpp).
Fabric generate_nodes(const Pgft &pgft, const GenOptions &opt, TreeKind kind,
		      std::vector<std::vector<NodeId>> &nodes);

// Formats one host name; throws Error(invalid) for a pattern without
// exactly one integer conversion.
std::string format_host_name(const std::string &pattern, uint64_t number);

} // namespace qft

#endif
