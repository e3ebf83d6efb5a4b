// SPDX-License-Identifier: GPL-2.0-or-later
// The Quasi Fat Tree (QFT) of a PGFT tuple (seed 002, slides 10, 11, 16):
// the same nodes at the same positions as the PGFT (lib/tree/pgft.hpp),
// with the PGFT's parallel cables below the top re-wired to side branches.
//
// Derivation (docs/qft.md). Slide 16's descendant criterion says a switch
// S at level l reaches host Q downward iff
//   S_i = Q_i for i >= l+2  and  floor(S_{l+1} / p_l) = floor(Q_{l+1} / p_l),
// where the PGFT's rule is S_i = Q_i for i >= l+1: S's level-l subtree
// (digit l+1) is widened to a group of p_l neighbouring subtrees. Hence,
// for 1 <= l < h with p_l > 1 ("side-linked" level), the p_l parallel
// cables between a level-(l-1) node a and a level-l node b become one
// cable from b to each of the p_l nodes a' that agree with a except in
// digit l+1 (a digit of the lower node above its own level), which runs
// over the group floor(a_{l+1}/p_l) p_l + k, k < p_l. Ports, with seed
// 000's numbering (q = b_l + k w_l up, r = a_l + k m_l down):
//   lower a', up-port q = b_l + (b_{l+1} mod p_l) w_l,
//   upper b, down-port r = a'_l + (a'_{l+1} mod p_l) m_l,
// the latter being slide 16's f = d_l + m_l (d_{l+1} mod p_l). The top
// level (l = h), and levels with p_l = 1, keep the PGFT's cables (slide
// 16's f for l = h keeps parallel links). The criterion then holds by
// induction on l; tests/unit/test_qft.cpp checks it on the generated graph.
//
// Digits are as in Pgft: a[i-1] is a_i. A side-linked level l needs p_l to
// divide m_{l+1}, so that every group is whole.
#ifndef QFT_TREE_QFT_WIRING_HPP
#define QFT_TREE_QFT_WIRING_HPP

#include <string>
#include <vector>

#include "lib/fabric/fabric.hpp"
#include "lib/tree/generate.hpp"
#include "lib/tree/pgft.hpp"

namespace qft {

// Throws Error(invalid), naming the parameters, when `g` has no QFT: a
// side-linked level l whose p_l does not divide m_{l+1}.
void check_qft(const Pgft &g);

// Whether the cables between levels l-1 and l are re-wired to side
// branches: 1 <= l < h and p_l > 1.
inline bool qft_side_linked(const Pgft &g, unsigned l)
{
	return l >= 1 && l < g.h() && g.p(l) > 1;
}

// The PGFT level-l subtrees one QFT level-l sub-tree spans (what a
// level-l switch reaches downward, slide 16's criterion): p_l on a
// side-linked level, else 1. A QFT level-l sub-tree holds the hosts of
// equal floor(j / (M_l qft_width(l))).
inline unsigned qft_width(const Pgft &g, unsigned l)
{
	return qft_side_linked(g, l) ? g.p(l) : 1;
}

// The upper end of up-port q of the level-l node with digits a: the
// parent's digits, and the parent's down-port r the cable arrives at.
struct QftUplink {
	std::vector<unsigned> parent;
	unsigned down_port;
};
QftUplink qft_uplink(const Pgft &g, unsigned l, const std::vector<unsigned> &a, unsigned q);

// Slide 16's descendant criterion: host Q (digits) lies below the switch
// at level l with digits s.
bool qft_descends(const Pgft &g, unsigned l, const std::vector<unsigned> &s,
		  const std::vector<unsigned> &q);

// The QFT of `g` with the tree annotation set (Fabric::tree_kind() qft),
// numbered, named and addressed as generate_pgft() does; only the cables
// of side-linked levels differ. Throws as check_qft() and generate_pgft().
Fabric generate_qft(const Pgft &g, const GenOptions &opt);

} // namespace qft

#endif
