// SPDX-License-Identifier: GPL-2.0-or-later
// Path pressure: how much of a subtree's up- and down-links the running
// jobs' flows take, for ranking candidates when jobs choose LID offsets.
//
// With LMC > 0 a flow's offset may move it to another up-link of every
// subtree it leaves (docs/lid-offsets.md), so which link a running job
// loads is the pair choice's, not D-Mod-K's: what stays fixed is how many
// flows it sends out of (and into) each subtree. In a Shift stage a job
// with k_y hosts in a level-l subtree y it spans out of sends up to k_y
// flows up out of y and receives up to k_y down into it. P_l[y], the sum
// of k_y over the running jobs that span out of y, is what they take of
// y's links each stage; on a full-bisection tree a subtree of M_l hosts
// has M_l up-links, so P_l[y] / M_l is the share busy. A new job's flows
// out of y must find links its offsets reach among the rest, and the
// pair choice proves stages congested where they cannot (run 29 of
// docs/sim.md: 86 of 88 jobs of 65-256 nodes placed across pods were
// congested at their start). A candidate's pressure,
//   sum over levels l < h, over the level-l subtrees y it spans out of,
//   of k_y P_l[y] / M_l,
// is the flows it sends into busy links in expectation: 0 when every
// subtree it leaves is free of other jobs' outgoing traffic.
#ifndef QFT_PLACE_PRESSURE_HPP
#define QFT_PLACE_PRESSURE_HPP

#include <cstdint>
#include <vector>

namespace qft {

class Tree;

class PathPressure {
public:
	explicit PathPressure(const Tree &tree);

	// Adds (delta 1) or removes (delta -1) a running job on
	// `tree_indexes` (any order, no repeats).
	void add(const std::vector<uint64_t> &tree_indexes, int delta);
	// The pressure a job on `tree_indexes` would meet (formula above).
	double of(const std::vector<uint64_t> &tree_indexes) const;
	// P_l[y]: the running jobs' hosts in level-l subtree y (1 <= l < h)
	// whose job spans out of it.
	uint32_t at(unsigned level, uint64_t subtree) const { return by_[level - 1][subtree]; }

private:
	// visit(level, subtree, hosts there) for every subtree the hosts
	// span out of, the leaves first.
	template <typename Visit>
	void spans(const std::vector<uint64_t> &tree_indexes, Visit visit) const;

	uint64_t hosts_;
	std::vector<uint64_t> m_;               // [l-1]: hosts per level-l subtree
	std::vector<std::vector<uint32_t>> by_; // [l-1][y]: P_l[y]
};

} // namespace qft

#endif
