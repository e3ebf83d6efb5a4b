// SPDX-License-Identifier: GPL-2.0-or-later
// Benchmark: one select/rlft placement decision (libqft's placer) with 200
// running jobs, at 1944 and 4536 hosts, one core. The same decisions run
// inside slurmctld's job_test; contribs/bench/select-latency.sh sets them
// beside cons_tres's in a real slurmctld. Figures, no asserts.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "lib/place/placement.hpp"
#include "lib/route/dmodk.hpp"
#include "lib/tree/generate.hpp"
#include "lib/tree/tree.hpp"

using namespace qft;
using Clock = std::chrono::steady_clock;

int main()
{
	std::printf("qft bench: placement decisions with 200 running jobs, one core\n");
	const uint32_t fill[] = {1, 2, 3, 4, 6, 8, 9, 12, 18, 1};
	const uint32_t ask[] = {18, 36, 7, 100, 2, 54, 9, 72, 1, 5};
	for (const char *tuple : {"3;18,18,6;1,18,6;1,1,3", "3;18,18,14;1,18,9;1,1,2"}) {
		Fabric f = generate_pgft(Pgft::parse(tuple), GenOptions());
		Tree t = Tree::from_fabric(f);
		DModK r(f, t);
		Placer placer(f, t, r, PlacementPolicy());
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
				us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
				placed += p.outcome == Placement::placed;
			}
		std::sort(us.begin(), us.end());
		double sum = 0;
		for (double x : us)
			sum += x;
		std::printf("PGFT(%s) %zu hosts, %zu running: %zu decisions (%zu placed): "
			    "mean %.0f us, median %.0f us, p95 %.0f us\n",
			    tuple, f.hosts().size(), placer.running(), us.size(), placed,
			    sum / double(us.size()), us[us.size() / 2], us[us.size() * 95 / 100]);
	}
	return 0;
}
