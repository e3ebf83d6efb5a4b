// SPDX-License-Identifier: GPL-2.0-or-later
// lib/lid's per-pair choice and what it meets: the running jobs' flows,
// stage by stage.
//
// A Shift stage is a permutation; on a destination-routed fat tree a
// flow's offset picks its up-ports (lib/route/tree_router.hpp shift()),
// so choosing the stage's offsets is a list edge colouring: on two levels
// of the leaf-to-leaf multigraph, colours the roots, each flow's list the
// roots its offsets reach (Konig: degree-many colours suffice when every
// list holds every root; Galvin: lists as long as the degree do). On
// three levels the colouring nests (pod then spine). No closed form
// covers lists shorter than the degree, other routings, or running jobs
// beside, so the search is general and works on paths: a greedy
// colouring, then for each flow still congested an ejection chain (the
// Kempe chain of edge colouring, which reaches Konig's colouring where a
// flow-by-flow move cannot), then, for a stage still congested, an
// exhaustive search within a budget (lib/lid/stage_exact.hpp: on three
// levels the chains stop where full leaves need perfect matchings), then
// a min-conflicts walk with breakout's weights for what stays congested,
// then the exhaustive search again on neighbourhoods of a hundred flows
// around what is still congested, the rest held.
// Measured in docs/lid-offsets.md; contribs/bench/lid_bound computes the
// exact per-stage optimum to hold it against.
#ifndef QFT_LID_PAIR_SEARCH_HPP
#define QFT_LID_PAIR_SEARCH_HPP

#include <algorithm>
#include <cstdint>
#include <vector>

#include "lib/fabric/fabric.hpp"
#include "lib/route/router.hpp"
#include "lib/score/stages.hpp"
#include "lib/traffic/pattern.hpp"

