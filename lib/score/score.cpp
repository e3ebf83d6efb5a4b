// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/score/score.hpp"

#include <algorithm>
#include <exception>
#include <thread>

#include "lib/common/error.hpp"

namespace qft {

namespace {

// Fewer stages per thread do not pay for starting it.
constexpr size_t kStagesPerThread = 64;

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
	// A striped job's flows are fractions: lib/lid scores it.
	if (job.lid_choice == LidChoice::stripe)
		fail(Status::invalid, "job ", index, ": striped LIDs are scored by score_lids()");
	const size_t n = job.ranks.size();
	const size_t want = job.lid_choice == LidChoice::pair ? n * n : n;
	if (!job.offsets.empty() && job.offsets.size() != want)
		fail(Status::invalid, "job ", index, ": ", job.offsets.size(),
		     " LID offsets for ", n, " ranks, expected ", want);
	for (uint8_t o : job.offsets)
		if (o >= router.offsets())
			fail(Status::invalid, "job ", index, ": LID offset ", unsigned(o),
			     ", expected 0..", router.offsets() - 1);
}

// Mean over flows of 1 / (flows on the busiest link of its path).
double bandwidth_share(const Router &router, const std::vector<Flow> &flows,
		       const LinkLoads &loads)
{
	PortIdx path[kMaxPathLinks];
	double sum = 0;
	for (const Flow &fl : flows) {
		unsigned len = router.path(fl.src, fl.dst, fl.offset, path);
		uint32_t worst = 1;
		for (unsigned k = 0; k < len; k++)
			worst = std::max(worst, loads[path[k]]);
		sum += 1.0 / worst;
	}
	return sum;
}

// Directed links that flows of more than one job cross: each job played
// alone, the first job seen on each link, a second one makes it shared.
long shared_links(StagePlayer &player, const Pattern &pattern, const std::vector<Job> &jobs,
		  size_t links)
{
	constexpr uint32_t kUnseen = UINT32_MAX, kShared = UINT32_MAX - 1;
	std::vector<uint32_t> first(links, kUnseen);
	long shared = 0;
	for (size_t j = 0; j < jobs.size(); j++)
		player.play(pattern, &jobs[j], 1,
			    [&](size_t, const std::vector<Flow> &, const LinkLoads &loads) {
				    loads.for_each([&](PortIdx l) {
					    uint32_t &f = first[l];
					    if (f == kUnseen) {
						    f = uint32_t(j);
					    } else if (f != j && f != kShared) {
						    f = kShared;
						    shared++;
					    }
				    });
			    });
	return shared;
}

// The `keep` links with the highest peaks (then the most stages at it).
std::vector<LinkPeak> worst_links(const LinkPeaks &peaks, size_t keep)
{
	std::vector<PortIdx> order = peaks.links();
	keep = std::min(keep, order.size());
	std::partial_sort(order.begin(), order.begin() + keep, order.end(),
			  [&](PortIdx a, PortIdx b) {
				  if (peaks.peak(a) != peaks.peak(b))
					  return peaks.peak(a) > peaks.peak(b);
				  if (peaks.peak_stages(a) != peaks.peak_stages(b))
					  return peaks.peak_stages(a) > peaks.peak_stages(b);
				  return a < b;
			  });
	std::vector<LinkPeak> out;
	for (size_t i = 0; i < keep; i++)
		out.push_back({order[i], peaks.peak(order[i]), peaks.peak_stages(order[i])});
	return out;
}

// What one thread finds over its range of stages.

struct Part {
	explicit Part(size_t links) : peaks(links) {}
	struct Stage {
		size_t t;
		uint32_t hsd;
		size_t flows;
	};
	std::vector<Stage> stages;
	LinkPeaks peaks;
	std::vector<uint64_t> job_sum, job_stages; // per_job: by job
	double bw_sum = 0;
	uint64_t bw_flows = 0;
	std::exception_ptr error;
};

// One stage into Part::job_sum: each job's busiest link among those its
// flows cross (every job's flows counted on it).
void add_job_worst(const Router &router, const std::vector<Flow> &flows, const LinkLoads &loads,
		   const std::vector<uint32_t> &job_of, std::vector<uint32_t> &stage_worst,
		   Part &part)
{
	PortIdx path[kMaxPathLinks];
	for (const Flow &fl : flows) {
		const uint32_t j = job_of[fl.src];
		const unsigned len = router.path(fl.src, fl.dst, fl.offset, path);
		uint32_t worst = 1;
		for (unsigned k = 0; k < len; k++)
			worst = std::max(worst, loads[path[k]]);
		stage_worst[j] = std::max(stage_worst[j], worst);
	}
	for (size_t j = 0; j < stage_worst.size(); j++)
		if (stage_worst[j]) {
			part.job_sum[j] += stage_worst[j];
			part.job_stages[j]++;
			stage_worst[j] = 0;
		}
}

void play_part(const Fabric &fabric, const Router &router, const Pattern &pattern,
	       const std::vector<Job> &jobs, const ScoreOptions &opt, size_t first, size_t last,
	       Part &part)
{
	StagePlayer player(fabric, router);
	// per_job: each flow's job by its source (no host is in two jobs)
	std::vector<uint32_t> job_of;
	std::vector<uint32_t> stage_worst;
	if (opt.per_job) {
		job_of.assign(fabric.hosts().size(), UINT32_MAX);
		for (size_t j = 0; j < jobs.size(); j++)
			for (HostOrd h : jobs[j].ranks)
				job_of[h] = uint32_t(j);
		part.job_sum.assign(jobs.size(), 0);
		part.job_stages.assign(jobs.size(), 0);
		stage_worst.assign(jobs.size(), 0);
	}
	player.play(
		pattern, jobs.data(), jobs.size(),
		[&](size_t t, const std::vector<Flow> &flows, const LinkLoads &loads) {
			if (opt.observer)
				opt.observer(t, flows, loads.dense());
			if (opt.per_job)
				add_job_worst(router, flows, loads, job_of, stage_worst, part);
			if (opt.bandwidth) {
				part.bw_sum += bandwidth_share(router, flows, loads);
				part.bw_flows += flows.size();
			}
			if (opt.worst_links)
				part.peaks.add(loads);
			part.stages.push_back({t, loads.max(), flows.size()});
		},
		first, last);
}


// Plays the stages on `threads` threads, each a range of them.
std::vector<Part> play_parts(const Fabric &fabric, const Router &router, const Pattern &pattern,
			     const std::vector<Job> &jobs, const ScoreOptions &opt, size_t threads)
{
	const size_t rounds = StagePlayer::rounds(pattern, jobs.data(), jobs.size());
	threads = std::min(threads, std::max<size_t>(rounds / kStagesPerThread, 1));
	std::vector<Part> parts(threads, Part(opt.worst_links ? fabric.port_count() : 0));
	auto run = [&](size_t k) {
		try {
			play_part(fabric, router, pattern, jobs, opt, k * rounds / threads,
				  (k + 1) * rounds / threads, parts[k]);
		} catch (...) {
			parts[k].error = std::current_exception();
		}
	};
	std::vector<std::thread> workers;
	for (size_t k = 1; k < threads; k++)
		workers.emplace_back(run, k);
	run(0);
	for (std::thread &w : workers)
		w.join();
	for (const Part &part : parts)
		if (part.error)
			std::rethrow_exception(part.error);
	return parts;
}

// The parts' stages in order, as one score.
Score sum_parts(std::vector<Part> &parts, const ScoreOptions &opt)
{
	Score sc;
	uint64_t hsd_sum = 0, bw_flows = 0;
	double bw_sum = 0;
	for (size_t k = 0; k < parts.size(); k++) {
		for (const Part::Stage &st : parts[k].stages) {
			sc.stages++;
			sc.flows += st.flows;
			sc.stage_hsd.push_back(st.hsd);
			hsd_sum += st.hsd;
			if (st.hsd > sc.max_hsd) {
				sc.max_hsd = st.hsd;
				sc.max_hsd_stage = st.t;
			}
			sc.congested_stages += st.hsd > 1;
		}
		bw_sum += parts[k].bw_sum;
		bw_flows += parts[k].bw_flows;
		if (k)
			parts[0].peaks.merge(parts[k].peaks);
	}
	if (opt.per_job && !parts.empty()) {
		const size_t jobs = parts[0].job_sum.size();
		sc.job_hsd.assign(jobs, 1.0);
		for (size_t j = 0; j < jobs; j++) {
			uint64_t sum = 0, stages = 0;
			for (const Part &part : parts) {
				sum += part.job_sum[j];
				stages += part.job_stages[j];
			}
			if (stages)
				sc.job_hsd[j] = double(sum) / double(stages);
		}
	}
	if (sc.stages)
		sc.avg_hsd = double(hsd_sum) / double(sc.stages);
	if (opt.bandwidth && bw_flows)
		sc.bandwidth = bw_sum / double(bw_flows);
	sc.worst_links = worst_links(parts[0].peaks, opt.worst_links);
	return sc;
}

} // namespace

Score score_jobs(const Fabric &fabric, const Router &router,
		 const Pattern &pattern, const std::vector<Job> &jobs,
		 const ScoreOptions &opt)
{
	for (size_t i = 0; i < jobs.size(); i++)
		check_job(fabric, router, jobs[i], i);
	// Stages are independent: threads play ranges of them. The observer
	// sees them in order, on one.
	const size_t threads = opt.observer ? 1 : std::max<size_t>(opt.threads, 1);
	std::vector<Part> parts = play_parts(fabric, router, pattern, jobs, opt, threads);
	Score sc = sum_parts(parts, opt);
	sc.pattern = pattern.name();
	if (opt.shared_links) {
		StagePlayer player(fabric, router);
		sc.shared_links = shared_links(player, pattern, jobs, fabric.port_count());
	}
	return sc;
}

} // namespace qft
