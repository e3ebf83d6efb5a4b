// SPDX-License-Identifier: GPL-2.0-or-later
// Benchmark: time to score every Shift stage of a full-tree job under
// closed-form D-Mod-K, one core. Prints figures; it asserts nothing (CI
// machines are noisy). Baseline in the same run: the 1944-host figure per
// flow against the 5832-host one, and the build cost of the router.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
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
	double score_ms, route_build_ms;
	uint64_t flows;
};

Figure run(const char *tuple, int reps)
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
	std::vector<double> times;
	Score sc;
	for (int i = 0; i < reps; i++) {
		t0 = Clock::now();
		sc = score_jobs(f, r, *shift, {job});
		times.push_back(ms_since(t0));
	}
	std::sort(times.begin(), times.end());
	double med = times[times.size() / 2];
	std::printf("PGFT(%s): %zu hosts, %zu Shift stages, %llu flows, avg HSD %.3f\n"
		    "  score: median %.1f ms of %d runs (min %.1f, max %.1f), %.2f ns/flow; "
		    "router build %.1f ms\n",
		    tuple, f.hosts().size(), sc.stages, (unsigned long long)sc.flows,
		    sc.avg_hsd, med, reps, times.front(), times.back(),
		    med * 1e6 / double(sc.flows), build);
	return {med, build, sc.flows};
}

} // namespace

int main(int argc, char **argv)
{
	int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;
	std::printf("qft bench: Shift scoring under closed-form D-Mod-K, one core\n");
	Figure a = run("3;18,18,6;1,18,6;1,1,3", reps);
	Figure b = run("3;18,18,18;1,18,9;1,1,2", std::max(1, reps / 2));
	std::printf("target: 1944-host full Shift <= 50 ms: %s (%.1f ms)\n",
		    a.score_ms <= 50 ? "met" : "NOT met", a.score_ms);
	std::printf("scaling 1944 -> 5832 hosts: flows x%.2f, time x%.2f, per-flow cost x%.2f\n",
		    double(b.flows) / double(a.flows), b.score_ms / a.score_ms,
		    (b.score_ms / double(b.flows)) / (a.score_ms / double(a.flows)));
	return 0;
}
