// SPDX-License-Identifier: GPL-2.0-or-later
// LID choice for a placed job: which of its 2^LMC LIDs each sender uses
// to reach each destination (seed 001; seed 004 for striping). With LMC
// > 0, LID offset k of host j turns the up-port of every level by the
// offset's shift (lib/route/tree_router.hpp), so choosing an offset
// chooses the up-ports the traffic to j takes: a lever for jobs whose
// nodes are not a congestion-free shape.
//
// Modes, from what a stock MPI can carry to what needs the verbs
// interposer (docs/lid-table.md):
// - job: one offset for the whole job (UCX_IB_LID_PATH_BITS applies the
//   same bits to every DLID and SLID), the best of the 2^LMC.
// - dest: one offset per destination, used by every sender (seed 001
//   section 4.2), then improved by local search (below).
// - pair: one offset per ordered pair, chosen stage by stage.
// - stripe: every pair spreads its traffic evenly over all offsets (seed
//   004), for comparison; nothing to enforce, scored with fractional flows.
//
// The choices play the job's pattern through the routing (any Router, so
// Routing=lft too) and are judged by the one scoring engine (lib/score).
#ifndef QFT_LID_LID_HPP
#define QFT_LID_LID_HPP

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/fabric/fabric.hpp"
#include "lib/lid/pair_search.hpp"
#include "lib/route/router.hpp"
#include "lib/score/stages.hpp"
#include "lib/traffic/pattern.hpp"

namespace qft {

class Tree;

enum class LidMode { job, dest, pair, stripe };

const char *lid_mode_name(LidMode mode);
// Throws Error(invalid) listing the modes.
LidMode lid_mode(std::string_view name);

// One job's choice. Offsets are 0 .. offsets-1.
struct LidTable {
	LidMode mode = LidMode::job;
	unsigned offsets = 1;        // 2^LMC of the routing
	std::vector<HostOrd> hosts;  // the job's nodes, rank order
	// job, dest: the offset every sender uses for hosts[b]
	std::vector<uint8_t> dest;
	// pair: [a * hosts + b], the offset hosts[a] uses for hosts[b]
	std::vector<uint8_t> pair;
	// pair: what its search proved no offsets can do better than.
	PairFloor floor;

	// The offset hosts[a] uses for hosts[b] (stripe: none, 0).
	unsigned offset(size_t a, size_t b) const
	{
		if (mode == LidMode::pair)
			return pair[a * hosts.size() + b];
		return mode == LidMode::stripe ? 0 : dest[b];
	}
	// The job the scoring engine plays with these offsets.
	Job job() const;
};

struct LidOptions {
	// Stages of the pattern that judge job and dest (0: all; a sample
	// spread over the pattern otherwise, as the placer does). pair walks
	// every stage: each pair needs an offset.
	size_t max_stages = 0;
	// dest's local search: rounds of re-choosing each destination.
	unsigned rounds = 3;
	// The running jobs, their offsets fixed (their tables do not change):
	// the choice minimises the job's congestion beside them, stage t of
	// the job beside stage t of each of them, as score_jobs plays them in
	// lock-step (lib/score/stages.hpp). Borrowed; null: the job alone.
	const std::vector<Job> *beside = nullptr;
	// pair's search (lib/lid/pair_search.hpp).
	PairSearchOptions pair;
};

// Chooses the offsets of a job on hosts `ranks` (rank order; distinct).
// `tree`, when given with D-Mod-K, seeds dest with seed 001's rule.
// Throws Error(invalid) for a repeated host and Error(unroutable) as the
// routing does.
LidTable choose_lids(const Fabric &fabric, const Router &router, const Tree *tree,
		     const Pattern &pattern, const std::vector<HostOrd> &ranks, LidMode mode,
		     const LidOptions &opt = LidOptions());

struct LidScore {
	size_t stages = 0;       // stages with a flow
	double avg_hsd = 0;      // mean over stages of the busiest link's load
	double max_hsd = 0;
	size_t congested = 0;    // stages above 1
};

// The job's HSD under `table` (stripe: loads in shares of a flow). With
// `beside` (not stripe; every stage, max_stages ignored): its HSD beside
// those jobs, stage t of each in lock-step, the busiest link its own
// flows cross with every job's flows counted (score_jobs' job_hsd when no
// host is in two jobs: what `qft score --per-job` gives the last job of
// a group), which is what its pair choice minimised.
LidScore score_lids(const Fabric &fabric, const Router &router, const Pattern &pattern,
		    const LidTable &table, size_t max_stages = 0,
		    const std::vector<Job> *beside = nullptr);

// The table as docs/lid-table.md writes it.
std::string lid_table_text(const Fabric &fabric, const LidTable &table);

} // namespace qft

#endif
