// SPDX-License-Identifier: GPL-2.0-or-later
// Product shapes (issue 12, derivation in docs/product-shapes.md): host sets
// S_h x ... x S_1 of tree digits, a host (a_h..a_1) being in the shape iff
// a_l is in S_l at every level: a set of top subtrees, the same children
// inside each, ..., the same positions in every chosen leaf.
//
// Why they matter. Under D-Mod-K (seed 000 eq. 1) the up-link a flow s -> d
// takes out of its level-l subtree is named by (floor(s / M_l),
// d mod U_l), U_l = W_{l+1} p_{l+1} the up-links leaving a level-l subtree;
// the down-link into d's level-l subtree by (floor(d / M_l), d mod U_l)
// (theorem 2: the destination's own up-path, reversed). On a full-bisection
// tree U_l = M_l, so every link a product uses is named by one host of the
// product: Shift in tree order never puts two flows on a link, and two
// disjoint products never meet on one. With fewer up-links (U_l < M_l) the
// digits are taken modulo U_l and the conditions below are needed.
//
// Assumed, not checked: a complete tree (no cable missing; hosts absent
// from the tuple are fine as long as the shape avoids them, see contains()
// on the caller's side), routed by D-Mod-K with LID offset 0.
#ifndef QFT_PLACE_SHAPE_HPP
#define QFT_PLACE_SHAPE_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/tree/pgft.hpp"

namespace qft {

struct Shape {
	// digits[l - 1] = S_l: sorted, distinct, each < m_l, not empty.
	std::vector<std::vector<uint32_t>> digits;

	// Validates `digits` against `g` (one set per level, each sorted on the
	// way in); Error(invalid) naming the level and the digit otherwise.
	static Shape of(const Pgft &g, std::vector<std::vector<uint32_t>> digits);

	const std::vector<uint32_t> &at(unsigned l) const { return digits[l - 1]; }
	// prod_l |S_l|.
	uint64_t size() const;
	// The hosts' tree indexes j, ascending: tree order, hence rank order.
	std::vector<uint64_t> tree_indexes(const Pgft &g) const;
	// Sizes, top level first: "6x7x18".
	std::string text() const;
	bool contains(const Pgft &g, uint64_t j) const;
};

// The product whose hosts are exactly `tree_indexes` (any order), or
// nullopt when the set is empty, repeats a host or is no product.
// Error(invalid) for an index outside the tuple.
std::optional<Shape> shape_of(const Pgft &g, const std::vector<uint64_t> &tree_indexes);

// True when Shift (and so ring, dissemination, tournament, binomial, whose
// stages are parts of Shift stages) in tree order has HSD 1.0 on `s` under
// D-Mod-K: at every level l < h that the shape's traffic crosses (more than
// one level-l subtree), its lower parts x = sum_{i<=l} a_i M_{i-1} have
// distinct residues modulo G_l = gcd(U_l, M_l). Exact (true iff HSD 1.0)
// when U_l divides M_l or M_l divides U_l at every level, always on an RLFT
// (U_l = M_l, where it holds for every product); sufficient otherwise.
bool congestion_free(const Pgft &g, const Shape &s);
// Why congestion_free() is false, naming the level, two colliding hosts'
// lower digits and the residue, for `qft place --explain`; "" when true.
std::string why_not_congestion_free(const Pgft &g, const Shape &s);

// True when no directed link carries flows of both `a` and `b`, whatever
// traffic each runs among its own hosts: they share no host, and at no
// level l < h do both cross it from a common level-l subtree with lower
// parts of equal residue modulo G_l. Exact (true iff all-to-all traffic of
// the two shares no link) when U_l divides M_l at every level; sufficient
// otherwise. Always true for disjoint shapes on an RLFT.
bool link_disjoint(const Pgft &g, const Shape &a, const Shape &b);

} // namespace qft

#endif
