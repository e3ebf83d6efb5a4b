// SPDX-License-Identifier: GPL-2.0-or-later
// The placer's search for product shapes (docs/product-shapes.md): host sets
// S_h x ... x S_1 of tree digits, the same positions in every chosen leaf,
// the same leaves in every chosen level-2 subtree, and so on up. Under
// D-Mod-K (seed 000 eq. 1) the up-link a flow takes from level l is named
// by the source's digits above l and the destination's digits up to l, so
// a product in tree order plays Shift without congestion, and two disjoint
// products share no link whatever their traffic.
//
// The free hosts are seen level by level as masks: a level-l subtree's
// mask has bit c set when its child c holds the lower part of the shape
// (at level 1: when position c is free). For a factorisation
// N = n_h ... n_1, each level takes the n_l digits that the most subtrees
// share (greedily), which keeps the candidates of the next level many.
// Each factorisation is searched in one subtree at a time, the tightest
// first (best fit).
//
// On a QFT the digits are the QFT's (Placer::radix(): which level-(l-1)
// QFT sub-tree of its level-l one holds a host), under which the same
// holds for the QFT routing (lib/place/qft_runs.hpp, docs/qft.md).
#include <algorithm>

#include "lib/common/error.hpp"
#include "lib/place/placement.hpp"

