// SPDX-License-Identifier: GPL-2.0-or-later
// Benchmark: time to score every Shift stage of a full-tree job under
// closed-form D-Mod-K, on one thread and on one per core. Prints figures; it asserts nothing (CI
// machines are noisy). Baseline in the same run: the 1944-host figure per
// flow against the 5832-host one, and the build cost of the router.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "lib/route/dmodk.hpp"
#include "lib/score/score.hpp"
#include "lib/traffic/pattern.hpp"
#include "lib/tree/generate.hpp"
#include "lib/tree/tree.hpp"

using namespace qft;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t0)
{
	return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

struct Figure {
	double score_ms, threaded_ms, route_build_ms;
	uint64_t flows;
};

// Median of `reps` full-job scorings on `threads` threads, in ms.
double median_ms(const Fabric &f, const Router &r, const Pattern &p, const Job &job, int reps,
		 size_t threads, Score &sc)
{
	ScoreOptions opt;
	opt.threads = threads;
	std::vector<double> times;
	for (int i = 0; i < reps; i++) {
		auto t0 = Clock::now();
		sc = score_jobs(f, r, p, {job}, opt);
		times.push_back(ms_since(t0));
	}
	std::sort(times.begin(), times.end());
	return times[times.size() / 2];
}

Figure run(const char *tuple, int reps, size_t threads)
{
	Fabric f = generate_pgft(Pgft::parse(tuple), GenOptions());
	Tree t = Tree::from_fabric(f);
	auto t0 = Clock::now();
	DModK r(f, t);
	double build = ms_since(t0);
	auto shift = make_pattern("shift", nullptr);
	Job job;
	for (HostOrd h = 0; h < f.hosts().size(); h++)
		job.ranks.push_back(h);
	Score sc;
	const double one = median_ms(f, r, *shift, job, reps, 1, sc);
	const double many = median_ms(f, r, *shift, job, reps, threads, sc);
	std::printf("PGFT(%s): %zu hosts, %zu Shift stages, %llu flows, avg HSD %.3f\n"
		    "  score: median of %d runs, one thread %.1f ms (%.2f ns/flow), %zu threads "
		    "%.1f ms (x%.2f); router build %.1f ms\n",
		    tuple, f.hosts().size(), sc.stages, (unsigned long long)sc.flows, sc.avg_hsd,
		    reps, one, one * 1e6 / double(sc.flows), threads, many, one / many, build);
	return {one, many, build, sc.flows};
}

} // namespace

int main(int argc, char **argv)
{
	int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;
	const size_t threads = std::max(1u, std::thread::hardware_concurrency());
	std::printf("qft bench: Shift scoring under closed-form D-Mod-K, one thread and one per core\n");
	Figure a = run("3;18,18,6;1,18,6;1,1,3", reps, threads);
	Figure b = run("3;18,18,18;1,18,9;1,1,2", std::max(1, reps / 2), threads);
	std::printf("target: 1944-host full Shift <= 20 ms: one thread %s (%.1f ms), %zu threads %s (%.1f ms)\n",
		    a.score_ms <= 20 ? "met" : "NOT met", a.score_ms, threads,
		    a.threaded_ms <= 20 ? "met" : "NOT met", a.threaded_ms);
	std::printf("scaling 1944 -> 5832 hosts: flows x%.2f, time x%.2f, per-flow cost x%.2f\n",
		    double(b.flows) / double(a.flows), b.score_ms / a.score_ms,
		    (b.score_ms / double(b.flows)) / (a.score_ms / double(a.flows)));
	return 0;
}
