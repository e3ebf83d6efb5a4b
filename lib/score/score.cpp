// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/score/score.hpp"

#include <algorithm>

#include "lib/common/error.hpp"

namespace qft {

namespace {

void check_job(const Fabric &fabric, const Router &router, const Job &job,
	       size_t index)
{
	std::vector<bool> seen(fabric.hosts().size(), false);
	for (HostOrd h : job.ranks) {
		if (h >= seen.size())
			fail(Status::invalid, "job ", index, ": host ordinal ", h,
			     " out of range");
		if (seen[h])
			fail(Status::invalid, "job ", index, ": host ",
			     fabric.node_label(fabric.hosts()[h]), " appears twice");
		seen[h] = true;
	}
	if (!job.offsets.empty() && job.offsets.size() != job.ranks.size())
		fail(Status::invalid, "job ", index, ": ", job.offsets.size(),
		     " LID offsets for ", job.ranks.size(), " ranks");
	for (uint8_t o : job.offsets)
		if (o >= router.offsets())
			fail(Status::invalid, "job ", index, ": LID offset ", unsigned(o),
			     ", expected 0..", router.offsets() - 1);
}

} // namespace

Score score_jobs(const Fabric &fabric, const Router &router,
		 const Pattern &pattern, const std::vector<Job> &jobs,
		 const ScoreOptions &opt)
{
	for (size_t i = 0; i < jobs.size(); i++)
		check_job(fabric, router, jobs[i], i);

	Score sc;
	sc.pattern = pattern.name();
	size_t rounds = 0;
	for (const Job &j : jobs)
		rounds = std::max(rounds, pattern.stage_count(uint32_t(j.ranks.size())));

	std::vector<uint32_t> load(fabric.port_count(), 0);
	std::vector<uint32_t> peak(fabric.port_count(), 0);
	std::vector<uint32_t> peak_stages(fabric.port_count(), 0);
	std::vector<RankPair> pairs;
	// The links of every flow of the current stage, kept when bandwidth is
	// wanted (a second pass needs the final loads of the stage).
	std::vector<PortIdx> stage_links;
	std::vector<uint8_t> stage_lens;
	PortIdx links[kMaxPathLinks];
	double bw_sum = 0;
	uint64_t bw_flows = 0, hsd_sum = 0;

	for (size_t t = 0; t < rounds; t++) {
		std::fill(load.begin(), load.end(), 0);
		uint32_t stage_max = 0;
		uint64_t stage_flows = 0;
		stage_links.clear();
		stage_lens.clear();
		for (const Job &job : jobs) {
			uint32_t n = uint32_t(job.ranks.size());
			if (t >= pattern.stage_count(n))
				continue;
			pattern.stage(n, t, pairs);
			for (const RankPair &pr : pairs) {
				unsigned offset = 0;
				if (!job.offsets.empty())
					offset = job.offsets[job.lid_choice == LidChoice::source
								     ? pr.src
								     : pr.dst];
				unsigned len = router.path(job.ranks[pr.src], job.ranks[pr.dst],
							   offset, links);
				for (unsigned k = 0; k < len; k++) {
					PortIdx l = links[k];
					uint32_t c = ++load[l];
					stage_max = std::max(stage_max, c);
					// A link's count passes each value once per stage, so
					// meeting the peak again counts one more peak stage.
					if (c > peak[l]) {
						peak[l] = c;
						peak_stages[l] = 1;
					} else if (c == peak[l]) {
						peak_stages[l]++;
					}
				}
				if (opt.bandwidth) {
					stage_links.insert(stage_links.end(), links, links + len);
					stage_lens.push_back(uint8_t(len));
				}
				stage_flows++;
			}
		}
		if (stage_flows == 0)
			continue;
		if (opt.bandwidth) {
			size_t at = 0;
			for (uint8_t len : stage_lens) {
				uint32_t worst = 1;
				for (unsigned k = 0; k < len; k++)
					worst = std::max(worst, load[stage_links[at + k]]);
				at += len;
				bw_sum += 1.0 / worst;
				bw_flows++;
			}
		}
		sc.stages++;
		sc.flows += stage_flows;
		sc.stage_hsd.push_back(stage_max);
		hsd_sum += stage_max;
		if (stage_max > sc.max_hsd) {
			sc.max_hsd = stage_max;
			sc.max_hsd_stage = t;
		}
		if (stage_max > 1)
			sc.congested_stages++;
	}
	if (sc.stages)
		sc.avg_hsd = double(hsd_sum) / double(sc.stages);
	if (opt.bandwidth && bw_flows)
		sc.bandwidth = bw_sum / double(bw_flows);

	std::vector<PortIdx> order;
	for (PortIdx l = 0; l < peak.size(); l++)
		if (peak[l] > 0)
			order.push_back(l);
	size_t keep = std::min(opt.worst_links, order.size());
	std::partial_sort(order.begin(), order.begin() + keep, order.end(),
			  [&](PortIdx a, PortIdx b) {
				  if (peak[a] != peak[b])
					  return peak[a] > peak[b];
				  if (peak_stages[a] != peak_stages[b])
					  return peak_stages[a] > peak_stages[b];
				  return a < b;
			  });
	for (size_t i = 0; i < keep; i++)
		sc.worst_links.push_back({order[i], peak[order[i]], peak_stages[order[i]]});
	return sc;
}

} // namespace qft
