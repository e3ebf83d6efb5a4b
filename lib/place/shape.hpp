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
// Assumed, not checked: D-Mod-K with LID offset 0 on a complete tree.
// Absent hosts are fine when the shape avoids them (the caller checks);
// a missing switch cable is fine when the shape does not use it
// (uses_cable()), since its flows then keep their D-Mod-K paths.
#ifndef QFT_PLACE_SHAPE_HPP
#define QFT_PLACE_SHAPE_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/tree/pgft.hpp"
#include "lib/tree/tree.hpp"

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

// True iff Shift in tree order has HSD 1.0 on `s` under D-Mod-K on a
// complete tree, and then so do ring, dissemination, tournament and
// binomial, whose stages are parts of Shift stages. At every level l < h
// where the shape spans several level-l subtrees: (i) its lower parts
// x = j mod M_l are distinct mod U_l; (ii) when neither of U_l and M_l
// divides the other and it spans 3 subtrees or more, for consecutive
// subtrees y, y' no lower parts x > x' have x - x' = (y' - y) M_l mod U_l.
// Always true on an RLFT (U_l = M_l). Exact on every complete PGFT.
bool congestion_free(const Pgft &g, const Shape &s);
// Why congestion_free() is false, naming the level, the two colliding
// hosts (or lower digits) and U_l, for `qft place --explain`; "" if true.
std::string why_not_congestion_free(const Pgft &g, const Shape &s);

// True iff no directed link carries flows of both `a` and `b`, whatever
// traffic each runs among its own hosts: they share no host, and at no
// level l < h that both span do they have a common level-l subtree and
// lower parts equal mod U_l (or, when neither of U_l and M_l divides the
// other, destinations equal mod U_l reached from that subtree). Always
// true for disjoint shapes on an RLFT. Exact on every complete PGFT.
bool link_disjoint(const Pgft &g, const Shape &a, const Shape &b);

// True when the shape uses the cable `c` (a cable the tree lacks): a flow
// of its all-to-all traffic would cross it under D-Mod-K. A shape that
// uses no missing cable keeps its D-Mod-K paths on a degraded tree, so
// congestion_free() and link_disjoint() still hold for it.
bool uses_cable(const Pgft &g, const Shape &s, const MissingCable &c);

// Any host set, ranked in tree order (sorted here): true iff Shift has HSD
// 1.0 on it under D-Mod-K on a complete tree, hence so do ring,
// dissemination, tournament and binomial. Exact for every PGFT, at
// O(h N s) for N hosts in s subtrees (scoring Shift is O(h N^2)). At each
// level l < h, each level-l subtree y holding c of the N hosts:
// up-links (key y, d mod U_l): every cyclic window of c consecutive ranks
// (where one Shift stage sends y's ranks) holds no two hosts outside y
// equal mod U_l; down-links (key y, d mod U_l): every run of min(c, N - c)
// consecutive hosts of y (those one stage feeds from outside) are distinct
// mod U_l. Error(invalid) for a repeated host or one outside the tuple.
bool congestion_free_hosts(const Pgft &g, std::vector<uint64_t> tree_indexes);
// The first collision: level, Shift stage, the two hosts; "" when none.
std::string why_not_congestion_free_hosts(const Pgft &g, std::vector<uint64_t> tree_indexes);

} // namespace qft

#endif
