// SPDX-License-Identifier: GPL-2.0-or-later
// A score as people read it (text) and as programs read it (JSON), one
// place for both so the tool, the plugins and the simulation agree.
#ifndef QFT_SCORE_REPORT_HPP
#define QFT_SCORE_REPORT_HPP

#include <string>
#include <vector>

#include "lib/score/score.hpp"

namespace qft {

// A pair choice's floor as reported: the least HSD any offsets give,
// from the stages proven to congest, and the stages left undecided.
struct LidFloor {
	double hsd = -1;
	size_t stages = 0, congested = 0, undecided = 0;
};

struct ScoreContext {
	std::string routing;   // "dmodk"
	std::string order;     // "tree", "given", "random:7"
	size_t jobs = 1;
	size_t hosts = 0;      // over all jobs
	// With a pair LID choice, by job: what its search proved beside the
	// jobs before it (lib/lid/pair_search.hpp PairFloor); hsd negative
	// for a job that kept its offsets. Empty: no pair choice made.
	std::vector<LidFloor> lid_floor;
};

std::string score_text(const Fabric &fabric, const Score &score,
		       const ScoreContext &ctx);
// Schema: {"pattern", "routing", "order", "jobs", "hosts", "stages",
// "flows", "avg_hsd", "max_hsd", "max_hsd_stage", "congested_stages",
// "bandwidth" (or null), "shared_links" (or null), "job_hsd" (with
// per_job), "lid_floor" (with a pair choice, by job: {"hsd", "stages",
// "congested", "undecided"}, or null for a job that did not choose),
// "worst_links": [{"from", "to", "peak",
// "peak_stages"}]}.
std::string score_json(const Fabric &fabric, const Score &score,
		       const ScoreContext &ctx);

} // namespace qft

#endif
