// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/lid/stage_exact.hpp"

#include <algorithm>
#include <array>

#include "lib/common/random.hpp"

namespace qft {

namespace {

// The stage's links numbered 0.. in order of PortIdx: local[i] for
// paths.links[i]; returns how many. By marks over the ports the stage
// reaches rather than a sort: the search of a neighbourhood numbers a
// few thousand links many times over.
size_t dense_links(const StagePaths &paths, std::vector<uint32_t> &local)
{
	PortIdx top = 0;
	for (PortIdx l : paths.links)
		top = std::max(top, l);
	std::vector<uint32_t> id(paths.links.empty() ? 0 : size_t(top) + 1, 0);
	for (PortIdx l : paths.links)
		id[l] = 1;
	uint32_t n = 0;
	for (uint32_t &x : id)
		x = x ? n++ : 0;
	local.resize(paths.links.size());
	for (size_t i = 0; i < local.size(); i++)
		local[i] = id[paths.links[i]];
	return n;
}

// Set bits of x, inline: Debian's baseline x86-64 has no popcnt, and
// __builtin_popcountll is a call into libgcc there, on the search's
// every step.
inline unsigned ones(uint64_t x)
{
	x = x - ((x >> 1) & 0x5555555555555555ull);
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return unsigned((x * 0x0101010101010101ull) >> 56);
}

class StageSolver {
public:
	StageSolver(const StagePaths &p, const std::vector<uint8_t> &blocked, bool hall,
		    uint64_t seed)
		: k_(p.offsets), m_(p.flows()), hall_(hall), rng_(seed * 0x9e3779b97f4a7c15ull + 7)
	{
		const size_t links = dense_links(p, local_);
		at_ = p.at;
		// who would use each link: (flow, offset), by link
		std::vector<uint32_t> count(links + 1, 0);
		for (uint32_t l : local_)
			count[l + 1]++;
		for (size_t l = 0; l < links; l++)
			count[l + 1] += count[l];
		users_at_ = count;
		users_.resize(local_.size());
		dom_.assign(m_, k_ == 64 ? ~0ull : (1ull << k_) - 1);
		for (uint32_t f = 0; f < m_; f++)
			for (unsigned o = 0; o < k_; o++)
				for (uint32_t i = at_[f * k_ + o]; i < at_[f * k_ + o + 1]; i++) {
					users_[count[local_[i]]++] = {f, uint8_t(o)};
					if (blocked[p.links[i]])
						dom_[f] &= ~(1ull << o);
				}
		// a flow whose offsets all take one path (both ends on a leaf)
		// has one choice, not k_ to go through again on each backtrack
		for (uint32_t f = 0; f < m_; f++) {
			const uint32_t *zero = local_.data() + at_[f * k_];
			const uint32_t len = at_[f * k_ + 1] - at_[f * k_];
			bool one = true;
			for (unsigned o = 1; o < k_ && one; o++)
				one = at_[f * k_ + o + 1] - at_[f * k_ + o] == len &&
				      std::equal(zero, zero + len, local_.data() + at_[f * k_ + o]);
			if (one && dom_[f])
				single_.push_back(f);
		}
		start_ = dom_;
		chosen_.assign(m_, kNone);
		if (hall_)
			build_groups(links);
	}

