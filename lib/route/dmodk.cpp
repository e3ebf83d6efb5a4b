// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/route/dmodk.hpp"

#include "lib/common/error.hpp"

namespace qft {

DModK::DModK(const Fabric &fabric, const Tree &tree)
	: fabric_(fabric), tree_(tree), h_(tree.pgft().h()),
	  offsets_(1u << fabric.lmc())
{
	const Pgft &g = tree.pgft();
	size_t hosts = fabric.hosts().size();
	tree_index_.resize(hosts);
	src_base_.resize(hosts * h_);
	subtree_.resize(hosts * (h_ + 1));
	for (HostOrd s = 0; s < hosts; s++) {
		uint64_t j = tree.host_index(s);
		if (j == kNone)
			fail(Status::invalid, fabric.node_label(fabric.hosts()[s]),
			     ": host has no tree position; D-Mod-K needs every host "
			     "placed in the PGFT");
		tree_index_[s] = j;
		for (unsigned l = 0; l <= h_; l++)
			subtree_[s * (h_ + 1) + l] = j / g.M(l);
		for (unsigned l = 0; l < h_; l++)
			src_base_[s * h_ + l] = g.W(l) * (j / g.M(l)) * g.up_ports(l);
	}
	dst_key_.assign(size_t(offsets_) * hosts * h_, 0);
	down_link_.assign(size_t(offsets_) * hosts * h_, kNone);
	for (unsigned k = 0; k < offsets_; k++) {
		for (HostOrd d = 0; d < hosts; d++) {
			uint64_t j = tree_index_[d], v = j + k;
			uint64_t route = 0; // R_l(v): index of digits b_1..b_l
			for (unsigned l = 0; l < h_; l++) {
				unsigned q = up_port(l, v);
				size_t at = (size_t(k) * hosts + d) * h_ + l;
				dst_key_[at] = route * g.up_ports(l) + q;
				// The down-link mirrors dst's own up-port q at level l:
				// the peer (upper) end of that cable sends toward dst.
				uint64_t node = route + g.W(l) * (j / g.M(l));
				PortIdx up = tree.up_port(l, node, q);
				down_link_[at] = up == kNone ? kNone : fabric.port(up).peer;
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

unsigned DModK::path(HostOrd src, HostOrd dst, unsigned offset,
		     PortIdx *out) const
{
	if (src == dst)
		return 0;
	if (offset >= offsets_)
		fail(Status::invalid, "LID offset ", offset, ", expected 0..",
		     offsets_ - 1, " (LMC ", fabric_.lmc(), ")");
	const uint64_t *ss = &subtree_[size_t(src) * (h_ + 1)];
	const uint64_t *ds = &subtree_[size_t(dst) * (h_ + 1)];
	unsigned top = 1; // lowest common ancestor level
	while (ss[top] != ds[top])
		top++;
	size_t hosts = tree_index_.size();
	size_t at = (size_t(offset) * hosts + dst) * h_;
	for (unsigned l = 0; l < top; l++) {
		uint64_t slot = src_base_[size_t(src) * h_ + l] + dst_key_[at + l];
		PortIdx link = tree_.up_slot(l, slot);
		PortIdx down = down_link_[at + l];
		if (link == kNone || down == kNone)
			fail(Status::unroutable, "D-Mod-K: no cable for ",
			     link == kNone ? "up" : "down", "-port at level ", l, " from ",
			     fabric_.node_label(fabric_.hosts()[src]), " to ",
			     fabric_.node_label(fabric_.hosts()[dst]));
		out[l] = link;
		out[2 * top - 1 - l] = down;
	}
	return 2 * top;
}

} // namespace qft
