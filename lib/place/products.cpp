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
			if (rest <= g.m(level)) {
				cur[level - 1] = rest;
				out.push_back(cur);
			}
			return;
		}
		for (uint32_t d = std::min<uint32_t>(rest, g.m(level)); d >= 1; d--)
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
	const unsigned radix = g.m(1);
	std::vector<uint64_t> mask(g.hosts() / g.M(1), 0);
	for (uint64_t u = 0; u < mask.size(); u++)
		for (unsigned c = 0; c < radix; c++)
			mask[u] |= uint64_t(s.counts.free_in(u * radix + c, u * radix + c + 1)) << c;
	return mask;
}

bool Placer::product_for(const std::vector<uint64_t> &leaves, const std::vector<uint32_t> &n,
			 bool fragments_first, std::vector<uint64_t> &sets) const
{
	const Pgft &g = tree_.pgft();
	sets.assign(g.h(), 0);
	std::vector<uint64_t> mask = leaves; // level l: over the digits a_l
	for (unsigned l = 1; l <= g.h(); l++) {
		const unsigned radix = g.m(l);
		// Units able to take n_l digits must be at least as many as the
		// shape has above this level: a cheap way out for most misses.
		uint64_t above = 1, able = 0, able_used = 0;
		for (unsigned k = l + 1; k <= g.h(); k++)
			above *= n[k - 1];
		for (uint64_t m : mask) {
			able += popcount(m) >= n[l - 1];
			able_used += popcount(m) >= n[l - 1] && popcount(m) < radix;
		}
		if (able < above)
			return false;
		std::vector<uint64_t> pool;
		// leaves already in use first, if any can take n_1: whole free
		// leaves stay whole for larger jobs
		const bool used_only = fragments_first && l == 1 && able_used > 0;
		for (uint64_t m : mask)
			if (popcount(m) >= n[l - 1] && (!used_only || popcount(m) < radix))
				pool.push_back(m);
		sets[l - 1] = common_digits(pool, n[l - 1], radix);
		if (!sets[l - 1])
			return false;
		if (l == g.h())
			break;
		// the next level's masks: bit c of subtree u when its child c
		// holds every digit chosen so far
		const unsigned up = g.m(l + 1);
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
			for (unsigned d = 0; d < g.m(l); d++)
				if (sets[l - 1] >> d & 1)
					next.push_back(base + d * g.M(l - 1));
		idx.swap(next);
		c.shape += cat(c.shape.empty() ? "" : "x", popcount(sets[l - 1]));
	}
	std::sort(idx.begin(), idx.end());
	uint64_t leaves_free = 0, last_leaf = UINT64_MAX;
	for (uint64_t j : idx) {
		c.hosts.push_back(fabric_.host_ord(tree_.node_at(0, j)));
		if (j / g.M(1) != last_leaf) {
			last_leaf = j / g.M(1);
			leaves_free += s.counts.free_in(last_leaf * g.M(1), (last_leaf + 1) * g.M(1));
		}
	}
	// best fit: the fewest free hosts left in the leaves it uses
	c.free_left = leaves_free - idx.size();
	c.level = g.h();
	return c;
}

void Placer::products_in_range(const Search &s, std::vector<Candidate> &out) const
{
	const uint32_t hi = s.req.nodes;
	const uint32_t lo = std::max<uint32_t>({1, s.req.nodes_min ? s.req.nodes_min : hi,
						hi > kRangeSizes ? hi - kRangeSizes + 1 : 1});
	const std::vector<uint64_t> leaves = leaf_masks(s);
	for (uint32_t n = hi; n >= lo && out.empty(); n--)
		product_candidates(s, leaves, n, out);
}

void Placer::product_candidates(const Search &s, const std::vector<uint64_t> &leaves,
				uint32_t n_hosts, std::vector<Candidate> &out) const
{
	const Pgft &g = tree_.pgft();
	for (unsigned l = 1; l <= g.h(); l++)
		if (g.m(l) > kMaxRadix)
			return; // masks of one word: no product search on such trees
	size_t tried = 0;
	std::vector<std::vector<uint64_t>> seen;
	for (const std::vector<uint32_t> &n : factorisations(n_hosts)) {
		if (tried++ >= kFactorisations)
			return;
		for (bool fragments_first : {true, false}) {
			if (out.size() >= policy_.max_candidates)
				return;
			std::vector<uint64_t> sets;
			if (!product_for(leaves, n, fragments_first, sets) ||
			    std::find(seen.begin(), seen.end(), sets) != seen.end())
				continue;
			seen.push_back(sets);
			Candidate c = product_candidate(s, sets);
			if (s.has_required(c.hosts))
				out.push_back(std::move(c));
		}
	}
}

} // namespace qft