	// Luby's restarts: a search that went wrong near its root is
	// abandoned early, and each restart breaks ties at random anew.
	bool solve(const std::vector<uint8_t> &hint, size_t &budget, std::vector<uint8_t> &out)
	{
		for (uint32_t f = 0; f < m_; f++)
			if (!start_[f])
				return false; // every path of f crosses a loaded link
		for (uint32_t f : single_)
			start_[f] = hint[f] < k_ ? 1ull << hint[f] : 1;
		const size_t unit = std::max<size_t>(64, m_);
		for (size_t run = 1; budget; run++) {
			size_t slice = std::min(budget, unit * luby(run));
			budget -= slice;
			const Outcome oc = search(hint, slice);
			budget += slice; // what the run left
			switch (oc) {
			case Outcome::found:
				out.assign(chosen_.begin(), chosen_.end());
				return true;
			case Outcome::none:
				return false;
			case Outcome::budget:
				break;
			}
		}
		return false;
	}

private:
	enum class Outcome { found, none, budget };
	static constexpr uint8_t kNone = 0xff;
	static constexpr uint32_t kEnd = UINT32_MAX;
	struct Removed {
		uint32_t flow;
		uint64_t bits;
	};
	struct Frame {
		uint32_t flow;
		uint64_t tried;
		size_t mark; // trail length before this flow's choice
	};
	struct Member {
		uint32_t flow;
		uint8_t slot[64]; // at offset o the flow takes the group's link slot[o]
	};
	struct Group {
		std::vector<Member> members;
		uint32_t links = 0;
		// the matching of the last check, kept: a check repairs what the
		// choices since broke instead of matching every member anew
		std::vector<uint8_t> link_of;            // by member; kNone: none
		std::array<uint32_t, 64> member_of{};    // by link slot; kEnd: none
	};

	static size_t luby(size_t i)
	{
		for (size_t k = 1;; k++) {
			if (i == (size_t(1) << k) - 1)
				return size_t(1) << (k - 1);
			if (i < (size_t(1) << k) - 1)
				return luby(i - (size_t(1) << (k - 1)) + 1);
		}
	}

	uint64_t next() { return rng_.next(); }

	// The open flows by offsets left, each count a list: the flow to
	// choose next (the fewest) is found at once, not by a scan of all.
	void link_in(uint32_t f)
	{
		const unsigned n = unsigned(ones(dom_[f]));
		prev_[f] = kEnd;
		next_[f] = head_[n];
		if (head_[n] != kEnd)
			prev_[head_[n]] = f;
		head_[n] = f;
	}
	void link_out(uint32_t f)
	{
		const unsigned n = unsigned(ones(dom_[f]));
		if (prev_[f] != kEnd)
			next_[prev_[f]] = next_[f];
		else
			head_[n] = next_[f];
		if (next_[f] != kEnd)
			prev_[next_[f]] = prev_[f];
	}
	void set_dom(uint32_t f, uint64_t dom)
	{
		link_out(f);
		dom_[f] = dom;
		link_in(f);
	}
	void release(uint32_t f)
	{
		chosen_[f] = kNone;
		link_in(f);
	}

	// The open flow with the fewest offsets left; m_ when every flow has one.
	uint32_t pick_flow() const
	{
		for (unsigned n = 1; n <= 64; n++)
			if (head_[n] != kEnd)
				return head_[n];
		return m_;
	}

	// f takes o: every open flow loses the offsets that share a link
	// with it. False when one is left with none.
	bool take(uint32_t f, unsigned o)
	{
		link_out(f);
		chosen_[f] = uint8_t(o);
		bool alive = true;
		for (uint32_t i = at_[f * k_ + o]; i < at_[f * k_ + o + 1]; i++) {
			const uint32_t l = local_[i];
			for (uint32_t u = users_at_[l]; u < users_at_[l + 1]; u++) {
				const User &g = users_[u];
				if (g.flow == f || chosen_[g.flow] != kNone)
					continue;
				const uint64_t bit = 1ull << g.offset;
				if (!(dom_[g.flow] & bit))
					continue;
				set_dom(g.flow, dom_[g.flow] & ~bit);
				trail_.push_back({g.flow, bit});
				alive = alive && dom_[g.flow];
			}
		}
		return alive;
	}

	// The offset of `left` that takes the fewest offsets from the open
	// flows (ties from a random one on).
	unsigned least_constraining(uint32_t f, uint64_t left)
	{
		unsigned best = 0;
		size_t fewest = SIZE_MAX;
		const unsigned from = unsigned(next() % k_);
		for (unsigned i = 0; i < k_; i++) {
			const unsigned o = (from + i) % k_;
			if (!(left >> o & 1))
				continue;
			size_t cost = 0;
			for (uint32_t a = at_[f * k_ + o]; a < at_[f * k_ + o + 1]; a++) {
				const uint32_t l = local_[a];
				for (uint32_t u = users_at_[l]; u < users_at_[l + 1]; u++) {
					const User &g = users_[u];
					cost += g.flow != f && chosen_[g.flow] == kNone &&
						(dom_[g.flow] >> g.offset & 1);
				}
			}
			if (cost < fewest) {
				fewest = cost;
				best = o;
			}
		}
		return best;
	}

