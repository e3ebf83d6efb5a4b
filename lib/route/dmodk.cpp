// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/route/dmodk.hpp"

#include <algorithm>
#include <deque>

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
	Lfts lfts(fabric_);
	for (unsigned l = 1; l <= h_; l++) {
		for (uint64_t idx = 0; idx < g.nodes_at(l); idx++) {
			NodeId sw = tree_.node_at(l, idx);
			if (sw == kNone)
				continue;
			uint64_t upper = idx / g.W(l), route = idx % g.W(l);
			unsigned b_l = unsigned(route / g.W(l - 1)) % g.w(l);
			for (HostOrd d = 0; d < tree_index_.size(); d++) {
				uint64_t j = tree_index_[d];
				uint32_t lid = fabric_.host_lid(d);
				if (!lid)
					continue;
				for (unsigned k = 0; k < offsets_; k++) {
					uint64_t v = j + k;
					PortIdx out = kNone;
					if (l < h_ && j / g.M(l) != upper) {
						// up, eq. 1; a missing cable: the next present one
						unsigned up = g.up_ports(l), q = up_port(l, v);
						for (unsigned t = 0; t < up && out == kNone; t++)
							out = tree_.up_port(l, idx, (q + t) % up);
					} else if (j / g.M(l) == upper) {
						// down to the child on j's side
						uint64_t child = route % g.W(l - 1) + g.W(l - 1) * (j / g.M(l - 1));
						unsigned kk = up_port(l - 1, v) / g.w(l);
						for (unsigned t = 0; t < g.p(l) && out == kNone; t++) {
							unsigned q = b_l + ((kk + t) % g.p(l)) * g.w(l);
							PortIdx c = tree_.up_port(l - 1, child, q);
							if (c != kNone)
								out = fabric_.port(c).peer;
						}
					}
					if (out != kNone)
						lfts.set(sw, lid + k, uint8_t(fabric_.port(out).num));
				}
			}
		}
	}
	// Switch LIDs: breadth first from each switch over switch cables.
	std::vector<NodeId> switches;
	for (NodeId id = 0; id < fabric_.node_count(); id++)
		if (fabric_.node(id).type == NodeType::switch_node)
			switches.push_back(id);
	std::vector<uint32_t> dist(fabric_.node_count());
	for (NodeId t : switches) {
		uint32_t lid = fabric_.node(t).lid;
		if (!lid)
			continue;
		std::fill(dist.begin(), dist.end(), UINT32_MAX);
		std::deque<NodeId> queue{t};
		dist[t] = 0;
		while (!queue.empty()) {
			NodeId n = queue.front();
			queue.pop_front();
			const Node &node = fabric_.node(n);
			for (unsigned p = 0; p < node.num_ports; p++) {
				PortIdx peer = fabric_.port(node.first_port + p).peer;
				if (peer == kNone)
					continue;
				NodeId m = fabric_.port(peer).node;
				if (fabric_.node(m).type == NodeType::switch_node && dist[m] == UINT32_MAX) {
					dist[m] = dist[n] + 1;
					queue.push_back(m);
				}
			}
		}
		lfts.set(t, lid, 0);
		for (NodeId s : switches) {
			if (s == t || dist[s] == UINT32_MAX)
				continue;
			const Node &node = fabric_.node(s);
			for (unsigned p = 0; p < node.num_ports; p++) {
				PortIdx peer = fabric_.port(node.first_port + p).peer;
				if (peer != kNone && dist[fabric_.port(peer).node] + 1 == dist[s]) {
					lfts.set(s, lid, uint8_t(p + 1));
					break;
				}
			}
		}
	}
	return lfts;
}

} // namespace qft
