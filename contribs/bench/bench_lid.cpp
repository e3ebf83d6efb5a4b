// SPDX-License-Identifier: GPL-2.0-or-later
// LID choice (lib/lid) against one LID, figures and no asserts, one core:
//
//   bench_lid seed001 [ALLOCS [SEED]]
//     seed 001's setting: a 6-ary 2-tree of 36 hosts, the first 30 usable,
//     ALLOCS (1000) random 16-node allocations, Shift, LMC 1, 2, 3; then
//     contiguous allocations of 3..30 nodes.
//   bench_lid jobs TUPLE FILE [LMC...]
//     the jobs of FILE (one Slurm host list per line, e.g. the placements
//     a qft-sim run gave the jobs that are not congestion-free) on
//     PGFT(TUPLE), Shift, for each LMC (2 3 4); jobs of up to 256 nodes
//     (select/rlft's LidPairMaxNodes=) and larger ones apart.
//
// BENCH_LID_ONLY=CHOICE (one-lid, job, dest, pair, stripe) measures that
// choice alone; BENCH_LID_EXACT=N gives pair's exhaustive stage search N
// steps per flow (lib/lid/pair_search.hpp; 0: none, the search before it);
// BENCH_LID_HALL=N checks Hall's condition in stages of up to N flows.
// BENCH_LID_THREADS=N searches pair's stages on N threads (qft.conf
// LidThreads=; the times are wall-clock, so N > 1 is not "one core").
//
// Per choice: mean and worst HSD over every stage, the share of jobs at
// HSD 1.0, and the mean and worst time to choose, judged on the stages
// select/rlft's flow budget allows (what it would spend under slurmctld's
// locks).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "lib/common/file.hpp"
#include "lib/common/hostlist.hpp"
#include "lib/lid/lid.hpp"
#include "lib/model/model.hpp"
#include "lib/place/order.hpp"
#include "lib/tree/generate.hpp"

using namespace qft;
using Clock = std::chrono::steady_clock;

