// SPDX-License-Identifier: GPL-2.0-or-later
// Benchmark, two parts, one core, figures and no asserts:
// 1. one select/rlft placement decision (libqft's placer) with 200 running
//    jobs, at 1944 and 4536 hosts, and on the 4536-host QFT of seed 002's
//    experiment (3;18,9,28;1,9,18;1,2,1: QFT sub-trees and the QFT
//    routing, lib/place/qft_runs.hpp). contribs/bench/select-latency.sh sets
//    the same decisions beside cons_tres's in a real slurmctld.
// 2. what slurmctld waits for under its write locks, through the C API
//    select/rlft calls: job_test (qft_placer_place), job_begin
//    (qft_placer_add_job, then the prediction the job is told) and job_fini
//    (qft_placer_remove_job), for jobs of 2..4536 nodes on an empty tree.
//    With the flow budget (QFT_FLOW_BUDGET) against without it (every
//    sampled stage: 32 per candidate, up to 1024 for the prediction), in
//    the same run. Compiled against a qft.h without QFT_FLOW_BUDGET (the
//    code before the budget), part 2 times that code alone.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <cstdint>
#include <cstdio>
#include <tuple>
#include <vector>

#include "lib/place/placement.hpp"
#include <memory>

#include "lib/route/dmodk.hpp"
#include "lib/route/qft_route.hpp"
#include "lib/tree/generate.hpp"
#include "lib/tree/qft_wiring.hpp"
#include "lib/tree/tree.hpp"
#include "qft/qft.h"

using namespace qft;
using Clock = std::chrono::steady_clock;

