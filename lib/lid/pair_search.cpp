// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/lid/pair_search.hpp"

#include <algorithm>
#include <exception>
#include <thread>

#include "lib/common/random.hpp"
#include "lib/lid/lid.hpp"
#include "lib/lid/stage_exact.hpp"

namespace qft {

Beside::Beside(const Fabric &fabric, const Router &router, const Pattern &pattern,
	       const std::vector<Job> *jobs)
	: fabric_(fabric), router_(router), pattern_(pattern), jobs_(jobs),
	  loads_(fabric.port_count()),
	  player_(fabric, router)
{
}

const LinkLoads &Beside::stage(size_t t)
{
	loads_.clear();
	if (empty())
		return loads_;
	// The scorer's own flows of stage t (StagePlayer), routed once more
	// into loads that outlive the play.
	player_.play(
		pattern_, jobs_->data(), jobs_->size(),
		[&](size_t, const std::vector<Flow> &flows, const LinkLoads &) {
			router_.add_loads(flows.data(), flows.size(), loads_);
		},
		t, t + 1);
	return loads_;
}

namespace {

class PairSearch {
public:
	// t.pair sized n x n by the caller; `seed` and `exact_total` this
	// search's (one thread's) share.
	PairSearch(const Fabric &fabric, const Router &router, LidTable &t,
		   const std::vector<uint8_t> &start, const PairSearchOptions &opt,
		   uint64_t seed, size_t exact_total, size_t walk_total, size_t lns_total)
		: router_(router), t_(t), n_(t.hosts.size()), links_(fabric.port_count()),
		  beside_(links_, 0), marked_(links_, 0), blocked_(links_, 0), weight_(links_, 1),
		  on_(links_),
		  chosen_(n_ * n_, 0),
		  start_(start), opt_(opt), rng_(seed * 0x9e3779b97f4a7c15ull + 1),
		  lns_rng_(seed * 0xbf58476d1ce4e5b9ull + 7),
		  exact_left_(exact_total), walk_left_(walk_total), lns_left_(lns_total)
	{
	}

	// Searches one stage; what it proved goes to `floor`.
	void stage(const std::vector<RankPair> &pairs, const LinkLoads &beside, uint8_t &floor)
	{
		has_beside_ = false;
		beside.for_each([&](PortIdx l) {
			beside_[l] = beside[l];
			has_beside_ = has_beside_ || beside[l] > 0;
			touch(l);
		});
		flows_.clear();
		all_fresh_ = true;
		for (const RankPair &p : pairs) {
			if (p.src == p.dst)
				continue;
			uint8_t &seen = chosen_[size_t(p.src) * n_ + p.dst];
			const uint32_t f = uint32_t(flows_.size());
			flows_.push_back({p, !seen, 0});
			all_fresh_ = all_fresh_ && !seen;
			if (!seen) {
				seen = 1;
				if (start_.empty())
					choose(f);
				else
					offset(f) = start_[p.dst];
			}
			place(f);
		}
		repair();
		floor = flows_.empty() ? PairFloor::no_flow
			: !excess_     ? PairFloor::free
			: proven_      ? PairFloor::congested
				       : PairFloor::undecided;
		for (PortIdx l : touched_) {
			on_[l].clear();
			beside_[l] = marked_[l] = 0;
			weight_[l] = 1;
		}
		touched_.clear();
		cached_.clear();
		excess_ = 0;
	}

private:
	struct StageFlow {
		RankPair pair;
		bool fresh;     // first seen in this stage: its offset may change
		uint32_t seen;  // the ejection that last visited it
	};

	uint8_t &offset(uint32_t f)
	{
		const RankPair &p = flows_[f].pair;
		return t_.pair[size_t(p.src) * n_ + p.dst];
	}
	unsigned path(uint32_t f, unsigned o, PortIdx *out) const
	{
		if (f < cached_.size() && cached_[f] != kNotCached) {
			const size_t i = size_t(cached_[f]) * t_.offsets + o;
			const PortIdx *from = paths_.links.data() + paths_.at[i];
			std::copy(from, paths_.links.data() + paths_.at[i + 1], out);
			return paths_.at[i + 1] - paths_.at[i];
		}
		const RankPair &p = flows_[f].pair;
		return router_.path(t_.hosts[p.src], t_.hosts[p.dst], o, out);
	}
	uint32_t load(PortIdx l) const { return beside_[l] + uint32_t(on_[l].size()); }

