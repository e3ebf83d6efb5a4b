// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/tree/qft_wiring.hpp"

#include "lib/common/error.hpp"

namespace qft {

void check_qft(const Pgft &g)
{
	for (unsigned l = 1; l < g.h(); l++)
		if (qft_side_linked(g, l) && g.m(l + 1) % g.p(l))
			fail(Status::invalid, "QFT of PGFT(", g.text(), "): p", l, " = ", g.p(l),
			     " does not divide m", l + 1, " = ", g.m(l + 1),
			     ", expected whole side groups of p", l, " level-", l, " subtrees");
}

QftUplink qft_uplink(const Pgft &g, unsigned l, const std::vector<unsigned> &a, unsigned q)
{
	// The parent at level L = l+1 takes digit L = q mod w_L (seed 000
	// IV-B); on a side-linked level also digit L+1, within a's group.
	const unsigned L = l + 1, w = g.w(L), m = g.m(L), p = g.p(L);
	QftUplink up{a, 0};
	up.parent[L - 1] = q % w;
	if (qft_side_linked(g, L)) {
		up.parent[L] = a[L] / p * p + q / w;
		up.down_port = a[L - 1] + (a[L] % p) * m;
	} else {
		up.down_port = a[L - 1] + (q / w) * m;
	}
	return up;
}

bool qft_descends(const Pgft &g, unsigned l, const std::vector<unsigned> &s,
		  const std::vector<unsigned> &q)
{
	for (unsigned i = l + 2; i <= g.h(); i++)
		if (s[i - 1] != q[i - 1])
			return false;
	if (l >= g.h())
		return true;
	// digit l+1; p_0 = 1 for a host
	const unsigned p = l >= 1 ? g.p(l) : 1;
	return s[l] / p == q[l] / p;
}

Fabric generate_qft(const Pgft &g, const GenOptions &opt)
{
	check_qft(g);
	std::vector<std::vector<NodeId>> nodes;
	Fabric f = generate_nodes(g, opt, TreeKind::qft, nodes);
	for (unsigned l = 0; l < g.h(); l++) {
		const unsigned up_base = g.down_ports(l); // IB port of up-port 0, minus 1
		for (uint64_t idx = 0; idx < g.nodes_at(l); idx++) {
			const std::vector<unsigned> a = g.digits(l, idx);
			for (unsigned q = 0; q < g.up_ports(l); q++) {
				const QftUplink up = qft_uplink(g, l, a, q);
				f.connect(nodes[l][idx], up_base + q + 1,
					  nodes[l + 1][g.index(l + 1, up.parent)], up.down_port + 1,
					  opt.rate);
			}
		}
	}
	return f;
}

} // namespace qft