namespace qft {

namespace {

constexpr unsigned kMaxRadix = 64; // digits of a level fit one mask word

unsigned popcount(uint64_t x) { return unsigned(__builtin_popcountll(x)); }

// The n digits (bits) that the most of `masks` share, taken one at a time;
// `masks` left holding only the masks that have all of them. 0 when no
// mask holds n digits.
uint64_t common_digits(std::vector<uint64_t> &masks, unsigned n, unsigned radix)
{
	masks.erase(std::remove_if(masks.begin(), masks.end(),
				   [&](uint64_t m) { return popcount(m) < n; }),
		    masks.end());
	uint64_t chosen = 0;
	for (unsigned k = 0; k < n; k++) {
		unsigned best = radix;
		size_t best_count = 0;
		for (unsigned d = 0; d < radix; d++) {
			if (chosen >> d & 1)
				continue;
			size_t c = 0;
			for (uint64_t m : masks)
				c += m >> d & 1;
			if (c > best_count) {
				best = d;
				best_count = c;
			}
		}
		if (best == radix)
			return 0;
		chosen |= uint64_t(1) << best;
		masks.erase(std::remove_if(masks.begin(), masks.end(),
					   [&](uint64_t m) { return !(m >> best & 1); }),
			    masks.end());
	}
	return chosen;
}

} // namespace

std::vector<std::vector<uint32_t>> Placer::factorisations(uint32_t n) const
{
	// n = n_h ... n_1 with n_l <= m_l, the most hosts per leaf first (the
	// fewest leaves touched), then the most leaves per subtree, and so on.
	const Pgft &g = tree_.pgft();
	std::vector<std::vector<uint32_t>> out;
	std::vector<uint32_t> cur(g.h(), 1);
	auto rec = [&](auto &self, unsigned level, uint32_t rest) -> void {
		if (level == g.h()) {
			if (rest <= radix(level)) {
				cur[level - 1] = rest;
				out.push_back(cur);
			}
			return;
		}
		for (uint32_t d = std::min<uint32_t>(rest, radix(level)); d >= 1; d--)
			if (rest % d == 0) {
				cur[level - 1] = d;
				self(self, level + 1, rest / d);
			}
	};
	rec(rec, 1, n);
	return out;
}

std::vector<uint64_t> Placer::leaf_masks(const Search &s) const
{
	const Pgft &g = tree_.pgft();
	for (unsigned l = 1; l <= g.h(); l++)
		if (radix(l) > kMaxRadix)
			return {};
	const unsigned leaf = radix(1);
	std::vector<uint64_t> mask(g.hosts() / tree_.subtree_hosts(1), 0);
	for (uint64_t u = 0; u < mask.size(); u++)
		for (unsigned c = 0; c < leaf; c++)
			mask[u] |= uint64_t(s.counts.free_in(u * leaf + c, u * leaf + c + 1)) << c;
	return mask;
}

bool Placer::product_for(const std::vector<uint64_t> &leaves, const std::vector<uint32_t> &n,
			 bool fragments_first, std::vector<uint64_t> &sets) const
{
	const Pgft &g = tree_.pgft();
	sets.assign(g.h(), 0);
	std::vector<uint64_t> mask = leaves; // level l: over the digits a_l
	for (unsigned l = 1; l <= g.h(); l++) {
		const unsigned digits = radix(l);
		// Units able to take n_l digits must be at least as many as the
		// shape has above this level: a cheap way out for most misses.
		uint64_t above = 1, able = 0, able_used = 0;
		for (unsigned k = l + 1; k <= g.h(); k++)
			above *= n[k - 1];
		for (uint64_t m : mask) {
			able += popcount(m) >= n[l - 1];
			able_used += popcount(m) >= n[l - 1] && popcount(m) < digits;
		}
		if (able < above)
			return false;
		std::vector<uint64_t> pool;
		// leaves already in use first, if any can take n_1: whole free
		// leaves stay whole for larger jobs
		const bool used_only = fragments_first && l == 1 && able_used > 0;
		for (uint64_t m : mask)
			if (popcount(m) >= n[l - 1] && (!used_only || popcount(m) < digits))
				pool.push_back(m);
		sets[l - 1] = common_digits(pool, n[l - 1], digits);
		if (!sets[l - 1])
			return false;
		if (l == g.h())
			break;
		// the next level's masks: bit c of subtree u when its child c
		// holds every digit chosen so far
		const unsigned up = radix(l + 1);
		std::vector<uint64_t> next(mask.size() / up, 0);
		for (uint64_t u = 0; u < next.size(); u++)
			for (unsigned c = 0; c < up; c++)
				next[u] |= uint64_t((mask[u * up + c] & sets[l - 1]) == sets[l - 1]) << c;
		mask.swap(next);
	}
	return true;
}

Candidate Placer::product_candidate(const Search &s, const std::vector<uint64_t> &sets) const
{
	const Pgft &g = tree_.pgft();
	Candidate c;
	c.kind = PlacementKind::product;
	std::vector<uint64_t> idx = {0};
	for (unsigned l = g.h(); l >= 1; l--) { // tree order: top digit first
		std::vector<uint64_t> next;
		for (uint64_t base : idx)
			for (unsigned d = 0; d < radix(l); d++)
				if (sets[l - 1] >> d & 1)
					next.push_back(base + d * tree_.subtree_hosts(l - 1));
		idx.swap(next);
		c.shape += cat(c.shape.empty() ? "" : "x", popcount(sets[l - 1]));
	}
	std::sort(idx.begin(), idx.end());
	uint64_t leaves_free = 0, last_leaf = UINT64_MAX;
	for (uint64_t j : idx) {
		c.hosts.push_back(fabric_.host_ord(tree_.node_at(0, j)));
		if (j / tree_.subtree_hosts(1) != last_leaf) {
			last_leaf = j / tree_.subtree_hosts(1);
			leaves_free += s.counts.free_in(last_leaf * tree_.subtree_hosts(1), (last_leaf + 1) * tree_.subtree_hosts(1));
		}
	}
	// best fit: the fewest free hosts left in the leaves it uses
	c.free_left = leaves_free - idx.size();
	c.level = g.h();
	return c;
}

void Placer::products_in_range(const Search &s, const std::vector<uint64_t> &leaves,
				std::vector<Candidate> &out) const
{
	const uint32_t hi = s.req.nodes;
	const uint32_t lo = std::max<uint32_t>({1, s.req.nodes_min ? s.req.nodes_min : hi,
						hi > kRangeSizes ? hi - kRangeSizes + 1 : 1});
	for (uint32_t n = hi; n >= lo && out.empty(); n--)
		product_candidates(s, leaves, n, out);
}

void Placer::two_leaf_candidates(const Search &s, const std::vector<uint64_t> &leaves,
				 std::vector<Candidate> &out) const
{
	const Pgft &g = tree_.pgft();
	const uint32_t n = s.req.nodes, m = radix(1);
	// U_1 = M_1: every flow out of a leaf is keyed by its destination's
	// position, distinct within the other leaf (docs/product-shapes.md)
	if (g.h() < 2 || n <= 1 || n > 2 * m || g.W(2) * g.p(2) != tree_.subtree_hosts(1))
		return;
	// pairs (x, y) with free(x) + free(y) >= n, the fewest left over first;
	// each leaf gives as many as it can, so that the other stays whole
	std::vector<std::pair<uint64_t, uint64_t>> by_free; // (free, leaf)
	for (uint64_t x = 0; x < leaves.size(); x++)
		if (leaves[x])
			by_free.push_back({popcount(leaves[x]), x});
	std::sort(by_free.begin(), by_free.end());
	std::vector<std::tuple<uint64_t, uint64_t, uint64_t>> pairs; // (left, x, y)
	for (size_t i = 0; i < by_free.size(); i++) {
		// the smallest partner that makes up n
		// (in the same level-2 subtree: levels above stay out of it)
		const uint64_t x = by_free[i].second, need = n > by_free[i].first ? n - by_free[i].first : 0;
		for (size_t k = i + 1; k < by_free.size(); k++)
			if (by_free[k].first >= need && by_free[k].second / radix(2) == x / radix(2)) {
				pairs.push_back({by_free[i].first + by_free[k].first - n, x, by_free[k].second});
				break;
			}
	}
	std::sort(pairs.begin(), pairs.end());
	for (const auto &[left, x, y] : pairs) {
		if (out.size() >= policy_.max_candidates)
			break;
		// the fuller leaf first, all its free hosts, the rest from the other
		const uint64_t a = popcount(leaves[x]) >= popcount(leaves[y]) ? x : y, b = a == x ? y : x;
		std::vector<uint64_t> idx;
		for (uint64_t leaf : {a, b})
			for (unsigned d = 0; d < m && idx.size() < n; d++)
				if (leaves[leaf] >> d & 1)
					idx.push_back(leaf * m + d);
		std::sort(idx.begin(), idx.end());
		Candidate c;
		c.kind = PlacementKind::two_leaves;
		c.level = 1;
		c.subtree = std::min(x, y);
		for (uint64_t j : idx)
			c.hosts.push_back(fabric_.host_ord(tree_.node_at(0, j)));
		c.free_left = left;
		if (s.has_required(c.hosts))
			out.push_back(std::move(c));
	}
}

void Placer::near_products(const Search &s, const std::vector<uint64_t> &leaves, uint32_t n,
			   std::vector<Candidate> &out) const
{
	// the smallest size above n that has a free product, its first n
	// hosts (tree order): links a subset of the product's
	const uint32_t most = uint32_t(n + uint64_t(n) * policy_.round_up / 100);
	for (uint32_t big = n + 1; big <= std::min(most, n + kRangeSizes) && out.empty(); big++) {
		product_candidates(s, leaves, big, out);
		std::vector<Candidate> kept;
		for (Candidate &c : out) {
			c.hosts.resize(n);
			c.kind = PlacementKind::near_product;
			c.shape += cat("-", big - n);
			c.free_left += big - n;
			if (s.has_required(c.hosts))
				kept.push_back(std::move(c));
		}
		out.swap(kept);
	}
}

void Placer::product_candidates(const Search &s, const std::vector<uint64_t> &leaves,
				uint32_t n_hosts, std::vector<Candidate> &out) const
{
	const Pgft &g = tree_.pgft();
	if (leaves.empty())
		return; // no masks (leaf_masks()): no product search on this tree
	size_t tried = 0;
	std::vector<std::vector<uint64_t>> seen;
	for (const std::vector<uint32_t> &n : factorisations(n_hosts)) {
		if (tried++ >= kFactorisations)
			return;
		// Best fit: the shape fits in one level-k subtree; search the
		// subtrees that hold it one at a time, the fewest free hosts
		// first, so that emptier ones stay whole for larger jobs.
		unsigned k = g.h();
		while (k > 1 && n[k - 1] == 1)
			k--;
		const uint64_t per = tree_.subtree_hosts(k) / radix(1); // leaves per level-k subtree
		std::vector<std::pair<uint32_t, uint64_t>> scopes; // (free, subtree)
		for (uint64_t sub = 0; sub * tree_.subtree_hosts(k) < g.hosts(); sub++) {
			const uint32_t f = s.counts.free_in(sub * tree_.subtree_hosts(k), std::min(g.hosts(), (sub + 1) * tree_.subtree_hosts(k)));
			if (f >= n_hosts)
				scopes.push_back({f, sub});
		}
		std::sort(scopes.begin(), scopes.end());
		size_t found = 0, searched = 0;
		for (const auto &scope : scopes) {
			if (found >= kScopesFound || searched++ >= kScopesSearched)
				break;
			std::vector<uint64_t> scoped(leaves.size(), 0);
			const uint64_t sub = scope.second;
			std::copy(leaves.begin() + long(sub * per),
				  leaves.begin() + long(std::min<uint64_t>(leaves.size(), (sub + 1) * per)),
				  scoped.begin() + long(sub * per));
			bool any = false;
			for (bool fragments_first : {true, false}) {
				if (out.size() >= policy_.max_candidates)
					return;
				std::vector<uint64_t> sets;
				if (!product_for(scoped, n, fragments_first, sets) ||
				    std::find(seen.begin(), seen.end(), sets) != seen.end())
					continue;
				seen.push_back(sets);
				Candidate c = product_candidate(s, sets);
				if (s.has_required(c.hosts)) {
					out.push_back(std::move(c));
					any = true;
				}
			}
			found += any;
		}
	}
}

} // namespace qft