	void touch(PortIdx l)
	{
		if (!marked_[l]) {
			marked_[l] = 1;
			touched_.push_back(l);
		}
	}
	void place(uint32_t f)
	{
		PortIdx links[kMaxPathLinks];
		const unsigned len = path(f, offset(f), links);
		for (unsigned k = 0; k < len; k++) {
			touch(links[k]);
			excess_ += load(links[k]) >= 1;
			on_[links[k]].push_back(f);
		}
	}
	void unplace(uint32_t f)
	{
		PortIdx links[kMaxPathLinks];
		const unsigned len = path(f, offset(f), links);
		for (unsigned k = 0; k < len; k++) {
			std::vector<uint32_t> &on = on_[links[k]];
			*std::find(on.begin(), on.end(), f) = on.back();
			on.pop_back();
			excess_ -= load(links[k]) >= 1;
		}
	}
	bool congested(uint32_t f) const
	{
		PortIdx links[kMaxPathLinks];
		const unsigned len = path(f, t_.pair[size_t(flows_[f].pair.src) * n_ + flows_[f].pair.dst], links);
		for (unsigned k = 0; k < len; k++)
			if (load(links[k]) > 1)
				return true;
		return false;
	}

	uint64_t next() { return rng_.next(); }

	// Greedy: f (not placed) takes the offset whose path meets the least
	// (busiest link with f on it, then the load it joins), ties to the
	// first from a random offset on.
	void choose(uint32_t f)
	{
		PortIdx links[kMaxPathLinks];
		std::pair<uint32_t, uint64_t> best{UINT32_MAX, 0};
		const unsigned from = unsigned(next() % t_.offsets);
		for (unsigned i = 0; i < t_.offsets; i++) {
			const unsigned o = (from + i) % t_.offsets;
			const unsigned len = path(f, o, links);
			std::pair<uint32_t, uint64_t> m{1, 0};
			for (unsigned k = 0; k < len; k++) {
				const uint32_t l = load(links[k]);
				m.first = std::max(m.first, l + 1);
				m.second += l;
			}
			if (m < best) {
				best = m;
				offset(f) = uint8_t(o);
			}
		}
	}

	// An ejection chain (the Kempe chain of an edge colouring, for any
	// routing): f moves to an offset whose path is free but for one new
	// flow g, which moves on in turn, until a flow lands on a free path.
	// No flow moves twice in one chain; a chain that fails leaves every
	// flow where it was. Costs at most `budget_` offsets tried.
	bool eject(uint32_t f, unsigned depth)
	{
		flows_[f].seen = chain_;
		const uint8_t was = offset(f);
		unplace(f);
		PortIdx links[kMaxPathLinks];
		const unsigned from = unsigned(next() % t_.offsets);
		for (unsigned i = 0; i < t_.offsets && budget_; i++, budget_--) {
			const unsigned o = (from + i) % t_.offsets;
			if (o == was)
				continue;
			const unsigned len = path(f, o, links);
			uint32_t blocker = UINT32_MAX;
			bool open = true;
			for (unsigned k = 0; k < len && open; k++) {
				open = beside_[links[k]] == 0;
				for (uint32_t g : on_[links[k]]) {
					if (!open || g == blocker)
						continue;
					open = blocker == UINT32_MAX && flows_[g].fresh &&
					       flows_[g].seen != chain_;
					blocker = g;
				}
			}
			if (!open || (blocker != UINT32_MAX && depth == 0))
				continue;
			offset(f) = uint8_t(o);
			place(f);
			if (blocker == UINT32_MAX || eject(blocker, depth - 1))
				return true;
			unplace(f);
		}
		offset(f) = was;
		place(f);
		return false;
	}

