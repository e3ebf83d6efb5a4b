// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/place/placement.hpp"

#include <algorithm>
#include <cmath>

#include "lib/common/error.hpp"

namespace qft {

namespace {

constexpr size_t kWindowsPerSubtree = 4;

// Stage s of `taken` drawn from `all`: one in each stratum [b_s, b_{s+1}),
// b_s = floor(s all / taken), at a golden-ratio offset inside it. A fixed
// stride aliases with the tree's periods: 18 of Shift's 324 stages on 325
// ranks at stride 18 are all shifts of 1 mod 18, the same offset in every
// leaf, and miss congestion that the other residues see. frac(k phi), a
// low-discrepancy sequence, reaches every residue of the stratum.
size_t spread(size_t s, size_t taken, size_t all)
{
	const size_t lo = s * all / taken, hi = (s + 1) * all / taken;
	const double frac = std::fmod(double(s + 1) * 0.6180339887498949, 1.0);
	return lo + std::min(hi - lo - 1, size_t(frac * double(hi - lo)));
}

// Stages of `base` spread evenly over its length: enough to rank
// candidates, a fraction of the cost of playing every stage.
class Sampled : public Pattern {
public:
	Sampled(const Pattern &base, size_t count) : base_(base), count_(count) {}
	std::string name() const override { return base_.name(); }
	size_t stage_count(uint32_t n) const override
	{
		return std::min(count_, base_.stage_count(n));
	}
	void stage(uint32_t n, size_t s, std::vector<RankPair> &out) const override
	{
		size_t all = base_.stage_count(n), taken = stage_count(n);
		base_.stage(n, taken == all ? s : spread(s, taken, all), out);
	}

private:
	const Pattern &base_;
	size_t count_;
};

// Zeroes the scratch loads a stage touched however the stage ends (a
// path() that throws Error(unroutable), a visit that throws): the scratch
// must be all zero between stages, or every later score is wrong.
class ScratchGuard {
public:
	ScratchGuard(std::vector<uint32_t> &load, std::vector<PortIdx> &touched)
		: load_(load), touched_(touched) {}
	ScratchGuard(const ScratchGuard &) = delete;
	ScratchGuard &operator=(const ScratchGuard &) = delete;
	~ScratchGuard() { clear(); }
	void clear()
	{
		for (PortIdx l : touched_)
			load_[l] = 0;
		touched_.clear();
	}

private:
	std::vector<uint32_t> &load_;
	std::vector<PortIdx> &touched_;
};

} // namespace

const char *placement_kind_name(PlacementKind kind)
{
	switch (kind) {
	case PlacementKind::aligned: return "aligned";
	case PlacementKind::unaligned: return "unaligned";
	case PlacementKind::best_fit: return "best_fit";
	case PlacementKind::tree_order: return "tree_order";
	}
	return "?";
}

std::string Candidate::label() const
{
	if (kind == PlacementKind::tree_order)
		return cat(hosts.size(), " free hosts in tree order (no aligned block was free)");
	if (kind == PlacementKind::best_fit)
		return cat("L", level, "-", subtree, " best fit, ", hosts.size(),
			   " hosts (no aligned block was free)");
	std::string b; // ranges: 0-5,9
	for (size_t i = 0; i < blocks.size(); i++) {
		size_t j = i;
		while (j + 1 < blocks.size() && blocks[j + 1] == blocks[j] + 1)
			j++;
		b += cat(i ? "," : "", blocks[i]);
		if (j > i)
			b += cat("-", blocks[j]);
		i = j;
	}
	return cat("L", level, "-", subtree, " block", blocks.size() > 1 ? "s " : " ", b,
		   " of ", block, kind == PlacementKind::aligned ? " (aligned" : " (not a multiple",
		   contiguous ? ", contiguous)" : ", scattered)");
}

Placer::Placer(const Fabric &fabric, const Tree &tree, const Router &router,
	       PlacementPolicy policy)
	: fabric_(fabric), tree_(tree), router_(router), policy_(std::move(policy)),
	  holder_(fabric.hosts().size(), 0), background_(fabric.port_count(), 0),
	  load_(fabric.port_count(), 0), peak_(fabric.port_count(), 0)
{
	if (policy_.sample_stages == 0)
		fail(Status::invalid, "placement: sample_stages 0, expected at least 1");
	pattern_ = make_pattern(policy_.pattern, &tree.pgft());
}

Placer::~Placer() = default;

template <typename Visit>
void Placer::play(const std::vector<HostOrd> &ranks, size_t stages, Visit visit) const
{
	Sampled sampled(*pattern_, stages);
	uint32_t n = uint32_t(ranks.size());
	std::vector<RankPair> pairs;
	std::vector<PortIdx> touched;
	ScratchGuard guard(load_, touched);
	PortIdx path[kMaxPathLinks];
	for (size_t s = 0; s < sampled.stage_count(n); s++) {
		sampled.stage(n, s, pairs);
		for (const RankPair &pr : pairs) {
			unsigned len = router_.path(ranks[pr.src], ranks[pr.dst], 0, path);
			for (unsigned k = 0; k < len; k++) {
				if (load_[path[k]] == 0) // listed before counted: the guard sees it
					touched.push_back(path[k]);
				load_[path[k]]++;
			}
		}
		visit(touched, load_);
		guard.clear();
	}
}

size_t Placer::stages_for(size_t n, size_t cap, size_t flows) const
{
	const size_t all = pattern_->stage_count(uint32_t(n));
	const size_t fit = std::max<size_t>(flows / std::max<size_t>(n, 1), 1);
	return std::min({all, cap, fit});
}

std::pair<double, double> Placer::score(const std::vector<HostOrd> &ranks) const
{
	return score(ranks, policy_.flow_budget);
}

std::pair<double, double> Placer::score(const std::vector<HostOrd> &ranks, size_t flows) const
{
	// Alone: the stage's busiest link. With the running jobs: each link the
	// candidate uses carries its own flows plus the busiest load the
	// running jobs put on it.
	double alone_sum = 0, with_sum = 0;
	size_t stages = 0;
	play(ranks, stages_for(ranks.size(), policy_.sample_stages, flows),
	     [&](const std::vector<PortIdx> &touched, const std::vector<uint32_t> &load) {
		uint32_t alone = 0, with = 0;
		for (PortIdx l : touched) {
			alone = std::max(alone, load[l]);
			with = std::max(with, load[l] + background_[l]);
		}
		alone_sum += alone;
		with_sum += with;
		stages++;
	});
	if (!stages)
		return {1.0, 1.0};
	return {alone_sum / double(stages), with_sum / double(stages)};
}

Prediction Placer::play_peaks(const std::vector<HostOrd> &hosts,
			      std::vector<std::pair<PortIdx, uint32_t>> *peak) const
{
	Prediction pr;
	pr.stages_total = pattern_->stage_count(uint32_t(hosts.size()));
	uint64_t sum = 0;
	uint32_t worst = 0;
	std::vector<PortIdx> links; // where peak_ is not zero
	ScratchGuard guard(peak_, links);
	auto keep_peak = [&](PortIdx l, uint32_t c) {
		if (peak_[l] == 0)
			links.push_back(l);
		peak_[l] = std::max(peak_[l], c);
	};
	play(hosts, stages_for(hosts.size(), kPredictStages, policy_.flow_budget),
	     [&](const std::vector<PortIdx> &touched, const std::vector<uint32_t> &load) {
		     uint32_t m = 0;
		     for (PortIdx l : touched) {
			     m = std::max(m, load[l]);
			     if (peak)
				     keep_peak(l, load[l]);
		     }
		     sum += m;
		     worst = std::max(worst, m);
		     pr.stages_played++;
	     });
	if (peak) {
		peak->reserve(links.size());
		for (PortIdx l : links)
			peak->push_back({l, peak_[l]});
	}
	if (pr.stages_played)
		pr = {double(sum) / double(pr.stages_played), worst, pr.stages_played, pr.stages_total};
	return pr;
}

Prediction Placer::predict(const std::vector<HostOrd> &ranks) const
{
	// job_begin adds the job, then asks what to tell it: the figures
	// add_running() just computed from the same stages of the same ranks.
	auto it = jobs_.find(last_added_);
	if (it != jobs_.end() && it->second.hosts == ranks)
		return it->second.alone;
	return play_peaks(ranks, nullptr);
}

std::vector<HostOrd> Placer::reserve_of(const std::vector<HostOrd> &hosts) const
{
	// The hosts of every block a job touches, at the level of the smallest
	// subtree holding all its hosts.
	const Pgft &g = tree_.pgft();
	uint64_t lo = UINT64_MAX, hi = 0;
	std::vector<HostOrd> placed; // hosts without a tree position reserve nothing
	for (HostOrd h : hosts) {
		if (tree_.host_index(h) == kNone)
			continue;
		placed.push_back(h);
		lo = std::min(lo, tree_.host_index(h));
		hi = std::max(hi, tree_.host_index(h));
	}
	if (placed.empty())
		return {};
	unsigned level = 1;
	while (level < g.h() && lo / g.M(level) != hi / g.M(level))
		level++;
	uint64_t w = g.W(level);
	std::vector<HostOrd> out;
	std::vector<bool> seen(g.hosts() / w + 1, false);
	for (HostOrd h : placed) {
		uint64_t b = tree_.host_index(h) / w;
		if (seen[b])
			continue;
		seen[b] = true;
		for (uint64_t j = b * w; j < std::min(g.hosts(), (b + 1) * w); j++) {
			NodeId id = tree_.node_at(0, j);
			if (id != kNone)
				out.push_back(fabric_.host_ord(id));
		}
	}
	return out;
}

void Placer::add_running(uint32_t job_id, const std::vector<HostOrd> &hosts)
{
	remove_running(job_id);
	RunningJob job;
	job.hosts = hosts;
	job.reserved = policy_.remainder == Remainder::reserve ? reserve_of(hosts) : hosts;
	// Its busiest load on every link over the prediction's stages: one
	// replay, bounded by the flow budget, serves both.
	job.alone = play_peaks(hosts, &job.peak);
	for (const auto &[l, c] : job.peak)
		background_[l] += c;
	for (HostOrd h : job.reserved)
		holder_[h]++;
	jobs_.emplace(job_id, std::move(job));
	last_added_ = job_id;
}

void Placer::remove_running(uint32_t job_id)
{
	auto it = jobs_.find(job_id);
	if (it == jobs_.end())
		return;
	for (const auto &[l, c] : it->second.peak)
		background_[l] -= c;
	for (HostOrd h : it->second.reserved)
		holder_[h]--;
	jobs_.erase(it);
}

std::vector<std::pair<uint32_t, uint64_t>>
Placer::subtrees_holding(unsigned level, const Counts &counts, uint32_t n) const
{
	const uint64_t m = tree_.pgft().M(level), hosts = tree_.pgft().hosts();
	std::vector<std::pair<uint32_t, uint64_t>> subs;
	for (uint64_t sub = 0; sub * m < hosts; sub++) {
		uint32_t f = counts.free_in(sub * m, std::min(hosts, (sub + 1) * m));
		if (f >= n)
			subs.push_back({f, sub});
	}
	std::sort(subs.begin(), subs.end());
	return subs;
}

// Candidates inside level-l subtrees: runs of aligned blocks of W_l hosts,
// contiguous windows first, then the best-fitting whole blocks. Subtrees
// are visited tightest first (fewest free hosts that still hold the job),
// and the search stops at max_candidates: the ranking prefers best fit.
void Placer::candidates_at(unsigned level, const Counts &counts, const std::vector<bool> &free,
			   uint32_t n, const std::vector<HostOrd> &required,
			   std::vector<Candidate> &out) const
{
	const Pgft &g = tree_.pgft();
	const uint64_t w = g.W(level), m = g.M(level), hosts = g.hosts();
	const uint64_t blocks_per = (m + w - 1) / w;
	const uint64_t full = n / w, rest = n % w;
	const bool reserve = policy_.remainder == Remainder::reserve;
	const uint64_t need = full + (rest ? 1 : 0);
	if (need > blocks_per)
		return;
	const auto subs = subtrees_holding(level, counts, n);
	auto block_range = [&](uint64_t sub, uint64_t b) {
		uint64_t lo = sub * m + b * w;
		return std::make_pair(lo, std::min({lo + w, (sub + 1) * m, hosts}));
	};
	for (const auto &entry : subs) {
		// plain names: lambdas cannot capture structured bindings (C++17)
		const uint32_t free_total = entry.first;
		const uint64_t sub = entry.second;
		if (out.size() >= policy_.max_candidates)
			break;
		auto whole = [&](uint64_t b) {
			auto [lo, hi] = block_range(sub, b);
			uint32_t p = counts.present_in(lo, hi);
			return p > 0 && counts.free_in(lo, hi) == p;
		};
		auto usable = [&](uint64_t b, bool last) {
			if (!last || !rest || reserve)
				return whole(b);
			auto [lo, hi] = block_range(sub, b);
			return counts.free_in(lo, hi) >= rest;
		};
		auto make = [&](const std::vector<uint64_t> &bs, bool contiguous) {
			Candidate c;
			c.level = level;
			c.subtree = sub;
			c.block = w;
			c.blocks = bs;
			c.contiguous = contiguous;
			c.kind = rest == 0 ? PlacementKind::aligned : PlacementKind::unaligned;
			std::vector<uint64_t> idx;
			for (size_t i = 0; i < bs.size(); i++) {
				auto [lo, hi] = block_range(sub, bs[i]);
				if (i + 1 == bs.size() && rest) {
					// the partial block: whole leaves first, the rest
					// where it fits best (contiguous if the block is free)
					fill(lo, hi, rest, counts, idx);
					continue;
				}
				for (uint64_t j = lo; j < hi; j++) {
					NodeId id = tree_.node_at(0, j);
					if (id != kNone && free[fabric_.host_ord(id)])
						idx.push_back(j);
				}
			}
			// ranks in tree order, as the job will run (and be scored)
			std::sort(idx.begin(), idx.end());
			for (uint64_t j : idx)
				c.hosts.push_back(fabric_.host_ord(tree_.node_at(0, j)));
			if (c.hosts.size() != n)
				return false; // blocks with absent hosts: not enough
			for (HostOrd r : required)
				if (std::find(c.hosts.begin(), c.hosts.end(), r) == c.hosts.end())
					return false;
			c.free_left = free_total - n;
			out.push_back(std::move(c));
			return true;
		};
		// contiguous windows of `need` blocks, the remainder block last; a
		// few per subtree (the others differ only in position)
		size_t windows = 0;
		for (uint64_t s = 0; s + need <= blocks_per && windows < kWindowsPerSubtree; s++) {
			bool ok = true;
			std::vector<uint64_t> bs;
			for (uint64_t b = s; b < s + need && ok; b++) {
				ok = usable(b, b + 1 == s + need);
				bs.push_back(b);
			}
			if (ok && make(bs, true))
				windows++;
		}
		if (windows)
			continue;
		// scattered: whole free blocks in order, the remainder in the block
		// with the fewest free hosts that still holds it (best fit)
		std::vector<uint64_t> bs;
		for (uint64_t b = 0; b < blocks_per && bs.size() < full; b++)
			if (usable(b, false))
				bs.push_back(b);
		if (bs.size() != full)
			continue;
		if (rest) {
			uint64_t best = blocks_per;
			uint32_t best_free = UINT32_MAX;
			for (uint64_t b = 0; b < blocks_per; b++) {
				if (std::find(bs.begin(), bs.end(), b) != bs.end() || !usable(b, true))
					continue;
				auto [lo, hi] = block_range(sub, b);
				if (counts.free_in(lo, hi) < best_free) {
					best = b;
					best_free = counts.free_in(lo, hi);
				}
			}
			if (best == blocks_per)
				continue;
			bs.push_back(best);
		}
		make(bs, false);
	}
}

void Placer::fill(uint64_t lo, uint64_t hi, uint64_t need, const Counts &counts,
		  std::vector<uint64_t> &out) const
{
	// Chunks: the largest subtrees [lo, hi) divides into evenly (hosts at
	// the bottom; a block of W_l hosts may be a run of leaves).
	const Pgft &g = tree_.pgft();
	const uint64_t size = hi - lo;
	uint64_t c = 1;
	for (unsigned k = 1; k <= g.h() && g.M(k) < size; k++)
		if (lo % g.M(k) == 0 && size % g.M(k) == 0)
			c = g.M(k);
	if (c == 1) {
		for (uint64_t j = lo; j < hi && need; j++)
			if (counts.free_in(j, j + 1)) {
				out.push_back(j);
				need--;
			}
		return;
	}
	const uint64_t chunks = size / c;
	std::vector<bool> taken(chunks, false);
	auto free_of = [&](uint64_t i) { return counts.free_in(lo + i * c, lo + (i + 1) * c); };
	// whole free chunks that fit, in tree order: they keep the job's
	// traffic inside whole subtrees
	for (uint64_t i = 0; i < chunks && need; i++) {
		uint32_t f = free_of(i);
		if (f > 0 && f <= need && f == counts.present_in(lo + i * c, lo + (i + 1) * c)) {
			fill(lo + i * c, lo + (i + 1) * c, f, counts, out);
			taken[i] = true;
			need -= f;
		}
	}
	while (need) {
		// the rest in the chunk with the fewest free hosts that holds it;
		// if none does, the chunk with the most, and go on
		uint64_t fit = chunks, most = chunks;
		for (uint64_t i = 0; i < chunks; i++) {
			if (taken[i] || !free_of(i))
				continue;
			if (free_of(i) >= need && (fit == chunks || free_of(i) < free_of(fit)))
				fit = i;
			if (most == chunks || free_of(i) > free_of(most))
				most = i;
		}
		if (most == chunks)
			fail(Status::internal, "placement: fill found ", need, " hosts too few");
		uint64_t i = fit != chunks ? fit : most;
		uint64_t take = std::min<uint64_t>(need, free_of(i));
		fill(lo + i * c, lo + (i + 1) * c, take, counts, out);
		taken[i] = true;
		need -= take;
	}
}

// No aligned block was free: a best fit in each of the tightest level-l
// subtrees that hold the job.
void Placer::best_fit_at(unsigned level, const Counts &counts, uint32_t n,
			 const std::vector<HostOrd> &required, std::vector<Candidate> &out) const
{
	const Pgft &g = tree_.pgft();
	const uint64_t m = g.M(level);
	for (const auto &entry : subtrees_holding(level, counts, n)) {
		if (out.size() >= kWindowsPerSubtree)
			break;
		std::vector<uint64_t> idx;
		fill(entry.second * m, std::min(g.hosts(), (entry.second + 1) * m), n, counts, idx);
		std::sort(idx.begin(), idx.end());
		Candidate c;
		c.level = level;
		c.subtree = entry.second;
		c.kind = PlacementKind::best_fit;
		for (uint64_t j : idx)
			c.hosts.push_back(fabric_.host_ord(tree_.node_at(0, j)));
		bool has_required = true;
		for (HostOrd r : required)
			has_required = has_required &&
				       std::find(c.hosts.begin(), c.hosts.end(), r) != c.hosts.end();
		if (!has_required)
			continue;
		c.free_left = entry.first - n;
		out.push_back(std::move(c));
	}
}

// Keeps the max_candidates best fitting candidates, scores them (all when
// ranking by congestion, else the best fit ones until one routes: the
// prediction) and drops those missing cables leave unroutable; the first
// such message goes to `why`.
void Placer::score_candidates(std::vector<Candidate> &cands, std::string &why) const
{
	// Best fit first, so that equal scores keep the tightest packing.
	std::stable_sort(cands.begin(), cands.end(), [](const Candidate &a, const Candidate &b) {
		return a.free_left < b.free_left;
	});
	if (cands.size() > policy_.max_candidates)
		cands.resize(policy_.max_candidates);
	// place() runs in job_test for every pending job: the candidates it
	// ranks share one flow budget (best fit alone scores one).
	const size_t share = policy_.rank_by_congestion
				     ? policy_.flow_budget / std::max<size_t>(cands.size(), 1)
				     : policy_.flow_budget;
	auto routes = [&](Candidate &c) {
		try {
			std::tie(c.hsd_alone, c.hsd) = score(c.hosts, share);
			return true;
		} catch (const Error &e) {
			if (e.status() != Status::unroutable)
				throw;
			if (why.empty())
				why = e.what();
			return false;
		}
	};
	std::vector<Candidate> kept;
	for (Candidate &c : cands)
		if ((!policy_.rank_by_congestion && !kept.empty()) || routes(c))
			kept.push_back(std::move(c));
	cands.swap(kept);
}

Placement Placer::place(const PlacementRequest &req) const
{
	const size_t hosts = fabric_.hosts().size();
	Placement p;
	if (req.nodes == 0)
		fail(Status::invalid, "placement: a job of 0 nodes");
	if (req.eligible.size() != hosts || (!req.busy.empty() && req.busy.size() != hosts))
		fail(Status::invalid, "placement: host vectors of ", req.eligible.size(),
		     " entries, expected ", hosts);
	size_t eligible = 0;
	for (HostOrd h = 0; h < hosts; h++)
		eligible += req.eligible[h] && tree_.host_index(h) != kNone;
	for (HostOrd r : req.required)
		if (r >= hosts || !req.eligible[r]) {
			p.reason = cat("a required node (", fabric_.node_label(fabric_.hosts()[r]),
				       ") is not eligible");
			return p;
		}
	if (eligible < req.nodes) {
		p.reason = cat(req.nodes, " nodes requested, ", eligible, " eligible");
		return p;
	}
	std::vector<bool> free(hosts, false);
	size_t free_count = 0;
	for (HostOrd h = 0; h < hosts; h++) {
		free[h] = req.eligible[h] && tree_.host_index(h) != kNone && !holder_[h] &&
			  (req.busy.empty() || !req.busy[h]);
		free_count += free[h];
	}
	for (HostOrd r : req.required)
		if (!free[r]) {
			p.outcome = Placement::not_now;
			p.reason = cat("required node ", fabric_.node_label(fabric_.hosts()[r]), " is busy");
			return p;
		}
	if (free_count < req.nodes) {
		p.outcome = Placement::not_now;
		p.reason = cat(req.nodes, " nodes requested, ", free_count, " free now");
		return p;
	}
	const Pgft &g = tree_.pgft();
	Counts counts;
	counts.free.assign(g.hosts() + 1, 0);
	counts.present.assign(g.hosts() + 1, 0);
	for (uint64_t j = 0; j < g.hosts(); j++) {
		NodeId id = tree_.node_at(0, j);
		bool present = id != kNone && req.eligible[fabric_.host_ord(id)];
		counts.present[j + 1] = counts.present[j] + present;
		counts.free[j + 1] = counts.free[j] + (present && free[fabric_.host_ord(id)]);
	}
	unsigned smallest = 1; // the smallest level whose subtrees hold N
	while (smallest < g.h() && g.M(smallest) < req.nodes)
		smallest++;
	// Each source of candidates in turn, until one gives a routable one.
	std::vector<Candidate> cands;
	std::string unroutable;
	for (unsigned l = smallest; l <= g.h() && cands.empty(); l++) {
		candidates_at(l, counts, free, req.nodes, req.required, cands);
		score_candidates(cands, unroutable);
	}
	for (unsigned l = smallest; l <= g.h() && cands.empty(); l++) {
		best_fit_at(l, counts, req.nodes, req.required, cands);
		score_candidates(cands, unroutable);
	}
	if (cands.empty()) {
		// The required hosts are spread wider than any best fit: they,
		// then free hosts in tree order.
		Candidate c;
		std::vector<bool> taken(hosts, false);
		for (HostOrd r : req.required) {
			c.hosts.push_back(r);
			taken[r] = true;
		}
		for (uint64_t j = 0; j < g.hosts() && c.hosts.size() < req.nodes; j++) {
			NodeId id = tree_.node_at(0, j);
			if (id == kNone)
				continue;
			HostOrd h = fabric_.host_ord(id);
			if (free[h] && !taken[h])
				c.hosts.push_back(h);
		}
		std::sort(c.hosts.begin(), c.hosts.end(), [&](HostOrd a, HostOrd b) {
			return tree_.host_index(a) < tree_.host_index(b);
		});
		cands.push_back(std::move(c));
		score_candidates(cands, unroutable);
	}
	if (cands.empty()) {
		p.outcome = Placement::not_now;
		p.reason = cat("every candidate is unroutable: ", unroutable);
		return p;
	}
	std::stable_sort(cands.begin(), cands.end(), [&](const Candidate &a, const Candidate &b) {
		if (policy_.rank_by_congestion && a.hsd != b.hsd)
			return a.hsd < b.hsd;
		return a.free_left < b.free_left;
	});
	p.outcome = Placement::placed;
	p.chosen = cands.front();
	p.considered = std::move(cands);
	return p;
}

} // namespace qft