namespace qft {

struct LidTable;

// The running jobs' link loads at each stage t, as score_jobs plays them
// in lock-step beside a new job (each job's stage t, its own offsets).
class Beside {
public:
	// Borrows everything; `jobs` may be null (nothing beside).
	Beside(const Fabric &fabric, const Router &router, const Pattern &pattern,
	       const std::vector<Job> *jobs);
	bool empty() const { return jobs_ == nullptr || jobs_->empty(); }
	// The loads of stage t; valid until the next call.
	const LinkLoads &stage(size_t t);
	// The same jobs with loads of its own (one per thread of search_pairs).
	Beside fresh() const { return Beside(fabric_, router_, pattern_, jobs_); }

private:
	const Fabric &fabric_;
	const Router &router_;
	const Pattern &pattern_;
	const std::vector<Job> *jobs_;
	LinkLoads loads_;
	StagePlayer player_;
};

struct PairSearchOptions {
	// An ejection chain: flows moved at most, offsets tried at most (on
	// the demo tree a chain rarely needs 10 moves; 8x both changed no
	// figure of bench_lid's).
	unsigned depth = 24, budget = 512;
	// The walk after the chains and the exhaustive search, in a stage
	// that search did not prove congested: steps per new flow of the
	// stage, and at most `walk_total` for the whole job (about a
	// microsecond each, as the search's). 100 steps: beside the running
	// jobs of docs/lid-offsets.md's cases the mean HSD of a 300-node job
	// fell from 1.72 to 1.42 for 2.3 times the time; 300 gave 1.33.
	unsigned walk = 100;
	size_t walk_total = size_t(1) << 25;
	// Then an exhaustive search of the stage (lib/lid/stage_exact.hpp):
	// steps per new flow at most (0: none), and at most `exact_total` for
	// the whole job (about a microsecond each: a 1500-node job that
	// spends them all takes half a minute more, off slurmctld's locks).
	size_t exact = 24;
	size_t exact_total = size_t(1) << 25;
	// Then, in a stage the walk left congested, large neighbourhoods
	// (lns()): `lns` rounds, each routing again up to `lns_flows` new
	// flows around a congested one by that exhaustive search (`exact`
	// steps per flow; none when `exact` is 0), at most `lns_total` rounds
	// for the whole job. On n[0001-0905] of the 1944-host tree at LMC 4
	// (docs/lid-offsets.md) it frees 21 of the 164 stages the rest left
	// undecided, for 1.5 times the CPU; 256 flows freed 29 for 7 times.
	unsigned lns = 100;
	size_t lns_flows = 128;
	size_t lns_total = size_t(1) << 16;
	// ... and no more once a search's thread has spent `lns_probe` rounds
	// per free neighbourhood found, and one more probe: on the 4536-host
	// tree at LMC 3 a 905-node job's rounds freed 1 stage of 355 for 1.8
	// times the CPU; on the 1944-host tree at LMC 4, 21 of 344, at least
	// one in 780 rounds.
	size_t lns_probe = 2000;
	// Hall's condition in that search for stages of at most this many
	// flows: up to 256 nodes it made 96.4% of the mixed stream's congested
	// jobs free, against 92.9%, in 36 ms per job; on n[0100-0799] of the
	// 1944-host tree it gave 1.253 against 1.270 at 8 times the time (35 s).
	size_t hall_flows = 256;
	// In a stage still congested, move new flows off the running jobs'
	// links where that keeps the stage's busiest link (spare()).
	bool spare = true;
	uint64_t seed = 1; // ties are broken at random, reproducibly
	// Threads that search stages side by side, when no pair of ranks
	// comes back in a later stage (Shift: each pair is in one stage, so
	// its stages are independent): thread k takes stages k, k + threads,
	// ... with seed + k and exact_total / threads of the steps. The
	// offsets depend on `threads`, not on the machine; 1 as before.
	unsigned threads = 1;
};

// What the search proved about the job beside the running jobs: a stage
// where a count finds more flows than links where they must pass
// (stage_crowded()), or whose exhaustive search (lib/lid/stage_exact.hpp)
// ran out of choices, not of steps, has no routing of one flow per link
// that keeps off the links the running jobs load: whatever the offsets,
// its busiest link carries 2 flows or more. Counted only in stages whose
// pairs are all new (Shift's every stage), where no offset was fixed by
// an earlier stage. A floor, not the optimum: a stage not proven may
// still congest.
struct PairFloor {
	enum : uint8_t { no_flow, free, congested, undecided };
	// By stage of the pattern: no flow, routed free, proven to congest,
	// left congested without a proof.
	std::vector<uint8_t> stage;
	size_t count(uint8_t what) const
	{
		return size_t(std::count(stage.begin(), stage.end(), what));
	}
	size_t stages() const { return stage.size() - count(no_flow); }
	// A floor under the job's mean HSD (score_jobs' job_hsd beside the
	// running jobs) that no choice of offsets gets below: each proven
	// stage counts 2, every other 1.
	double hsd() const
	{
		const size_t n = stages();
		return n ? 1.0 + double(count(congested)) / double(n) : 1.0;
	}
};

// Whether every ordered pair of distinct ranks of `n` is in one stage of
// `pattern` at most (Shift, recursive doubling: yes; random permutations:
// no): then a pair's offset is chosen in its stage alone, and stages can
// be searched apart.
bool pairs_in_one_stage(const Pattern &pattern, uint32_t n);

// Fills t.pair (t.hosts, t.offsets set) and t.floor: every stage of
// `pattern` in turn; a pair's first stage chooses its offset, later ones
// keep it (an RC connection has one path). `start`: each new pair's
// first offset, that of its destination (a dest choice), improved from
// there; empty: greedy.
void search_pairs(const Fabric &fabric, const Router &router, const Pattern &pattern,
		  LidTable &t, const std::vector<uint8_t> &start, Beside &beside,
		  const PairSearchOptions &opt = PairSearchOptions());

} // namespace qft

#endif
