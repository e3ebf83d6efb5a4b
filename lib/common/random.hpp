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

// Fisher-Yates.
template <typename T> void shuffle(std::vector<T> &v, Rng &rng)
{
	for (size_t i = v.size(); i > 1; i--)
		std::swap(v[i - 1], v[rng.below(i)]);
}

} // namespace qft

#endif