	// Every new flow that crosses an overloaded link tries an ejection
	// chain; one that finds none re-chooses greedily (which never raises
	// the busiest link it meets).
	void repair()
	{
		const size_t m = flows_.size();
		const size_t from = m ? size_t(next() % m) : 0;
		for (size_t i = 0; i < m; i++) {
			const uint32_t f = uint32_t((from + i) % m);
			if (!flows_[f].fresh || !congested(f))
				continue;
			chain_++;
			budget_ = opt_.budget;
			if (eject(f, opt_.depth))
				continue;
			unplace(f);
			choose(f);
			place(f);
		}
		proven_ = false;
		if (excess_ && opt_.exact)
			exact();
		// a proven stage cannot be made free; the walk's steps go to the
		// stages that may be
		if (excess_ && !proven_ && walk_left_)
			walk();
		if (excess_ && !proven_ && opt_.exact && lns_left_ &&
		    lns_spent_ < opt_.lns_probe * (lns_freed_ + 1))
			lns();
		if (excess_ && opt_.spare && has_beside_)
			spare();
	}

	// The stage's new flows and their paths at every offset.
	void stage_paths()
	{
		if (!cached_.empty())
			return;
		order_.clear();
		paths_.offsets = t_.offsets;
		paths_.at.assign(1, 0);
		paths_.links.clear();
		PortIdx links[kMaxPathLinks];
		for (uint32_t f = 0; f < flows_.size(); f++) {
			if (!flows_[f].fresh)
				continue;
			order_.push_back(f);
			for (unsigned o = 0; o < t_.offsets; o++) {
				const unsigned len = path(f, o, links);
				paths_.links.insert(paths_.links.end(), links, links + len);
				paths_.at.push_back(uint32_t(paths_.links.size()));
			}
		}
		cached_.assign(flows_.size(), kNotCached);
		for (uint32_t i = 0; i < order_.size(); i++)
			cached_[order_[i]] = i;
	}

	// What the chains leave, an exhaustive search within a budget
	// (lib/lid/stage_exact.hpp) tries to route without congestion; the
	// links the running jobs and the flows of earlier stages' pairs load
	// are closed to it.
	void exact()
	{
		stage_paths();
		for (PortIdx l : touched_) {
			bool held = beside_[l] > 0;
			for (uint32_t g : on_[l])
				held = held || !flows_[g].fresh;
			blocked_[l] = held;
		}
		// A count proves some stages at once, whatever the budget left.
		if (stage_crowded(paths_, blocked_)) {
			for (PortIdx l : touched_)
				blocked_[l] = 0;
			proven_ = all_fresh_;
			return;
		}
		std::vector<uint8_t> hint(order_.size()), out;
		for (size_t i = 0; i < order_.size(); i++)
			hint[i] = offset(order_[i]);
		const size_t steps = std::min(opt_.exact * order_.size(), exact_left_);
		size_t left = steps;
		const bool hall = order_.size() <= opt_.hall_flows;
		const bool found = solve_stage(paths_, blocked_, hint, hall, left, next(), out);
		exact_left_ -= steps - left;
		for (PortIdx l : touched_)
			blocked_[l] = 0;
		// Out of choices with steps left: a proof, when no offset of the
		// stage was fixed before it.
		proven_ = !found && left > 0 && all_fresh_;
		if (found)
			retake(order_, out);
	}

	// flows[i] takes offset out[i]: all the moved ones off their old
	// paths first, so no link counts a flow twice on the way.
	void retake(const std::vector<uint32_t> &flows, const std::vector<uint8_t> &out)
	{
		for (size_t i = 0; i < flows.size(); i++)
			if (offset(flows[i]) != out[i])
				unplace(flows[i]);
		for (size_t i = 0; i < flows.size(); i++)
			if (offset(flows[i]) != out[i]) {
				offset(flows[i]) = out[i];
				place(flows[i]);
			}
	}