namespace {

// Microseconds per call: mean, median, 95th percentile and largest.
struct Micros {
	double mean = 0, median = 0, p95 = 0, max = 0;
	explicit Micros(std::vector<double> us)
	{
		std::sort(us.begin(), us.end());
		for (double x : us)
			mean += x / double(us.size());
		median = us[us.size() / 2];
		p95 = us[us.size() * 95 / 100];
		max = us.back();
	}
};

double us_since(Clock::time_point t0)
{
	return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

// ShapeWait='s search (Placer::shape_ahead) on the same placer: the held
// hosts come free at 200 distinct times (60 s apart, by host ordinal),
// every one probed (no horizon): what select/rlft adds under slurmctld's
// locks when a job would congest.
void shapes_ahead(const Fabric &f, const Placer &placer)
{
	std::vector<double> free_at(f.hosts().size(), 0);
	for (HostOrd h = 0; h < f.hosts().size(); h++)
		free_at[h] = placer.holds(h) ? 60.0 * double(1 + h % 200) : 0;
	PlacementRequest req;
	req.eligible.assign(f.hosts().size(), true);
	std::vector<double> us;
	size_t found = 0;
	double at_sum = 0;
	for (int rep = 0; rep < 5; rep++)
		for (uint32_t n : {100u, 324u, 756u, 37u, 1000u}) {
			req.nodes = n;
			auto t0 = Clock::now();
			std::optional<Placer::Ahead> a = placer.shape_ahead(req, free_at, INFINITY);
			us.push_back(us_since(t0));
			found += a.has_value();
			at_sum += a ? a->at : 0;
		}
	const Micros m(us);
	std::printf("  shape ahead (ShapeWait=), held hosts free at 200 times: %zu searches (%zu found, "
		    "due in %.0f s on average): mean %.0f us, median %.0f us, max %.0f us\n",
		    us.size(), found, found ? at_sum / double(found) : 0.0, m.mean, m.median, m.max);
}

void decisions_with_running_jobs()
{
	std::printf("qft bench: placement decisions with 200 running jobs, one core\n");
	const uint32_t fill[] = {1, 2, 3, 4, 6, 8, 9, 12, 18, 1};
	const uint32_t ask[] = {18, 36, 7, 100, 2, 54, 9, 72, 1, 5};
	const std::pair<const char *, bool> fabrics[] = {{"3;18,18,6;1,18,6;1,1,3", false},
							 {"3;18,18,14;1,18,9;1,1,2", false},
							 {"3;18,9,28;1,9,18;1,2,1", true}};
	for (const auto &[tuple, qft_tree] : fabrics)
	for (bool products : {false, true}) {
		const Fabric f = qft_tree ? generate_qft(Pgft::parse(tuple), GenOptions())
					  : generate_pgft(Pgft::parse(tuple), GenOptions());
		Tree t = Tree::from_fabric(f);
		std::unique_ptr<Router> r;
		if (qft_tree)
			r = std::make_unique<QftRoute>(f, t);
		else
			r = std::make_unique<DModK>(f, t);
		PlacementPolicy pol;
		pol.products = products;
		Placer placer(f, t, *r, pol);
		PlacementRequest req;
		req.eligible.assign(f.hosts().size(), true);
		for (uint32_t id = 1; placer.running() < 200 && id < 1000; id++) {
			req.nodes = fill[id % 10];
			Placement p = placer.place(req);
			if (p.outcome == Placement::placed)
				placer.add_running(id, p.chosen.hosts);
		}
		std::vector<double> us;
		size_t placed = 0;
		for (int rep = 0; rep < 50; rep++)
			for (uint32_t n : ask) {
				req.nodes = n;
				auto t0 = Clock::now();
				Placement p = placer.place(req);
				us.push_back(us_since(t0));
				placed += p.outcome == Placement::placed;
			}
		const Micros m(us);
		std::printf("%sPGFT(%s) %zu hosts, shapes %s, %zu running: %zu decisions (%zu placed): "
			    "mean %.0f us, median %.0f us, p95 %.0f us\n",
			    qft_tree ? "QFT of " : "", tuple, f.hosts().size(), products ? "products" : "blocks", placer.running(),
			    us.size(), placed, m.mean, m.median, m.p95);
		shapes_ahead(f, placer);
	}
}

// 200 running jobs of sizes fill[id % 10], placed by `placer` itself: their
// ids, and their hosts into `held` when given.
void run_jobs(Placer &placer, PlacementRequest &req, const uint32_t (&fill)[10],
	      std::vector<uint32_t> &ids, std::vector<std::vector<HostOrd>> *held)
{
	for (uint32_t id = 1; placer.running() < 200 && id < 1000; id++) {
		req.nodes = fill[id % 10];
		Placement p = placer.place(req);
		if (p.outcome != Placement::placed)
			continue;
		placer.add_running(id, p.chosen.hosts);
		ids.push_back(id);
		if (held)
			held->push_back(p.chosen.hosts);
	}
}

// Isolation (docs/isolation.md) costs job_test a link count per candidate:
// the same decisions as above on the 1944-host tree, beside 200 running jobs
// of which every tenth is isolated (LMC 0 and with LID offsets), asked
// plainly, asking isolation, and as backfill's plan with 50 jobs ended;
// against the same placer with no job isolated, in the same run.
void decisions_beside_isolated_jobs()
{
	const char *tuple = "3;18,18,6;1,18,6;1,1,3";
	std::printf("\nqft bench: isolation, PGFT(%s), 200 running jobs (20 isolated), one core\n",
		    tuple);
	const Fabric f = generate_pgft(Pgft::parse(tuple), GenOptions());
	Tree t = Tree::from_fabric(f);
	DModK r(f, t);
	const uint32_t fill[] = {1, 2, 3, 4, 6, 8, 9, 12, 18, 1};
	const uint32_t ask[] = {18, 36, 7, 100, 2, 54, 9, 72, 1, 5};
	for (bool offsets : {false, true}) {
		PlacementPolicy pol;
		pol.lid_offsets = offsets;
		Placer placer(f, t, r, pol);
		PlacementRequest req;
		req.eligible.assign(f.hosts().size(), true);
		std::vector<uint32_t> ids;
		run_jobs(placer, req, fill, ids, nullptr);
		auto time = [&](bool isolate, size_t ended) {
			std::vector<double> us;
			size_t placed = 0;
			PlacementRequest q = req;
			q.isolate = isolate;
			q.ended.assign(ids.begin(), ids.begin() + std::min(ended, ids.size()));
			for (int rep = 0; rep < 50; rep++)
				for (uint32_t n : ask) {
					q.nodes = n;
					auto t0 = Clock::now();
					Placement p = placer.place(q);
					us.push_back(us_since(t0));
					placed += p.outcome == Placement::placed;
				}
			return std::make_pair(Micros(us), placed);
		};
		const auto [base, base_placed] = time(false, 0);
		for (size_t i = 0; i < ids.size(); i += 10)
			placer.isolate_running(ids[i], true);
		std::printf("  %s: no job isolated: mean %.0f us, median %.0f us, p95 %.0f us (%zu of 500 placed)\n",
			    offsets ? "LID offsets (subtrees apart)" : "LMC 0 (D-Mod-K's links)", base.mean,
			    base.median, base.p95, base_placed);
		const char *what[] = {"beside the isolated jobs", "asking isolation",
				      "backfill's plan, 50 ended"};
		const std::pair<bool, size_t> how[] = {{false, 0}, {true, 0}, {false, 50}};
		for (int k = 0; k < 3; k++) {
			const auto [m, placed] = time(how[k].first, how[k].second);
			std::printf("    %-26s mean %.0f us (x%.2f), median %.0f us, p95 %.0f us (%zu placed)\n",
				    what[k], m.mean, m.mean / base.mean, m.median, m.p95, placed);
		}
	}
}

// PathPressure=yes (lib/place/pressure.hpp) costs job_test a count per
// candidate and a second best fit per subtree; WholeLeaves=yes
// (lib/place/leaves.cpp) a count of the leaves each candidate takes in
// part and one more best fit per level. The same decisions with LID
// offsets, beside the running jobs of a full machine that span leaves (so
// that the pressure is not 0), every fourth of them ended, with neither,
// either, in the same run; then job_begin and
// job_fini (add and remove a running job), which keep the pressure's
// counts.
void decisions_with_path_pressure()
{
	const char *tuple = "3;18,18,6;1,18,6;1,1,3";
	std::printf("\nqft bench: path pressure and whole leaves, PGFT(%s) with LID offsets, "
		    "a full machine's running jobs, every fourth ended, one core\n",
		    tuple);
	const Fabric f = generate_pgft(Pgft::parse(tuple), GenOptions());
	Tree t = Tree::from_fabric(f);
	DModK r(f, t);
	const uint32_t fill[] = {20, 2, 30, 4, 6, 40, 9, 12, 25, 1};
	const uint32_t ask[] = {18, 36, 7, 100, 2, 54, 9, 72, 300, 5};
	const char *names[] = {"neither        ", "PathPressure=yes", "WholeLeaves=yes "};
	Micros off({1.0});
	for (int mode = 0; mode < 3; mode++) {
		PlacementPolicy pol;
		pol.lid_offsets = true;
		pol.path_pressure = mode == 1;
		pol.whole_leaves = mode == 2;
		Placer placer(f, t, r, pol);
		PlacementRequest req;
		req.eligible.assign(f.hosts().size(), true);
		std::vector<uint32_t> ids;
		std::vector<std::vector<HostOrd>> held;
		run_jobs(placer, req, fill, ids, &held);
		// every fourth job ended: free hosts scattered over leaves taken
		// in part, where the best fits (and these rules) come in
		for (size_t i = ids.size(); i-- > 0;)
			if (i % 4 == 3) {
				placer.remove_running(ids[i]);
				ids.erase(ids.begin() + long(i));
				held.erase(held.begin() + long(i));
			}
		std::vector<double> us, churn;
		size_t placed = 0, other = 0;
		for (int rep = 0; rep < 50; rep++)
			for (uint32_t n : ask) {
				req.nodes = n;
				req.ended.assign(ids.begin(), ids.begin() + (rep % 2 ? 50 : 0));
				auto t0 = Clock::now();
				Placement p = placer.place(req);
				us.push_back(us_since(t0));
				placed += p.outcome == Placement::placed;
				other += p.outcome == Placement::placed &&
					 (p.chosen.quiet || p.chosen.whole_leaves);
			}
		for (size_t i = 0; i < 50; i++) {
			auto t0 = Clock::now();
			placer.remove_running(ids[i]);
			placer.add_running(ids[i], held[i]);
			churn.push_back(us_since(t0));
		}
		const Micros m(us), c(churn);
		if (mode == 0)
			off = m;
		std::printf("  %s: %zu decisions (half as backfill's plan, 50 ended; %zu placed, "
			    "%zu in the quietest subtrees or whole leaves): mean %.0f us (x%.2f), median "
			    "%.0f us, p95 %.0f us; remove + add a running job: mean %.0f us\n",
			    names[mode], us.size(), placed, other, m.mean, m.mean / off.mean, m.median,
			    m.p95, c.mean);
	}
}

double ms_since(Clock::time_point t0)
{
	return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Milliseconds of one job's calls over the repetitions (median, and the
// least: the cost without other load on the machine), and what the job was
// told.
struct Cycle {
	double test = 0, begin = 0, fini = 0;             // medians
	double test_min = 0, begin_min = 0, fini_min = 0; // least
	size_t played = 0, total = 0;
	double avg_hsd = 0;
	double locked() const { return test + begin + fini; }
};

// The median and the least of v.
std::pair<double, double> stats(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return {v[v.size() / 2], v.front()};
}

// One job's job_test, job_begin and job_fini as select/rlft makes them,
// `reps` times; the medians.
Cycle time_cycle(qft_placer_t *placer, size_t hosts, uint32_t nodes, int reps)
{
	std::vector<uint8_t> eligible(hosts, 1);
	std::vector<double> test, begin, fini;
	Cycle c;
	for (int rep = 0; rep < reps; rep++) {
		qft_placement_t pl;
		auto t0 = Clock::now();
		if (qft_placer_place(placer, nodes, eligible.data(), nullptr, nullptr, 0, &pl,
				     nullptr) != QFT_OK || pl.outcome != QFT_PLACED)
			return c;
		test.push_back(ms_since(t0));
		std::vector<size_t> chosen(pl.hosts, pl.hosts + pl.count);
		t0 = Clock::now();
		qft_placer_add_job(placer, 1, chosen.data(), chosen.size(), nullptr);
#ifdef QFT_FLOW_BUDGET
		qft_prediction_t pr;
		qft_placer_predict(placer, chosen.data(), chosen.size(), &pr, nullptr);
		c.played = pr.stages_played;
		c.total = pr.stages_total;
		c.avg_hsd = pr.avg_hsd;
#else
		unsigned max_hsd;
		qft_placer_score(placer, chosen.data(), chosen.size(), &c.avg_hsd, &max_hsd, nullptr);
#endif
		begin.push_back(ms_since(t0));
		t0 = Clock::now();
		qft_placer_remove_job(placer, 1);
		fini.push_back(ms_since(t0));
	}
	std::tie(c.test, c.test_min) = stats(test);
	std::tie(c.begin, c.begin_min) = stats(begin);
	std::tie(c.fini, c.fini_min) = stats(fini);
	return c;
}

qft_placer_t *make_placer(const qft_fabric_t *f, bool bounded)
{
	qft_placer_config_t conf = {};
#ifdef QFT_FLOW_BUDGET
	if (!bounded)
		conf.flow_budget = SIZE_MAX;
#else
	(void)bounded;
#endif
	qft_placer_t *p = nullptr;
	qft_placer_create(f, &conf, &p, nullptr);
	return p;
}

void print_cycle(const char *what, const Cycle &c)
{
	std::printf("  %-9s test %6.2f/%6.2f  begin %7.2f/%7.2f  fini %5.3f/%5.3f", what, c.test,
		    c.test_min, c.begin, c.begin_min, c.fini, c.fini_min);
	if (c.total)
		std::printf("  (HSD %.3f over %zu of %zu stages)", c.avg_hsd, c.played, c.total);
	std::printf("\n");
}

void time_under_locks(const char *tuple)
{
	qft_fabric_t *f = nullptr;
	if (qft_fabric_generate(tuple, nullptr, 0, &f, nullptr) != QFT_OK)
		return;
	const size_t hosts = qft_fabric_host_count(f);
	std::printf("PGFT(%s), %zu hosts, empty; ms, median/least of 7 (unbounded: 3)\n", tuple,
		    hosts);
	qft_placer_t *bounded = make_placer(f, true), *unbounded = make_placer(f, false);
	for (uint32_t n : {2, 18, 100, 324, 648, 1000, 1944, 4536}) {
		if (n > hosts)
			continue;
		std::printf("%u nodes:\n", n);
#ifdef QFT_FLOW_BUDGET
		Cycle b = time_cycle(bounded, hosts, n, 7), u = time_cycle(unbounded, hosts, n, 3);
		print_cycle("budget", b);
		print_cycle("unbounded", u);
		std::printf("  medians: begin+fini %.2f ms (unbounded %.2f: x%.0f), all three "
			    "%.2f ms (unbounded %.2f: x%.1f)\n",
			    b.begin + b.fini, u.begin + u.fini, (u.begin + u.fini) / (b.begin + b.fini),
			    b.locked(), u.locked(), u.locked() / b.locked());
#else
		print_cycle("before", time_cycle(unbounded, hosts, n, 7));
#endif
	}
	qft_placer_destroy(bounded);
	qft_placer_destroy(unbounded);
	qft_fabric_destroy(f);
}

} // namespace

int main()
{
	decisions_with_running_jobs();
	decisions_beside_isolated_jobs();
	decisions_with_path_pressure();
	std::printf("\nqft bench: time under slurmctld's locks per job: job_test (place), "
		    "job_begin (add_job + prediction), job_fini (remove_job)\n");
	time_under_locks("3;18,18,14;1,18,9;1,1,2");
	time_under_locks("3;18,18,6;1,18,6;1,1,3");
	return 0;
}