	// Groups of links that a set of flows must each take exactly one of,
	// at every offset: a leaf's up-links for the flows that leave it (the
	// second link of every path), a leaf's down-links for the flows that
	// enter it (the last but one). Found from the paths alone: the second
	// links of one flow's offsets are joined, and the last but one.
	void build_groups(size_t links)
	{
		std::vector<uint32_t> parent(links);
		for (uint32_t l = 0; l < links; l++)
			parent[l] = l;
		auto find = [&](uint32_t l) {
			while (parent[l] != l)
				l = parent[l] = parent[parent[l]];
			return l;
		};
		std::vector<uint8_t> joined(links, 0);
		flow_groups_.assign(m_, {kEnd, kEnd});
		for (uint32_t f = 0; f < m_; f++)
			for (unsigned side = 0; side < 2; side++) {
				const uint32_t first = side_link(f, 0, side);
				if (first == kEnd)
					continue;
				for (unsigned o = 0; o < k_; o++) {
					const uint32_t l = side_link(f, o, side);
					if (l == kEnd)
						break;
					joined[l] = 1;
					parent[find(l)] = find(first);
				}
			}
		std::vector<uint32_t> group(links, kEnd), slot(links, 0);
		std::vector<uint32_t> root_group(links, kEnd);
		for (uint32_t l = 0; l < links; l++) {
			if (!joined[l])
				continue;
			uint32_t &g = root_group[find(l)];
			if (g == kEnd) {
				g = uint32_t(groups_.size());
				groups_.emplace_back();
			}
			group[l] = g;
			slot[l] = groups_[g].links++;
		}
		for (uint32_t f = 0; f < m_; f++)
			for (unsigned side = 0; side < 2; side++) {
				const uint32_t first = side_link(f, 0, side);
				if (first == kEnd || groups_[group[first]].links > 64)
					continue;
				const uint32_t g = group[first];
				Member mem{f, {}};
				bool one = true; // exactly one link of g at every offset
				for (unsigned o = 0; o < k_ && one; o++) {
					unsigned in = 0;
					for (uint32_t i = at_[f * k_ + o]; i < at_[f * k_ + o + 1]; i++)
						if (group[local_[i]] == g) {
							in++;
							mem.slot[o] = uint8_t(slot[local_[i]]);
						}
					one = in == 1;
				}
				if (!one)
					continue;
				groups_[g].members.push_back(mem);
				flow_groups_[f][side] = g;
			}
		for (Group &g : groups_) {
			g.link_of.assign(g.members.size(), kNone);
			g.member_of.fill(kEnd);
		}
		seen_.assign(groups_.size(), 0);
	}

	// Flow f's second link at offset o (side 0) or its last but one
	// (side 1); kEnd when the path has no link between switches or the
	// offsets' paths differ in length.
	uint32_t side_link(uint32_t f, unsigned o, unsigned side) const
	{
		const uint32_t len = at_[f * k_ + 1] - at_[f * k_];
		if (len < 3 || at_[f * k_ + o + 1] - at_[f * k_ + o] != len)
			return kEnd;
		return local_[at_[f * k_ + o] + (side ? len - 2 : 1)];
	}

	// Hall's condition in every group a choice since `mark` touched: its
	// open flows can still take distinct links (a matching, Kuhn's
	// augmenting paths). Forward checking sees a flow left with no link;
	// this sees 18 flows left with 17.
	bool hall_holds(size_t mark)
	{
		stamp_++;
		for (size_t i = mark; i < trail_.size(); i++)
			for (uint32_t g : flow_groups_[trail_[i].flow]) {
				if (g == kEnd || seen_[g] == stamp_)
					continue;
				seen_[g] = stamp_;
				if (!matched(groups_[g]))
					return false;
			}
		return true;
	}

