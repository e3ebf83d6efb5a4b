// SPDX-License-Identifier: GPL-2.0-or-later
// Congestion of collective traffic under a routing (seed 000 sections II
// and VII): every stage's flows are routed, flows are counted per directed
// link, and a stage's hot-spot degree (HSD) is the largest count on any
// link. The paper's figure of merit is the average over stages of the
// per-stage HSD; 1.0 means no stage congests anywhere.
//
// Several jobs are scored together, in lock-step (lib/score/stages.hpp).
#ifndef QFT_SCORE_SCORE_HPP
#define QFT_SCORE_SCORE_HPP

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lib/fabric/fabric.hpp"
#include "lib/route/router.hpp"
#include "lib/score/stages.hpp"
#include "lib/traffic/pattern.hpp"

namespace qft {

struct LinkPeak {
	PortIdx link;          // sending port
	uint32_t peak;         // largest number of flows seen in one stage
	uint32_t peak_stages;  // stages in which it carried `peak` flows
};

// Sees every stage's flows and link loads (indexed by sending port) before
// they are cleared: for reports that need more than the maxima.
using StageObserver = std::function<void(size_t stage, const std::vector<Flow> &flows,
					 const std::vector<uint32_t> &load)>;

struct ScoreOptions {
	// How many worst links to report; 0 skips the per-link peak tracking.
	size_t worst_links = 0;
	bool bandwidth = false;     // also compute the mean flow bandwidth
	bool shared_links = false;  // also count links shared between jobs
	// Also each job's HSD beside the others (Score::job_hsd).
	bool per_job = false;
	StageObserver observer;     // optional; plays on one thread
	// Threads that play stages (ranges of them) at once; the figures do
	// not depend on it. The plugins keep 1: slurmctld's locks are one
	// thread's.
	size_t threads = 1;
};

struct Score {
	std::string pattern;
	size_t stages = 0;              // stages with at least one flow
	uint64_t flows = 0;
	double avg_hsd = 0;             // mean over stages of the stage HSD
	uint32_t max_hsd = 0;
	size_t max_hsd_stage = 0;       // first stage reaching max_hsd
	size_t congested_stages = 0;    // stages with HSD > 1
	std::vector<uint32_t> stage_hsd;
	std::vector<LinkPeak> worst_links;
	// Mean over flows of 1 / (flows on the busiest link of its path), the
	// share of link bandwidth each flow gets when links are shared fairly;
	// over random bisection pairings this is the effective bisection
	// bandwidth of seed 003. Negative when not computed.
	double bandwidth = -1;
	// Directed links that flows of more than one job cross, over all
	// stages: where jobs can interfere at all. Negative when not computed.
	long shared_links = -1;
	// With ScoreOptions::per_job, by job: the mean over the job's own
	// stages of the busiest link any of its flows crosses, counting every
	// job's flows on it: what the job meets beside the others (its HSD
	// alone when no other job uses its links).
	std::vector<double> job_hsd;
};

// Scores jobs together. Each job must have distinct hosts (throws
// Error(invalid) naming a repeated host) and offsets within the routing's.
Score score_jobs(const Fabric &fabric, const Router &router,
		 const Pattern &pattern, const std::vector<Job> &jobs,
		 const ScoreOptions &opt = ScoreOptions());

} // namespace qft

#endif
