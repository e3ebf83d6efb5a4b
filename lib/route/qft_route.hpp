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
// LID offsets (LMC > 0): offset k routes destination j as offset 0 routes
// the virtual destination v = j + k (g_l takes v), and the descent, d's
// up-path for v reversed, still ends at j; as in lib/route/dmodk.hpp.
//
// Picked by make_router(): the spec "dmodk" names the closed form of the
// fabric's tree, D-Mod-K (lib/route/dmodk.hpp) on a PGFT and this on a QFT,
// so a configuration needs no change between them; name() is "qft", so
// the placer does not apply its PGFT D-Mod-K proofs to it.
//
// Missing cables (slide 17's fault resilience): one rule, next_hops(),
// gives path() and the exported tables(), as in lib/route/dmodk.hpp. A
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

#include "lib/route/lft.hpp"
#include "lib/route/router.hpp"
#include "lib/tree/tree.hpp"

namespace qft {

class QftRoute final : public Router {
public:
	// Borrows fabric and tree; both must outlive the router. Throws
	// Error(invalid) when the tree is not a QFT.
	QftRoute(const Fabric &fabric, const Tree &tree);
	const char *name() const override { return "qft"; }
	unsigned offsets() const override { return offsets_; }
	unsigned path(HostOrd src, HostOrd dst, unsigned offset,
		      PortIdx *out) const override;
	void add_loads(const Flow *flows, size_t n, LinkLoads &loads) const override;

	// g_l(v) of slide 16, for tests and reports.
	unsigned up_port(unsigned level, uint64_t v) const;

	// The forwarding tables of this routing, for every host LID offset:
	// each switch's entry is the first link of next_hops() from it (the
	// closed form where its cables are there); switch LIDs by shortest
	// paths (lib/route/lft.hpp tree_tables()).
	Lfts tables() const;

	// The rule (see the head of this file): the links from the node at
	// `level`, `index` (a host: level 0, index its tree index) to the host
	// of tree index j addressed as v = j + LID offset, written to out[];
	// returns their number, 0 when the rule does not reach j.
	unsigned next_hops(unsigned level, uint64_t index, uint64_t j, uint64_t v,
			   PortIdx *out) const;

private:
	using Digits = std::vector<unsigned>;
	unsigned rule_hops(unsigned level, const Digits &a, const Digits &d, uint64_t v,
			   PortIdx *out) const;
	// Ancestor a at `level` (>= 1) down to d, the rule's down half.
	unsigned down_hops(unsigned level, const Digits &a, const Digits &d, uint64_t v,
			   PortIdx *out) const;
	unsigned fallback_path(HostOrd src, HostOrd dst, unsigned offset,
			       PortIdx *out) const;
	// The level of the lowest common ancestor: one more than the number
	// of levels 1..h-1 whose QFT subtrees (descendant criterion) differ;
	// differing at l, two hosts differ at every level below it too.
	unsigned common_level(HostOrd src, HostOrd dst) const
	{
		const uint32_t *ss = &subtree_[size_t(src) * (h_ + 1)];
		const uint32_t *ds = &subtree_[size_t(dst) * (h_ + 1)];
		unsigned top = 1;
		for (unsigned l = 1; l < h_; l++)
			top += ss[l] != ds[l];
		return top;
	}
	template <unsigned H, bool Sparse>
	void add_loads_complete(const Flow *flows, size_t n, LinkLoads &loads) const;
	void check_host(HostOrd h) const;

	const Fabric &fabric_;
	const Tree &tree_;
	unsigned h_, offsets_;
	// Per (offset, dst host, level l < h): `key`, the part of the level-l
	// up-link slot (node index * U_l + q) that depends on the destination:
	// (R_l + W_l s_l) U_l + g_l(v), with R_l the index of the digits
	// b_1..b_l of v's up-path and s_l its side member in digit l+1 (0 off
	// side-linked levels); `down`, the link the level-(l+1) switch of v's
	// up-path sends toward dst on.
	struct DstHop {
		uint32_t key;
		PortIdx down;
	};
	std::vector<DstHop> dst_hop_;
	// Per (src host, level l < h): W_l (G_l + m_{l+1} floor(j / M_{l+1})) U_l,
	// with G_l digit l+1 of j rounded down to its group (side-linked) or
	// digit l+1 itself: the part of the slot that depends on the source.
	std::vector<uint32_t> src_base_;
	// Per (host, level l): floor(j / (M_l p'_l)), p'_l = p_l on a
	// side-linked level, else 1: the QFT subtree of level l holding j.
	std::vector<uint32_t> subtree_;
	std::vector<uint64_t> tree_index_; // host ordinal -> j
	std::vector<const PortIdx *> up_slots_; // Tree's up-port table per level
	bool complete_; // no cable missing, every host placed
};

} // namespace qft

#endif