	// What the chains and the exhaustive search leave, a walk takes on:
	// min-conflicts with breakout's weights (Morris 1993). A congested
	// new flow moves to the offset whose path costs least, a link costing
	// its weight when it is loaded already; a flow that finds no path
	// cheaper than its own raises the weight of each loaded link it
	// crosses, so that the links every routing fights over grow dear and
	// the flows that can leave them do. No random moves: the weights are
	// the way out of a local minimum (on docs/lid-offsets.md's cases
	// beside running jobs, a random move one step in 8 left 164 of 299
	// stages congested where none left 130). A walk that does not free the
	// stage gives its offsets back: it lowers the flows beyond one per
	// link, not the busiest link (the stage's HSD), and on stages that
	// cannot be free it left 1.775 where the chains had 1.451 (test_lid).
	// `walk` steps per new flow of the stage, at most what is left of
	// the job's `walk_total`.
	void walk()
	{
		stage_paths();
		std::vector<uint32_t> &todo = todo_; // congested flows (repeats: picked more)
		todo.clear();
		for (uint32_t f = 0; f < flows_.size(); f++)
			if (flows_[f].fresh && congested(f))
				todo.push_back(f);
		before_.resize(flows_.size());
		for (uint32_t f = 0; f < flows_.size(); f++)
			before_[f] = offset(f);
		PortIdx links[kMaxPathLinks];
		auto cost = [&](uint32_t f, unsigned o) {
			const unsigned len = path(f, o, links);
			size_t c = 0;
			for (unsigned k = 0; k < len; k++)
				if (load(links[k]) >= 1)
					c += weight_[links[k]];
			return c;
		};
		const size_t steps = std::min(size_t(opt_.walk) * order_.size(), walk_left_);
		size_t step = 0;
		for (; step < steps && excess_ && !todo.empty(); step++) {
			const size_t at = size_t(next() % todo.size());
			const uint32_t f = todo[at];
			if (!congested(f)) {
				todo[at] = todo.back();
				todo.pop_back();
				continue;
			}
			const unsigned was = offset(f);
			unplace(f);
			// the cheapest, ties from a random offset on
			unsigned pick = was;
			size_t least = SIZE_MAX;
			for (unsigned i = 0, from = unsigned(next() % t_.offsets); i < t_.offsets; i++) {
				const unsigned o = (from + i) % t_.offsets;
				const size_t c = cost(f, o);
				if (c < least) {
					least = c;
					pick = o;
				}
			}
			if (least >= cost(f, was)) { // a local minimum: breakout
				const unsigned len = path(f, was, links);
				for (unsigned k = 0; k < len; k++)
					if (load(links[k]) >= 1)
						weight_[links[k]]++;
			}
			offset(f) = uint8_t(pick);
			place(f);
			const unsigned len = path(f, pick, links);
			for (unsigned k = 0; k < len; k++)
				if (load(links[k]) > 1)
					for (uint32_t g : on_[links[k]])
						if (flows_[g].fresh && g != f)
							todo.push_back(g);
		}
		walk_left_ -= step;
		if (excess_)
			for (uint32_t f = 0; f < flows_.size(); f++)
				if (offset(f) != before_[f]) {
					unplace(f);
					offset(f) = before_[f];
					place(f);
				}
	}

