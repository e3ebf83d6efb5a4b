// SPDX-License-Identifier: GPL-2.0-or-later
// What the two closed-form routers of a fat tree share: D-Mod-K on a PGFT
// (lib/route/dmodk.hpp) and the QFT routing (lib/route/qft_route.hpp).
//
// Both send a flow up to the lowest common ancestor of source and
// destination and down along the destination's own up-path reversed (seed
// 000 theorem 2; seed 002 slide 16 with the down-path of docs/qft.md). The
// switch reached at each level depends on the destination only (seed 000
// lemma 5), so a path is two table lookups per level: the up-link slot
// src_base(src, l) + key(dst, l) in the tree's up-port table, and the
// down-link stored per (dst, l). A subclass fills the three tables; this
// class looks them up in path() and the scoring loop, and turns a missing
// cable into the subclass's fallback rule (next_hops()), which also gives
// the exported forwarding tables, so scorer, placer and OpenSM see one
// routing.
#ifndef QFT_ROUTE_TREE_ROUTER_HPP
#define QFT_ROUTE_TREE_ROUTER_HPP

#include <cstdint>
#include <vector>

#include "lib/route/lft.hpp"
#include "lib/route/router.hpp"
#include "lib/tree/tree.hpp"

namespace qft {

// TreeRouter::shift() of every (offset, level): [k * h + level].
std::vector<unsigned> offset_shifts(const Pgft &g, unsigned lmc);

class TreeRouter : public Router {
public:
	unsigned offsets() const override { return offsets_; }
	unsigned path(HostOrd src, HostOrd dst, unsigned offset,
		      PortIdx *out) const override;
	void add_loads(const Flow *flows, size_t n, LinkLoads &loads) const override;

	// The closed form's up-port at `level` toward the host of tree index
	// j addressed at LID offset k: the offset-0 port (the subclass's
	// formula) turned by the offset's shift at that level (below).
	virtual unsigned up_port(unsigned level, uint64_t j, unsigned k = 0) const = 0;

	// How far LID offset k turns the up-port of `level` (mod its up-port
	// count), the same for every destination: offset 0 turns none; the
	// lowest level with a choice turns by k (seed 001's "one LID per
	// root", v = j + k); each higher one by its own bijection of the
	// offsets (a rotation of k's LMC bits), so that the 2^LMC offsets of
	// a destination take 2^LMC distinct up-ports at every level with at
	// least that many, in different combinations (docs/lid-choice.md,
	// "Offsets that reach every level").
	unsigned shift(unsigned level, unsigned k) const { return shift_[size_t(k) * h_ + level]; }

	// The fallback rule: the links from the node at `level`, `index` (a
	// host: level 0, index its tree index) to the host of tree index j,
	// addressed at LID offset k, written to out[]; returns their number,
	// 0 when the rule does not reach j. It is the closed form wherever the
	// closed form's cables are there.
	virtual unsigned next_hops(unsigned level, uint64_t index, uint64_t j, unsigned k,
				   PortIdx *out) const = 0;

	// The forwarding tables of this routing, for every host LID offset:
	// each switch's entry is the first link of next_hops() from it; switch
	// LIDs by shortest paths (lib/route/lft.hpp tree_tables()).
	Lfts tables() const;

protected:
	// Borrows fabric and tree; both must outlive the router. `label`
	// starts its error messages. Sizes the tables, all zero; the subclass
	// fills subtree_, src_base_ and dst_hop_ for every placed host.
	TreeRouter(const Fabric &fabric, const Tree &tree, const char *label);

	// Per (offset, dst host, level l < h), side by side for locality:
	// `key`, the part of the level-l up-link slot that depends on the
	// destination; `down`, the link the level-(l+1) switch of the
	// destination's up-path sends toward it (kNone: a missing cable).
	struct DstHop {
		uint32_t key;
		PortIdx down;
	};
	DstHop &dst_hop(unsigned offset, HostOrd dst, unsigned l)
	{
		return dst_hop_[(size_t(offset) * tree_index_.size() + dst) * h_ + l];
	}
	uint32_t &src_base(HostOrd src, unsigned l) { return src_base_[size_t(src) * h_ + l]; }
	// Which level-l subtree (PGFT or QFT: the subclass's) holds the host;
	// two hosts in different level-l subtrees are in different ones below.
	uint32_t &subtree(HostOrd host, unsigned l) { return subtree_[size_t(host) * (h_ + 1) + l]; }

	const Fabric &fabric_;
	const Tree &tree_;
	const unsigned h_, offsets_;
	const char *const label_;
	std::vector<uint64_t> tree_index_; // host ordinal -> j (kNone: not placed)
	std::vector<unsigned> shift_;      // [k * h + level]

private:
	template <unsigned H, bool Sparse>
	void add_loads_complete(const Flow *flows, size_t n, LinkLoads &loads) const;
	template <bool Sparse>
	void add_loads_by_height(const Flow *flows, size_t n, LinkLoads &loads) const;
	unsigned fallback_path(HostOrd src, HostOrd dst, unsigned offset,
			       PortIdx *out) const;
	void check_host(HostOrd h) const;

	std::vector<DstHop> dst_hop_;
	std::vector<uint32_t> src_base_;
	std::vector<uint32_t> subtree_;
	std::vector<const PortIdx *> up_slots_; // Tree's up-port table per level
	bool complete_; // no cable missing, every host placed
};

} // namespace qft

#endif
