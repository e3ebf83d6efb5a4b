// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/place/qft_runs.hpp"

#include <algorithm>

namespace qft {

bool qft_runs_claimed(const Pgft &g)
{
	if (g.w(1) != 1 || g.p(1) != 1)
		return false;
	for (unsigned l = 1; l < g.h(); l++)
		if (uint64_t(g.m(l)) * g.p(l) != uint64_t(g.w(l + 1)) * g.p(l + 1))
			return false;
	return true;
}

uint64_t block_hosts(const Tree &tree, unsigned level)
{
	if (tree.qft())
		return level ? tree.subtree_hosts(level - 1) : 1;
	return tree.pgft().W(level);
}

bool qft_aligned_run(const Tree &tree, std::vector<uint64_t> t)
{
	const Pgft &g = tree.pgft();
	if (!tree.qft() || !qft_runs_claimed(g) || t.empty())
		return false;
	std::sort(t.begin(), t.end());
	const uint64_t lo = t.front(), n = t.size();
	if (t.back() - lo + 1 != n)
		return false; // not contiguous, or a host repeated
	unsigned l = 1; // the smallest level whose QFT sub-trees hold the run
	while (l < g.h() && lo / tree.subtree_hosts(l) != t.back() / tree.subtree_hosts(l))
		l++;
	const uint64_t unit = tree.subtree_hosts(l - 1);
	return l == 1 || (lo % unit == 0 && n % unit == 0);
}

bool qft_product(const Tree &tree, const std::vector<uint64_t> &t)
{
	if (!tree.qft() || t.empty())
		return false;
	const Pgft &g = tree.pgft();
	// distinct digits at each level; a set of n distinct hosts is their
	// product iff n = prod_l |digits at l|
	uint64_t size = 1;
	for (unsigned l = 1; l <= g.h(); l++) {
		const uint64_t below = tree.subtree_hosts(l - 1), radix = tree.subtree_hosts(l) / below;
		std::vector<bool> seen(radix, false);
		uint64_t n = 0;
		for (uint64_t j : t) {
			const uint64_t d = j / below % radix;
			n += !seen[d];
			seen[d] = true;
		}
		size *= n;
	}
	std::vector<uint64_t> u(t);
	std::sort(u.begin(), u.end());
	return std::adjacent_find(u.begin(), u.end()) == u.end() && size == u.size();
}

bool qft_congestion_free_hosts(const Tree &tree, const std::vector<uint64_t> &t)
{
	const Pgft &g = tree.pgft();
	if (!tree.qft() || !qft_runs_claimed(g) || t.empty())
		return false;
	if (qft_product(tree, t))
		return true;
	if (g.h() < 2)
		return false;
	std::vector<uint64_t> leaves; // at most three: runs under slurmctld's locks
	for (uint64_t j : t)
		if (std::find(leaves.begin(), leaves.end(), j / g.M(1)) == leaves.end()) {
			leaves.push_back(j / g.M(1));
			if (leaves.size() > 2)
				return false;
		}
	const uint64_t per = tree.subtree_hosts(2) / g.M(1); // leaves per level-2 QFT sub-tree
	return leaves.size() <= 2 && leaves.front() / per == leaves.back() / per;
}

} // namespace qft
