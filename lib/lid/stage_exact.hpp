// SPDX-License-Identifier: GPL-2.0-or-later
// One Shift stage without congestion, searched exhaustively within a
// budget: each flow takes one offset (one path), no link carries two
// flows, no flow crosses a link already loaded by the running jobs.
//
// The problem is a list edge colouring (lib/lid/pair_search.hpp); on
// three levels of a fat tree it is tight where the local searches stop:
// a full leaf's flows must take all of its up-ports from lists shorter
// than the degree, a perfect matching a flow-by-flow move rarely finds.
// contribs/bench/lid_bound showed that most stages the local search
// leaves at HSD 2 have such a routing (docs/lid-offsets.md). This is a
// depth-first search with forward checking (every other flow loses the
// offsets a choice blocks) and the fewest-offsets-left flow first, with
// restarts: constraint propagation does what the walk cannot, it sees a
// leaf run out of up-ports before it happens. Hall's condition on each
// leaf's up-links and down-links (a matching) sees it sooner still.
#ifndef QFT_LID_STAGE_EXACT_HPP
#define QFT_LID_STAGE_EXACT_HPP

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lib/fabric/fabric.hpp"

namespace qft {

// Every flow's path at every offset: flow f, offset o holds
// links[at[f * offsets + o] .. at[f * offsets + o + 1]).
struct StagePaths {
	unsigned offsets = 0;
	std::vector<uint32_t> at{0};
	std::vector<PortIdx> links;
	size_t flows() const { return (at.size() - 1) / (offsets ? offsets : 1); }
};

// Fills `out` (one offset per flow) and returns true when a routing with
// at most one flow per link exists that avoids every link with
// blocked[link] set, found within `budget` search steps (a step is one
// choice tried; `budget` is left with what was not spent). False: no
// such routing, or none found in time. `hint`: each flow's offset to try
// first (the local search's). `hall`: Hall's condition on each leaf's
// links too (fewer steps, each dearer). offsets <= 64; more gives false.
bool solve_stage(const StagePaths &paths, const std::vector<uint8_t> &blocked,
		 const std::vector<uint8_t> &hint, bool hall, size_t &budget, uint64_t seed,
		 std::vector<uint8_t> &out);

// Whether counting alone proves that no such routing exists: at some
// position i along the paths, a set of flows whose i-th links, over all
// their offsets that keep off the blocked links, lie among fewer links
// than there are flows (each flow needs one of them to itself). The
// sets are the components of the flows joined by shared i-th links. On
// the 1944-host tree at LMC 4 this is the pod's pigeonhole the offset
// map sets up (docs/lid-offsets.md, "The map's classes"): a flow's 16
// level-2 up-links all lie in one third of its pod's, and a stage where
// one third is asked for by more flows than it has links cannot be free.
// The search takes long to see it (a perfect matching of 324 flows);
// the count takes one pass over the paths.
bool stage_crowded(const StagePaths &paths, const std::vector<uint8_t> &blocked);

} // namespace qft

#endif
