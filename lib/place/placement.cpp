// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/place/placement.hpp"

#include <algorithm>

#include "lib/common/error.hpp"
#include "lib/place/order.hpp"
#include "lib/place/qft_runs.hpp"
#include "lib/place/shape.hpp"

namespace qft {

namespace {

constexpr size_t kWindowsPerSubtree = 4;

} // namespace

const char *placement_kind_name(PlacementKind kind)
{
	switch (kind) {
	case PlacementKind::product: return "product";
	case PlacementKind::near_product: return "near_product";
	case PlacementKind::two_leaves: return "two_leaves";
	case PlacementKind::aligned: return "aligned";
	case PlacementKind::unaligned: return "unaligned";
	case PlacementKind::best_fit: return "best_fit";
	case PlacementKind::tree_order: return "tree_order";
	}
	return "?";
}

std::string Candidate::label() const
{
	if (kind == PlacementKind::product)
		return cat("product ", shape, " (", hosts.size(), " hosts)");
	if (kind == PlacementKind::two_leaves)
		return cat(hosts.size(), " hosts in two leaves (no product was free)");
	if (kind == PlacementKind::near_product)
		return cat("near product ", shape, " (", hosts.size(),
			   " hosts; no free product of that size)");
	if (kind == PlacementKind::tree_order)
		return cat(hosts.size(), " free hosts in tree order (no aligned block was free)");
	if (kind == PlacementKind::best_fit)
		return cat("L", level, "-", subtree, " best fit, ", hosts.size(),
			   quiet ? " hosts in the quietest subtrees (no aligned block was free)"
			   : whole_leaves ? " hosts in whole free leaves (no aligned block was free)"
					  : " hosts (no aligned block was free)");
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
	  link_names_(std::string(router.name()) == "dmodk"), links_(tree.pgft()),
	  every_links_(tree.pgft(), policy_.lid_offsets || !link_names_),
	  isolated_links_(tree.pgft(), policy_.lid_offsets || !link_names_),
	  pressure_(tree), player_(fabric, router), peaks_(fabric.port_count())
{
	if (policy_.sample_stages == 0)
		fail(Status::invalid, "placement: sample_stages 0, expected at least 1");
	pattern_ = make_pattern(policy_.pattern, &tree.pgft());
}

Placer::~Placer() = default;

template <typename Visit>
void Placer::play(const std::vector<HostOrd> &ranks, size_t stages, Visit visit) const
{
	scratch_job_.ranks = ranks;
	player_.play(SampledPattern(*pattern_, stages), &scratch_job_, 1,
		     [&](size_t, const std::vector<Flow> &, const LinkLoads &loads) { visit(loads); });
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
	play(ranks, stages_for(ranks.size(), policy_.sample_stages, flows), [&](const LinkLoads &loads) {
		uint32_t alone = 0, with = 0;
		loads.for_each([&](PortIdx l) {
			alone = std::max(alone, loads[l]);
			with = std::max(with, loads[l] + background_[l]);
		});
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
	peaks_.clear(); // also when a play before this one threw
	play(hosts, stages_for(hosts.size(), kPredictStages, policy_.flow_budget),
	     [&](const LinkLoads &loads) {
		     const uint32_t m = loads.max();
		     if (peak)
			     peaks_.add(loads);
		     sum += m;
		     worst = std::max(worst, m);
		     pr.stages_played++;
	     });
	if (peak) {
		peak->reserve(peaks_.links().size());
		for (PortIdx l : peaks_.links())
			peak->push_back({l, peaks_.peak(l)});
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

std::vector<uint64_t> Placer::tree_indexes(const std::vector<HostOrd> &hosts) const
{
	std::vector<uint64_t> idx;
	for (HostOrd h : hosts)
		if (tree_.host_index(h) != kNone)
			idx.push_back(tree_.host_index(h));
	return idx;
}

std::vector<uint64_t> Placer::product_hull(const std::vector<uint64_t> &idx) const
{
	const Pgft &g = tree_.pgft();
	if (idx.empty())
		return {};
	std::vector<std::vector<bool>> used(g.h());
	uint64_t size = 1;
	for (unsigned l = 1; l <= g.h(); l++) {
		used[l - 1].assign(radix(l), false);
		uint32_t n = 0;
		for (uint64_t j : idx) {
			const uint64_t d = j / tree_.subtree_hosts(l - 1) % radix(l);
			n += !used[l - 1][d];
			used[l - 1][d] = true;
		}
		size *= n;
	}
	if (size * 100 > idx.size() * (100 + uint64_t(policy_.round_up)))
		return {};
	std::vector<uint64_t> hull;
	for (uint64_t j = 0; j < g.hosts(); j++) {
		bool in = true;
		for (unsigned l = 1; l <= g.h() && in; l++)
			in = used[l - 1][j / tree_.subtree_hosts(l - 1) % radix(l)];
		if (in)
			hull.push_back(j);
	}
	return hull;
}

std::vector<HostOrd> Placer::reserve_of(const std::vector<HostOrd> &hosts) const
{
	const Pgft &g = tree_.pgft();
	// A product or near product keeps its whole product.
	if (policy_.products) {
		const std::vector<uint64_t> hull = product_hull(tree_indexes(hosts));
		if (!hull.empty()) {
			std::vector<HostOrd> out;
			for (uint64_t j : hull)
				if (tree_.node_at(0, j) != kNone)
					out.push_back(fabric_.host_ord(tree_.node_at(0, j)));
			return out;
		}
	}
	// Else the hosts of every block a job touches, at the level of the
	// smallest subtree holding all its hosts.
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
	while (level < g.h() && lo / tree_.subtree_hosts(level) != hi / tree_.subtree_hosts(level))
		level++;
	const uint64_t w = block_hosts(tree_, level);
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
	const auto old = jobs_.find(job_id);
	const bool isolated = old != jobs_.end() && old->second.isolated;
	remove_running(job_id);
	RunningJob job;
	job.hosts = hosts;
	job.reserved = policy_.remainder == Remainder::reserve ? reserve_of(hosts) : hosts;
	job.placed = tree_indexes(hosts);
	// Its busiest load on every link over the prediction's stages: one
	// replay, bounded by the flow budget, serves both. It throws for an
	// unroutable job, before anything below is counted.
	job.alone = play_peaks(hosts, &job.peak);
	// What may throw (the map's node, the link count) comes before the
	// counts that cannot: a failed add leaves no hold behind (the C API
	// catches the exception, and slurmctld goes on with this placer).
	const auto it = jobs_.emplace(job_id, std::move(job)).first;
	bool named = false, every = false;
	try {
		if (link_names_) {
			links_.add(it->second.placed, 1);
			named = true;
		}
		every_links_.add(it->second.placed, 1);
		every = true;
		pressure_.add(it->second.placed, 1);
	} catch (...) {
		if (named)
			links_.add(it->second.placed, -1);
		if (every)
			every_links_.add(it->second.placed, -1);
		jobs_.erase(it);
		throw;
	}
	for (const auto &[l, c] : it->second.peak)
		background_[l] += c;
	for (HostOrd h : it->second.reserved)
		holder_[h]++;
	last_added_ = job_id;
	if (isolated)
		isolate_running(job_id, true);
}

bool Placer::isolate_running(uint32_t job_id, bool isolated)
{
	const auto it = jobs_.find(job_id);
	if (it == jobs_.end())
		return false;
	if (it->second.isolated == isolated)
		return true;
	isolated_links_.add(it->second.placed, isolated ? 1 : -1);
	it->second.isolated = isolated;
	isolated_count_ += isolated ? 1 : size_t(-1);
	return true;
}

void Placer::remove_running(uint32_t job_id)
{
	auto it = jobs_.find(job_id);
	if (it == jobs_.end())
		return;
	// The link count first, as in add_running(): if it throws, the job
	// stays whole and a later removal frees its hosts once.
	isolate_running(job_id, false);
	if (link_names_)
		links_.add(it->second.placed, -1);
	every_links_.add(it->second.placed, -1);
	pressure_.add(it->second.placed, -1);
	for (const auto &[l, c] : it->second.peak)
		background_[l] -= c;
	for (HostOrd h : it->second.reserved)
		holder_[h]--;
	jobs_.erase(it);
}

std::vector<std::pair<uint32_t, uint64_t>> Placer::subtrees_holding(unsigned level,
								    const Search &s) const
{
	const uint64_t m = tree_.subtree_hosts(level), hosts = tree_.pgft().hosts();
	std::vector<std::pair<uint32_t, uint64_t>> subs;
	for (uint64_t sub = 0; sub * m < hosts; sub++) {
		uint32_t f = s.counts.free_in(sub * m, std::min(hosts, (sub + 1) * m));
		if (f >= s.req.nodes)
			subs.push_back({f, sub});
	}
	std::sort(subs.begin(), subs.end());
	return subs;
}

bool Placer::Search::has_required(const std::vector<HostOrd> &hosts) const
{
	for (HostOrd r : req.required)
		if (std::find(hosts.begin(), hosts.end(), r) == hosts.end())
			return false;
	return true;
}

Placer::Blocks::Blocks(const Tree &t, unsigned lvl, uint64_t subtree, uint32_t n)
	: level(lvl), sub(subtree), w(block_hosts(t, lvl)), m(t.subtree_hosts(lvl)),
	  hosts(t.pgft().hosts()),
	  per((m + w - 1) / w), full(n / w), rest(n % w), need(full + (rest ? 1 : 0))
{
}

std::pair<uint64_t, uint64_t> Placer::Blocks::range(uint64_t b) const
{
	const uint64_t lo = sub * m + b * w;
	return {lo, std::min({lo + w, (sub + 1) * m, hosts})};
}

bool Placer::block_usable(const Search &s, const Blocks &bl, uint64_t b, bool last) const
{
	auto [lo, hi] = bl.range(b);
	if (last && bl.rest && policy_.remainder != Remainder::reserve)
		return s.counts.free_in(lo, hi) >= bl.rest; // the partial block
	const uint32_t p = s.counts.present_in(lo, hi);
	return p > 0 && s.counts.free_in(lo, hi) == p; // a whole free block
}

bool Placer::block_candidate(const Search &s, const Blocks &bl, const std::vector<uint64_t> &bs,
			     bool contiguous, uint32_t free_total, std::vector<Candidate> &out) const
{
	Candidate c;
	c.kind = bl.rest == 0 ? PlacementKind::aligned : PlacementKind::unaligned;
	c.level = bl.level;
	c.subtree = bl.sub;
	c.block = bl.w;
	c.blocks = bs;
	c.contiguous = contiguous;
	std::vector<uint64_t> idx;
	for (size_t i = 0; i < bs.size(); i++) {
		auto [lo, hi] = bl.range(bs[i]);
		if (i + 1 == bs.size() && bl.rest) {
			// the partial block: whole leaves first, the rest where it
			// fits best (contiguous if the block is free)
			fill(lo, hi, bl.rest, s.counts, idx);
			continue;
		}
		for (uint64_t j = lo; j < hi; j++) {
			NodeId id = tree_.node_at(0, j);
			if (id != kNone && s.free[fabric_.host_ord(id)])
				idx.push_back(j);
		}
	}
	// ranks in tree order, as the job will run (and be scored)
	std::sort(idx.begin(), idx.end());
	for (uint64_t j : idx)
		c.hosts.push_back(fabric_.host_ord(tree_.node_at(0, j)));
	if (c.hosts.size() != s.req.nodes || !s.has_required(c.hosts))
		return false; // blocks with absent hosts: not enough
	c.free_left = free_total - s.req.nodes;
	out.push_back(std::move(c));
	return true;
}

size_t Placer::windows_in(const Search &s, const Blocks &bl, uint32_t free_total,
			  std::vector<Candidate> &out) const
{
	size_t windows = 0;
	for (uint64_t first = 0; first + bl.need <= bl.per && windows < kWindowsPerSubtree; first++) {
		bool ok = true;
		std::vector<uint64_t> bs;
		for (uint64_t b = first; b < first + bl.need && ok; b++) {
			ok = block_usable(s, bl, b, b + 1 == first + bl.need);
			bs.push_back(b);
		}
		if (ok && block_candidate(s, bl, bs, true, free_total, out))
			windows++;
	}
	return windows;
}

void Placer::scattered_in(const Search &s, const Blocks &bl, uint32_t free_total,
			  std::vector<Candidate> &out) const
{
	std::vector<uint64_t> bs;
	for (uint64_t b = 0; b < bl.per && bs.size() < bl.full; b++)
		if (block_usable(s, bl, b, false))
			bs.push_back(b);
	if (bs.size() != bl.full)
		return;
	if (bl.rest) {
		// the partial block where the fewest free hosts still hold it
		uint64_t best = bl.per;
		uint32_t best_free = UINT32_MAX;
		for (uint64_t b = 0; b < bl.per; b++) {
			if (std::find(bs.begin(), bs.end(), b) != bs.end() || !block_usable(s, bl, b, true))
				continue;
			auto [lo, hi] = bl.range(b);
			if (s.counts.free_in(lo, hi) < best_free) {
				best = b;
				best_free = s.counts.free_in(lo, hi);
			}
		}
		if (best == bl.per)
			return;
		bs.push_back(best);
	}
	block_candidate(s, bl, bs, false, free_total, out);
}

// Candidates inside level-l subtrees: runs of aligned blocks of W_l hosts,
// a few contiguous windows per subtree (the others differ only in
// position), else the best-fitting whole blocks scattered in it. Subtrees
// are visited tightest first (fewest free hosts that still hold the job),
// and the search stops at max_candidates: the ranking prefers best fit.
void Placer::candidates_at(unsigned level, const Search &s, std::vector<Candidate> &out) const
{
	for (const auto &[free_total, sub] : subtrees_holding(level, s)) {
		if (out.size() >= policy_.max_candidates)
			break;
		const Blocks bl(tree_, level, sub, s.req.nodes);
		if (bl.need > bl.per)
			return;
		if (!windows_in(s, bl, free_total, out))
			scattered_in(s, bl, free_total, out);
	}
}

void Placer::fill(uint64_t lo, uint64_t hi, uint64_t need, const Counts &counts,
		  std::vector<uint64_t> &out, const PathPressure *quiet) const
{
	// Chunks: the largest subtrees [lo, hi) divides into evenly (hosts at
	// the bottom; a block of W_l hosts may be a run of leaves).
	const Pgft &g = tree_.pgft();
	const uint64_t size = hi - lo;
	uint64_t c = 1;
	for (unsigned k = 1; k <= g.h() && tree_.subtree_hosts(k) < size; k++)
		if (lo % tree_.subtree_hosts(k) == 0 && size % tree_.subtree_hosts(k) == 0)
			c = tree_.subtree_hosts(k);
	if (c == 1) {
		for (uint64_t j = lo; j < hi && need; j++)
			if (counts.free_in(j, j + 1)) {
				out.push_back(j);
				need--;
			}
		return;
	}
	const uint64_t chunks = size / c;
	unsigned level = 1; // the chunks' level, for their pressure
	while (tree_.subtree_hosts(level) < c)
		level++;
	std::vector<bool> taken(chunks, false);
	auto free_of = [&](uint64_t i) { return counts.free_in(lo + i * c, lo + (i + 1) * c); };
	// whole free chunks that fit, in tree order: they keep the job's
	// traffic inside whole subtrees
	for (uint64_t i = 0; i < chunks && need; i++) {
		uint32_t f = free_of(i);
		if (f > 0 && f <= need && f == counts.present_in(lo + i * c, lo + (i + 1) * c)) {
			fill(lo + i * c, lo + (i + 1) * c, f, counts, out, quiet);
			taken[i] = true;
			need -= f;
		}
	}
	while (need) {
		// the rest in the chunk with the fewest free hosts that holds it;
		// if none does, the chunk with the most, and go on. Quiet: the
		// least pressure first, per free host where none holds it.
		auto pressure = [&](uint64_t i) { return quiet ? quiet->at(level, lo / c + i) : 0u; };
		auto better_fit = [&](uint64_t i, uint64_t than) {
			if (pressure(i) != pressure(than))
				return pressure(i) < pressure(than);
			return free_of(i) < free_of(than);
		};
		auto more_room = [&](uint64_t i, uint64_t than) {
			// P_i / free_i < P_than / free_than, in integers
			const uint64_t a = uint64_t(pressure(i)) * free_of(than),
				       b = uint64_t(pressure(than)) * free_of(i);
			if (a != b)
				return a < b;
			return free_of(i) > free_of(than);
		};
		uint64_t fit = chunks, most = chunks;
		for (uint64_t i = 0; i < chunks; i++) {
			if (taken[i] || !free_of(i))
				continue;
			if (free_of(i) >= need && (fit == chunks || better_fit(i, fit)))
				fit = i;
			if (most == chunks || more_room(i, most))
				most = i;
		}
		if (most == chunks)
			fail(Status::internal, "placement: fill found ", need, " hosts too few");
		uint64_t i = fit != chunks ? fit : most;
		uint64_t take = std::min<uint64_t>(need, free_of(i));
		fill(lo + i * c, lo + (i + 1) * c, take, counts, out, quiet);
		taken[i] = true;
		need -= take;
	}
}

Candidate Placer::best_fit_of(unsigned level, uint64_t subtree, std::vector<uint64_t> &idx) const
{
	std::sort(idx.begin(), idx.end());
	Candidate c;
	c.kind = PlacementKind::best_fit;
	c.level = level;
	c.subtree = subtree;
	for (uint64_t j : idx)
		c.hosts.push_back(fabric_.host_ord(tree_.node_at(0, j)));
	return c;
}

// No aligned block was free: a best fit in each of the tightest level-l
// subtrees that hold the job.
void Placer::best_fit_at(unsigned level, const Search &s, std::vector<Candidate> &out) const
{
	const Pgft &g = tree_.pgft();
	const uint64_t m = tree_.subtree_hosts(level);
	const size_t per = ranks_by_pressure() ? 2 : 1; // the tightest fill, the quietest
	for (const auto &[free_total, sub] : subtrees_holding(level, s)) {
		if (out.size() >= kWindowsPerSubtree * per)
			break;
		std::vector<HostOrd> tightest;
		for (bool quiet : {false, true}) {
			if (quiet && !ranks_by_pressure())
				break;
			std::vector<uint64_t> idx;
			fill(sub * m, std::min(g.hosts(), (sub + 1) * m), s.req.nodes, s.counts, idx,
			     quiet ? &s.pressure_of(*this) : nullptr);
			Candidate c = best_fit_of(level, sub, idx);
			c.quiet = quiet;
			if (!s.has_required(c.hosts) || (quiet && c.hosts == tightest))
				continue;
			if (!quiet)
				tightest = c.hosts;
			c.free_left = free_total - s.req.nodes;
			out.push_back(std::move(c));
		}
	}
}

// The required hosts are spread wider than any best fit: they, then free
// hosts in tree order.
Candidate Placer::tree_order_candidate(const Search &s) const
{
	Candidate c;
	std::vector<bool> taken(s.free.size(), false);
	for (HostOrd r : s.req.required) {
		c.hosts.push_back(r);
		taken[r] = true;
	}
	for (uint64_t j = 0; j < tree_.pgft().hosts() && c.hosts.size() < s.req.nodes; j++) {
		NodeId id = tree_.node_at(0, j);
		if (id == kNone)
			continue;
		HostOrd h = fabric_.host_ord(id);
		if (s.free[h] && !taken[h])
			c.hosts.push_back(h);
	}
	sort_tree_order(tree_, c.hosts);
	return c;
}

bool Placer::offset_shape(const Candidate &c) const
{
	return policy_.lid_offsets && c.level == 2 &&
	       (c.kind == PlacementKind::aligned || c.kind == PlacementKind::unaligned) &&
	       c.block >= tree_.subtree_hosts(1);
}

void Placer::prove(Candidate &c) const
{
	c.offset_shape = offset_shape(c);
	const Pgft &g = tree_.pgft();
	const std::vector<uint64_t> idx = tree_indexes(c.hosts);
	if (std::string(router_.name()) == "qft") {
		// the QFT routing's checked claim (lib/place/qft_runs.hpp)
		c.congestion_free = tree_.missing().empty() && idx.size() == c.hosts.size() &&
				    qft_congestion_free_hosts(tree_, idx);
		return;
	}
	if (std::string(router_.name()) != "dmodk")
		return; // the proofs are about D-Mod-K's paths
	if (c.kind != PlacementKind::product) {
		c.congestion_free = tree_.missing().empty() && congestion_free_hosts(g, idx);
		return;
	}
	// a product keeps its D-Mod-K paths when it uses no missing cable
	const std::optional<Shape> s = shape_of(g, idx);
	c.congestion_free = s && congestion_free(g, *s);
	for (const MissingCable &m : tree_.missing())
		c.congestion_free = c.congestion_free && !uses_cable(g, *s, m);
}

// Keeps the max_candidates best fitting candidates, scores them (all when
// ranking by congestion, else the best fit ones until one routes: the
// prediction) and drops those missing cables leave unroutable; the first
// such message goes to `why`.
bool Placer::keeps_apart(const Search &s, const Candidate &c) const
{
	if (!s.isolated && !s.req.isolate)
		return true;
	const std::vector<uint64_t> idx = tree_indexes(c.hosts);
	const LinkUse &iso = s.isolated_links ? *s.isolated_links : isolated_links_;
	const LinkUse &every = s.every_links ? *s.every_links : every_links_;
	return iso.shared(idx) == 0 && (!s.req.isolate || every.shared(idx) == 0);
}

void Placer::score_candidates(const Search &s, std::vector<Candidate> &cands, std::string &why,
			      size_t *apart) const
{
	// Isolation first: it is a rule, not a score.
	const size_t before = cands.size();
	cands.erase(std::remove_if(cands.begin(), cands.end(),
				   [&](const Candidate &c) { return !keeps_apart(s, c); }),
		    cands.end());
	*apart += before - cands.size();
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
		if (link_names_)
			c.shared = links_.shared(tree_indexes(c.hosts));
		if (ranks_by_pressure())
			c.pressure = s.pressure_of(*this).of(tree_indexes(c.hosts));
		if (ranks_by_leaves())
			c.partial_leaves = partial_leaves(c.hosts);
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

// The eligible and free hosts, or the answer when the request cannot be
// placed (never: too few eligible, a required host ineligible; not_now:
// too few free, a required host busy).
std::optional<Placer::Search> Placer::search_of(const PlacementRequest &req, Placement &p) const
{
	const size_t hosts = fabric_.hosts().size();
	if (req.nodes == 0)
		fail(Status::invalid, "placement: a job of 0 nodes");
	if (req.eligible.size() != hosts || (!req.busy.empty() && req.busy.size() != hosts) ||
	    (!req.shared.empty() && req.shared.size() != hosts))
		fail(Status::invalid, "placement: host vectors of ", req.eligible.size(),
		     " entries, expected ", hosts);
	size_t eligible = 0;
	for (HostOrd h = 0; h < hosts; h++)
		eligible += req.eligible[h] && tree_.host_index(h) != kNone;
	for (HostOrd r : req.required)
		if (r >= hosts || !req.eligible[r]) {
			p.reason = cat("a required node (", fabric_.node_label(fabric_.hosts()[r]),
				       ") is not eligible");
			return std::nullopt;
		}
	if (eligible < req.nodes) {
		p.reason = cat(req.nodes, " nodes requested, ", eligible, " eligible");
		return std::nullopt;
	}
	Search s{req, std::vector<bool>(hosts, false), {}, {}, {}, isolated_count_, {}};
	// the running jobs taken as ended free their hosts and links
	std::vector<uint32_t> held;
	for (uint32_t id : req.ended) {
		const auto it = jobs_.find(id);
		if (it == jobs_.end())
			continue;
		if (held.empty())
			held = holder_;
		for (HostOrd h : it->second.reserved)
			held[h]--;
		if (!s.isolated_links && (isolated_count_ || req.isolate)) {
			s.isolated_links.emplace(isolated_links_);
			s.every_links.emplace(every_links_);
		}
		if (s.isolated_links) {
			s.every_links->add(it->second.placed, -1);
			if (it->second.isolated)
				s.isolated_links->add(it->second.placed, -1);
		}
		if (ranks_by_pressure()) {
			if (!s.pressure)
				s.pressure.emplace(pressure_);
			s.pressure->add(it->second.placed, -1);
		}
		s.isolated -= it->second.isolated;
	}
	const std::vector<uint32_t> &holds = held.empty() ? holder_ : held;
	// an isolated job shares its nodes with no one
	std::vector<bool> isolated_host(s.isolated ? hosts : 0, false);
	if (s.isolated)
		for (const auto &[id, job] : jobs_)
			if (job.isolated &&
			    std::find(req.ended.begin(), req.ended.end(), id) == req.ended.end())
				for (HostOrd h : job.hosts)
					isolated_host[h] = true;
	size_t free_count = 0;
	for (HostOrd h = 0; h < hosts; h++) {
		const bool room = !holds[h] || (!req.shared.empty() && req.shared[h] &&
						(isolated_host.empty() || !isolated_host[h]));
		s.free[h] = req.eligible[h] && tree_.host_index(h) != kNone && room &&
			    (req.busy.empty() || !req.busy[h]);
		free_count += s.free[h];
	}
	p.outcome = Placement::not_now;
	for (HostOrd r : req.required)
		if (!s.free[r]) {
			p.reason = cat("required node ", fabric_.node_label(fabric_.hosts()[r]), " is busy");
			return std::nullopt;
		}
	if (free_count < req.nodes) {
		p.reason = cat(req.nodes, " nodes requested, ", free_count, " free now");
		return std::nullopt;
	}
	count_free(s);
	return s;
}

void Placer::count_free(Search &s) const
{
	const Pgft &g = tree_.pgft();
	s.counts.free.assign(g.hosts() + 1, 0);
	s.counts.present.assign(g.hosts() + 1, 0);
	for (uint64_t j = 0; j < g.hosts(); j++) {
		NodeId id = tree_.node_at(0, j);
		bool present = id != kNone && s.req.eligible[fabric_.host_ord(id)];
		s.counts.present[j + 1] = s.counts.present[j] + present;
		s.counts.free[j + 1] = s.counts.free[j] + (present && s.free[fabric_.host_ord(id)]);
	}
}

Placement Placer::place(const PlacementRequest &req) const
{
	Placement p;
	const std::optional<Search> s = search_of(req, p);
	if (!s)
		return p;
	const Pgft &g = tree_.pgft();
	unsigned smallest = 1; // the smallest level whose subtrees hold N
	while (smallest < g.h() && tree_.subtree_hosts(smallest) < req.nodes)
		smallest++;
	// Each source of candidates in turn, until one gives a routable one.
	std::vector<Candidate> cands;
	std::string unroutable;
	size_t apart = 0; // candidates isolation dropped
	if (policy_.products) {
		const std::vector<uint64_t> leaves = leaf_masks(*s);
		products_in_range(*s, leaves, cands);
		score_candidates(*s, cands, unroutable, &apart);
		if (cands.empty()) {
			two_leaf_candidates(*s, leaves, cands);
			score_candidates(*s, cands, unroutable, &apart);
		}
		if (cands.empty() && policy_.round_up) {
			near_products(*s, leaves, req.nodes, cands);
			score_candidates(*s, cands, unroutable, &apart);
		}
	}
	for (unsigned l = smallest; l <= g.h() && cands.empty(); l++) {
		candidates_at(l, *s, cands);
		score_candidates(*s, cands, unroutable, &apart);
	}
	for (unsigned l = smallest; l <= g.h() && cands.empty(); l++) {
		best_fit_at(l, *s, cands);
		// whole free leaves at this level and above: they may span
		// more subtrees than the best fit
		for (unsigned k = l; k <= g.h() && ranks_by_leaves(); k++)
			whole_leaves_at(k, *s, cands);
		score_candidates(*s, cands, unroutable, &apart);
	}
	if (cands.empty()) {
		cands.push_back(tree_order_candidate(*s));
		score_candidates(*s, cands, unroutable, &apart);
	}
	if (cands.empty() && apart) {
		p.reason = req.isolate ? cat("isolation: each of ", apart,
					     " candidates shares a switch link with a running job")
				       : cat("isolation: each of ", apart,
					     " candidates shares a switch link with an isolated job");
		if (!unroutable.empty())
			p.reason += cat(" (others unroutable: ", unroutable, ")");
		return p; // not_now: links free as jobs end
	}
	if (cands.empty()) {
		p.reason = cat("every candidate is unroutable: ", unroutable);
		return p;
	}
	std::stable_sort(cands.begin(), cands.end(), [&](const Candidate &a, const Candidate &b) {
		// the offsets move flows among a subtree's links, base LIDs do not
		if (a.pressure != b.pressure)
			return a.pressure < b.pressure;
		if (a.partial_leaves != b.partial_leaves)
			return a.partial_leaves < b.partial_leaves;
		if (policy_.rank_by_congestion && a.hsd != b.hsd)
			return a.hsd < b.hsd;
		if (a.shared != b.shared)
			return a.shared < b.shared;
		return a.free_left < b.free_left;
	});
	prove(cands.front()); // what the job is told; the others are not
	p.outcome = Placement::placed;
	p.by_pressure = ranks_by_pressure();
	p.by_leaves = ranks_by_leaves();
	p.chosen = cands.front();
	p.considered = std::move(cands);
	return p;
}

} // namespace qft
