// SPDX-License-Identifier: GPL-2.0-or-later
// Whole leaves (PlacementPolicy::whole_leaves): with LID offsets, a job's
// congestion beside the running jobs follows the leaves it takes in part.
// On docs/sim.md run 36 (Slurm 24.11, LMC 4, seed 1) the jobs above 324
// nodes that could have had whole free leaves at their start and took
// leaves in part lost 16.7% of their node-hours (3.7% proven out of any
// offsets' reach), those that took whole leaves 9.3% (0.7%); 19-324 nodes
// 7.9% against 1.8% (docs/lid-offsets.md, "Whole leaves across pods";
// contribs/bench/leaves-at-start.py). A leaf taken in part shares its
// up-links with the jobs beside, whose offsets are fixed; whole leaves
// leave the pair choice every up-link of the leaf. Under the runtime
// model (docs/sim.md run 38) the large jobs took whole leaves far more
// often and lost as much: spread over more pods, they meet the other jobs
// at the pods' up-links instead. Hence off by default.
#include "lib/place/placement.hpp"

#include <algorithm>

namespace qft {

size_t Placer::partial_leaves(const std::vector<HostOrd> &hosts) const
{
	const uint64_t m = tree_.subtree_hosts(1);
	std::vector<uint64_t> leaf;
	leaf.reserve(hosts.size());
	for (uint64_t j : tree_indexes(hosts))
		leaf.push_back(j / m);
	std::sort(leaf.begin(), leaf.end());
	size_t partial = 0;
	for (size_t i = 0; i < leaf.size();) {
		size_t k = i;
		while (k < leaf.size() && leaf[k] == leaf[i])
			k++;
		// a leaf with fewer hosts than m (cut cables, a short last
		// leaf) is whole when the job has all it has
		uint64_t present = 0;
		for (uint64_t j = leaf[i] * m; j < leaf[i] * m + m && j < tree_.pgft().hosts(); j++)
			present += tree_.node_at(0, j) != kNone;
		partial += k - i < present;
		i = k;
	}
	return partial;
}

// In the tightest level-l subtree that has them: whole free leaves for
// all but N mod m_1 hosts, the level-(l-1) subtrees with the most of them
// first (a job spread over fewer pods), then the rest in the leaf with
// the fewest free hosts that holds it. None when the subtree's whole free
// leaves are too few: the best fit covers that case.
void Placer::whole_leaves_at(unsigned level, const Search &s, std::vector<Candidate> &out) const
{
	if (level < 2)
		return;
	const Pgft &g = tree_.pgft();
	const uint64_t m = tree_.subtree_hosts(1), span = tree_.subtree_hosts(level),
		       below = tree_.subtree_hosts(level - 1);
	auto whole = [&](uint64_t leaf) {
		const uint64_t lo = leaf * m, hi = std::min(g.hosts(), lo + m);
		const uint32_t f = s.counts.free_in(lo, hi);
		return f > 0 && f == s.counts.present_in(lo, hi) ? f : 0u;
	};
	for (const auto &[free_total, sub] : subtrees_holding(level, s)) {
		const uint64_t lo = sub * span, hi = std::min(g.hosts(), lo + span);
		// level-(l-1) subtrees by their whole free hosts, most first
		std::vector<std::pair<uint64_t, uint64_t>> parts; // (whole free hosts, first index)
		for (uint64_t p = lo; p < hi; p += below) {
			uint64_t w = 0;
			for (uint64_t leaf = p / m; leaf * m < std::min(hi, p + below); leaf++)
				w += whole(leaf);
			if (w)
				parts.push_back({w, p});
		}
		std::stable_sort(parts.begin(), parts.end(),
				 [](const auto &a, const auto &b) { return a.first > b.first; });
		uint64_t need = s.req.nodes;
		std::vector<uint64_t> idx;
		std::vector<bool> taken((hi - lo + m - 1) / m, false);
		for (const auto &[w, p] : parts)
			for (uint64_t leaf = p / m; leaf * m < std::min(hi, p + below); leaf++) {
				const uint32_t f = whole(leaf);
				if (!f || f > need)
					continue;
				for (uint64_t j = leaf * m; j < leaf * m + m && j < hi; j++)
					if (s.counts.free_in(j, j + 1))
						idx.push_back(j);
				taken[leaf - lo / m] = true;
				need -= f;
			}
		if (need) {
			// the rest: the leaf with the fewest free hosts that holds it
			uint64_t fit = UINT64_MAX;
			uint32_t fit_free = 0;
			for (uint64_t leaf = lo / m; leaf * m < hi; leaf++) {
				const uint32_t f = s.counts.free_in(leaf * m, std::min(hi, leaf * m + m));
				if (!taken[leaf - lo / m] && f >= need && (fit == UINT64_MAX || f < fit_free)) {
					fit = leaf;
					fit_free = f;
				}
			}
			if (fit == UINT64_MAX)
				continue;
			for (uint64_t j = fit * m; j < fit * m + m && j < hi && need; j++)
				if (s.counts.free_in(j, j + 1)) {
					idx.push_back(j);
					need--;
				}
		}
		Candidate c = best_fit_of(level, sub, idx);
		c.whole_leaves = true;
		if (!s.has_required(c.hosts))
			continue;
		c.free_left = free_total - s.req.nodes;
		out.push_back(std::move(c));
		return; // the tightest subtree that has them
	}
}

} // namespace qft
