// SPDX-License-Identifier: GPL-2.0-or-later
// Collective permutation sequences (CPS, seed 000 section III, table 2):
// for a job of n ranks, a sequence of stages, each a set of (source rank,
// destination rank) flows that run at the same time. Ranks are positions
// in the job's rank order; the score maps them to hosts.
#ifndef QFT_TRAFFIC_PATTERN_HPP
#define QFT_TRAFFIC_PATTERN_HPP

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace qft {

class Pgft;

struct RankPair {
	uint32_t src, dst;
};

class Pattern {
public:
	virtual ~Pattern() = default;
	virtual std::string name() const = 0;
	virtual size_t stage_count(uint32_t n) const = 0;
	// Fills `out` (cleared first) with the flows of stage s < stage_count(n).
	virtual void stage(uint32_t n, size_t s, std::vector<RankPair> &out) const = 0;
};

// At most `count` stages of `base`, spread evenly over its length: enough
// to rank placements, a fraction of the cost of playing every stage.
// Stage s is drawn from its stratum [s all / count, (s+1) all / count) at
// a golden-ratio offset: a fixed stride aliases with the tree's periods
// (18 of Shift's 324 stages on 325 ranks at stride 18 are all shifts of
// 1 mod 18, the same offset in every leaf, and miss the congestion the
// other residues see); frac(k phi) reaches every residue of the stratum.
// Borrows `base`.
class SampledPattern final : public Pattern {
public:
	SampledPattern(const Pattern &base, size_t count) : base_(base), count_(count) {}
	std::string name() const override { return base_.name(); }
	size_t stage_count(uint32_t n) const override;
	void stage(uint32_t n, size_t s, std::vector<RankPair> &out) const override;

private:
	const Pattern &base_;
	size_t count_;
};

struct PatternInfo {
	const char *name;
	const char *summary;
};
const std::vector<PatternInfo> &pattern_table();

// "shift", "ring", "dissemination", "tournament", "binomial", "recdbl",
// "rechalv", "recdbl-tree", "bisect[:COUNT[:SEED]]". recdbl-tree needs the
// PGFT (its m_l); the others ignore it. Throws Error(invalid) listing the
// known names.
std::unique_ptr<Pattern> make_pattern(std::string_view spec, const Pgft *pgft);

} // namespace qft

#endif
