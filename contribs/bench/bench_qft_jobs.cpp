// SPDX-License-Identifier: GPL-2.0-or-later
// Seed 002's experiment shape (slides 11 and 12), figures and no asserts:
// a QFT and the PGFT of the same tuple, both generated and both routed by
// their closed form (make_router("dmodk"): seed 002's routing on the QFT,
// D-Mod-K on the PGFT).
//
// 1. Twelve jobs of round(Normal(300, 20)) hosts (slide 12), ranks in
//    tree order, placed one after the other in tree order in two ways:
//    - contiguous: job k takes the next n_k hosts from host 0 on;
//    - fragments: the free hosts come in fragments of TruncNormal(36, 10)
//      hosts (slide 12's "continuous fragments"; truncated to [1, 72]),
//      spread evenly over the fabric with busy hosts between them, and
//      each job takes the next n_k free hosts.
//    ROUNDS times every job plays one Shift stage of its own random
//    distance d in [1, n_k - 1], all jobs at once; a job's HSD in a round
//    is the most flows (of any job) on a link that one of its flows
//    crosses. Printed per job: the worst and the mean over rounds, on
//    each fabric, with the other jobs ("all") and alone; and the mean
//    path length of its flows in links (hops).
// 2. Slide 11: mean distance in links (hops) over ordered pairs of
//    distinct hosts for a job of the first n hosts in tree order (a job
//    aligned at the start of a sub-tree), QFT against PGFT.
//
// The same random draws serve both fabrics (one generator, seeded).
//
//   bench_qft_jobs [TUPLE [SEED [ROUNDS]]]   default 3;18,9,28;1,9,18;1,2,1 1 200
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "lib/model/model.hpp"
#include "lib/place/order.hpp"
#include "lib/tree/generate.hpp"
#include "lib/tree/qft_wiring.hpp"

using namespace qft;

