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

	size_t links = fabric.port_count();
	bool track_peaks = opt.worst_links > 0;
	std::vector<uint32_t> load(links, 0);
	std::vector<uint32_t> peak(track_peaks ? links : 0, 0);
	std::vector<uint32_t> peak_stages(track_peaks ? links : 0, 0);
	std::vector<RankPair> pairs;
	std::vector<Flow> flows;
	PortIdx path[kMaxPathLinks];
	double bw_sum = 0;
	uint64_t bw_flows = 0, hsd_sum = 0;

	for (size_t t = 0; t < rounds; t++) {
		flows.clear();
		for (const Job &job : jobs) {
			uint32_t n = uint32_t(job.ranks.size());
			if (t >= pattern.stage_count(n))
				continue;
			pattern.stage(n, t, pairs);
			size_t at = flows.size();
			flows.resize(at + pairs.size());
			Flow *out = flows.data() + at;
			const HostOrd *ranks = job.ranks.data();
			if (job.offsets.empty()) {
				for (size_t k = 0; k < pairs.size(); k++)
					out[k] = {ranks[pairs[k].src], ranks[pairs[k].dst], 0};
			} else {
				bool by_src = job.lid_choice == LidChoice::source;
				for (size_t k = 0; k < pairs.size(); k++) {
					const RankPair &pr = pairs[k];
					out[k] = {ranks[pr.src], ranks[pr.dst],
						  job.offsets[by_src ? pr.src : pr.dst]};
				}
			}
		}
		if (flows.empty())
			continue;
		router.add_loads(flows.data(), flows.size(), load.data());
		if (opt.observer)
			opt.observer(t, flows, load);
		if (opt.bandwidth) {
			for (const Flow &fl : flows) {
				unsigned len = router.path(fl.src, fl.dst, fl.offset, path);
				uint32_t worst = 1;
				for (unsigned k = 0; k < len; k++)
					worst = std::max(worst, load[path[k]]);
				bw_sum += 1.0 / worst;
			}
			bw_flows += flows.size();
		}
		// One pass over all links: the stage's HSD, each link's peak and
		// the stages at that peak, and the reset for the next stage.
		// Runs links x stages times: kept branch-free so that it vectorises,
		// and per-link peaks are tracked only when a report wants them.
		uint32_t stage_max = 0;
		uint32_t *ld = load.data();
		if (track_peaks) {
			uint32_t *pk = peak.data(), *ps = peak_stages.data();
			for (size_t l = 0; l < links; l++) {
				uint32_t c = ld[l], p = pk[l];
				stage_max = c > stage_max ? c : stage_max;
				uint32_t same = uint32_t(c == p) & uint32_t(c != 0);
				ps[l] = c > p ? 1u : ps[l] + same;
				pk[l] = c > p ? c : p;
				ld[l] = 0;
			}
		} else {
			for (size_t l = 0; l < links; l++) {
				stage_max = ld[l] > stage_max ? ld[l] : stage_max;
				ld[l] = 0;
			}
		}
		sc.stages++;
		sc.flows += flows.size();
		sc.stage_hsd.push_back(stage_max);
		hsd_sum += stage_max;
		if (stage_max > sc.max_hsd) {
			sc.max_hsd = stage_max;
			sc.max_hsd_stage = t;
		}
		if (stage_max > 1)
			sc.congested_stages++;
	}
	if (opt.shared_links) {
		// The first job seen on each link; a second one makes it shared.
		std::vector<uint32_t> first(links, UINT32_MAX);
		sc.shared_links = 0;
		for (size_t j = 0; j < jobs.size(); j++) {
			uint32_t n = uint32_t(jobs[j].ranks.size());
			for (size_t t = 0; t < pattern.stage_count(n); t++) {
				pattern.stage(n, t, pairs);
				for (const RankPair &pr : pairs) {
					unsigned len = router.path(jobs[j].ranks[pr.src],
								   jobs[j].ranks[pr.dst], 0, path);
					for (unsigned k = 0; k < len; k++) {
						uint32_t &f = first[path[k]];
						if (f == UINT32_MAX)
							f = uint32_t(j);
						else if (f != j && f != UINT32_MAX - 1) {
							f = UINT32_MAX - 1; // counted
							sc.shared_links++;
						}
					}
				}
			}
		}
	}
	if (sc.stages)
		sc.avg_hsd = double(hsd_sum) / double(sc.stages);
	if (opt.bandwidth && bw_flows)
		sc.bandwidth = bw_sum / double(bw_flows);

	std::vector<PortIdx> order;
	for (PortIdx l = 0; l < PortIdx(peak.size()); l++)
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