namespace {

struct Figures {
	double sum = 0, worst = 0, ms = 0, worst_ms = 0;
	size_t free = 0, jobs = 0;
	void add(double hsd, double t)
	{
		sum += hsd;
		worst = std::max(worst, hsd);
		free += hsd <= 1.0;
		ms += t;
		worst_ms = std::max(worst_ms, t);
		jobs++;
	}
};

const char *const kChoices[] = {"one-lid", "job", "dest", "pair", "stripe"};
constexpr size_t kChoiceCount = 5;

// Each choice's HSD for one job (ranks in tree order); times in ms.
void measure(const Model &m, const Pattern &pattern, const std::vector<HostOrd> &ranks,
	     Figures *fig)
{
	const char *only = std::getenv("BENCH_LID_ONLY");
	for (size_t c = 0; c < kChoiceCount; c++) {
		if (only && *only && std::string(only) != kChoices[c])
			continue;
		const auto t0 = Clock::now();
		LidTable t;
		if (c == 0) {
			t.offsets = m.router().offsets();
			t.hosts = ranks;
			t.dest.assign(ranks.size(), 0);
		} else {
			// judged on the stages select/rlft's flow budget allows
			LidOptions opt;
			if (const char *steps = std::getenv("BENCH_LID_EXACT"))
				opt.pair.exact = std::strtoul(steps, nullptr, 10);
			if (const char *flows = std::getenv("BENCH_LID_HALL"))
				opt.pair.hall_flows = std::strtoul(flows, nullptr, 10);
			if (const char *threads = std::getenv("BENCH_LID_THREADS"))
				opt.pair.threads = unsigned(std::strtoul(threads, nullptr, 10));
			opt.max_stages = std::min<size_t>(
				1024, std::max<size_t>(1, 32768 / std::max<size_t>(ranks.size(), 1)));
			t = choose_lids(m.fabric(), m.router(), m.tree(), pattern, ranks,
					LidMode(c - 1), opt);
		}
		const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
		fig[c].add(score_lids(m.fabric(), m.router(), pattern, t).avg_hsd, ms);
	}
}

void print(const char *what, const Figures *fig)
{
	for (size_t c = 0; c < kChoiceCount; c++)
		if (fig[c].jobs)
			std::printf("%-14s %-8s %8.3f %8.3f %7.1f%% %9.3f %9.3f\n", what, kChoices[c],
			    fig[c].sum / double(fig[c].jobs), fig[c].worst,
			    100.0 * double(fig[c].free) / double(fig[c].jobs),
			    fig[c].ms / double(fig[c].jobs), fig[c].worst_ms);
}

bool measured(const Figures *fig)
{
	return std::any_of(fig, fig + kChoiceCount, [](const Figures &f) { return f.jobs > 0; });
}

void header()
{
	std::printf("%-14s %-8s %8s %8s %8s %9s %9s\n", "setting", "choice", "hsd_mean", "hsd_max",
		    "hsd=1", "ms_mean", "ms_max");
}

std::unique_ptr<Model> model(const char *tuple, unsigned lmc)
{
	GenOptions opt;
	opt.lmc = lmc;
	return std::make_unique<Model>(generate_pgft(Pgft::parse(tuple), opt));
}

int seed001(size_t allocs, unsigned seed)
{
	std::printf("qft bench: LID choice, seed 001's 6-ary 2-tree (36 hosts, first 30 usable), "
		    "%zu random 16-node allocations, Shift\n", allocs);
	header();
	const char *tuple = "2;6,6;1,6;1,1";
	for (unsigned lmc = 1; lmc <= 3; lmc++) {
		auto m = model(tuple, lmc);
		auto pattern = make_pattern("shift", nullptr);
		std::mt19937_64 rng(seed);
		std::vector<HostOrd> usable(30);
		for (HostOrd h = 0; h < 30; h++)
			usable[h] = h;
		Figures fig[kChoiceCount];
		for (size_t a = 0; a < allocs; a++) {
			std::shuffle(usable.begin(), usable.end(), rng);
			std::vector<HostOrd> ranks(usable.begin(), usable.begin() + 16);
			ranks = tree_order(m->fabric(), *m->tree(), ranks);
			measure(*m, *pattern, ranks, fig);
		}
		char what[32];
		std::snprintf(what, sizeof(what), "random16/lmc%u", lmc);
		print(what, fig);
	}
	std::printf("\ncontiguous n0001..n00NN, LMC 2 and 3: mean over the sizes 3..30\n");
	header();
	for (unsigned lmc = 2; lmc <= 3; lmc++) {
		auto m = model(tuple, lmc);
		auto pattern = make_pattern("shift", nullptr);
		Figures fig[kChoiceCount];
		for (HostOrd n = 3; n <= 30; n++) {
			std::vector<HostOrd> ranks(n);
			for (HostOrd h = 0; h < n; h++)
				ranks[h] = h;
			measure(*m, *pattern, ranks, fig);
		}
		char what[32];
		std::snprintf(what, sizeof(what), "contig/lmc%u", lmc);
		print(what, fig);
	}
	return 0;
}

int jobs(const char *tuple, const char *path, std::vector<unsigned> lmcs)
{
	if (lmcs.empty())
		lmcs = {2, 3, 4};
	std::vector<std::vector<std::string>> names;
	const std::string text = read_file(path);
	for (size_t at = 0; at < text.size();) {
		size_t end = text.find('\n', at);
		if (end == std::string::npos)
			end = text.size();
		const std::string line = text.substr(at, end - at);
		if (!line.empty() && line[0] != '#')
			names.push_back(hostlist_expand(line));
		at = end + 1;
	}
	std::printf("qft bench: LID choice on PGFT(%s), %zu jobs of %s, Shift\n", tuple,
		    names.size(), path);
	header();
	for (unsigned lmc : lmcs) {
		auto m = model(tuple, lmc);
		auto pattern = make_pattern("shift", &m->tree()->pgft());
		// by select/rlft's default LidPairMaxNodes=: pair up to 256 nodes
		Figures small[kChoiceCount], large[kChoiceCount];
		for (const auto &job : names) {
			std::vector<HostOrd> ranks = resolve_hosts(m->fabric(), job);
			ranks = tree_order(m->fabric(), *m->tree(), ranks);
			measure(*m, *pattern, ranks, ranks.size() <= 256 ? small : large);
		}
		char what[32];
		std::snprintf(what, sizeof(what), "<=256/lmc%u", lmc);
		if (measured(small))
			print(what, small);
		std::snprintf(what, sizeof(what), ">256/lmc%u", lmc);
		if (measured(large))
			print(what, large);
	}
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	try {
		if (argc >= 2 && std::string(argv[1]) == "seed001")
			return seed001(argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 1000,
				       argc > 3 ? unsigned(std::strtoul(argv[3], nullptr, 10)) : 1);
		if (argc >= 4 && std::string(argv[1]) == "jobs") {
			std::vector<unsigned> lmcs;
			for (int i = 4; i < argc; i++)
				lmcs.push_back(unsigned(std::strtoul(argv[i], nullptr, 10)));
			return jobs(argv[2], argv[3], lmcs);
		}
	} catch (const std::exception &e) {
		std::fprintf(stderr, "bench_lid: %s\n", e.what());
		return 1;
	}
	std::fprintf(stderr, "usage: bench_lid seed001 [ALLOCS [SEED]] | jobs TUPLE FILE [LMC...]\n");
	return 2;
}
