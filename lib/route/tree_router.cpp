// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/route/tree_router.hpp"

#include "lib/common/error.hpp"

namespace qft {

// TreeRouter::shift(): levels with more than one up-port take the
// offsets in turn; the r-th of them (r = 0 at the lowest) turns by k's
// LMC bits rotated left by r * ceil(LMC / R), R the number of such levels,
// so that no two levels turn alike. A rotation is a bijection of
// 0 .. 2^LMC-1 fixing 0, so offset 0 is the closed form unchanged and a
// level with at least 2^LMC up-ports gives each offset its own port.
std::vector<unsigned> offset_shifts(const Pgft &g, unsigned lmc)
{
	const unsigned h = g.h(), offsets = 1u << lmc;
	unsigned levels = 0;
	for (unsigned l = 0; l < h; l++)
		levels += g.up_ports(l) > 1;
	const unsigned step = levels ? (lmc + levels - 1) / levels : 0;
	std::vector<unsigned> shift(size_t(offsets) * h, 0);
	for (unsigned k = 0; k < offsets; k++) {
		unsigned r = 0;
		for (unsigned l = 0; l < h; l++) {
			const unsigned ups = g.up_ports(l);
			if (ups <= 1)
				continue;
			const unsigned by = lmc ? (r * step) % lmc : 0;
			const unsigned turn = by ? ((k << by) | (k >> (lmc - by))) & (offsets - 1) : k;
			shift[size_t(k) * h + l] = turn % ups;
			r++;
		}
	}
	return shift;
}

TreeRouter::TreeRouter(const Fabric &fabric, const Tree &tree, const char *label)
	: fabric_(fabric), tree_(tree), h_(tree.pgft().h()), offsets_(1u << fabric.lmc()),
	  label_(label), complete_(tree.missing().empty())
{
	// A host without a tree position (its cable cut) stays in the host
	// table: path() to or from it is Error(unroutable), the rest routes.
	const size_t hosts = fabric.hosts().size();
	tree_index_.resize(hosts);
	for (HostOrd s = 0; s < hosts; s++) {
		tree_index_[s] = tree.host_index(s);
		if (tree_index_[s] == kNone)
			complete_ = false;
	}
	src_base_.resize(hosts * h_);
	subtree_.resize(hosts * (h_ + 1));
	dst_hop_.assign(size_t(offsets_) * hosts * h_, DstHop{0, kNone});
	for (unsigned l = 0; l < h_; l++)
		up_slots_.push_back(&tree.up_slot(l, 0));
	shift_ = offset_shifts(tree.pgft(), fabric.lmc());
}

void TreeRouter::check_host(HostOrd h) const
{
	if (tree_index_[h] == kNone)
		fail(Status::unroutable, label_, ": ", fabric_.node_label(fabric_.hosts()[h]),
		     " has no tree position (no cable to its leaf)");
}

unsigned TreeRouter::path(HostOrd src, HostOrd dst, unsigned offset, PortIdx *out) const
{
	if (src == dst)
		return 0;
	if (offset >= offsets_)
		fail(Status::invalid, "LID offset ", offset, ", expected 0..", offsets_ - 1,
		     " (LMC ", fabric_.lmc(), ")");
	check_host(src);
	check_host(dst);
	// The lowest common ancestor's level: one more than the number of
	// levels 1..h-1 whose subtrees differ.
	const uint32_t *ss = &subtree_[size_t(src) * (h_ + 1)];
	const uint32_t *ds = &subtree_[size_t(dst) * (h_ + 1)];
	unsigned top = 1;
	for (unsigned l = 1; l < h_; l++)
		top += ss[l] != ds[l];
	const size_t at = (size_t(offset) * tree_index_.size() + dst) * h_;
	for (unsigned l = 0; l < top; l++) {
		const DstHop &hop = dst_hop_[at + l];
		const PortIdx up = up_slots_[l][src_base_[size_t(src) * h_ + l] + hop.key];
		if (up == kNone || hop.down == kNone) // a missing cable: the rule's detour
			return fallback_path(src, dst, offset, out);
		out[l] = up;
		out[2 * top - 1 - l] = hop.down;
	}
	return 2 * top;
}

unsigned TreeRouter::fallback_path(HostOrd src, HostOrd dst, unsigned offset,
				   PortIdx *out) const
{
	const uint64_t j = tree_index_[dst];
	const unsigned n = next_hops(0, tree_index_[src], j, offset, out);
	if (!n)
		fail(Status::unroutable, label_, ": no path from ",
		     fabric_.node_label(fabric_.hosts()[src]), " to ",
		     fabric_.node_label(fabric_.hosts()[dst]), " at LID offset ", offset,
		     ": missing cables leave no way up and down to it");
	return n;
}

// The scoring loop: path() inlined, for a complete tree (no cable checks).
// H > 0 fixes h at compile time, so that the level loops unroll.
template <unsigned H, bool Sparse>
void TreeRouter::add_loads_complete(const Flow *flows, size_t n, LinkLoads &loads) const
{
	// Locals, not members: the stores to the loads could alias the tables,
	// and the compiler would reload every member after each increment.
	const unsigned h = H ? H : h_;
	const size_t hosts = tree_index_.size();
	const unsigned offsets = offsets_;
	const uint32_t *subtree = subtree_.data();
	const uint32_t *src_base = src_base_.data();
	const DstHop *dst_hop = dst_hop_.data();
	const PortIdx *const *up_slots = up_slots_.data();
	LinkLoads::Writer<Sparse> out(loads);
	for (size_t i = 0; i < n; i++) {
		const HostOrd src = flows[i].src, dst = flows[i].dst;
		if (flows[i].offset >= offsets)
			fail(Status::invalid, "LID offset ", unsigned(flows[i].offset),
			     ", expected 0..", offsets - 1, " (LMC ", fabric_.lmc(), ")");
		const uint32_t *ss = subtree + size_t(src) * (h + 1);
		const uint32_t *ds = subtree + size_t(dst) * (h + 1);
		unsigned top = src != dst; // as in path(); 0: no links
		for (unsigned l = 1; l < h; l++)
			top += ss[l] != ds[l];
		const uint32_t *base = src_base + size_t(src) * h;
		const DstHop *hop = dst_hop + (size_t(flows[i].offset) * hosts + dst) * h;
		for (unsigned l = 0; l < top; l++) {
			out.add(up_slots[l][base[l] + hop[l].key]);
			out.add(hop[l].down);
		}
	}
}

template <bool Sparse>
void TreeRouter::add_loads_by_height(const Flow *flows, size_t n, LinkLoads &loads) const
{
	switch (h_) {
	case 2: add_loads_complete<2, Sparse>(flows, n, loads); break;
	case 3: add_loads_complete<3, Sparse>(flows, n, loads); break;
	case 4: add_loads_complete<4, Sparse>(flows, n, loads); break;
	default: add_loads_complete<0, Sparse>(flows, n, loads); break;
	}
}

void TreeRouter::add_loads(const Flow *flows, size_t n, LinkLoads &loads) const
{
	if (!complete_) {
		Router::add_loads(flows, n, loads); // path(): the fallback rule
		return;
	}
	if (loads.sparse())
		add_loads_by_height<true>(flows, n, loads);
	else
		add_loads_by_height<false>(flows, n, loads);
}

// The first link of the rule's path (next_hops) from each switch.
Lfts TreeRouter::tables() const
{
	return tree_tables(fabric_, tree_, offsets_,
			   [this](unsigned l, uint64_t idx, uint64_t j, unsigned k) {
				   PortIdx hops[kMaxPathLinks];
				   return next_hops(l, idx, j, k, hops) ? hops[0] : kNone;
			   });
}

} // namespace qft