	bool matched(Group &g)
	{
		const size_t n = g.members.size();
		masks_.assign(n, 0);
		open_.assign(n, 0);
		uint64_t all = 0;
		size_t open = 0, fewest = 64;
		for (size_t i = 0; i < n; i++) {
			const Member &mem = g.members[i];
			if (chosen_[mem.flow] != kNone)
				continue;
			uint64_t mask = 0;
			for (uint64_t d = dom_[mem.flow]; d; d &= d - 1)
				mask |= 1ull << mem.slot[__builtin_ctzll(d)];
			masks_[i] = mask;
			open_[i] = 1;
			open++;
			fewest = std::min(fewest, size_t(ones(mask)));
			all |= mask;
		}
		if (size_t(ones(all)) < open)
			return false;
		// every open flow with as many links as there are open flows:
		// any k of them reach k links at least
		if (fewest >= open)
			return true;
		// a member that closed or lost its link lets it go; then each open
		// member without one looks for an augmenting path (Kuhn)
		for (size_t i = 0; i < n; i++) {
			const uint8_t l = g.link_of[i];
			if (l != kNone && !((masks_[i] >> l) & 1)) { // closed: mask 0
				g.member_of[l] = kEnd;
				g.link_of[i] = kNone;
			}
		}
		for (uint32_t i = 0; i < n; i++) {
			if (!open_[i] || g.link_of[i] != kNone)
				continue;
			uint64_t visited = 0;
			if (!augment(g, i, visited))
				return false;
		}
		return true;
	}

	bool augment(Group &g, uint32_t i, uint64_t &visited)
	{
		for (uint64_t free = masks_[i] & ~visited; free; free &= free - 1) {
			const unsigned l = unsigned(__builtin_ctzll(free));
			visited |= 1ull << l;
			if (g.member_of[l] == kEnd || augment(g, g.member_of[l], visited)) {
				g.member_of[l] = i;
				g.link_of[i] = uint8_t(l);
				return true;
			}
		}
		return false;
	}

	void undo(size_t mark)
	{
		while (trail_.size() > mark) {
			const Removed &r = trail_.back();
			set_dom(r.flow, dom_[r.flow] | r.bits);
			trail_.pop_back();
		}
	}

	// Spends `budget` (steps) as it goes.
	Outcome search(const std::vector<uint8_t> &hint, size_t &budget)
	{
		dom_ = start_;
		std::fill(chosen_.begin(), chosen_.end(), kNone);
		std::fill(std::begin(head_), std::end(head_), kEnd);
		prev_.resize(m_);
		next_.resize(m_);
		// in a random order: restarts break ties differently
		shuffled_.resize(m_);
		for (uint32_t i = 0; i < m_; i++) {
			const uint32_t j = uint32_t(next() % (i + 1));
			shuffled_[i] = shuffled_[j];
			shuffled_[j] = i;
		}
		for (uint32_t f : shuffled_)
			link_in(f);
		trail_.clear();
		stack_.clear();
		bool descend = true;
		for (;;) {
			if (descend) {
				const uint32_t f = pick_flow();
				if (f == m_)
					return Outcome::found;
				stack_.push_back({f, 0, trail_.size()});
			}
			Frame &top = stack_.back();
			const uint64_t left = dom_[top.flow] & ~top.tried;
			if (!left) {
				stack_.pop_back();
				if (stack_.empty())
					return Outcome::none; // every choice at the root failed
				Frame &up = stack_.back();
				undo(up.mark);
				release(up.flow);
				descend = false;
				continue;
			}
			if (!budget)
				return Outcome::budget;
			budget--;
			// the local search's offset first, then from a random one on
			unsigned o = hint[top.flow];
			if (o >= k_ || !(left >> o & 1))
				o = least_constraining(top.flow, left);
			top.tried |= 1ull << o;
			if (take(top.flow, o) && (!hall_ || hall_holds(top.mark))) {
				descend = true;
				continue;
			}
			undo(top.mark);
			release(top.flow);
			descend = false;
		}
	}

	struct User {
		uint32_t flow;
		uint8_t offset;
	};

