// SPDX-License-Identifier: GPL-2.0-or-later
// Benchmark: time to compute closed-form D-Mod-K forwarding tables for
// every switch, host LID and LID offset (what `qft lft` does before it
// writes the file), at 1944 and 5832 hosts, LMC 0 and 2; the text writing
// is timed apart. OpenSM's routing time on the same fabrics comes from
// contribs/bench/lft-vs-opensm.sh. Prints figures; asserts nothing.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "lib/route/dmodk.hpp"
#include "lib/route/lft.hpp"
#include "lib/tree/generate.hpp"
#include "lib/tree/tree.hpp"

using namespace qft;
using Clock = std::chrono::steady_clock;

static double ms(Clock::time_point t0)
{
	return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
	std::printf("qft bench: closed-form D-Mod-K tables (qft lft), one core\n");
	for (const char *tuple : {"3;18,18,6;1,18,6;1,1,3", "3;18,18,18;1,18,9;1,1,2"}) {
		for (unsigned lmc : {0u, 2u}) {
			GenOptions opt;
			opt.lmc = lmc;
			Fabric f = generate_pgft(Pgft::parse(tuple), opt);
			Tree t = Tree::from_fabric(f);
			std::vector<double> compute;
			size_t bytes = 0;
			double write = 0;
			for (int r = 0; r < reps; r++) {
				auto t0 = Clock::now();
				DModK d(f, t);
				Lfts l = d.tables();
				compute.push_back(ms(t0));
				if (r == 0) {
					t0 = Clock::now();
					bytes = lfts_dump_text(f, l).size();
					write = ms(t0);
				}
			}
			std::sort(compute.begin(), compute.end());
			std::printf("PGFT(%s) %zu hosts, %zu switches, LMC %u: tables %.1f ms "
				    "(median of %d), dump text %.1f ms, %.1f MB\n",
				    tuple, f.hosts().size(), f.node_count() - f.hosts().size(), lmc,
				    compute[compute.size() / 2], reps, write, double(bytes) / 1e6);
		}
	}
	return 0;
}