	// Large neighbourhoods, where the walk gave up: around a congested
	// new flow f, the new flows on the links of every path f could take
	// (then on those of their paths, up to `lns_flows`) are routed again
	// together by the exhaustive search, every other flow held where it
	// is (its links closed). A chain moves one flow after another, the
	// walk one flow at a time; this finds a rearrangement of a hundred
	// flows at once, and the stage's routing changes only when that
	// neighbourhood comes out free, so no link gets busier. `lns` rounds
	// per stage, each around a congested flow drawn anew, at most what is
	// left of the job's `lns_total` (docs/lid-offsets.md, "Large
	// neighbourhoods"). Its draws come from a stream of its own, so the
	// later stages' chains and walk draw as they would without it: a stage
	// is never more congested with the neighbourhoods than without them,
	// nor, where each pair is in one stage (Shift), the job.
	void lns()
	{
		stage_paths();
		std::vector<uint32_t> &todo = todo_, &members = members_;
		std::vector<uint8_t> &in = in_;
		in.assign(flows_.size(), 0);
		PortIdx links[kMaxPathLinks];
		for (unsigned round = 0; round < opt_.lns && excess_ && lns_left_; round++) {
			lns_left_--;
			lns_spent_++;
			todo.clear();
			for (uint32_t f : order_)
				if (congested(f))
					todo.push_back(f);
			if (todo.empty())
				break; // the excess is the earlier stages' flows'
			const uint32_t f = todo[size_t(lns_rng_.next() % todo.size())];
			members.assign(1, f);
			in[f] = 1;
			for (size_t i = 0; i < members.size() && members.size() < opt_.lns_flows; i++) {
				const uint32_t g = members[i];
				const unsigned from = unsigned(lns_rng_.next() % t_.offsets);
				for (unsigned j = 0; j < t_.offsets && members.size() < opt_.lns_flows; j++) {
					const unsigned len = path(g, (from + j) % t_.offsets, links);
					for (unsigned k = 0; k < len && members.size() < opt_.lns_flows; k++)
						for (uint32_t h : on_[links[k]])
							if (!in[h] && flows_[h].fresh) {
								in[h] = 1;
								members.push_back(h);
							}
				}
			}
			for (PortIdx l : touched_) {
				bool held = beside_[l] > 0;
				for (uint32_t h : on_[l])
					held = held || !in[h];
				blocked_[l] = held;
			}
			StagePaths &sub = lns_paths_;
			sub.offsets = t_.offsets;
			sub.at.assign(1, 0);
			sub.links.clear();
			std::vector<uint8_t> &hint = lns_hint_, &out = lns_out_;
			hint.clear();
			for (uint32_t h : members) {
				const size_t c = size_t(cached_[h]) * t_.offsets;
				for (unsigned o = 0; o < t_.offsets; o++) {
					sub.links.insert(sub.links.end(),
							 paths_.links.begin() + paths_.at[c + o],
							 paths_.links.begin() + paths_.at[c + o + 1]);
					sub.at.push_back(uint32_t(sub.links.size()));
				}
				hint.push_back(offset(h));
			}
			size_t steps = opt_.exact * members.size();
			const bool hall = members.size() <= opt_.hall_flows;
			const bool found = solve_stage(sub, blocked_, hint, hall, steps, lns_rng_.next(), out);
			for (PortIdx l : touched_)
				blocked_[l] = 0;
			for (uint32_t h : members)
				in[h] = 0;
			if (found) {
				retake(members, out);
				lns_freed_++;
			}
		}
	}

	// A stage that stays congested may still spare the running jobs: each
	// new flow on a link they load raises their own busiest link there (a
	// running job at H = 1 stops being so, and the runtime model slows
	// it), while a new flow that meets only the job's own flows costs
	// nobody else. Each new flow that crosses such links moves to the
	// offset that crosses fewest, where its path keeps under the stage's
	// busiest link: the job's own HSD does not rise (docs/lid-offsets.md,
	// "Sparing the running jobs").
	void spare()
	{
		uint32_t top = 0; // the stage's busiest link among the job's flows
		for (PortIdx l : touched_)
			if (!on_[l].empty())
				top = std::max(top, load(l));
		PortIdx links[kMaxPathLinks];
		auto crossed = [&](uint32_t f, unsigned o, uint32_t &peak) {
			const unsigned len = path(f, o, links);
			unsigned c = 0;
			peak = 0;
			for (unsigned k = 0; k < len; k++) {
				c += beside_[links[k]] > 0;
				peak = std::max(peak, load(links[k]) + 1);
			}
			return c;
		};
		// no draw from rng_: the later stages' choices stay as they were
		for (uint32_t f = 0; f < flows_.size(); f++) {
			if (!flows_[f].fresh)
				continue;
			const unsigned was = offset(f);
			uint32_t peak;
			unsigned least = crossed(f, was, peak), pick = was;
			if (!least)
				continue;
			unplace(f);
			for (unsigned o = 0; o < t_.offsets && least; o++) {
				const unsigned c = crossed(f, o, peak);
				if (c < least && peak <= top) {
					least = c;
					pick = o;
				}
			}
			offset(f) = uint8_t(pick);
			place(f);
		}
	}

