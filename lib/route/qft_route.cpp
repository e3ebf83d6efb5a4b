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

// The tables of lib/route/tree_router.hpp, for the QFT:
// key(dst, l) = (R_l + W_l s_l) U_l + g_l(j, k), R_l the index of the digits
// b_1..b_l of j's up-path at offset k and s_l its side member in digit l+1 (0 off
// side-linked levels); src_base(src, l) = W_l (G_l + m_{l+1}
// floor(j / M_{l+1})) U_l, G_l digit l+1 of j rounded down to its group
// (side-linked) or digit l+1 itself; subtree(j, l) = floor(j / (M_l p'_l)),
// p'_l = p_l on a side-linked level, else 1: the QFT subtree of level l.
QftRoute::QftRoute(const Fabric &fabric, const Tree &tree)
	: TreeRouter(fabric, tree, "QFT routing")
{
	const Pgft &g = tree.pgft();
	if (!tree.qft())
		fail(Status::invalid, "QFT routing: the fabric is PGFT(", g.text(),
		     "), expected the QFT of a PGFT (qft gen qft)");
	const size_t hosts = tree_index_.size();
	for (HostOrd s = 0; s < hosts; s++) {
		const uint64_t j = tree_index_[s];
		if (j == kNone)
			continue;
		for (unsigned l = 0; l <= h_; l++)
			subtree(s, l) = uint32_t(j / (g.M(l) * group(g, l)));
		for (unsigned l = 0; l < h_; l++) {
			const unsigned p = group(g, l);
			const uint64_t digit = (j / g.M(l)) % g.m(l + 1) / p * p; // G_l
			src_base(s, l) = uint32_t(
				g.W(l) * (digit + g.m(l + 1) * (j / g.M(l + 1))) * g.up_ports(l));
		}
	}
	for (unsigned k = 0; k < offsets_; k++) {
		for (HostOrd d = 0; d < hosts; d++) {
			const uint64_t j = tree_index_[d];
			if (j == kNone)
				continue;
			// Walk j's up-path at offset k: the descent mirrors it.
			Digits x = g.digits(0, j);
			for (unsigned l = 0; l < h_; l++) {
				const unsigned q = up_port(l, j, k);
				const uint64_t idx = g.index(l, x);
				const unsigned side = qft_side_linked(g, l) ? x[l] % g.p(l) : 0;
				DstHop &hop = dst_hop(k, d, l);
				hop.key = uint32_t((idx % g.W(l) + g.W(l) * side) * g.up_ports(l) + q);
				const PortIdx up = tree.up_port(l, idx, q);
				hop.down = up == kNone ? kNone : fabric.port(up).peer;
				x = qft_uplink(g, l, x, q).parent;
			}
		}
	}
}

unsigned QftRoute::up_port(unsigned l, uint64_t j, unsigned k) const
{
	const Pgft &g = tree_.pgft();
	const int li = int(l);
	uint64_t u = 0; // the side member taken two levels below
	if (l >= 2)
		u = (j / r_prime(g, li - 2)) % (uint64_t(w_at(g, li - 1)) * p_at(g, li - 1)) /
		    w_at(g, li - 1);
	return unsigned((j / r_prime(g, li) * p_at(g, li - 1) + u + shift(l, k)) % g.up_ports(l));
}

unsigned QftRoute::next_hops(unsigned l, uint64_t idx, uint64_t j, unsigned k,
			     PortIdx *out) const
{
	const Pgft &g = tree_.pgft();
	return rule_hops(l, g.digits(l, idx), g.digits(0, j), j, k, out);
}

unsigned QftRoute::rule_hops(unsigned l, const Digits &a, const Digits &d, uint64_t j,
			     unsigned k, PortIdx *out) const
{
	const Pgft &g = tree_.pgft();
	if (l >= 1 && qft_descends(g, l, a, d)) { // an ancestor of d: down first
		const unsigned n = down_hops(l, a, d, j, k, out);
		if (n)
			return n;
	}
	if (l == h_)
		return 0;
	// Up: g_l(j, k), then the next present up-port whose upper end leads to d.
	const uint64_t idx = g.index(l, a);
	const unsigned ups = g.up_ports(l), q0 = up_port(l, j, k);
	for (unsigned t = 0; t < ups; t++) {
		const unsigned q = (q0 + t) % ups;
		const PortIdx pi = tree_.up_port(l, idx, q);
		if (pi == kNone)
			continue;
		const unsigned n =
			rule_hops(l + 1, qft_uplink(g, l, a, q).parent, d, j, k, out + 1);
		if (n) {
			out[0] = pi;
			return n + 1;
		}
	}
	return 0;
}

unsigned QftRoute::down_hops(unsigned l, const Digits &a, const Digits &d, uint64_t j,
			     unsigned k, PortIdx *out) const
{
	// The children of a on d's side: a's digits 1..l-1 (the route), digit
	// l+1 = d_{l+1} (on a side-linked level l, a's down-ports reach the
	// whole group; elsewhere a already has it), digit l within d_l's group
	// on a side-linked level l-1 (its p_{l-1} down paths), else d_l. First
	// the member d's own up-path took there, g_{l-2}(j, k) div w_{l-1}, and
	// at the top the parallel cable g_{h-1}(j, k) div w_h (the closed form).
	const Pgft &g = tree_.pgft();
	const unsigned members = l >= 2 ? group(g, l - 1) : 1;
	const unsigned member0 = members > 1 ? up_port(l - 2, j, k) / g.w(l - 1) : 0;
	const bool side = qft_side_linked(g, l);
	const unsigned cables = side ? 1 : g.p(l); // per (child, parent); > 1 only at the top
	const unsigned cable0 = cables > 1 ? up_port(l - 1, j, k) / g.w(l) : 0;
	Digits c = a;
	if (l < h_)
		c[l] = d[l];
	for (unsigned tm = 0; tm < members; tm++) {
		c[l - 1] = d[l - 1] / members * members + (member0 + tm) % members;
		unsigned n = 1; // hops below the child, + 1
		if (l >= 2) {
			n = down_hops(l - 1, c, d, j, k, out + 1);
			if (!n)
				continue;
			n++;
		}
		const uint64_t cidx = g.index(l - 1, c);
		for (unsigned tk = 0; tk < cables; tk++) {
			const unsigned cable = side ? a[l] % g.p(l) : (cable0 + tk) % cables;
			const PortIdx up = tree_.up_port(l - 1, cidx, a[l - 1] + cable * g.w(l));
			if (up != kNone) {
				out[0] = fabric_.port(up).peer;
				return n;
			}
		}
	}
	return 0;
}

} // namespace qft
