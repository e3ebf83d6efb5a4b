// SPDX-License-Identifier: GPL-2.0-or-later
// Which switch links the running jobs' traffic can cross: how many a
// candidate would share with them (the placer ranks by it after the
// congestion), and how many the running jobs share.
//
// D-Mod-K (seed 000 eq. 1, theorem 2) names the link a flow to d takes
// out of a level-l subtree y, and the link into d's level-l subtree y,
// both by (y, d mod U_l), U_l = W_{l+1} p_{l+1} the links of each kind a
// level-l subtree has (docs/product-shapes.md). So a job with hosts J uses,
// at each level l < h where J spans several level-l subtrees, and for
// each such subtree y holding some of J:
//   up-links   (y, d mod U_l) for d in J outside y,
//   down-links (y, d mod U_l) for d in J inside y,
// whatever traffic it runs among its hosts; host cables belong to their
// host's job, and a job inside one leaf uses no switch link. Two jobs share
// a link iff these sets meet. Exact for D-Mod-K with LID offset 0 on a
// complete tree; around missing cables D-Mod-K takes other ports, which
// this does not follow (the placer's congestion score does).
//
// With LID offsets (LMC > 0, docs/lid-offsets.md) a flow out of y may take
// any of y's U_l up-links and come down any of its down-links, whatever
// the routing: every_key counts every (y, r), r < U_l, for each level-l
// subtree y the job spans out of. Two jobs then share a link iff they span
// out of one subtree at some level: what isolation (--qft-isolate) must
// avoid when offsets may move a flow.
#ifndef QFT_PLACE_LINKS_HPP
#define QFT_PLACE_LINKS_HPP

#include <cstdint>
#include <vector>

#include "lib/tree/pgft.hpp"

namespace qft {

class LinkUse {
public:
	explicit LinkUse(const Pgft &g, bool every_key = false);

	// Adds (delta 1) or removes (delta -1) the links of the job on
	// `tree_indexes` (any order, no repeats).
	void add(const std::vector<uint64_t> &tree_indexes, int delta);
	// How many links of a job on `tree_indexes` some added job uses.
	size_t shared(const std::vector<uint64_t> &tree_indexes) const;
	// How many links two added jobs or more use.
	size_t shared() const;

private:
	uint64_t up_links(unsigned l) const { return g_.W(l + 1) * g_.p(l + 1); }
	// Calls visit(level, up, index into up_/down_) for every link of the
	// job; scratch vectors sized by U_l make it O(N + subtrees x keys).
	template <typename Visit>
	void visit(const std::vector<uint64_t> &tree_indexes, Visit visit) const;

	const Pgft g_;
	const bool every_key_;
	std::vector<std::vector<uint32_t>> up_, down_; // [l-1][y U_l + key]: jobs using it
};

} // namespace qft

#endif
