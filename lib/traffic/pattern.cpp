// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/traffic/pattern.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "lib/common/error.hpp"
#include "lib/common/random.hpp"
#include "lib/tree/pgft.hpp"

namespace qft {

namespace {

unsigned ceil_log2(uint64_t n)
{
	unsigned s = 0;
	while ((uint64_t(1) << s) < n)
		s++;
	return s;
}

unsigned floor_log2(uint64_t n)
{
	unsigned s = 0;
	while ((uint64_t(2) << s) <= n)
		s++;
	return s;
}

// Table 2, Shift: n_i -> n_{(i+s) mod N}, 1 <= s <= N-1.
class Shift : public Pattern {
public:
	std::string name() const override { return "shift"; }
	size_t stage_count(uint32_t n) const override { return n > 1 ? n - 1 : 0; }
	void stage(uint32_t n, size_t s, std::vector<RankPair> &out) const override
	{
		out.resize(n);
		uint32_t d = uint32_t(s + 1);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t j = i + d;
			out[i] = {i, j >= n ? j - n : j}; // the hottest pattern: no %
		}
	}
};

// Table 2, Ring: one stage, n_i -> n_{(i+1) mod N}.
class Ring : public Pattern {
public:
	std::string name() const override { return "ring"; }
	size_t stage_count(uint32_t n) const override { return n > 1 ? 1 : 0; }
	void stage(uint32_t n, size_t, std::vector<RankPair> &out) const override
	{
		out.clear();
		for (uint32_t i = 0; i < n; i++)
			out.push_back({i, (i + 1) % n});
	}
};

// Table 2, Dissemination: n_i -> n_{(i+2^s) mod N}, s < ceil(log2 N).
class Dissemination : public Pattern {
public:
	std::string name() const override { return "dissemination"; }
	size_t stage_count(uint32_t n) const override { return ceil_log2(n); }
	void stage(uint32_t n, size_t s, std::vector<RankPair> &out) const override
	{
		out.clear();
		for (uint32_t i = 0; i < n; i++)
			out.push_back({i, uint32_t((i + (uint64_t(1) << s)) % n)});
	}
};

// Table 2, Tournament: n_{i+2^s} -> n_i for i = 0 mod 2^{s+1}.
class Tournament : public Pattern {
public:
	std::string name() const override { return "tournament"; }
	size_t stage_count(uint32_t n) const override { return ceil_log2(n); }
	void stage(uint32_t n, size_t s, std::vector<RankPair> &out) const override
	{
		out.clear();
		uint64_t d = uint64_t(1) << s;
		for (uint64_t i = 0; i + d < n; i += 2 * d)
			out.push_back({uint32_t(i + d), uint32_t(i)});
	}
};

// Table 2, Binomial: n_i -> n_{i+2^s} for i < 2^s, i + 2^s < N.
class Binomial : public Pattern {
public:
	std::string name() const override { return "binomial"; }
	size_t stage_count(uint32_t n) const override { return ceil_log2(n); }
	void stage(uint32_t n, size_t s, std::vector<RankPair> &out) const override
	{
		out.clear();
		uint64_t d = uint64_t(1) << s;
		for (uint64_t i = 0; i < d && i + d < n; i++)
			out.push_back({uint32_t(i), uint32_t(i + d)});
	}
};

// Table 2, Recursive Doubling (halving: the same stages in reverse) with
// section VI's pre and post stages for N not a power of two: with
// P = 2^floor(log2 N), rank i+P first hands its data to i (pre), the P
// lower ranks exchange n_i <-> n_{i xor 2^s}, then i returns it (post).
class Recursive : public Pattern {
public:
	explicit Recursive(bool halving) : halving_(halving) {}
	std::string name() const override { return halving_ ? "rechalv" : "recdbl"; }
	size_t stage_count(uint32_t n) const override
	{
		if (n < 2)
			return 0;
		unsigned bits = floor_log2(n);
		return bits + (is_pow2(n) ? 0 : 2);
	}
	void stage(uint32_t n, size_t s, std::vector<RankPair> &out) const override
	{
		out.clear();
		uint32_t p = uint32_t(1) << floor_log2(n);
		bool extra = !is_pow2(n);
		size_t last = stage_count(n) - 1;
		if (extra && (s == 0 || s == last)) {
			for (uint32_t i = 0; i + p < n; i++)
				out.push_back(s == 0 ? RankPair{i + p, i} : RankPair{i, i + p});
			return;
		}
		size_t k = extra ? s - 1 : s;
		unsigned bits = floor_log2(n);
		unsigned bit = halving_ ? bits - 1 - unsigned(k) : unsigned(k);
		for (uint32_t i = 0; i < p; i++)
			out.push_back({i, i ^ (uint32_t(1) << bit)});
	}

private:
	static bool is_pow2(uint32_t n) { return (n & (n - 1)) == 0; }
	bool halving_;
};

// Tree-aware recursive doubling, seed 000 section VI, eqs. 3-7. One group
// of stages per tree level l = 1..h; with M_l = prod_{k<=l} m_k,
// L_l = floor(log2 m_l) and E_l = M_{l-1} 2^{L_l} (eq. 3):
//   pre (eq. 4):  j -> j - E_l  for ranks with  j mod M_l >= E_l,
//   bulk (6, 7):  i <-> i with digit a_l xor 2^s, 0 <= s < L_l, for ranks
//                 with i mod M_l < E_l,
//   post (eq. 5): i -> i + E_l  for the same ranks as pre.
// Eq. 7 writes the xor on floor(i / M_{l-1}); it is meant on the digit a_l
// alone (the two agree when m_l is a power of two), which is what this
// does. Pre/post exist only when E_l != M_l. Ranks are read as tree
// indices of a full PGFT; flows to ranks >= n are dropped, so a partial
// job keeps the structure of the leaves it occupies (section VI).
class TreeRecursiveDoubling : public Pattern {
public:
	explicit TreeRecursiveDoubling(const Pgft &g)
	{
		uint64_t below = 1; // M_{l-1}
		for (unsigned l = 1; l <= g.h(); l++) {
			Group grp;
			grp.below = below;
			grp.m = g.m(l);
			grp.bits = floor_log2(grp.m);
			grp.extra = (1u << grp.bits) != grp.m;
			for (int k = -1; k <= int(grp.bits); k++) {
				if ((k == -1 || k == int(grp.bits)) && !grp.extra)
					continue;
				stages_.push_back({groups_.size(), k});
			}
			groups_.push_back(grp);
			below *= grp.m;
		}
	}
	std::string name() const override { return "recdbl-tree"; }
	size_t stage_count(uint32_t n) const override { return n > 1 ? stages_.size() : 0; }
	void stage(uint32_t n, size_t s, std::vector<RankPair> &out) const override
	{
		out.clear();
		const Group &g = groups_[stages_[s].group];
		int k = stages_[s].step;
		uint64_t e = g.below << g.bits; // E_l
		for (uint64_t i = 0; i < n; i++) {
			uint64_t digit = (i / g.below) % g.m; // a_l
			if (k == -1 || k == int(g.bits)) { // pre / post
				if (digit < (1u << g.bits))
					continue;
				RankPair pr = k == -1 ? RankPair{uint32_t(i), uint32_t(i - e)}
						      : RankPair{uint32_t(i - e), uint32_t(i)};
				out.push_back(pr);
				continue;
			}
			if (digit >= (1u << g.bits))
				continue;
			uint64_t j = i + ((digit ^ (1u << k)) - digit) * g.below;
			if (j < n)
				out.push_back({uint32_t(i), uint32_t(j)});
		}
	}

private:
	struct Group {
		uint64_t below; // M_{l-1}
		unsigned m, bits;
		bool extra;
	};
	struct Step {
		size_t group;
		int step; // -1 pre, 0..bits-1 bulk, bits post
	};
	std::vector<Group> groups_;
	std::vector<Step> stages_;
};

// Ranks 0..n-1 in a random order of its own for each stage (and each
// pattern, by `salt`), so that stages can be drawn in any order.
std::vector<uint32_t> shuffled_ranks(uint32_t n, uint64_t seed, size_t stage, uint64_t salt)
{
	Rng rng(seed * 0x9e3779b97f4a7c15ull + stage + salt);
	std::vector<uint32_t> ranks(n);
	for (uint32_t i = 0; i < n; i++)
		ranks[i] = i;
	shuffle(ranks, rng);
	return ranks;
}

// Random bisection pairings (effective bisection bandwidth, seed 003):
// each stage splits the ranks at random into halves A and B and pairs each
// rank of A with one of B, both directions at once.
class Bisection : public Pattern {
public:
	Bisection(size_t count, uint64_t seed) : count_(count), seed_(seed) {}
	std::string name() const override { return cat("bisect:", count_, ":", seed_); }
	size_t stage_count(uint32_t n) const override { return n > 1 ? count_ : 0; }
	void stage(uint32_t n, size_t s, std::vector<RankPair> &out) const override
	{
		out.clear();
		std::vector<uint32_t> ranks = shuffled_ranks(n, seed_, s, 0);
		for (uint32_t i = 0; i + 1 < n; i += 2) {
			out.push_back({ranks[i], ranks[i + 1]});
			out.push_back({ranks[i + 1], ranks[i]});
		}
	}

private:
	size_t count_;
	uint64_t seed_;
};

// Random permutations: each stage every rank sends to the rank a random
// permutation gives it (sending to itself sends nothing).
class Permutation : public Pattern {
public:
	Permutation(size_t count, uint64_t seed) : count_(count), seed_(seed) {}
	std::string name() const override { return cat("perm:", count_, ":", seed_); }
	size_t stage_count(uint32_t n) const override { return n > 1 ? count_ : 0; }
	void stage(uint32_t n, size_t s, std::vector<RankPair> &out) const override
	{
		out.clear();
		std::vector<uint32_t> to = shuffled_ranks(n, seed_, s, 0x51ed);
		for (uint32_t i = 0; i < n; i++)
			if (to[i] != i)
				out.push_back({i, to[i]});
	}

private:
	size_t count_;
	uint64_t seed_;
};

// COUNT[:SEED] of bisect and perm.
std::pair<uint64_t, uint64_t> count_seed(std::string_view spec, std::string_view args);

uint64_t parse_number(std::string_view spec, std::string_view text, const char *what)
{
	if (text.empty() || text.size() > 12)
		fail(Status::invalid, "pattern \"", spec, "\": expected ", what);
	uint64_t v = 0;
	for (char c : text) {
		if (c < '0' || c > '9')
			fail(Status::invalid, "pattern \"", spec, "\": expected ", what);
		v = v * 10 + uint64_t(c - '0');
	}
	return v;
}

std::pair<uint64_t, uint64_t> count_seed(std::string_view spec, std::string_view args)
{
	uint64_t count = 100, seed = 1;
	if (!args.empty()) {
		size_t colon = args.find(':');
		count = parse_number(spec, args.substr(0, colon), "COUNT[:SEED] with COUNT 1..100000");
		if (colon != std::string_view::npos)
			seed = parse_number(spec, args.substr(colon + 1), "a decimal SEED after COUNT:");
	}
	if (count < 1 || count > 100000)
		fail(Status::invalid, "pattern \"", spec, "\": COUNT ", count, ", expected 1..100000");
	return {count, seed};
}

struct PatternEntry {
	PatternInfo info;
	std::function<std::unique_ptr<Pattern>(std::string_view spec,
					       std::string_view args, const Pgft *)>
		make;
};

template <typename T, typename... A>
std::function<std::unique_ptr<Pattern>(std::string_view, std::string_view, const Pgft *)>
plain(A... a)
{
	return [=](std::string_view spec, std::string_view args,
		   const Pgft *) -> std::unique_ptr<Pattern> {
		if (!args.empty())
			fail(Status::invalid, "pattern \"", spec, "\" takes no arguments");
		return std::make_unique<T>(a...);
	};
}

const std::vector<PatternEntry> &entries()
{
	static const std::vector<PatternEntry> table = {
		{{"shift", "n_i -> n_(i+s) mod N, s = 1..N-1 (all-to-all)"}, plain<Shift>()},
		{{"ring", "n_i -> n_(i+1) mod N, one stage"}, plain<Ring>()},
		{{"dissemination", "n_i -> n_(i+2^s) mod N"}, plain<Dissemination>()},
		{{"tournament", "n_(i+2^s) -> n_i, i = 0 mod 2^(s+1)"}, plain<Tournament>()},
		{{"binomial", "n_i -> n_(i+2^s), i < 2^s"}, plain<Binomial>()},
		{{"recdbl", "n_i <-> n_(i xor 2^s), pre/post for N not 2^k"},
		 plain<Recursive>(false)},
		{{"rechalv", "recursive doubling's stages in reverse"}, plain<Recursive>(true)},
		{{"recdbl-tree", "tree-aware recursive doubling (seed 000 eqs. 3-7)"},
		 [](std::string_view spec, std::string_view args,
		    const Pgft *g) -> std::unique_ptr<Pattern> {
			 if (!args.empty())
				 fail(Status::invalid, "pattern \"", spec, "\" takes no arguments");
			 if (!g)
				 fail(Status::invalid, "pattern recdbl-tree needs the fabric's "
						       "PGFT tuple");
			 return std::make_unique<TreeRecursiveDoubling>(*g);
		 }},
		{{"bisect", "bisect[:COUNT[:SEED]]: COUNT random bisection pairings "
			    "(default 100, seed 1)"},
		 [](std::string_view spec, std::string_view args,
		    const Pgft *) -> std::unique_ptr<Pattern> {
			 auto [count, seed] = count_seed(spec, args);
			 return std::make_unique<Bisection>(count, seed);
		 }},
		{{"perm", "perm[:COUNT[:SEED]]: COUNT random permutations (default 100, seed 1)"},
		 [](std::string_view spec, std::string_view args,
		    const Pgft *) -> std::unique_ptr<Pattern> {
			 auto [count, seed] = count_seed(spec, args);
			 return std::make_unique<Permutation>(count, seed);
		 }},
	};
	return table;
}

} // namespace

