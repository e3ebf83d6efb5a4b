// SPDX-License-Identifier: GPL-2.0-or-later
// Reproducible randomness: the same seed gives the same rank order, names
// and pairings on every platform and library (std::shuffle and the std
// distributions are not specified bit for bit, mt19937_64 is).
#ifndef QFT_COMMON_RANDOM_HPP
#define QFT_COMMON_RANDOM_HPP

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace qft {

class Rng {
public:
	explicit Rng(uint64_t seed) : engine_(seed) {}
	// Uniform in [0, bound), bound > 0, without modulo bias.
	uint64_t below(uint64_t bound)
	{
		uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
		uint64_t v;
		do
			v = engine_();
		while (v >= limit);
		return v % bound;
	}

private:
	std::mt19937_64 engine_;
};

// xorshift64 (Marsaglia): the tie-breaks of lib/lid's searches, drawn
// millions of times per job, where a cheap reproducible stream is all
// that is asked.
class XorShift {
public:
	explicit XorShift(uint64_t seed) : s_(seed ? seed : 1) {}
	uint64_t next()
	{
		s_ ^= s_ << 13;
		s_ ^= s_ >> 7;
		s_ ^= s_ << 17;
		return s_;
	}

private:
	uint64_t s_;
};

// Fisher-Yates.
template <typename T> void shuffle(std::vector<T> &v, Rng &rng)
{
	for (size_t i = v.size(); i > 1; i--)
		std::swap(v[i - 1], v[rng.below(i)]);
}

} // namespace qft

#endif
