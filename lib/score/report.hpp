// SPDX-License-Identifier: GPL-2.0-or-later
// A score as people read it (text) and as programs read it (JSON), one
// place for both so the tool, the plugins and the simulation agree.
#ifndef QFT_SCORE_REPORT_HPP
#define QFT_SCORE_REPORT_HPP

#include <string>

#include "lib/score/score.hpp"

namespace qft {

struct ScoreContext {
	std::string routing;   // "dmodk"
	std::string order;     // "tree", "given", "random:7"
	size_t jobs = 1;
	size_t hosts = 0;      // over all jobs
};

std::string score_text(const Fabric &fabric, const Score &score,
		       const ScoreContext &ctx);
// Schema: {"pattern", "routing", "order", "jobs", "hosts", "stages",
// "flows", "avg_hsd", "max_hsd", "max_hsd_stage", "congested_stages",
// "bandwidth" (or null), "worst_links": [{"from", "to", "peak",
// "peak_stages"}]}.
std::string score_json(const Fabric &fabric, const Score &score,
		       const ScoreContext &ctx);

} // namespace qft

#endif