	const unsigned k_;
	const uint32_t m_;
	const bool hall_;
	XorShift rng_;
	std::vector<uint32_t> at_, local_, users_at_;
	std::vector<User> users_;
	std::vector<uint64_t> dom_, start_;
	std::vector<uint8_t> chosen_;
	std::vector<uint32_t> single_;
	std::vector<uint32_t> prev_, next_; // the lists of open flows by offsets left
	std::vector<uint32_t> shuffled_;
	uint32_t head_[65];
	std::vector<Removed> trail_;
	std::vector<Frame> stack_;
	std::vector<Group> groups_;                      // build_groups()
	std::vector<std::array<uint32_t, 2>> flow_groups_;
	std::vector<uint32_t> seen_;                     // hall_holds(): stamps
	uint32_t stamp_ = 0;
	std::vector<uint64_t> masks_;                    // matched(): members' links
	std::vector<uint8_t> open_;                      // matched(): member's flow open
};

} // namespace

bool stage_crowded(const StagePaths &paths, const std::vector<uint8_t> &blocked)
{
	const unsigned k = paths.offsets;
	const size_t m = paths.flows();
	if (k == 0 || k > 64 || m == 0)
		return false;
	std::vector<uint32_t> local;
	const size_t nlinks = dense_links(paths, local);
	// each flow's offsets whose path keeps off the blocked links
	std::vector<uint64_t> open(m, 0);
	size_t longest = 0;
	for (size_t f = 0; f < m; f++) {
		for (unsigned o = 0; o < k; o++) {
			const uint32_t from = paths.at[f * k + o], to = paths.at[f * k + o + 1];
			bool free = true;
			for (uint32_t i = from; i < to && free; i++)
				free = !(paths.links[i] < blocked.size() && blocked[paths.links[i]]);
			if (free)
				open[f] |= 1ull << o;
			longest = std::max<size_t>(longest, to - from);
		}
		if (!open[f])
			return true; // every path of f is closed
	}
	std::vector<uint32_t> parent(nlinks), flows(nlinks), links(nlinks);
	std::vector<uint32_t> seen(nlinks, 0), first(m);
	auto root = [&](uint32_t a) {
		while (parent[a] != a)
			a = parent[a] = parent[parent[a]];
		return a;
	};
	for (size_t pos = 0; pos < longest; pos++) {
		for (uint32_t l = 0; l < parent.size(); l++)
			parent[l] = l;
		std::fill(flows.begin(), flows.end(), 0);
		std::fill(links.begin(), links.end(), 0);
		// join each flow's pos-th links; a flow counts when every open
		// offset of it has one (a shorter path needs none)
		std::fill(first.begin(), first.end(), UINT32_MAX);
		for (size_t f = 0; f < m; f++) {
			bool every = true;
			for (unsigned o = 0; o < k && every; o++)
				every = !(open[f] >> o & 1) ||
					pos < paths.at[f * k + o + 1] - paths.at[f * k + o];
			for (unsigned o = 0; o < k && every; o++) {
				const uint32_t from = paths.at[f * k + o];
				if (!(open[f] >> o & 1))
					continue;
				const uint32_t l = local[from + pos];
				if (seen[l] != pos + 1) {
					seen[l] = uint32_t(pos + 1);
					links[l]++; // counted at its root below
				}
				if (first[f] == UINT32_MAX)
					first[f] = l;
				else
					parent[root(l)] = root(first[f]);
			}
		}
		for (uint32_t l = 0; l < parent.size(); l++)
			if (links[l] && root(l) != l) {
				links[root(l)] += links[l];
				links[l] = 0;
			}
		for (size_t f = 0; f < m; f++)
			if (first[f] != UINT32_MAX && ++flows[root(first[f])] > links[root(first[f])])
				return true;
	}
	return false;
}

bool solve_stage(const StagePaths &paths, const std::vector<uint8_t> &blocked,
		 const std::vector<uint8_t> &hint, bool hall, size_t &budget, uint64_t seed,
		 std::vector<uint8_t> &out)
{
	if (paths.offsets == 0 || paths.offsets > 64)
		return false;
	StageSolver solver(paths, blocked, hall, seed);
	return solver.solve(hint, budget, out);
}

} // namespace qft
