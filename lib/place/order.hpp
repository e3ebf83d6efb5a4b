// SPDX-License-Identifier: GPL-2.0-or-later
// Rank orders of a host set. Tree order (ascending tree index j, seed 000
// section V) is the order in which D-Mod-K makes unidirectional collectives
// congestion-free; `given` keeps the caller's order; `random:SEED` is the
// baseline the paper compares against.
#ifndef QFT_PLACE_ORDER_HPP
#define QFT_PLACE_ORDER_HPP

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/fabric/fabric.hpp"
#include "lib/tree/tree.hpp"

namespace qft {

struct RankOrder {
	enum Kind { tree, given, random } kind = tree;
	uint64_t seed = 0;
	// "tree", "given" or "random:SEED"; throws Error(invalid).
	static RankOrder parse(std::string_view text);
};

// resolve_hosts(), which gives the orders their hosts, is in
// lib/fabric/fabric.hpp (included above): lib/lid reads host lists too and
// must not include lib/place, which includes it.

// Sorts host ordinals by tree index j, in place: the library's one tree
// order. A host without a tree position (kNone) sorts last; callers that
// must refuse one check first, as tree_order() does. An iterator form, for
// the C API's size_t arrays.
template <typename It> void sort_tree_order(const Tree &tree, It first, It last)
{
	std::sort(first, last, [&](HostOrd a, HostOrd b) {
		return tree.host_index(a) < tree.host_index(b);
	});
}
void sort_tree_order(const Tree &tree, std::vector<HostOrd> &hosts);

// Sorts by tree index; throws if a host has no tree position.
std::vector<HostOrd> tree_order(const Fabric &fabric, const Tree &tree,
				std::vector<HostOrd> hosts);

std::vector<HostOrd> apply_order(const RankOrder &order, const Fabric &fabric,
				 const Tree *tree, std::vector<HostOrd> hosts);

// How a host set sits on the blocks of prod(w_k) hosts that D-Mod-K keeps
// congestion-free (seed 000 V-B).
struct Alignment {
	uint64_t block = 0;         // prod_k w_k
	uint64_t size = 0;          // hosts in the set
	bool multiple = false;      // size is i * block
	bool contiguous = false;    // tree indices form one run
	bool aligned = false;       // contiguous and starts on a block boundary
	uint64_t whole_leaves = 0;  // leaf switches whose hosts are all in the set
	uint64_t leaves = 0;        // leaf switches the set touches
};
Alignment alignment(const Fabric &fabric, const Tree &tree,
		    const std::vector<HostOrd> &hosts);

} // namespace qft

#endif
