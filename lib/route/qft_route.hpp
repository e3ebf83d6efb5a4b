// SPDX-License-Identifier: GPL-2.0-or-later
// Closed-form routing on a Quasi Fat Tree (seed 002 slide 16, wired as
// lib/tree/qft_wiring.hpp says).
//
// Up: at a level-l node the packet for destination d leaves by up-port
//   g_l(d) = (floor(d / R'_l) p_{l-1} + u_l(d)) mod (w_{l+1} p_{l+1}),
//   u_l(d) = floor((floor(d / R'_{l-2}) mod (w_{l-1} p_{l-1})) / w_{l-1}),
//   R'_l = prod_{i<=l} w_i p_i / p_{i-2} = W_l p_{l-1} p_l,
// with p_0 = p_{-1} = w_0 = w_{-1} = 1 (so u_0 = u_1 = 0), up-port q
// numbered q = b_{l+1} + k w_{l+1} as in seed 000 IV-B (k: the parallel
// cable, or on a side-linked level the parent's place in the group). It
// climbs until the switch reached is an ancestor of d by slide 16's
// descendant criterion. Each step sets the new level's digit to
// q mod w and, on a side-linked level, the next digit to its group's
// member q div w; so the switch reached at that level depends on d only
// (seed 000 lemma 5 holds here too): it is the switch d's own up-path
// reaches there.
// Down: the packet retraces d's own up-path in reverse, as D-Mod-K does
// (seed 000 theorem 2). Slide 16's down-port f as written is a valid next
// hop but not this one: it takes the child with digit l = d_l, where d's
// up-path took a side branch within d_l's group, and at the top the
// parallel cable d_{h-1} mod p_h instead of g_{h-1} div w_h; it congests
// full-fabric Shift (docs/qft.md).
//
// LID offsets (LMC > 0): offset k turns g_l(j) by the offset's shift,
// g_l(j, k) = (g_l(j) + s_l(k)) mod (w_{l+1} p_{l+1}), and the descent,
// j's up-path at offset k reversed, still ends at j; as in
// lib/route/dmodk.hpp.
//
// Picked by make_router(): the spec "dmodk" names the closed form of the
// fabric's tree, D-Mod-K (lib/route/dmodk.hpp) on a PGFT and this on a QFT,
// so a configuration needs no change between them; name() is "qft", so
// the placer does not apply its PGFT D-Mod-K proofs to it.
//
// Missing cables (slide 17's fault resilience): one rule, next_hops(),
// gives path() and the exported tables() (lib/route/tree_router.hpp). A
// pair whose closed-form path is whole keeps it; the others follow the
// rule, which is the closed form wherever its cables are there:
// - an ancestor of j (descendant criterion) goes down to a child on j's
//   side, first the child of j's own up-path over its cable (the closed
//   form), then, slide 17's "many down paths", the other children of j's
//   side group (digit l within d_l's group on a side-linked level l-1)
//   and at the top the other parallel cables, each only if it reaches j
//   going down;
// - a node that is not an ancestor, or an ancestor whose every down path
//   is lost, goes up by g_l(v), else the next present up-port g_l(v)+1,
//   ... (mod w_{l+1} p_{l+1}) from whose upper end the rule reaches j
//   (the fat-tree rule of slide 17).
// Paths are up then down (no loop, no cycle of up and down turns). A
// destination the rule cannot reach, or a host without a tree position, is
// Error(unroutable); the rule finds a way whenever an up-then-down one
// exists. Which destinations lost congestion freedom:
// shared_down_destinations() (lib/route/router.hpp).
//
// Not checked: that the tuple is an RLFT (the congestion-free claim needs
// one).
#ifndef QFT_ROUTE_QFT_ROUTE_HPP
#define QFT_ROUTE_QFT_ROUTE_HPP

#include <cstdint>
#include <vector>

#include "lib/route/tree_router.hpp"

namespace qft {

class QftRoute final : public TreeRouter {
public:
	// Borrows fabric and tree; both must outlive the router. Throws
	// Error(invalid) when the tree is not a QFT.
	QftRoute(const Fabric &fabric, const Tree &tree);
	const char *name() const override { return "qft"; }

	// g_l(j) of slide 16, turned by offset k's shift.
	unsigned up_port(unsigned level, uint64_t j, unsigned k = 0) const override;

	// The rule (see the head of this file).
	unsigned next_hops(unsigned level, uint64_t index, uint64_t j, unsigned k,
			   PortIdx *out) const override;

private:
	using Digits = std::vector<unsigned>;
	unsigned rule_hops(unsigned level, const Digits &a, const Digits &d, uint64_t j,
			   unsigned k, PortIdx *out) const;
	// Ancestor a at `level` (>= 1) down to d, the rule's down half.
	unsigned down_hops(unsigned level, const Digits &a, const Digits &d, uint64_t j,
			   unsigned k, PortIdx *out) const;
};

} // namespace qft

#endif
