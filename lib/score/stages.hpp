// SPDX-License-Identifier: GPL-2.0-or-later
// The one scoring engine (seed 000 section VII): jobs' collective stages
// played through a routing, flows counted per directed link. `qft score`
// (score_jobs), the placer's ranking of candidates and the prediction a
// job is told all play their stages here, so that they agree by
// construction and share one fast path (Router::add_loads).
//
// Several jobs play in lock-step: stage t of every job that still has a
// stage t at once, their flows summed, which measures the interference
// between jobs. A job plays a sample of its pattern's stages by playing a
// SampledPattern (lib/traffic).
#ifndef QFT_SCORE_STAGES_HPP
#define QFT_SCORE_STAGES_HPP

#include <algorithm>
#include <cstdint>
#include <vector>

#include "lib/fabric/fabric.hpp"
#include "lib/route/router.hpp"
#include "lib/traffic/pattern.hpp"

namespace qft {

// Which LID offset a flow uses (lib/lid chooses them). `source`: every
// process uses its own node's offset for all destinations
// (UCX_IB_LID_PATH_BITS, DESIGN 3); `destination`: the sender addresses
// each destination at the offset that destination chose; `pair`: each
// ordered pair of ranks has its own (both need the verbs interposer,
// docs/lid-table.md); `stripe`: every pair sends over each of the
// offsets listed, an equal share on each (seed 004), which the stage
// player plays as one flow per offset (lib/lid scores it).
enum class LidChoice { source, destination, pair, stripe };

struct Job {
	std::vector<HostOrd> ranks;     // rank r runs on host ranks[r]
	// source, destination: one per rank (empty: all 0); pair: one per
	// ordered pair, [src rank * ranks + dst rank]; stripe: the offsets.
	std::vector<uint8_t> offsets;
	LidChoice lid_choice = LidChoice::source;
};

// Each link's busiest stage over the stages it is shown: the most flows it
// carried in one stage, and in how many stages it carried that many.
class LinkPeaks {
public:
	explicit LinkPeaks(size_t links) : peak_(links, 0), at_peak_(links, 0) {}
	void add(const LinkLoads &stage);
	// As if `other`'s stages had been added here too.
	void merge(const LinkPeaks &other);
	// The links with a peak, in the order they first carried a flow.
	const std::vector<PortIdx> &links() const { return links_; }
	uint32_t peak(PortIdx link) const { return peak_[link]; }
	uint32_t peak_stages(PortIdx link) const { return at_peak_[link]; }
	void clear();

private:
	std::vector<uint32_t> peak_, at_peak_;
	std::vector<PortIdx> links_;
};

// Not thread-safe: one scratch serves every play. Borrows the router.
class StagePlayer {
public:
	// A play is dense (LinkLoads) when its ranks times this reach the
	// number of links: at 1944 hosts a whole-fabric Shift, not a job of 324.
	static constexpr size_t kDenseRanksPerLink = 8;

	StagePlayer(const Fabric &fabric, const Router &router);

	// Plays the stages [first, last) of `pattern` (every stage by default)
	// for jobs[0, count) in lock-step. After each stage with at least one
	// flow, visit(t, flows, loads); the loads are cleared after it, and
	// also when the routing (Error(unroutable) for a pair without a path)
	// or `visit` throws.
	template <typename Visit>
	void play(const Pattern &pattern, const Job *jobs, size_t count, Visit &&visit,
		  size_t first = 0, size_t last = SIZE_MAX);
	// Stages in the longest job's pattern.
	static size_t rounds(const Pattern &pattern, const Job *jobs, size_t count);

	const Router &router() const { return router_; }

private:
	// Flows of stage t of the jobs that have one; false when there are none.
	bool stage_flows(const Pattern &pattern, const Job *jobs, size_t count, size_t t);
	class Clear;

	const Router &router_;
	LinkLoads loads_;
	std::vector<Flow> flows_;
	std::vector<RankPair> pairs_;
};

class StagePlayer::Clear {
public:
	explicit Clear(LinkLoads &loads) : loads_(loads) {}
	Clear(const Clear &) = delete;
	Clear &operator=(const Clear &) = delete;
	~Clear() { loads_.clear(); }

private:
	LinkLoads &loads_;
};

template <typename Visit>
void StagePlayer::play(const Pattern &pattern, const Job *jobs, size_t count, Visit &&visit,
		       size_t first, size_t last)
{
	// Sparse unless the flows of a stage (a few links each) would touch
	// most links anyway.
	size_t ranks = 0;
	for (size_t i = 0; i < count; i++)
		ranks += jobs[i].ranks.size();
	loads_.set_sparse(ranks * kDenseRanksPerLink < loads_.links());
	Clear guard(loads_);
	last = std::min(last, rounds(pattern, jobs, count));
	for (size_t t = first; t < last; t++) {
		if (!stage_flows(pattern, jobs, count, t))
			continue;
		loads_.clear();
		router_.add_loads(flows_.data(), flows_.size(), loads_);
		visit(t, flows_, static_cast<const LinkLoads &>(loads_));
	}
}

} // namespace qft

#endif
