// SPDX-License-Identifier: GPL-2.0-or-later
// Placement units on a Quasi Fat Tree (issue 14; docs/qft.md, "Placement
// in QFT sub-trees").
//
// A QFT sub-tree of level l holds S_l = M_l p'_l hosts (Tree::subtree_hosts:
// p'_l = p_l on a side-linked level, else 1), and the QFT routing (seed
// 002 slide 16, lib/route/qft_route.hpp) keeps all of a job's traffic
// inside the smallest QFT sub-tree holding it.
//
// - QFT-aligned run: hosts contiguous in tree order, in one level-l QFT
//   sub-tree, made of whole level-(l-1) QFT sub-trees (aligned at a
//   multiple of S_{l-1}); inside a leaf, any contiguous run. The placer's
//   block, as seed 000's prod w_k hosts on a PGFT.
// - QFT product: the product shapes of docs/product-shapes.md in the
//   QFT's digits. Host j has digit floor(j / S_{l-1}) mod (S_l / S_{l-1})
//   at level l (which level-(l-1) QFT sub-tree of its level-l one holds
//   it); a product is a set of digits per level with every combination
//   present. A QFT-aligned run is one.
// - Two leaves: any hosts of two leaves of one level-2 QFT sub-tree, as on
//   a PGFT. The flows between the leaves climb to level 2 only, on the
//   up-port g_1(d) = d mod m_1 (slide 16 with R'_1 = 1), distinct for the
//   distinct positions of the other leaf, and come down on the
//   destination's own up-path.
//
// Claim (checked, not proven: tests/unit/test_qft.cpp): on a complete QFT
// whose bisection is constant (w_1 = p_1 = 1 and m_l p_l = w_{l+1} p_{l+1}
// below the top), under the QFT routing at LID offset 0, Shift in tree
// order has HSD 1.0 on every QFT product and on every set in two leaves,
// and so do ring, dissemination, tournament and binomial, whose stages are
// parts of Shift stages; two host-disjoint QFT products share no directed
// link, whatever their traffic. Not so on oversubscribed tuples: on the
// QFT of PGFT(3;4,6,3;1,2,3;1,3,2) (18 down-ports, 6 up-ports at level 2)
// runs of 20, 32, ... hosts reach HSD 1.47-1.67. Runs of whole leaves that
// cross a sub-tree boundary are often congestion-free too; the claim does
// not cover them.
#ifndef QFT_PLACE_QFT_RUNS_HPP
#define QFT_PLACE_QFT_RUNS_HPP

#include <cstdint>
#include <vector>

#include "lib/tree/tree.hpp"

namespace qft {

// The claim's condition on the tuple: constant bisection (see above).
bool qft_runs_claimed(const Pgft &g);

// The block of level l on `tree`: on a QFT a whole level-(l-1) QFT
// sub-tree (S_{l-1}), on a PGFT W_l = prod_{k<=l} w_k hosts (seed 000 V-B).
uint64_t block_hosts(const Tree &tree, unsigned level);

// True iff `tree_indexes` (any order, distinct) are a QFT-aligned run on a
// QFT whose tuple qft_runs_claimed(). False on a PGFT.
bool qft_aligned_run(const Tree &tree, std::vector<uint64_t> tree_indexes);

// True iff the hosts (distinct) are a QFT product (any QFT).
bool qft_product(const Tree &tree, const std::vector<uint64_t> &tree_indexes);

// The claim: a QFT product, or hosts of at most two leaves of one
// level-2 QFT sub-tree, on a QFT whose tuple qft_runs_claimed().
bool qft_congestion_free_hosts(const Tree &tree, const std::vector<uint64_t> &tree_indexes);

} // namespace qft

#endif