namespace {

struct Fab {
	std::unique_ptr<Model> model;
	std::vector<HostOrd> order; // hosts in tree order
};

Fab make(const Pgft &g, bool qft)
{
	Fab f;
	f.model = std::make_unique<Model>(qft ? generate_qft(g, GenOptions())
					      : generate_pgft(g, GenOptions()));
	const Fabric &fab = f.model->fabric();
	std::vector<HostOrd> all(fab.hosts().size());
	for (HostOrd h = 0; h < all.size(); h++)
		all[h] = h;
	f.order = tree_order(fab, f.model->need_tree(), all);
	return f;
}

// A job: tree positions of its hosts (rank order) and its fragment count.
struct Placed {
	std::vector<uint32_t> pos;
	unsigned fragments = 0;
};

std::vector<Placed> place(const std::vector<unsigned> &sizes, const std::vector<char> &free_)
{
	std::vector<Placed> jobs(sizes.size());
	uint32_t at = 0;
	for (size_t k = 0; k < sizes.size(); k++) {
		uint32_t prev = ~0u;
		while (jobs[k].pos.size() < sizes[k]) {
			if (free_[at]) {
				if (prev == ~0u || at != prev + 1)
					jobs[k].fragments++;
				jobs[k].pos.push_back(at);
				prev = at;
			}
			at++;
		}
	}
	return jobs;
}

struct JobFig {
	unsigned worst_all = 0, worst_alone = 0;
	double sum_all = 0, sum_alone = 0;
	uint64_t links = 0, flows = 0; // for the mean path length
};

// Plays `dists[r][k]` for every round r on one fabric.
std::vector<JobFig> play(const Fab &f, const std::vector<Placed> &jobs,
			 const std::vector<std::vector<unsigned>> &dists)
{
	const Fabric &fab = f.model->fabric();
	const Router &r = f.model->router();
	std::vector<uint32_t> all(fab.port_count(), 0), own(fab.port_count(), 0);
	std::vector<std::vector<PortIdx>> used(jobs.size());
	std::vector<JobFig> out(jobs.size());
	PortIdx path[kMaxPathLinks];
	for (const auto &round : dists) {
		for (size_t k = 0; k < jobs.size(); k++) {
			used[k].clear();
			const auto &pos = jobs[k].pos;
			const size_t n = pos.size();
			for (size_t i = 0; i < n; i++) {
				const unsigned len = r.path(f.order[pos[i]],
							    f.order[pos[(i + round[k]) % n]], 0, path);
				for (unsigned x = 0; x < len; x++) {
					all[path[x]]++;
					used[k].push_back(path[x]);
				}
				out[k].links += len;
				out[k].flows++;
			}
		}
		for (size_t k = 0; k < jobs.size(); k++) {
			unsigned hall = 0, halone = 0;
			for (PortIdx l : used[k]) {
				hall = std::max(hall, all[l]);
				halone = std::max(halone, ++own[l]);
			}
			for (PortIdx l : used[k])
				own[l] = 0;
			out[k].worst_all = std::max(out[k].worst_all, hall);
			out[k].worst_alone = std::max(out[k].worst_alone, halone);
			out[k].sum_all += hall;
			out[k].sum_alone += halone;
		}
		for (size_t k = 0; k < jobs.size(); k++)
			for (PortIdx l : used[k])
				all[l] = 0;
	}
	return out;
}

void table(const char *title, const Fab &q, const Fab &p, const std::vector<Placed> &jobs,
	   const std::vector<std::vector<unsigned>> &dists)
{
	const auto fq = play(q, jobs, dists), fp = play(p, jobs, dists);
	const double n = double(dists.size());
	std::printf("\n%s: worst (mean) HSD per job over %zu rounds of random Shift stages\n",
		    title, dists.size());
	std::printf("| job | hosts | fragments | tree range | QFT, all | PGFT, all | QFT, alone | "
		    "PGFT, alone | hops QFT | hops PGFT |\n");
	std::printf("| ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	unsigned wq = 0, wp = 0;
	double mq = 0, mp = 0;
	for (size_t k = 0; k < jobs.size(); k++) {
		std::printf("| %zu | %zu | %u | %u-%u | %u (%.2f) | %u (%.2f) | %u (%.2f) | %u (%.2f) "
			    "| %.2f | %.2f |\n",
			    k + 1, jobs[k].pos.size(), jobs[k].fragments, jobs[k].pos.front(),
			    jobs[k].pos.back(), fq[k].worst_all, fq[k].sum_all / n, fp[k].worst_all,
			    fp[k].sum_all / n, fq[k].worst_alone, fq[k].sum_alone / n,
			    fp[k].worst_alone, fp[k].sum_alone / n,
			    double(fq[k].links) / double(fq[k].flows),
			    double(fp[k].links) / double(fp[k].flows));
		wq = std::max(wq, fq[k].worst_all);
		wp = std::max(wp, fp[k].worst_all);
		mq += fq[k].sum_all / n / double(jobs.size());
		mp += fp[k].sum_all / n / double(jobs.size());
	}
	std::printf("all jobs: worst HSD QFT %u, PGFT %u; mean over jobs and rounds QFT %.3f, PGFT %.3f\n",
		    wq, wp, mq, mp);
}

double mean_hops(const Fab &f, size_t n)
{
	const Router &r = f.model->router();
	PortIdx path[kMaxPathLinks];
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (i != j)
				sum += r.path(f.order[i], f.order[j], 0, path);
	return sum / double(n * (n - 1));
}

} // namespace

int main(int argc, char **argv)
try {
	const char *tuple = argc > 1 ? argv[1] : "3;18,9,28;1,9,18;1,2,1";
	const unsigned seed = argc > 2 ? unsigned(std::strtoul(argv[2], nullptr, 10)) : 1;
	const unsigned rounds = argc > 3 ? unsigned(std::strtoul(argv[3], nullptr, 10)) : 200;
	const Pgft g = Pgft::parse(tuple);
	const Fab q = make(g, true), p = make(g, false);
	const size_t hosts = q.order.size();
	std::printf("qft bench: QFT of PGFT(%s) against PGFT(%s), %zu hosts, seed %u\n", tuple,
		    tuple, hosts, seed);
	std::printf("sub-tree hosts by level, QFT / PGFT:");
	for (unsigned l = 1; l < g.h(); l++) {
		const uint64_t side = g.p(l) > 1 ? g.p(l) : 1;
		std::printf(" L%u %llu / %llu", l, (unsigned long long)(g.M(l) * side),
			    (unsigned long long)g.M(l));
	}
	std::printf("\n");

	std::mt19937_64 rng(seed);
	std::normal_distribution<double> job_size(300, 20), frag_size(36, 10);
	std::vector<unsigned> sizes(12);
	size_t need = 0;
	for (auto &s : sizes) {
		s = unsigned(std::max(2.0, std::round(job_size(rng))));
		need += s;
	}
	if (need > hosts) {
		std::fprintf(stderr, "bench_qft_jobs: %zu hosts asked, the fabric has %zu\n", need,
			     hosts);
		return 1;
	}
	// contiguous: every host free
	std::vector<char> all_free(hosts, 1);
	// fragments: TruncNormal(36, 10) free runs, busy gaps spread evenly
	std::vector<unsigned> frags;
	size_t have = 0;
	while (have < need) {
		double x;
		do
			x = std::round(frag_size(rng));
		while (x < 1 || x > 72);
		frags.push_back(unsigned(x));
		have += unsigned(x);
	}
	const size_t busy = hosts - have;
	std::vector<char> frag_free(hosts, 0);
	size_t at = 0;
	for (size_t i = 0; i < frags.size(); i++) {
		for (unsigned j = 0; j < frags[i]; j++)
			frag_free[at++] = 1;
		at += busy / frags.size() + (i < busy % frags.size());
	}
	std::vector<std::vector<unsigned>> dists(rounds, std::vector<unsigned>(sizes.size()));
	for (auto &round : dists)
		for (size_t k = 0; k < sizes.size(); k++)
			round[k] = unsigned(std::uniform_int_distribution<unsigned>(1, sizes[k] - 1)(rng));
	std::printf("%zu job hosts; %zu free fragments (mean %.1f hosts), %zu busy hosts between\n",
		    need, frags.size(), double(have) / double(frags.size()), busy);

	table("contiguous (job k takes the next n_k hosts)", q, p, place(sizes, all_free), dists);
	table("fragments of TruncNormal(36,10) free hosts", q, p, place(sizes, frag_free), dists);

	std::printf("\nmean distance (links) over ordered pairs, the first n hosts in tree order\n");
	std::printf("| n | QFT | PGFT |\n| ---: | ---: | ---: |\n");
	std::vector<size_t> ns = {8, 16, 32, 64, 128, 256};
	for (unsigned l = 1; l < g.h(); l++) {
		ns.push_back(g.M(l));
		if (g.p(l) > 1)
			ns.push_back(g.M(l) * g.p(l));
	}
	std::sort(ns.begin(), ns.end());
	ns.erase(std::unique(ns.begin(), ns.end()), ns.end());
	const size_t pod = g.h() > 1 && g.p(2) > 1 ? g.M(2) * g.p(2) : g.M(2);
	for (size_t n : ns)
		if (n >= 2 && n <= pod && n <= hosts)
			std::printf("| %zu | %.2f | %.2f |\n", n, mean_hops(q, n), mean_hops(p, n));
	return 0;
} catch (const std::exception &e) {
	std::fprintf(stderr, "bench_qft_jobs: %s\n", e.what());
	return 1;
}
