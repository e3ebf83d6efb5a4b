// SPDX-License-Identifier: GPL-2.0-or-later
// Closed-form D-Mod-K routing on a PGFT (seed 000 eq. 1 and theorem 2).
//
// Up: at a level-l node the packet for destination j leaves by up-port
//   q_l(j) = floor(j / prod_{k<=l} w_k) mod (w_{l+1} p_{l+1})     (eq. 1)
// until it reaches the lowest common ancestor level of source and
// destination. The digits this adds to the switch position (b_{l+1} =
// q mod w_{l+1}, eq. 16) do not depend on the source (lemma 5).
// Down: the packet retraces, in reverse, the up-path the destination itself
// would take toward j, so each down-port carries the traffic of one
// destination (theorem 2, for a complete RLFT).
//
// LID offsets (LMC > 0): offset k turns every level's up-port by the
// offset's shift (lib/route/tree_router.hpp shift()):
//   q_l(j, k) = (q_l(j) + s_l(k)) mod (w_{l+1} p_{l+1}),
// and the descent, j's own up-path at offset k reversed, still ends at j.
// On a 2-level RLFT s_1(k) = k moves the root j's traffic crosses from
// j mod K to (j + k) mod K, seed 001 section 3.1's "one LID per root
// switch"; on more levels every level turns, not the lowest alone.
//
// Degraded fabrics (missing cables): one fallback rule, next_hops(), gives
// both path() (hence the scorer and the placer) and the exported tables().
// Going up from a node that is not an ancestor of j, take the first
// up-port q_l(j, k), q_l(j, k)+1, ... (mod w_{l+1} p_{l+1}) whose cable is present
// and from whose upper end the rule reaches j; an ancestor goes down to the
// child on j's side over the parallel cable j's own up-path uses (eq. 1 at
// level l-1), else the next present parallel cable. No cable missing: this
// is eq. 1 and theorem 2 unchanged. A destination the rule cannot reach,
// or a host without a tree position, is Error(unroutable).
//
// A QFT (Tree::qft()) is refused: its cables differ; lib/route/qft_route.hpp
// routes it.
//
// Not checked: that the fabric is an RLFT (the formula routes any PGFT, but
// the congestion-free theorems need an RLFT).
#ifndef QFT_ROUTE_DMODK_HPP
#define QFT_ROUTE_DMODK_HPP

#include <cstdint>

#include "lib/route/tree_router.hpp"

namespace qft {

class DModK final : public TreeRouter {
public:
	// Borrows fabric and tree; both must outlive the router. Throws
	// Error(invalid) on a QFT.
	DModK(const Fabric &fabric, const Tree &tree);
	const char *name() const override { return "dmodk"; }

	// q_l(j, k): eq. 1 turned by the offset's shift.
	unsigned up_port(unsigned level, uint64_t j, unsigned k = 0) const override;

	// The fallback rule (see the head of this file). With no cable
	// missing, the tables' entries are eq. 1 outside the destination's
	// subtree and, in an ancestor, the child on its side over the parallel
	// cable its own up-path uses.
	unsigned next_hops(unsigned level, uint64_t index, uint64_t j, unsigned k,
			   PortIdx *out) const override;

private:
	// Ancestor (level, index) of j down to j, the rule's down half.
	unsigned down_hops(unsigned level, uint64_t index, uint64_t j, unsigned k,
			   PortIdx *out) const;
};

} // namespace qft

#endif
