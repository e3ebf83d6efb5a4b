// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/route/dmodk.hpp"

#include <algorithm>

#include "lib/common/error.hpp"

namespace qft {

DModK::DModK(const Fabric &fabric, const Tree &tree)
	: fabric_(fabric), tree_(tree), h_(tree.pgft().h()),
	  offsets_(1u << fabric.lmc()), complete_(tree.missing().empty())
{
	// A host without a tree position (its cable cut) stays in the host
	// table: path() to or from it is Error(unroutable), the rest routes.
	const Pgft &g = tree.pgft();
	if (tree.qft())
		fail(Status::invalid, "D-Mod-K (seed 000 eq. 1) routes a PGFT; the fabric is the "
				      "QFT of PGFT(", g.text(), "): route it by its closed form "
				      "(lib/route/qft_route.hpp)");
	size_t hosts = fabric.hosts().size();
	tree_index_.resize(hosts);
	src_base_.resize(hosts * h_);
	subtree_.resize(hosts * (h_ + 1));
	for (HostOrd s = 0; s < hosts; s++) {
		uint64_t j = tree.host_index(s);
		tree_index_[s] = j;
		if (j == kNone) {
			complete_ = false;
			continue;
		}
		for (unsigned l = 0; l <= h_; l++)
			subtree_[s * (h_ + 1) + l] = uint32_t(j / g.M(l));
		for (unsigned l = 0; l < h_; l++)
			src_base_[s * h_ + l] = uint32_t(g.W(l) * (j / g.M(l)) * g.up_ports(l));
	}
	for (unsigned l = 0; l < h_; l++)
		up_slots_.push_back(&tree.up_slot(l, 0));
	dst_hop_.assign(size_t(offsets_) * hosts * h_, DstHop{0, kNone});
	for (unsigned k = 0; k < offsets_; k++) {
		for (HostOrd d = 0; d < hosts; d++) {
			if (tree_index_[d] == kNone)
				continue;
			uint64_t j = tree_index_[d], v = j + k;
			uint64_t route = 0; // R_l(v): index of digits b_1..b_l
			for (unsigned l = 0; l < h_; l++) {
				unsigned q = up_port(l, v);
				size_t at = (size_t(k) * hosts + d) * h_ + l;
				dst_hop_[at].key = uint32_t(route * g.up_ports(l) + q);
				// The down-link mirrors dst's own up-port q at level l:
				// the peer (upper) end of that cable sends toward dst.
				uint64_t node = route + g.W(l) * (j / g.M(l));
				PortIdx up = tree.up_port(l, node, q);
				dst_hop_[at].down = up == kNone ? kNone : fabric.port(up).peer;
				route += uint64_t(q % g.w(l + 1)) * g.W(l); // b_{l+1}
			}
		}
	}
}

unsigned DModK::up_port(unsigned l, uint64_t v) const
{
	const Pgft &g = tree_.pgft();
	return static_cast<unsigned>((v / g.W(l)) % g.up_ports(l)); // eq. 1
}

void DModK::check_host(HostOrd h) const
{
	if (tree_index_[h] == kNone)
		fail(Status::unroutable, "D-Mod-K: ", fabric_.node_label(fabric_.hosts()[h]),
		     " has no tree position (no cable to its leaf)");
}

unsigned DModK::path(HostOrd src, HostOrd dst, unsigned offset,
		     PortIdx *out) const
{
	if (src == dst)
		return 0;
	if (offset >= offsets_)
		fail(Status::invalid, "LID offset ", offset, ", expected 0..",
		     offsets_ - 1, " (LMC ", fabric_.lmc(), ")");
	check_host(src);
	check_host(dst);
	unsigned top = common_level(src, dst);
	size_t at = (size_t(offset) * tree_index_.size() + dst) * h_;
	for (unsigned l = 0; l < top; l++) {
		const DstHop &hop = dst_hop_[at + l];
		PortIdx up = up_slots_[l][src_base_[size_t(src) * h_ + l] + hop.key];
		PortIdx down = hop.down;
		if (up == kNone || down == kNone) // a missing cable: the rule's detour
			return fallback_path(src, dst, offset, out);
		out[l] = up;
		out[2 * top - 1 - l] = down;
	}
	return 2 * top;
}

unsigned DModK::fallback_path(HostOrd src, HostOrd dst, unsigned offset,
			      PortIdx *out) const
{
	uint64_t j = tree_index_[dst];
	unsigned n = next_hops(0, tree_index_[src], j, j + offset, out);
	if (!n)
		fail(Status::unroutable, "D-Mod-K: no path from ",
		     fabric_.node_label(fabric_.hosts()[src]), " to ",
		     fabric_.node_label(fabric_.hosts()[dst]), " at LID offset ", offset,
		     ": missing cables leave no up-port that reaches it");
	return n;
}

unsigned DModK::next_hops(unsigned l, uint64_t idx, uint64_t j, uint64_t v,
			  PortIdx *out) const
{
	const Pgft &g = tree_.pgft();
	if (idx / g.W(l) == j / g.M(l)) // an ancestor of j (or j itself)
		return down_hops(l, idx, j, v, out);
	if (l == h_)
		return 0;
	// Up: eq. 1, then the next present up-port whose upper end leads to j.
	const unsigned ups = g.up_ports(l), q0 = up_port(l, v);
	const uint64_t route = idx % g.W(l), upper = (idx / g.W(l)) / g.m(l + 1);
	for (unsigned t = 0; t < ups; t++) {
		const unsigned q = (q0 + t) % ups;
		const PortIdx pi = tree_.up_port(l, idx, q);
		if (pi == kNone)
			continue;
		// the upper end: digit b_{l+1} = q mod w_{l+1} (seed 000 IV-B, eq. 16)
		uint64_t next = route + uint64_t(q % g.w(l + 1)) * g.W(l) + g.W(l + 1) * upper;
		unsigned n = next_hops(l + 1, next, j, v, out + 1);
		if (n) {
			out[0] = pi;
			return n + 1;
		}
	}
	return 0;
}

unsigned DModK::down_hops(unsigned l, uint64_t idx, uint64_t j, uint64_t v,
			  PortIdx *out) const
{
	// Down (theorem 2): to the child on j's side, over the parallel cable
	// k = q_{l-1}(v) / w_l that j's own up-path uses, else the next present.
	const Pgft &g = tree_.pgft();
	unsigned n = 0;
	for (; l > 0; l--) {
		const uint64_t route = idx % g.W(l);
		const unsigned b = unsigned(route / g.W(l - 1)) % g.w(l), pl = g.p(l);
		const uint64_t child = route % g.W(l - 1) + g.W(l - 1) * (j / g.M(l - 1));
		const unsigned kk = up_port(l - 1, v) / g.w(l);
		PortIdx c = kNone;
		for (unsigned t = 0; t < pl && c == kNone; t++)
			c = tree_.up_port(l - 1, child, b + ((kk + t) % pl) * g.w(l));
		if (c == kNone)
			return 0;
		out[n++] = fabric_.port(c).peer;
		idx = child;
	}
	return n;
}

// The scoring loop: path() inlined, for a complete tree (no cable checks).
// H > 0 fixes h at compile time, so that the level loop unrolls.
template <unsigned H, bool Sparse>
void DModK::add_loads_complete(const Flow *flows, size_t n, LinkLoads &loads) const
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
		unsigned top = src != dst; // see common_level(); 0: no links
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
void DModK::add_loads_by_height(const Flow *flows, size_t n, LinkLoads &loads) const
{
	switch (h_) {
	case 2: add_loads_complete<2, Sparse>(flows, n, loads); break;
	case 3: add_loads_complete<3, Sparse>(flows, n, loads); break;
	case 4: add_loads_complete<4, Sparse>(flows, n, loads); break;
	default: add_loads_complete<0, Sparse>(flows, n, loads); break;
	}
}

void DModK::add_loads(const Flow *flows, size_t n, LinkLoads &loads) const
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
Lfts DModK::tables() const
{
	return tree_tables(fabric_, tree_, offsets_,
			   [this](unsigned l, uint64_t idx, uint64_t j, uint64_t v) {
				   PortIdx hops[kMaxPathLinks];
				   return next_hops(l, idx, j, v, hops) ? hops[0] : kNone;
			   });
}

} // namespace qft
