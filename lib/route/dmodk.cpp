// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/route/dmodk.hpp"

#include <algorithm>

#include "lib/common/error.hpp"

namespace qft {

DModK::DModK(const Fabric &fabric, const Tree &tree)
	: fabric_(fabric), tree_(tree), h_(tree.pgft().h()),
	  offsets_(1u << fabric.lmc()), complete_(tree.missing().empty())
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
			subtree_[s * (h_ + 1) + l] = uint32_t(j / g.M(l));
		for (unsigned l = 0; l < h_; l++)
			src_base_[s * h_ + l] = uint32_t(g.W(l) * (j / g.M(l)) * g.up_ports(l));
	}
	for (unsigned l = 0; l < h_; l++)
		up_slots_.push_back(&tree.up_slot(l, 0));
	dst_hop_.assign(size_t(offsets_) * hosts * h_, DstHop{0, kNone});
	for (unsigned k = 0; k < offsets_; k++) {
		for (HostOrd d = 0; d < hosts; d++) {
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

void DModK::no_cable(HostOrd src, HostOrd dst, unsigned level, bool up) const
{
	fail(Status::unroutable, "D-Mod-K: no cable for the ", up ? "up" : "down",
	     "-port at level ", level, " from ", fabric_.node_label(fabric_.hosts()[src]),
	     " to ", fabric_.node_label(fabric_.hosts()[dst]));
}

unsigned DModK::path(HostOrd src, HostOrd dst, unsigned offset,
		     PortIdx *out) const
{
	if (src == dst)
		return 0;
	if (offset >= offsets_)
		fail(Status::invalid, "LID offset ", offset, ", expected 0..",
		     offsets_ - 1, " (LMC ", fabric_.lmc(), ")");
	unsigned top = common_level(src, dst);
	size_t at = (size_t(offset) * tree_index_.size() + dst) * h_;
	for (unsigned l = 0; l < top; l++) {
		const DstHop &hop = dst_hop_[at + l];
		PortIdx up = up_slots_[l][src_base_[size_t(src) * h_ + l] + hop.key];
		PortIdx down = hop.down;
		if (up == kNone || down == kNone)
			no_cable(src, dst, l, up == kNone);
		out[l] = up;
		out[2 * top - 1 - l] = down;
	}
	return 2 * top;
}

// The scoring loop: path() inlined. A complete tree needs no cable checks,
// which are a fifth of the loop's instructions.
template <bool kCheckCables>
void DModK::add_loads_impl(const Flow *flows, size_t n, uint32_t *load) const
{
	// Locals, not members: the stores to load[] could alias the tables,
	// and the compiler would reload every member after each increment.
	const unsigned h = h_;
	const size_t hosts = tree_index_.size();
	const uint32_t *subtree = subtree_.data();
	const uint32_t *src_base = src_base_.data();
	const DstHop *dst_hop = dst_hop_.data();
	const PortIdx *const *up_slots = up_slots_.data();
	uint32_t *__restrict counts = load;
	for (size_t i = 0; i < n; i++) {
		const HostOrd src = flows[i].src, dst = flows[i].dst;
		if (src == dst)
			continue;
		const uint32_t *ss = subtree + size_t(src) * (h + 1);
		const uint32_t *ds = subtree + size_t(dst) * (h + 1);
		unsigned top = 1; // see common_level()
		for (unsigned l = 1; l < h; l++)
			top += ss[l] != ds[l];
		const uint32_t *base = src_base + size_t(src) * h;
		const DstHop *hop = dst_hop + (size_t(flows[i].offset) * hosts + dst) * h;
		for (unsigned l = 0; l < top; l++) {
			const PortIdx up = up_slots[l][base[l] + hop[l].key];
			const PortIdx down = hop[l].down;
			if (kCheckCables && (up == kNone || down == kNone))
				no_cable(src, dst, l, up == kNone);
			counts[up]++;
			counts[down]++;
		}
	}
}

void DModK::add_loads(const Flow *flows, size_t n, uint32_t *load) const
{
	unsigned worst = 0;
	for (size_t i = 0; i < n; i++)
		worst = std::max(worst, unsigned(flows[i].offset));
	if (n && worst >= offsets_)
		fail(Status::invalid, "LID offset ", worst, ", expected 0..", offsets_ - 1,
		     " (LMC ", fabric_.lmc(), ")");
	if (complete_)
		add_loads_impl<false>(flows, n, load);
	else
		add_loads_impl<true>(flows, n, load);
}

Lfts DModK::tables() const
{
	const Pgft &g = tree_.pgft();
	const size_t hosts = tree_index_.size();
	Lfts lfts(fabric_);
	// Per host: its LID; per (offset, host, level): q_l(j + offset), eq. 1.
	// Divisions happen here once, not per (switch, host) entry.
	std::vector<uint32_t> lid(hosts);
	uint32_t top_lid = 0;
	for (HostOrd d = 0; d < hosts; d++) {
		lid[d] = fabric_.host_lid(d);
		top_lid = std::max(top_lid, lid[d] + offsets_ - 1);
	}
	for (NodeId id = 0; id < fabric_.node_count(); id++)
		top_lid = std::max(top_lid, fabric_.node(id).lid);
	std::vector<uint16_t> q(size_t(offsets_) * hosts * h_);
	for (unsigned k = 0; k < offsets_; k++)
		for (HostOrd d = 0; d < hosts; d++)
			for (unsigned l = 0; l < h_; l++)
				q[(size_t(k) * hosts + d) * h_ + l] =
					uint16_t(up_port(l, tree_index_[d] + k));
	for (unsigned l = 1; l <= h_; l++) {
		const unsigned up = g.up_ports(l), wl = g.w(l), pl = g.p(l);
		const uint64_t W_l = g.W(l), W_below = g.W(l - 1);
		for (uint64_t idx = 0; idx < g.nodes_at(l); idx++) {
			NodeId sw = tree_.node_at(l, idx);
			if (sw == kNone)
				continue;
			lfts.set(sw, top_lid, kNoRoute); // size the table once
			const uint32_t upper = uint32_t(idx / W_l);
			const uint64_t route = idx % W_l;
			const unsigned b_l = unsigned(route / W_below) % wl;
			// IB port numbers of this switch's up-ports (0: no cable)
			std::vector<uint8_t> up_num(up, 0);
			for (unsigned x = 0; x < up; x++) {
				PortIdx pi = tree_.up_port(l, idx, x);
				if (pi != kNone)
					up_num[x] = uint8_t(fabric_.port(pi).num);
			}
			for (HostOrd d = 0; d < hosts; d++) {
				if (!lid[d])
					continue;
				const uint32_t *sub = &subtree_[size_t(d) * (h_ + 1)];
				for (unsigned k = 0; k < offsets_; k++) {
					const uint16_t *qd = &q[(size_t(k) * hosts + d) * h_];
					uint8_t out = 0;
					if (l < h_ && sub[l] != upper) {
						// up, eq. 1; a missing cable: the next present one
						for (unsigned t = 0; t < up && !out; t++)
							out = up_num[(qd[l] + t) % up];
					} else {
						// down to the child on j's side, over the parallel
						// cable j's own up-path uses
						uint64_t child = route % W_below + W_below * sub[l - 1];
						unsigned kk = qd[l - 1] / wl;
						for (unsigned t = 0; t < pl && !out; t++) {
							PortIdx c = tree_.up_port(l - 1, child,
										  b_l + ((kk + t) % pl) * wl);
							if (c != kNone)
								out = uint8_t(fabric_.port(fabric_.port(c).peer).num);
						}
					}
					if (out)
						lfts.set(sw, lid[d] + k, out);
				}
			}
		}
	}
	// Switch LIDs: breadth first from each switch over switch cables, on a
	// compact switch-only adjacency (neighbour, local port), lowest port
	// first among equally short ways.
	std::vector<NodeId> switches;
	std::vector<uint32_t> sw_at(fabric_.node_count(), kNone);
	for (NodeId id = 0; id < fabric_.node_count(); id++)
		if (fabric_.node(id).type == NodeType::switch_node) {
			sw_at[id] = uint32_t(switches.size());
			switches.push_back(id);
		}
	std::vector<std::vector<std::pair<uint32_t, uint8_t>>> adj(switches.size());
	for (uint32_t i = 0; i < switches.size(); i++) {
		const Node &node = fabric_.node(switches[i]);
		for (unsigned p = 0; p < node.num_ports; p++) {
			PortIdx peer = fabric_.port(node.first_port + p).peer;
			if (peer != kNone && sw_at[fabric_.port(peer).node] != kNone)
				adj[i].push_back({sw_at[fabric_.port(peer).node], uint8_t(p + 1)});
		}
	}
	std::vector<uint32_t> dist(switches.size()), queue(switches.size());
	for (uint32_t ti = 0; ti < switches.size(); ti++) {
		uint32_t t_lid = fabric_.node(switches[ti]).lid;
		if (!t_lid)
			continue;
		std::fill(dist.begin(), dist.end(), UINT32_MAX);
		size_t head = 0, tail = 0;
		queue[tail++] = ti;
		dist[ti] = 0;
		while (head < tail) {
			uint32_t n = queue[head++];
			for (const auto &[m, port] : adj[n])
				if (dist[m] == UINT32_MAX) {
					dist[m] = dist[n] + 1;
					queue[tail++] = m;
				}
		}
		lfts.set(switches[ti], t_lid, 0);
		for (uint32_t si = 0; si < switches.size(); si++) {
			if (si == ti || dist[si] == UINT32_MAX)
				continue;
			for (const auto &[m, port] : adj[si])
				if (dist[m] + 1 == dist[si]) {
					lfts.set(switches[si], t_lid, port);
					break;
				}
		}
	}
	return lfts;
}

} // namespace qft
