// SPDX-License-Identifier: GPL-2.0-or-later
// LID choice (lib/lid): the engine plays each mode's offsets as the table
// says (recounted here path by path), seed 001's rule and its examples,
// per-pair choice reaching HSD 1.0 where Konig's theorem says it can,
// striping's shares, the LID space check and the table text.
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <random>

#include "lib/lid/lid.hpp"
#include "lib/lid/pair_search.hpp"
#include "lib/lid/stage_exact.hpp"
#include "lib/place/order.hpp"
#include "lib/route/dmodk.hpp"
#include "lib/score/score.hpp"
#include "lib/tree/tree.hpp"

#include "tests/unit/cmocka.hpp"
#include "tests/unit/model.hpp"

using namespace qft;

namespace {

// A 2-level tree of `leaves` leaves of K hosts and K roots, LMC `lmc`
// (seed 001's 6-ary 2-tree: K = 6, 6 leaves; its 18-host example: K = 3,
// 6 leaves).
struct TwoLevel : test::Modelled {
	std::unique_ptr<Pattern> shift = make_pattern("shift", nullptr);
	TwoLevel(unsigned k, unsigned lmc, unsigned leaves = 0)
		: Modelled(generated(("2;" + std::to_string(k) + "," +
				      std::to_string(leaves ? leaves : k) + ";1," +
				      std::to_string(k) + ";1,1")
					     .c_str(),
				     lmc))
	{
	}
	std::vector<HostOrd> hosts(std::vector<HostOrd> h) const
	{
		return tree_order(fabric, *tree, h);
	}
	LidTable choose(const std::vector<HostOrd> &h, LidMode mode, const LidOptions &opt = {}) const
	{
		return choose_lids(fabric, *router, tree, *shift, h, mode, opt);
	}
	double hsd(const LidTable &t) const { return score_lids(fabric, *router, *shift, t).avg_hsd; }
	double one_lid(const std::vector<HostOrd> &h) const
	{
		return score_jobs(fabric, *router, *shift, {Job{h, {}, LidChoice::source}}).avg_hsd;
	}
};

// Mean over stages of the busiest link, each flow a -> b routed at
// table.offset(a, b) by path(): the engine's figure, counted without it.
double recount(const TwoLevel &m, const LidTable &t)
{
	const uint32_t n = uint32_t(t.hosts.size());
	std::vector<RankPair> pairs;
	double sum = 0;
	size_t stages = 0;
	for (size_t s = 0; s < m.shift->stage_count(n); s++) {
		m.shift->stage(n, s, pairs);
		std::map<PortIdx, unsigned> load;
		PortIdx path[kMaxPathLinks];
		for (const RankPair &p : pairs) {
			unsigned len = m.router->path(t.hosts[p.src], t.hosts[p.dst],
						      t.offset(p.src, p.dst), path);
			for (unsigned k = 0; k < len; k++)
				load[path[k]]++;
		}
		unsigned worst = 0;
		for (auto &[l, c] : load)
			worst = std::max(worst, c);
		sum += worst;
		stages++;
	}
	return sum / double(stages);
}

// The figure a pair table's head gives (score_lids with `beside`) when a
// running job shares a host with the new one (shared nodes): the busiest
// link the new job's own flows cross, every job's flows counted, recounted
// here flow by flow.
void head_beside_a_shared_host(void **)
{
	TwoLevel m(6, 2);
	const std::vector<HostOrd> b = m.hosts({0, 1, 2, 6, 7, 12, 13, 18});
	// host 2 is in both
	const std::vector<Job> running = {Job{m.hosts({2, 3, 8, 9, 14, 20}), {}, LidChoice::source}};
	LidOptions opt;
	opt.beside = &running;
	const LidTable t = m.choose(b, LidMode::pair, opt);
	const LidScore got = score_lids(m.fabric, *m.router, *m.shift, t, 0, &running);
	const std::vector<HostOrd> &r = running[0].ranks;
	std::vector<RankPair> pairs;
	PortIdx path[kMaxPathLinks];
	double sum = 0;
	size_t stages = 0;
	unsigned max = 0;
	for (size_t s = 0; s < m.shift->stage_count(uint32_t(b.size())); s++) {
		std::map<PortIdx, unsigned> load;
		pairs.clear();
		if (s < m.shift->stage_count(uint32_t(r.size())))
			m.shift->stage(uint32_t(r.size()), s, pairs);
		for (const RankPair &p : pairs) {
			const unsigned len = m.router->path(r[p.src], r[p.dst], 0, path);
			for (unsigned k = 0; k < len; k++)
				load[path[k]]++;
		}
		m.shift->stage(uint32_t(b.size()), s, pairs);
		std::vector<PortIdx> mine;
		for (const RankPair &p : pairs) {
			const unsigned len = m.router->path(b[p.src], b[p.dst], t.offset(p.src, p.dst), path);
			for (unsigned k = 0; k < len; k++) {
				load[path[k]]++;
				mine.push_back(path[k]);
			}
		}
		unsigned worst = 0;
		for (PortIdx l : mine)
			worst = std::max(worst, load[l]);
		sum += worst;
		max = std::max(max, worst);
		stages++;
	}
	std::printf("# beside a job on a shared host: %.3f avg, %.0f worst over %zu stages "
		    "(recounted %.3f, %u, %zu)\n",
		    got.avg_hsd, got.max_hsd, got.stages, sum / double(stages), max, stages);
	assert_int_equal(got.stages, stages);
	assert_true(std::fabs(got.avg_hsd - sum / double(stages)) < 1e-12);
	assert_true(got.max_hsd == max);
}

// The engine plays the table's offsets, each mode as the table reads them.
void engine_plays_the_table(void **)
{
	TwoLevel m(6, 2);
	const std::vector<HostOrd> h = m.hosts({0, 2, 3, 6, 8, 9, 10, 13, 14, 17, 19, 21, 22, 24});
	for (LidMode mode : {LidMode::job, LidMode::dest, LidMode::pair}) {
		const LidTable t = m.choose(h, mode);
		assert_true(std::fabs(m.hsd(t) - recount(m, t)) < 1e-12);
	}
	// A pair table that is not symmetric: a transposed reading would differ.
	LidTable t = m.choose(h, LidMode::pair);
	size_t asym = 0;
	for (size_t a = 0; a < h.size(); a++)
		for (size_t b = 0; b < h.size(); b++)
			asym += t.offset(a, b) != t.offset(b, a);
	assert_true(asym > 0);
	std::printf("# pair table: %zu of %zu ordered pairs differ from their mirror\n", asym,
		    h.size() * h.size());
}

// Seed 001 section 3: 18 hosts on 6 leaves of 3, 3 roots, N_i through
// root i mod 3. Hosts {3, 5, 6, 9}: Shift 2 congests LS1 -> RS0 on one LID
// (section 3.1); with LMC 2 the rule routes local id l through root
// l mod M and every stage is free.
void seed001_examples(void **)
{
	TwoLevel m(3, 2, 6);
	const std::vector<HostOrd> h = m.hosts({3, 5, 6, 9});
	assert_true(m.one_lid(h) > 1.0);
	LidOptions rule_only;
	rule_only.rounds = 0;
	const LidTable rule = m.choose(h, LidMode::dest, rule_only);
	const auto &dmodk = dynamic_cast<const DModK &>(*m.router);
	// At most 2 of them on one leaf (3, 5 on leaf 1), 4 % 2 == 0: M = 2.
	for (size_t l = 0; l < h.size(); l++)
		assert_int_equal(dmodk.up_port(1, m.tree->host_index(h[l]), rule.dest[l]), l % 2);
	assert_true(m.hsd(rule) == 1.0);
	// Section 3.2: contiguous n0..n7 congest, and seed 001 says LID choice
	// per destination cannot help there; per pair can.
	std::vector<HostOrd> c8 = {0, 1, 2, 3, 4, 5, 6, 7};
	assert_true(m.one_lid(c8) > 1.0);
	assert_true(m.hsd(m.choose(c8, LidMode::pair)) == 1.0);
}

// With 2^LMC >= K every root is reachable, and each Shift stage on a
// 2-level tree is a bipartite multigraph of degree <= K (Konig): the
// per-pair choice finds HSD 1.0 for every contiguous size here.
void pair_reaches_konig(void **)
{
	TwoLevel m(6, 3);
	for (HostOrd n = 2; n <= 36; n++) {
		std::vector<HostOrd> h(n);
		for (HostOrd i = 0; i < n; i++)
			h[i] = i;
		const LidTable t = m.choose(h, LidMode::pair);
		assert_true(m.hsd(t) == 1.0);
	}
	// And for random subsets of 16 of 30 hosts (seed 001's setting).
	std::mt19937_64 rng(7);
	std::vector<HostOrd> usable(30);
	for (HostOrd i = 0; i < 30; i++)
		usable[i] = i;
	size_t worse_dest = 0;
	for (int a = 0; a < 50; a++) {
		std::shuffle(usable.begin(), usable.end(), rng);
		auto h = m.hosts(std::vector<HostOrd>(usable.begin(), usable.begin() + 16));
		assert_true(m.hsd(m.choose(h, LidMode::pair)) == 1.0);
		const double dest = m.hsd(m.choose(h, LidMode::dest));
		assert_true(dest <= m.one_lid(h));
		worse_dest += dest > 1.0;
	}
	std::printf("# random 16 of 30, LMC 3: dest above 1.0 in %zu of 50\n", worse_dest);
}

// Two jobs that share every leaf of a 6-ary 2-tree, three hosts each: the
// first one's pair choice runs (its offsets fixed), the second's hosts.
struct TwoInterleaved {
	std::vector<HostOrd> a, b;
	std::vector<Job> running;
	explicit TwoInterleaved(const TwoLevel &m)
	{
		for (HostOrd h = 0; h < 36; h++)
			(h % 6 < 3 ? a : b).push_back(h);
		running = {m.choose(a, LidMode::pair).job()};
	}
	// HSD of the running job and of `t`'s job, in lock-step.
	std::vector<double> with(const TwoLevel &m, const LidTable &t) const
	{
		std::vector<Job> jobs = running;
		jobs.push_back(t.job());
		ScoreOptions opt;
		opt.per_job = true;
		return score_jobs(m.fabric, *m.router, *m.shift, jobs, opt).job_hsd;
	}
};

// Beside the running jobs: two jobs share every leaf, three hosts each
// per leaf of 6 (LMC 3: every root reachable). The first job's pair table
// is fixed; the second chosen alone collides with it on leaf links,
// chosen beside it (LidOptions::beside) it avoids the roots the first
// takes where it can, and both meet less in lock-step (the exhaustive
// stage search finds 1.0 for both; the local search alone stopped at
// 1.47).
void pair_beside_running_jobs(void **)
{
	TwoLevel m(6, 3);
	const TwoInterleaved two(m);
	const std::vector<HostOrd> &b = two.b;
	const std::vector<Job> &running = two.running;
	auto beside = [&](const LidTable &t) { return two.with(m, t); };
	const std::vector<double> alone = beside(m.choose(b, LidMode::pair));
	LidOptions opt;
	opt.beside = &running;
	const LidTable chosen = m.choose(b, LidMode::pair, opt);
	const std::vector<double> with = beside(chosen);
	std::printf("# beside a running job: chosen alone %.3f (running %.3f), beside %.3f "
		    "(running %.3f)\n", alone[1], alone[0], with[1], with[0]);
	assert_true(alone[1] > 1.0);
	assert_true(with[1] < alone[1] - 0.2);
	assert_true(with[0] < alone[0] - 0.2);
	// dest and job judge beside the running job too: never worse than
	// chosen alone.
	for (LidMode mode : {LidMode::dest, LidMode::job})
		assert_true(beside(m.choose(b, mode, opt))[1] <= beside(m.choose(b, mode))[1]);
}

// Whether stage s of `h`'s Shift has a routing of one flow per link that
// keeps off every link `beside` loads at s: every combination of offsets,
// depth first (tiny jobs only).
bool stage_can_be_free(const TwoLevel &m, const std::vector<HostOrd> &h, size_t s,
		       const LinkLoads &beside)
{
	std::vector<RankPair> pairs;
	m.shift->stage(uint32_t(h.size()), s, pairs);
	const unsigned offsets = m.router->offsets();
	std::map<PortIdx, unsigned> used;
	std::function<bool(size_t)> place = [&](size_t i) {
		if (i == pairs.size())
			return true;
		PortIdx path[kMaxPathLinks];
		for (unsigned o = 0; o < offsets; o++) {
			const unsigned len = m.router->path(h[pairs[i].src], h[pairs[i].dst], o, path);
			bool open = true;
			for (unsigned k = 0; k < len; k++)
				open = open && beside[path[k]] == 0 && used[path[k]] == 0;
			if (!open)
				continue;
			for (unsigned k = 0; k < len; k++)
				used[path[k]]++;
			if (place(i + 1))
				return true;
			for (unsigned k = 0; k < len; k++)
				used[path[k]]--;
		}
		return false;
	};
	return place(0);
}

// A running job on the first `split` hosts of each leaf of `leaf` hosts
// (hosts 0 .. n-1), every pair at a random offset of LMC `lmc`; the other
// hosts go to `rest`, for the new job.
Job random_pair_job(HostOrd n, HostOrd leaf, HostOrd split, unsigned lmc, std::mt19937 &rng,
		    std::vector<HostOrd> &rest)
{
	std::vector<HostOrd> a;
	for (HostOrd h = 0; h < n; h++)
		(h % leaf < split ? a : rest).push_back(h);
	Job job{a, std::vector<uint8_t>(a.size() * a.size()), LidChoice::pair};
	for (uint8_t &o : job.offsets)
		o = uint8_t(rng() % (1u << lmc));
	return job;
}

// Shift HSD of `t`'s job beside the running jobs (the last of the list).
double hsd_beside(const test::Modelled &m, const Pattern &shift, const std::vector<Job> &running,
		  const LidTable &t)
{
	std::vector<Job> jobs = running;
	jobs.push_back(t.job());
	ScoreOptions so;
	so.per_job = true;
	return score_jobs(m.fabric, *m.router, shift, jobs, so).job_hsd.back();
}

// The three-level tree of 108 hosts at LMC `lmc` with a running job on
// the first `split` hosts of each leaf at random offsets, and the other
// hosts (`b`) for the new job: the walk's, the neighbourhoods' and
// spare()'s case.
struct BesideCase {
	test::Modelled m;
	std::unique_ptr<Pattern> shift = make_pattern("shift", nullptr);
	std::vector<HostOrd> b;
	std::vector<Job> running;
	BesideCase(unsigned lmc, HostOrd split, std::mt19937 &rng)
		: m(test::Modelled::generated("3;6,6,3;1,6,2;1,1,3", lmc)),
		  running{random_pair_job(108, 6, split, lmc, rng, b)}
	{
	}
	// the new job's table, chosen beside the running job
	LidTable choose(LidOptions opt) const
	{
		opt.beside = &running;
		return choose_lids(m.fabric, *m.router, m.tree, *shift, b, LidMode::pair, opt);
	}
	double hsd(const LidTable &t) const { return hsd_beside(m, *shift, running, t); }
};

// What the pair search proves (LidTable::floor) against every combination
// of offsets: two jobs share the leaves of a 6-ary 2-tree, the running one
// on `split` hosts of each with offsets drawn at random (apart, D-Mod-K
// keeps the two off each other's links), the new one on the others, at
// LMC 1 and 2 (each flow reaches 2 or 4 of the 6 roots). A
// stage is proven congested exactly when no combination keeps it free
// (the search has steps enough at this size), and the floor is never
// above the HSD the chosen table gets beside the running job.
void pair_floor_beside_running_jobs(void **)
{
	size_t proven = 0;
	std::mt19937 rng(7);
	for (unsigned lmc : {1u, 2u})
		for (HostOrd split : {3u, 4u, 5u}) {
			TwoLevel m(6, lmc);
			std::vector<HostOrd> b;
			const std::vector<Job> running = {random_pair_job(36, 6, split, lmc, rng, b)};
			Beside beside(m.fabric, *m.router, *m.shift, &running);
			Beside none(m.fabric, *m.router, *m.shift, nullptr);
			const size_t stages = m.shift->stage_count(uint32_t(b.size()));
			size_t blocked = 0, blocked_alone = 0;
			for (size_t s = 0; s < stages; s++) {
				blocked += !stage_can_be_free(m, b, s, beside.stage(s));
				blocked_alone += !stage_can_be_free(m, b, s, none.stage(s));
			}
			for (unsigned threads : {1u, 3u}) {
				LidOptions opt;
				opt.beside = &running;
				opt.pair.threads = threads;
				const LidTable t = m.choose(b, LidMode::pair, opt);
				const double got = hsd_beside(m, *m.shift, running, t);
				std::printf("# LMC %u, %u of 6 hosts running, %u threads: %zu of %zu "
					    "stages cannot be free, %zu proven; floor %.3f, chosen "
					    "%.3f\n", lmc, split, threads, blocked, stages,
					    t.floor.count(PairFloor::congested), t.floor.hsd(), got);
				assert_int_equal(t.floor.stages(), stages);
				assert_int_equal(t.floor.count(PairFloor::congested), blocked);
				// nothing undecided at this size
				assert_int_equal(t.floor.count(PairFloor::undecided), 0);
				assert_true(t.floor.hsd() <= got + 1e-12);
				// the figure a table's head reports (select/rlft):
				// every stage beside the running job, each proven
				// stage among its congested ones
				const LidScore sb = score_lids(m.fabric, *m.router, *m.shift, t, 4,
							       &running);
				assert_int_equal(sb.stages, stages);
				assert_true(sb.avg_hsd == got);
				assert_true(sb.congested >= t.floor.count(PairFloor::congested));
				assert_true(sb.max_hsd >= (sb.congested ? 2 : 1));
				assert_true(sb.avg_hsd >= m.hsd(t));
			}
			// alone: only the job's own flows meet
			const LidTable alone = m.choose(b, LidMode::pair);
			assert_int_equal(alone.floor.count(PairFloor::congested), blocked_alone);
			assert_true(alone.floor.hsd() <= m.hsd(alone) + 1e-12);
			proven += blocked;
		}
	assert_true(proven > 0);
}

// The walk alone (no exhaustive search behind the chains) beside a
// running job with random offsets, on three levels where the chains
// leave stages congested: every stage that the exhaustive search routes
// without congestion or proves congested (given steps to decide each),
// the walk routes free or leaves congested alike. Breakout's weights do
// it. Where a stage cannot be free, the walk gives the offsets back: the
// job's HSD is never above the chains' (a walk that kept its lowest
// count of flows beyond one per link raised it, 1.775 against 1.451 here).
void pair_walk_frees_what_can_be_free(void **)
{
	std::mt19937 rng(11);
	size_t walked = 0;
	for (unsigned lmc : {1u, 2u, 3u})
		for (HostOrd split : {1u, 2u}) {
			const BesideCase c(lmc, split, rng);
			auto choose = [&](size_t exact, unsigned walk) {
				LidOptions opt;
				opt.pair.exact = exact;
				opt.pair.exact_total = SIZE_MAX;
				opt.pair.hall_flows = SIZE_MAX;
				opt.pair.walk = walk;
				return c.choose(opt);
			};
			const PairFloor decided = choose(size_t(1) << 20, 0).floor;
			const LidTable walked_table = choose(0, PairSearchOptions().walk);
			const LidTable chains_table = choose(0, 0);
			const PairFloor &walked_only = walked_table.floor, &chains = chains_table.floor;
			std::printf("# LMC %u, %u of 6 hosts running: %zu of %zu stages cannot be "
				    "free (%zu undecided); congested after the chains %zu, after the "
				    "walk %zu\n",
				    lmc, split, decided.count(PairFloor::congested), decided.stages(),
				    decided.count(PairFloor::undecided),
				    chains.count(PairFloor::undecided),
				    walked_only.count(PairFloor::undecided));
			assert_int_equal(decided.count(PairFloor::undecided), 0);
			assert_int_equal(walked_only.count(PairFloor::congested), 0); // no proof without the search
			assert_int_equal(walked_only.count(PairFloor::undecided),
					 decided.count(PairFloor::congested));
			walked += chains.count(PairFloor::undecided) -
				  walked_only.count(PairFloor::undecided);
			// a stage the walk cannot free keeps the chains' offsets: it
			// lowers the flows beyond one per link, not the busiest link
			std::printf("#   HSD beside it: chains %.3f, walk %.3f\n",
				    c.hsd(chains_table), c.hsd(walked_table));
			assert_true(c.hsd(walked_table) <= c.hsd(chains_table) + 1e-12);
		}
	assert_true(walked > 0); // the walk had stages to free
}

// Large neighbourhoods (PairSearchOptions::lns) free stages that the
// chains leave congested, routing up to lns_flows flows again at once
// with the others held, and never make the job's HSD beside the running
// job worse. The walk's tree and running job; without the walk and the
// whole-stage search (its steps at 0), so what is freed is theirs.
void pair_neighbourhoods_free_stages(void **)
{
	std::mt19937 rng(11);
	size_t freed = 0;
	for (unsigned lmc : {1u, 2u, 3u})
		for (HostOrd split : {1u, 2u}) {
			const BesideCase c(lmc, split, rng);
			auto choose = [&](unsigned lns, size_t exact_total = 0) {
				LidOptions opt;
				if (exact_total)
					opt.pair.exact = 1u << 20; // decides every stage
				opt.pair.exact_total = exact_total;
				opt.pair.hall_flows = SIZE_MAX;
				opt.pair.walk = 0;
				opt.pair.lns = lns;
				opt.pair.lns_flows = 32;
				return c.choose(opt);
			};
			const LidTable chains = choose(0), wide = choose(PairSearchOptions().lns);
			const PairFloor decided = choose(0, SIZE_MAX).floor;
			const size_t before = chains.floor.count(PairFloor::undecided),
				     after = wide.floor.count(PairFloor::undecided);
			std::printf("# LMC %u, %u of 6 hosts running: %zu stages cannot be free; "
				    "congested after the chains %zu, after the neighbourhoods %zu "
				    "(and %zu proven by the count); HSD beside %.3f, %.3f\n",
				    lmc, split, decided.count(PairFloor::congested), before, after,
				    wide.floor.count(PairFloor::congested), c.hsd(chains),
				    c.hsd(wide));
			assert_int_equal(decided.count(PairFloor::undecided), 0);
			// every stage that can be free is, in neighbourhoods of 32
			// flows of the 72 or 90
			assert_int_equal(after + wide.floor.count(PairFloor::congested),
					 decided.count(PairFloor::congested));
			// a stage of its own: the neighbourhoods draw apart, so the
			// later stages search as without them
			assert_true(after <= before);
			assert_true(c.hsd(wide) <= c.hsd(chains) + 1e-12);
			freed += before - after;
		}
	assert_true(freed > 0);
}

// The chains and the walk with and without the neighbourhoods, on random
// host sets of the same tree alone: no job is more congested with them
// (a neighbourhood is taken only when it comes out free, with every other
// flow's links closed, and its draws leave the later stages' as they were).
void pair_neighbourhoods_never_worse(void **)
{
	std::mt19937 rng(17);
	size_t freed = 0;
	for (unsigned lmc : {2u, 3u}) {
		test::Modelled m(test::Modelled::generated("3;6,6,3;1,6,2;1,1,3", lmc));
		const std::unique_ptr<Pattern> shift = make_pattern("shift", nullptr);
		for (int job = 0; job < 12; job++) {
			std::vector<HostOrd> hosts;
			for (HostOrd h = 0; h < 108; h++)
				if (rng() % 4 != 0)
					hosts.push_back(h);
			auto congested = [&](unsigned lns, size_t probe = PairSearchOptions().lns_probe) {
				LidOptions opt;
				opt.pair.exact_total = 0; // the walk decides: its draws matter
				opt.pair.lns = lns;
				opt.pair.lns_probe = probe;
				opt.pair.lns_flows = 32; // of the stage's 80: the rest held
				const LidTable t =
					choose_lids(m.fabric, *m.router, m.tree, *shift, hosts, LidMode::pair, opt);
				return std::make_pair(t.floor.count(PairFloor::undecided) +
							      t.floor.count(PairFloor::congested),
						      score_lids(m.fabric, *m.router, *shift, t).avg_hsd);
			};
			const auto without = congested(0), with = congested(PairSearchOptions().lns);
			// no probe, no rounds: as without them
			assert_true(congested(PairSearchOptions().lns, 0) == without);
			assert_true(with.first <= without.first);
			assert_true(with.second <= without.second + 1e-12);
			freed += without.first - with.first;
		}
	}
	std::printf("# %zu stages freed by the neighbourhoods in 24 jobs\n", freed);
	assert_true(freed > 0);
}

// In the stages that stay congested, the new job's flows keep off the
// running job's links where another offset keeps under the stage's
// busiest link (PairSearchOptions::spare): the running job's HSD beside
// the new job falls, the new job's own does not rise. The same three-level
// tree and running job as the walk's, LMC 1 to 3.
void pair_spares_the_running_jobs(void **)
{
	std::mt19937 rng(13);
	double spared = 0;
	for (unsigned lmc : {1u, 2u, 3u})
		for (HostOrd split : {1u, 2u, 3u}) {
			const BesideCase c(lmc, split, rng);
			// both jobs' HSD in lock-step, as the runtime model plays them
			auto hsd = [&](bool spare) {
				LidOptions opt;
				opt.pair.spare = spare;
				std::vector<Job> jobs = c.running;
				jobs.push_back(c.choose(opt).job());
				ScoreOptions so;
				so.per_job = true;
				return score_jobs(c.m.fabric, *c.m.router, *c.shift, jobs, so).job_hsd;
			};
			const std::vector<double> off = hsd(false), on = hsd(true);
			std::printf("# LMC %u, %u of 6 hosts running: the running job %.3f, "
				    "spared %.3f; the new job %.3f, %.3f\n",
				    lmc, split, off[0], on[0], off[1], on[1]);
			assert_true(on[1] <= off[1] + 1e-12);
			assert_true(on[0] <= off[0] + 1e-12);
			spared += off[0] - on[0];
		}
	assert_true(spared > 0.05); // the pass had links to leave
}

// Threads that search Shift's stages side by side (PairSearchOptions::
// threads): Konig's routing still found, beside a running job too (each
// thread its own view of it), every offset in range and the engine's
// figure the one counted by hand. A pattern whose pairs come back in
// later stages (random permutations of 36 ranks) is searched on one
// thread whatever is asked: the same table as threads = 1.
void pair_threads_split_stages(void **)
{
	TwoLevel m(6, 3);
	const TwoInterleaved two(m);
	for (unsigned threads = 1; threads <= 4; threads++) {
		LidOptions opt;
		opt.pair.threads = threads;
		for (HostOrd n : {12u, 35u, 36u}) {
			std::vector<HostOrd> h(n);
			for (HostOrd i = 0; i < n; i++)
				h[i] = i;
			const LidTable t = m.choose(h, LidMode::pair, opt);
			assert_true(t.pair.size() == size_t(n) * n);
			for (uint8_t o : t.pair)
				assert_true(o < t.offsets);
			assert_true(m.hsd(t) == 1.0);
			assert_true(recount(m, t) == 1.0);
		}
		opt.beside = &two.running;
		const std::vector<double> h = two.with(m, m.choose(two.b, LidMode::pair, opt));
		std::printf("# %u threads: beside a running job %.3f (running %.3f)\n", threads, h[1],
			    h[0]);
		assert_true(h[1] == 1.0 && h[0] == 1.0);
	}
	// one host: no stage, no thread to share them
	LidOptions many;
	many.pair.threads = 8;
	assert_true(m.choose({5}, LidMode::pair, many).pair.size() == 1);
	for (const char *name : {"shift", "recdbl", "ring", "dissemination"})
		assert_true(pairs_in_one_stage(*make_pattern(name, nullptr), 36));
	std::unique_ptr<Pattern> perm = make_pattern("perm:40:3", nullptr);
	assert_false(pairs_in_one_stage(*perm, 36));
	std::vector<HostOrd> all(36);
	for (HostOrd i = 0; i < 36; i++)
		all[i] = i;
	LidOptions one, four;
	four.pair.threads = 4;
	const LidTable t1 = choose_lids(m.fabric, *m.router, m.tree, *perm, all, LidMode::pair, one);
	const LidTable t4 = choose_lids(m.fabric, *m.router, m.tree, *perm, all, LidMode::pair, four);
	assert_true(t1.pair == t4.pair);
}

// The exhaustive stage search against brute force: small random stages
// (6 flows, 3 offsets, paths of 1-2 of 10 links, a blocked link now and
// then): a routing with one flow per link exists exactly when
// solve_stage finds one, and what it finds is one. Then the pigeonhole
// (3 flows, 2 links), which it proves impossible, not merely not found.
void stage_search_is_exact(void **)
{
	std::mt19937_64 rng(11);
	const unsigned flows = 6, offsets = 3;
	const PortIdx links = 10;
	size_t routable = 0, crowded = 0;
	for (int round = 0; round < 300; round++) {
		StagePaths p;
		p.offsets = offsets;
		for (unsigned f = 0; f < flows; f++)
			for (unsigned o = 0; o < offsets; o++) {
				std::vector<PortIdx> all(links);
				for (PortIdx l = 0; l < links; l++)
					all[l] = l;
				std::shuffle(all.begin(), all.end(), rng);
				p.links.insert(p.links.end(), all.begin(), all.begin() + 1 + rng() % 2);
				p.at.push_back(uint32_t(p.links.size()));
			}
		std::vector<uint8_t> blocked(links, 0);
		if (round % 3 == 0)
			blocked[rng() % links] = 1;
		auto valid = [&](const std::vector<uint8_t> &o) {
			std::vector<int> use(links, 0);
			for (unsigned f = 0; f < flows; f++)
				for (uint32_t i = p.at[f * offsets + o[f]]; i < p.at[f * offsets + o[f] + 1];
				     i++)
					if (blocked[p.links[i]] || use[p.links[i]]++)
						return false;
			return true;
		};
		bool exists = false;
		std::vector<uint8_t> o(flows, 0);
		for (unsigned code = 0; code < 729 && !exists; code++) { // 3^6
			for (unsigned f = 0, c = code; f < flows; f++, c /= offsets)
				o[f] = uint8_t(c % offsets);
			exists = valid(o);
		}
		std::vector<uint8_t> hint(flows, 0), out;
		size_t steps = 100000;
		const bool found =
			solve_stage(p, blocked, hint, round % 2, steps, uint64_t(round), out);
		assert_int_equal(found, exists);
		if (stage_crowded(p, blocked)) { // a count proves only what is so
			assert_false(exists);
			crowded++;
		}
		if (found)
			assert_true(valid(out));
		routable += exists;
	}
	std::printf("# stage search: %zu of 300 random stages routable, all found; "
		    "%zu of the others proven by counting\n",
		    routable, crowded);
	assert_true(routable > 30 && routable < 270); // both answers are tested
	assert_true(crowded > 0);
	StagePaths hole;
	hole.offsets = 2;
	hole.links = {0, 1, 0, 1, 0, 1};
	hole.at = {0, 1, 2, 3, 4, 5, 6};
	std::vector<uint8_t> out;
	size_t steps = 1000;
	assert_false(
		solve_stage(hole, std::vector<uint8_t>(2, 0), {0, 0, 0}, true, steps, 1, out));
	assert_true(steps > 0); // proven impossible, not out of steps
	assert_true(stage_crowded(hole, std::vector<uint8_t>(2, 0)));
}

// Leaves as the stage search sees them: each flow's path is its host
// link, an up-link of its source leaf, a down-link into its destination
// leaf, its destination's host link, and its offset moves both ports.
// Small random stages against brute force again; then 7 flows leaving a
// leaf of 6 up-links, which Hall's condition on the leaf's up-links
// proves impossible at the first choice, where forward checking alone
// goes through the assignments of 5 flows before a flow runs dry.
void stage_search_leaf_groups(void **)
{
	const unsigned offsets = 3, ports = 4;
	auto leafy = [&](const std::vector<std::array<unsigned, 4>> &flows) {
		StagePaths p; // flow: source leaf, destination leaf, q, r
		p.offsets = offsets;
		for (size_t f = 0; f < flows.size(); f++)
			for (unsigned o = 0; o < offsets; o++) {
				const auto &[a, b, q, r] = flows[f];
				p.links.push_back(PortIdx(1000 + f));
				p.links.push_back(PortIdx(a * 10 + (q + o) % ports));
				p.links.push_back(PortIdx(500 + b * 10 + (r + 2 * o) % ports));
				p.links.push_back(PortIdx(2000 + f));
				p.at.push_back(uint32_t(p.links.size()));
			}
		return p;
	};
	std::mt19937_64 rng(5);
	size_t routable = 0;
	for (int round = 0; round < 200; round++) {
		std::vector<std::array<unsigned, 4>> flows(6);
		for (auto &f : flows)
			f = {unsigned(rng() % 2), unsigned(rng() % 2), unsigned(rng() % ports),
			     unsigned(rng() % ports)};
		const StagePaths p = leafy(flows);
		const std::vector<uint8_t> blocked(3000, 0);
		auto valid = [&](const std::vector<uint8_t> &o) {
			std::map<PortIdx, int> use;
			for (size_t f = 0; f < flows.size(); f++)
				for (uint32_t i = p.at[f * offsets + o[f]];
				     i < p.at[f * offsets + o[f] + 1]; i++)
					if (use[p.links[i]]++)
						return false;
			return true;
		};
		bool exists = false;
		std::vector<uint8_t> o(flows.size(), 0);
		for (unsigned code = 0; code < 729 && !exists; code++) {
			for (size_t f = 0, c = code; f < flows.size(); f++, c /= offsets)
				o[f] = uint8_t(c % offsets);
			exists = valid(o);
		}
		std::vector<uint8_t> hint(flows.size(), 0), out;
		size_t steps = 100000;
		assert_int_equal(
			solve_stage(p, blocked, hint, round % 2, steps, uint64_t(round), out), exists);
		if (exists)
			assert_true(valid(out));
		routable += exists;
	}
	std::printf("# leaf stages: %zu of 200 routable, all found\n", routable);
	assert_true(routable > 20 && routable < 180);
	// 7 flows out of leaf 0, 6 offsets, 6 up-links: a pigeonhole.
	StagePaths hole;
	hole.offsets = 6;
	for (unsigned f = 0; f < 7; f++)
		for (unsigned o = 0; o < 6; o++) {
			hole.links.insert(hole.links.end(),
					  {PortIdx(1000 + f), PortIdx((f + o) % 6), PortIdx(500 + f),
					   PortIdx(2000 + f)});
			hole.at.push_back(uint32_t(hole.links.size()));
		}
	std::vector<uint8_t> out;
	size_t steps = 100000;
	assert_false(solve_stage(hole, std::vector<uint8_t>(3000, 0), std::vector<uint8_t>(7, 0),
				 true, steps, 1, out));
	std::printf("# leaf pigeonhole: proven impossible in %zu steps\n", 100000 - steps);
	assert_true(100000 - steps <= 6);
	assert_true(stage_crowded(hole, std::vector<uint8_t>(3000, 0)));
	hole.links[1] = 6; // flow 0 at offset 0 leaves by a seventh up-link: 7 for 7
	assert_false(stage_crowded(hole, std::vector<uint8_t>(3000, 0)));
}

// The pod's pigeonhole on the 1944-host tree at LMC 4 (docs/lid-offsets.md,
// "The map's classes"): the contiguous job n[0001-0905], Shift stage 332,
// which the LP relaxation puts at 109 flows for 108 level-2 up-links of
// pod 1 (lid_bound: LP 1.009): the count proves it; stage 0 (the one
// pair that wraps, 904 -> 0) is free at offset 0, and no count says
// otherwise.
void stage_count_sees_the_pods_classes(void **)
{
	test::Modelled m(test::Modelled::generated("3;18,18,6;1,18,6;1,1,3", 4));
	std::vector<HostOrd> all(905);
	for (HostOrd h = 0; h < 905; h++)
		all[h] = h;
	const std::vector<HostOrd> ranks = tree_order(m.fabric, *m.tree, all);
	const std::unique_ptr<Pattern> shift = make_pattern("shift", nullptr);
	auto stage = [&](size_t s) {
		StagePaths p;
		p.offsets = 16;
		std::vector<RankPair> pairs;
		shift->stage(905, s, pairs);
		PortIdx links[kMaxPathLinks];
		for (const RankPair &r : pairs)
			for (unsigned o = 0; o < 16; o++) {
				const unsigned len = m.router->path(ranks[r.src], ranks[r.dst], o, links);
				p.links.insert(p.links.end(), links, links + len);
				p.at.push_back(uint32_t(p.links.size()));
			}
		return p;
	};
	const std::vector<uint8_t> open(m.fabric.port_count(), 0);
	assert_true(stage_crowded(stage(332), open));
	assert_false(stage_crowded(stage(0), open));
}

// Striping: each flow in 2^LMC equal shares; recounted with fractions.
void stripe_shares(void **)
{
	TwoLevel m(3, 2, 6);
	const std::vector<HostOrd> h = m.hosts({3, 5, 6, 9, 12, 16});
	const LidTable t = m.choose(h, LidMode::stripe);
	const uint32_t n = uint32_t(h.size());
	std::vector<RankPair> pairs;
	double sum = 0;
	for (size_t s = 0; s < m.shift->stage_count(n); s++) {
		m.shift->stage(n, s, pairs);
		std::map<PortIdx, double> load;
		PortIdx path[kMaxPathLinks];
		for (const RankPair &p : pairs)
			for (unsigned o = 0; o < 4; o++) {
				unsigned len = m.router->path(h[p.src], h[p.dst], o, path);
				for (unsigned k = 0; k < len; k++)
					load[path[k]] += 0.25;
			}
		double worst = 0;
		for (auto &[l, c] : load)
			worst = std::max(worst, c);
		sum += worst;
	}
	const double want = sum / double(m.shift->stage_count(n));
	assert_true(std::fabs(m.hsd(t) - want) < 1e-12);
	assert_true(want >= 1.0);
	// The engine's integer scoring refuses a striped job.
	expect_error([&] { score_jobs(m.fabric, *m.router, *m.shift, {t.job()}); },
		     Status::invalid, "score_lids");
}

void lid_space(void **)
{
	check_lid_space(1944, 1944 / 18 * 3, 4); // 31104 + 324 LIDs fit
	expect_error([] { check_lid_space(1944, 324, 5); }, Status::invalid,
		     "the largest LMC that fits is 4");
	expect_error([] { check_lid_space(49151, 1, 0); }, Status::invalid, "no LMC fits");
	expect_error([] { check_lid_space(10, 1, 8); }, Status::invalid, "expected 0..7");
	expect_error([] { lid_mode("best"); }, Status::invalid, "job, dest, pair or stripe");
}

void table_text(void **)
{
	TwoLevel m(3, 2, 6);
	LidTable t;
	t.mode = LidMode::pair;
	t.offsets = 4;
	t.hosts = {0, 4, 7};
	t.pair = {0, 1, 2, 3, 0, 1, 2, 3, 0};
	assert_string_equal(lid_table_text(m.fabric, t).c_str(),
			    "qft-lid 1\nlmc 2\nchoice pair\nhosts 3\n"
			    "host n0001 0x0004 0\nhost n0005 0x0014 0\nhost n0008 0x0020 0\n"
			    "pairs\n012\n301\n230\nend\n");
	t.mode = LidMode::dest;
	t.dest = {3, 0, 2};
	assert_string_equal(lid_table_text(m.fabric, t).c_str(),
			    "qft-lid 1\nlmc 2\nchoice dest\nhosts 3\n"
			    "host n0001 0x0004 3\nhost n0005 0x0014 0\nhost n0008 0x0020 2\nend\n");
	// LMC 5: two digits per offset.
	TwoLevel w(3, 5, 6);
	t.mode = LidMode::pair;
	t.offsets = 32;
	t.pair = {0, 31, 2, 3, 0, 17, 2, 3, 0};
	const std::string text = lid_table_text(w.fabric, t);
	assert_true(text.find("pairs\n001f02\n030011\n020300\nend\n") != std::string::npos);
}

} // namespace

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(head_beside_a_shared_host),
		cmocka_unit_test(engine_plays_the_table),
		cmocka_unit_test(seed001_examples),
		cmocka_unit_test(pair_reaches_konig),
		cmocka_unit_test(pair_beside_running_jobs),
		cmocka_unit_test(pair_threads_split_stages),
		cmocka_unit_test(pair_floor_beside_running_jobs),
		cmocka_unit_test(pair_walk_frees_what_can_be_free),
		cmocka_unit_test(pair_spares_the_running_jobs),
		cmocka_unit_test(stage_search_is_exact),
		cmocka_unit_test(stage_search_leaf_groups),
		cmocka_unit_test(stage_count_sees_the_pods_classes),
		cmocka_unit_test(pair_neighbourhoods_free_stages),
		cmocka_unit_test(pair_neighbourhoods_never_worse),
		cmocka_unit_test(stripe_shares),
		cmocka_unit_test(lid_space),
		cmocka_unit_test(table_text),
	};
	return cmocka_run_group_tests(tests, nullptr, nullptr);
}