	const Router &router_;
	LidTable &t_;
	size_t n_, links_;
	std::vector<uint32_t> beside_;             // the running jobs' load per link
	std::vector<uint8_t> marked_;
	StagePaths paths_;                         // stage_paths(): new flows' paths per offset
	std::vector<uint32_t> order_;              // stage_paths(): the new flows
	std::vector<uint8_t> blocked_;             // exact(): links closed to new flows
	std::vector<uint32_t> weight_;             // walk(): a loaded link's cost
	std::vector<std::vector<uint32_t>> on_;    // the stage's flows on each link
	std::vector<PortIdx> touched_;             // links used this stage, once
	std::vector<uint8_t> chosen_;              // pair seen in an earlier stage
	std::vector<StageFlow> flows_;
	const std::vector<uint8_t> &start_;
	const PairSearchOptions &opt_;
	XorShift rng_;
	XorShift lns_rng_;                         // lns()'s draws, apart from rng_'s
	size_t exact_left_;                        // exact(): steps left for the job
	size_t walk_left_;                         // walk(): steps left for the job
	static constexpr uint32_t kNotCached = UINT32_MAX;
	std::vector<uint32_t> cached_;             // stage_paths(): flow's index in paths_
	uint32_t chain_ = 0;
	unsigned budget_ = 0;
	size_t excess_ = 0; // flows beyond one per link, over the stage's links
	bool all_fresh_ = true; // no pair of the stage was in an earlier one
	bool proven_ = false;   // exact(): the stage cannot be free
	bool has_beside_ = false; // a running job loads a link this stage
	std::vector<uint32_t> todo_;
	size_t lns_left_;                          // lns(): rounds left for the job
	size_t lns_spent_ = 0, lns_freed_ = 0;     // lns(): rounds so far, free ones
	std::vector<uint32_t> members_;            // lns(): the neighbourhood
	std::vector<uint8_t> in_;                  // lns(): a flow is in it
	StagePaths lns_paths_;                     // lns(): its paths
	std::vector<uint8_t> lns_hint_, lns_out_;  // lns(): its offsets before, after
	std::vector<uint8_t> before_;              // walk(): the offsets it started from
};

} // namespace

bool pairs_in_one_stage(const Pattern &pattern, uint32_t n)
{
	std::vector<uint8_t> seen(size_t(n) * n, 0);
	std::vector<RankPair> pairs;
	for (size_t s = 0, stages = pattern.stage_count(n); s < stages; s++) {
		pattern.stage(n, s, pairs);
		for (const RankPair &p : pairs) {
			if (p.src == p.dst)
				continue;
			uint8_t &x = seen[size_t(p.src) * n + p.dst];
			if (x)
				return false;
			x = 1;
		}
	}
	return true;
}

void search_pairs(const Fabric &fabric, const Router &router, const Pattern &pattern,
		  LidTable &t, const std::vector<uint8_t> &start, Beside &beside,
		  const PairSearchOptions &opt)
{
	const uint32_t n = uint32_t(t.hosts.size());
	const size_t stages = pattern.stage_count(n);
	t.pair.assign(size_t(n) * n, 0);
	// each thread writes its own stages' entries
	t.floor.stage.assign(stages, PairFloor::no_flow);
	size_t threads = std::max<size_t>(std::min<size_t>(opt.threads, stages), 1);
	if (threads > 1 && !pairs_in_one_stage(pattern, n))
		threads = 1;
	// Thread k: stages k, k + threads, ... (stage sizes vary little, and
	// interleaving spreads the congested ones). Each writes the offsets
	// of its own stages' pairs only.
	std::vector<std::exception_ptr> errors(threads);
	auto run = [&](size_t k, Beside &own) {
		try {
			PairSearch search(fabric, router, t, start, opt, opt.seed + k,
					  opt.exact_total / threads, opt.walk_total / threads,
					  opt.lns_total / threads);
			std::vector<RankPair> pairs;
			for (size_t s = k; s < stages; s += threads) {
				pattern.stage(n, s, pairs);
				search.stage(pairs, own.stage(s), t.floor.stage[s]);
			}
		} catch (...) {
			errors[k] = std::current_exception();
		}
	};
	std::vector<Beside> besides;
	besides.reserve(threads);
	for (size_t k = 1; k < threads; k++)
		besides.push_back(beside.fresh());
	std::vector<std::thread> workers;
	try {
		for (size_t k = 1; k < threads; k++)
			workers.emplace_back(run, k, std::ref(besides[k - 1]));
	} catch (...) { // no thread to be had: those started finish, the choice fails
		for (std::thread &w : workers)
			w.join();
		throw;
	}
	run(0, beside);
	for (std::thread &w : workers)
		w.join();
	for (const std::exception_ptr &e : errors)
		if (e)
			std::rethrow_exception(e);
}

} // namespace qft