const std::vector<PatternInfo> &pattern_table()
{
	static const std::vector<PatternInfo> infos = [] {
		std::vector<PatternInfo> v;
		for (const PatternEntry &e : entries())
			v.push_back(e.info);
		return v;
	}();
	return infos;
}

size_t SampledPattern::stage_count(uint32_t n) const
{
	return std::min(count_, base_.stage_count(n));
}

void SampledPattern::stage(uint32_t n, size_t s, std::vector<RankPair> &out) const
{
	const size_t all = base_.stage_count(n), taken = stage_count(n);
	if (taken == all) {
		base_.stage(n, s, out);
		return;
	}
	const size_t lo = s * all / taken, hi = (s + 1) * all / taken;
	const double frac = std::fmod(double(s + 1) * 0.6180339887498949, 1.0);
	base_.stage(n, lo + std::min(hi - lo - 1, size_t(frac * double(hi - lo))), out);
}

std::unique_ptr<Pattern> make_pattern(std::string_view spec, const Pgft *pgft)
{
	size_t colon = spec.find(':');
	std::string_view name = spec.substr(0, colon);
	std::string_view args =
		colon == std::string_view::npos ? std::string_view() : spec.substr(colon + 1);
	std::string known;
	for (const PatternEntry &e : entries()) {
		if (name == e.info.name)
			return e.make(spec, args, pgft);
		known += cat(known.empty() ? "" : ", ", e.info.name);
	}
	fail(Status::invalid, "pattern \"", spec, "\": expected one of ", known);
}

} // namespace qft
