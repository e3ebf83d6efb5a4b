// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/route/qft_route.hpp"

#include "lib/common/error.hpp"
#include "lib/tree/qft_wiring.hpp"

namespace qft {

namespace {

// p_i and w_i with p_i = w_i = 1 below level 1 (slide 16's R'_l and u_l
// reach p_{-1}, w_{-1}).
unsigned p_at(const Pgft &g, int i) { return i >= 1 ? g.p(unsigned(i)) : 1; }
unsigned w_at(const Pgft &g, int i) { return i >= 1 ? g.w(unsigned(i)) : 1; }

// R'_l = prod_{i<=l} w_i p_i / p_{i-2} = W_l p_{l-1} p_l (slide 16).
uint64_t r_prime(const Pgft &g, int l)
{
	return l < 0 ? 1 : g.W(unsigned(l)) * p_at(g, l - 1) * p_at(g, l);
}

// p_l on a side-linked level, else 1: a level-l QFT subtree spans that
// many PGFT subtrees.
unsigned group(const Pgft &g, unsigned l) { return qft_side_linked(g, l) ? g.p(l) : 1; }

} // namespace

QftRoute::QftRoute(const Fabric &fabric, const Tree &tree)
	: fabric_(fabric), tree_(tree), h_(tree.pgft().h()),
	  offsets_(1u << fabric.lmc()), complete_(tree.missing().empty())
{
	const Pgft &g = tree.pgft();
	if (!tree.qft())
		fail(Status::invalid, "QFT routing: the fabric is PGFT(", g.text(),
		     "), expected the QFT of a PGFT (qft gen qft)");
	const size_t hosts = fabric.hosts().size();
	tree_index_.resize(hosts);
	src_base_.resize(hosts * h_);
	subtree_.resize(hosts * (h_ + 1));
	for (HostOrd s = 0; s < hosts; s++) {
		const uint64_t j = tree.host_index(s);
		tree_index_[s] = j;
		if (j == kNone) {
			complete_ = false;
			continue;
		}
		for (unsigned l = 0; l <= h_; l++)
			subtree_[s * (h_ + 1) + l] = uint32_t(j / (g.M(l) * group(g, l)));
		for (unsigned l = 0; l < h_; l++) {
			const unsigned p = group(g, l);
			const uint64_t digit = (j / g.M(l)) % g.m(l + 1) / p * p; // G_l
			src_base_[s * h_ + l] = uint32_t(
				g.W(l) * (digit + g.m(l + 1) * (j / g.M(l + 1))) * g.up_ports(l));
		}
	}
	for (unsigned l = 0; l < h_; l++)
		up_slots_.push_back(&tree.up_slot(l, 0));
	dst_hop_.assign(size_t(offsets_) * hosts * h_, DstHop{0, kNone});
	for (unsigned k = 0; k < offsets_; k++) {
		for (HostOrd d = 0; d < hosts; d++) {
			const uint64_t j = tree_index_[d];
			if (j == kNone)
				continue;
			const uint64_t v = j + k;
			// Walk v's up-path from j itself: the descent mirrors it.
			std::vector<unsigned> x = g.digits(0, j);
			for (unsigned l = 0; l < h_; l++) {
				const unsigned q = up_port(l, v);
				const uint64_t idx = g.index(l, x);
				const unsigned side = qft_side_linked(g, l) ? x[l] % g.p(l) : 0;
				const size_t at = (size_t(k) * hosts + d) * h_ + l;
				dst_hop_[at].key = uint32_t((idx % g.W(l) + g.W(l) * side) * g.up_ports(l) + q);
				const PortIdx up = tree.up_port(l, idx, q);
				dst_hop_[at].down = up == kNone ? kNone : fabric.port(up).peer;
				x = qft_uplink(g, l, x, q).parent;
			}
		}
	}
}

unsigned QftRoute::up_port(unsigned l, uint64_t v) const
{
	const Pgft &g = tree_.pgft();
	const int li = int(l);
	uint64_t u = 0; // the side member taken two levels below
	if (l >= 2)
		u = (v / r_prime(g, li - 2)) % (uint64_t(w_at(g, li - 1)) * p_at(g, li - 1)) /
		    w_at(g, li - 1);
	return unsigned((v / r_prime(g, li) * p_at(g, li - 1) + u) % g.up_ports(l));
}

void QftRoute::check_host(HostOrd h) const
{
	if (tree_index_[h] == kNone)
		fail(Status::unroutable, "QFT routing: ", fabric_.node_label(fabric_.hosts()[h]),
		     " has no tree position (no cable to its leaf)");
}

unsigned QftRoute::path(HostOrd src, HostOrd dst, unsigned offset, PortIdx *out) const
{
	if (src == dst)
		return 0;
	if (offset >= offsets_)
		fail(Status::invalid, "LID offset ", offset, ", expected 0..", offsets_ - 1,
		     " (LMC ", fabric_.lmc(), ")");
	check_host(src);
	check_host(dst);
	const unsigned top = common_level(src, dst);
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

unsigned QftRoute::fallback_path(HostOrd src, HostOrd dst, unsigned offset,
				 PortIdx *out) const
{
	const uint64_t j = tree_index_[dst];
	const unsigned n = next_hops(0, tree_index_[src], j, j + offset, out);
	if (!n)
		fail(Status::unroutable, "QFT routing: no path from ",
		     fabric_.node_label(fabric_.hosts()[src]), " to ",
		     fabric_.node_label(fabric_.hosts()[dst]), " at LID offset ", offset,
		     ": missing cables leave no way up and down to it");
	return n;
}

unsigned QftRoute::next_hops(unsigned l, uint64_t idx, uint64_t j, uint64_t v,
			     PortIdx *out) const
{
	const Pgft &g = tree_.pgft();
	return rule_hops(l, g.digits(l, idx), g.digits(0, j), v, out);
}

unsigned QftRoute::rule_hops(unsigned l, const Digits &a, const Digits &d, uint64_t v,
			     PortIdx *out) const
{
	const Pgft &g = tree_.pgft();
	if (l >= 1 && qft_descends(g, l, a, d)) { // an ancestor of d: down first
		const unsigned n = down_hops(l, a, d, v, out);
		if (n)
			return n;
	}
	if (l == h_)
		return 0;
	// Up: g_l(v), then the next present up-port whose upper end leads to d.
	const uint64_t idx = g.index(l, a);
	const unsigned ups = g.up_ports(l), q0 = up_port(l, v);
	for (unsigned t = 0; t < ups; t++) {
		const unsigned q = (q0 + t) % ups;
		const PortIdx pi = tree_.up_port(l, idx, q);
		if (pi == kNone)
			continue;
		const unsigned n = rule_hops(l + 1, qft_uplink(g, l, a, q).parent, d, v, out + 1);
		if (n) {
			out[0] = pi;
			return n + 1;
		}
	}
	return 0;
}

unsigned QftRoute::down_hops(unsigned l, const Digits &a, const Digits &d, uint64_t v,
			     PortIdx *out) const
{
	// The children of a on d's side: a's digits 1..l-1 (the route), digit
	// l+1 = d_{l+1} (on a side-linked level l, a's down-ports reach the
	// whole group; elsewhere a already has it), digit l within d_l's group
	// on a side-linked level l-1 (its p_{l-1} down paths), else d_l. First
	// the member d's own up-path took there, g_{l-2}(v) div w_{l-1}, and
	// at the top the parallel cable g_{h-1}(v) div w_h (the closed form).
	const Pgft &g = tree_.pgft();
	const unsigned members = l >= 2 ? group(g, l - 1) : 1;
	const unsigned member0 = members > 1 ? up_port(l - 2, v) / g.w(l - 1) : 0;
	const bool side = qft_side_linked(g, l);
	const unsigned cables = side ? 1 : g.p(l); // per (child, parent); > 1 only at the top
	const unsigned cable0 = cables > 1 ? up_port(l - 1, v) / g.w(l) : 0;
	Digits c = a;
	if (l < h_)
		c[l] = d[l];
	for (unsigned tm = 0; tm < members; tm++) {
		c[l - 1] = d[l - 1] / members * members + (member0 + tm) % members;
		unsigned n = 1; // hops below the child, + 1
		if (l >= 2) {
			n = down_hops(l - 1, c, d, v, out + 1);
			if (!n)
				continue;
			n++;
		}
		const uint64_t cidx = g.index(l - 1, c);
		for (unsigned tk = 0; tk < cables; tk++) {
			const unsigned k = side ? a[l] % g.p(l) : (cable0 + tk) % cables;
			const PortIdx up = tree_.up_port(l - 1, cidx, a[l - 1] + k * g.w(l));
			if (up != kNone) {
				out[0] = fabric_.port(up).peer;
				return n;
			}
		}
	}
	return 0;
}

// Every switch's entry: the first link of the rule from it.
Lfts QftRoute::tables() const
{
	return tree_tables(fabric_, tree_, offsets_,
			   [this](unsigned l, uint64_t idx, uint64_t j, uint64_t v) {
				   PortIdx hops[kMaxPathLinks];
				   return next_hops(l, idx, j, v, hops) ? hops[0] : kNone;
			   });
}

// path() inlined for a complete tree; H > 0 fixes h so that loops unroll.
// Locals, not members: stores to the loads could alias them otherwise.
template <unsigned H, bool Sparse>
void QftRoute::add_loads_complete(const Flow *flows, size_t n, LinkLoads &loads) const
{
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
		unsigned top = src != dst; // as common_level(); 0: no links
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

void QftRoute::add_loads(const Flow *flows, size_t n, LinkLoads &loads) const
{
	if (!complete_) {
		Router::add_loads(flows, n, loads); // path(): names what is unroutable
		return;
	}
	const bool sparse = loads.sparse();
	switch (h_) {
	case 2:
		sparse ? add_loads_complete<2, true>(flows, n, loads)
		       : add_loads_complete<2, false>(flows, n, loads);
		break;
	case 3:
		sparse ? add_loads_complete<3, true>(flows, n, loads)
		       : add_loads_complete<3, false>(flows, n, loads);
		break;
	default:
		sparse ? add_loads_complete<0, true>(flows, n, loads)
		       : add_loads_complete<0, false>(flows, n, loads);
		break;
	}
}

} // namespace qft
