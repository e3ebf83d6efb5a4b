// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/route/dmodk.hpp"

#include <algorithm>

#include "lib/common/error.hpp"

namespace qft {

// The tables of lib/route/tree_router.hpp, for D-Mod-K:
// key(dst, l) = R_l U_l + q_l(j, k), R_l the index of the route digits
// b_1..b_l of j's up-path at offset k; src_base(src, l) = W_l floor(j / M_l) U_l, the
// part of the slot that depends on the source's upper digits;
// subtree(j, l) = floor(j / M_l).
DModK::DModK(const Fabric &fabric, const Tree &tree) : TreeRouter(fabric, tree, "D-Mod-K")
{
	const Pgft &g = tree.pgft();
	if (tree.qft())
		fail(Status::invalid, "D-Mod-K (seed 000 eq. 1) routes a PGFT; the fabric is the "
				      "QFT of PGFT(", g.text(), "): route it by its closed form "
				      "(lib/route/qft_route.hpp)");
	const size_t hosts = tree_index_.size();
	for (HostOrd s = 0; s < hosts; s++) {
		const uint64_t j = tree_index_[s];
		if (j == kNone)
			continue;
		for (unsigned l = 0; l <= h_; l++)
			subtree(s, l) = uint32_t(j / g.M(l));
		for (unsigned l = 0; l < h_; l++)
			src_base(s, l) = uint32_t(g.W(l) * (j / g.M(l)) * g.up_ports(l));
	}
	for (unsigned k = 0; k < offsets_; k++) {
		for (HostOrd d = 0; d < hosts; d++) {
			const uint64_t j = tree_index_[d];
			if (j == kNone)
				continue;
			uint64_t route = 0; // R_l
			for (unsigned l = 0; l < h_; l++) {
				const unsigned q = up_port(l, j, k);
				DstHop &hop = dst_hop(k, d, l);
				hop.key = uint32_t(route * g.up_ports(l) + q);
				// The down-link mirrors dst's own up-port q at level l:
				// the peer (upper) end of that cable sends toward dst.
				const uint64_t node = route + g.W(l) * (j / g.M(l));
				const PortIdx up = tree.up_port(l, node, q);
				hop.down = up == kNone ? kNone : fabric.port(up).peer;
				route += uint64_t(q % g.w(l + 1)) * g.W(l); // b_{l+1}
			}
		}
	}
}

unsigned DModK::up_port(unsigned l, uint64_t j, unsigned k) const
{
	const Pgft &g = tree_.pgft();
	return static_cast<unsigned>((j / g.W(l) + shift(l, k)) % g.up_ports(l)); // eq. 1
}

unsigned DModK::next_hops(unsigned l, uint64_t idx, uint64_t j, unsigned k,
			  PortIdx *out) const
{
	const Pgft &g = tree_.pgft();
	if (idx / g.W(l) == j / g.M(l)) // an ancestor of j (or j itself)
		return down_hops(l, idx, j, k, out);
	if (l == h_)
		return 0;
	// Up: eq. 1, then the next present up-port whose upper end leads to j.
	const unsigned ups = g.up_ports(l), q0 = up_port(l, j, k);
	const uint64_t route = idx % g.W(l), upper = (idx / g.W(l)) / g.m(l + 1);
	for (unsigned t = 0; t < ups; t++) {
		const unsigned q = (q0 + t) % ups;
		const PortIdx pi = tree_.up_port(l, idx, q);
		if (pi == kNone)
			continue;
		// the upper end: digit b_{l+1} = q mod w_{l+1} (seed 000 IV-B, eq. 16)
		uint64_t next = route + uint64_t(q % g.w(l + 1)) * g.W(l) + g.W(l + 1) * upper;
		unsigned n = next_hops(l + 1, next, j, k, out + 1);
		if (n) {
			out[0] = pi;
			return n + 1;
		}
	}
	return 0;
}

unsigned DModK::down_hops(unsigned l, uint64_t idx, uint64_t j, unsigned k,
			  PortIdx *out) const
{
	// Down (theorem 2): to the child on j's side, over the parallel cable
	// q_{l-1}(j, k) / w_l that j's own up-path uses, else the next present.
	const Pgft &g = tree_.pgft();
	unsigned n = 0;
	for (; l > 0; l--) {
		const uint64_t route = idx % g.W(l);
		const unsigned b = unsigned(route / g.W(l - 1)) % g.w(l), pl = g.p(l);
		const uint64_t child = route % g.W(l - 1) + g.W(l - 1) * (j / g.M(l - 1));
		const unsigned kk = up_port(l - 1, j, k) / g.w(l);
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

} // namespace qft
