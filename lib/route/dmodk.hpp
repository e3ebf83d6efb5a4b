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
// LID offsets (LMC > 0): offset k routes destination j exactly as offset 0
// routes the virtual destination v = j + k, that is q_l uses v in place of
// j; the descent still ends at j. On a 2-level RLFT this moves the root
// that j's traffic crosses from j mod K to (j + k) mod K, which is the
// "one LID per root switch" lever of seed 001 section 3.1.
//
// Degraded fabrics (missing cables): one fallback rule, next_hops(), gives
// both path() (hence the scorer and the placer) and the exported tables().
// Going up from a node that is not an ancestor of j, take the first
// up-port q_l(v), q_l(v)+1, ... (mod w_{l+1} p_{l+1}) whose cable is present
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
#include <vector>

#include "lib/route/lft.hpp"
#include "lib/route/router.hpp"
#include "lib/tree/tree.hpp"

namespace qft {

class DModK final : public Router {
public:
	// Borrows fabric and tree; both must outlive the router.
	DModK(const Fabric &fabric, const Tree &tree);
	const char *name() const override { return "dmodk"; }
	unsigned offsets() const override { return offsets_; }
	unsigned path(HostOrd src, HostOrd dst, unsigned offset,
		      PortIdx *out) const override;
	void add_loads(const Flow *flows, size_t n, LinkLoads &loads) const override;

	// q_l(v) of eq. 1, for tests and reports.
	unsigned up_port(unsigned level, uint64_t v) const;

	// The forwarding tables of this routing, for every host LID offset:
	// a switch outside the destination's subtree sends it up by eq. 1; an
	// ancestor sends it down to the child on the destination's side, over
	// the parallel cable the destination's own up-path uses; with missing
	// cables, the first hop of next_hops() (the rule path() follows).
	// Switch LIDs (for management traffic) get shortest paths, lowest port
	// first.
	Lfts tables() const;

	// The fallback rule (see the head of this file): the links from the
	// node at `level`, `index` (a host: level 0, index its tree index j_s)
	// to the host of tree index j, addressed as v = j + LID offset, written
	// to out[]; returns their number, 0 when the rule does not reach j.
	unsigned next_hops(unsigned level, uint64_t index, uint64_t j, uint64_t v,
			   PortIdx *out) const;

private:
	// The level of the lowest common ancestor of src and dst: one more than
	// the number of levels 1..h-1 whose subtrees differ (if two hosts are
	// in different level-l subtrees they are in different ones below l).
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
	template <bool Sparse>
	void add_loads_by_height(const Flow *flows, size_t n, LinkLoads &loads) const;
	// Ancestor (level, index) of j down to j, the rule's down half.
	unsigned down_hops(unsigned level, uint64_t index, uint64_t j, uint64_t v,
			   PortIdx *out) const;
	unsigned fallback_path(HostOrd src, HostOrd dst, unsigned offset,
			       PortIdx *out) const;
	void check_host(HostOrd h) const;

	const Fabric &fabric_;
	const Tree &tree_;
	unsigned h_, offsets_;
	// Per (offset, dst host, level l < h), side by side for locality:
	// `key`, the part of the level-l up-link slot that depends on the
	// destination, R_l(v) U_l + q_l(v), where R_l(v) indexes the route
	// digits b_1..b_l of v; `down`, the down-link (sending port of the
	// level-(l+1) switch) on the way down to dst.
	struct DstHop {
		uint32_t key;
		PortIdx down;
	};
	std::vector<DstHop> dst_hop_;
	// Per (src host, level): prod_{k<=l} w_k floor(j / prod_{k<=l} m_k) U_l,
	// the part of the slot that depends on the source's upper digits.
	std::vector<uint32_t> src_base_;
	// Per (host, level): floor(j / prod_{k<=l} m_k), the level-l subtree.
	std::vector<uint32_t> subtree_;
	std::vector<uint64_t> tree_index_; // host ordinal -> j
	std::vector<const PortIdx *> up_slots_; // Tree's up-port table per level
	bool complete_; // no cable of the PGFT is missing, every host placed
};

} // namespace qft

#endif
