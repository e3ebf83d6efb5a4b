// SPDX-License-Identifier: GPL-2.0-or-later
// PGFT(h; m_1..m_h; w_1..w_h; p_1..p_h), seed 000 section IV-B.
//
// Level 0 holds the hosts, level h the top switches. A node at level l has
// digits (a_h..a_1) with a_i < w_i for i <= l and a_i < m_i for i > l; its
// index within its level is the mixed-radix number of those digits, a_1
// least significant. For hosts that index is the tree index
// j = sum_i a_i prod_{k<i} m_k, which is also the tree (rank) order.
#ifndef QFT_TREE_PGFT_HPP
#define QFT_TREE_PGFT_HPP

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace qft {

class Pgft {
public:
	// Parses "h;m1,..,mh;w1,..,wh;p1,..,ph" and validates it.
	static Pgft parse(std::string_view text);
	// Builds from typed values and validates them.
	Pgft(std::vector<unsigned> m_list, std::vector<unsigned> w_list,
	     std::vector<unsigned> p_list);

	unsigned h() const { return static_cast<unsigned>(m_.size()); }
	// 1-based accessors, as in the paper: m(1) .. m(h).
	unsigned m(unsigned i) const { return m_[i - 1]; }
	unsigned w(unsigned i) const { return w_[i - 1]; }
	unsigned p(unsigned i) const { return p_[i - 1]; }

	uint64_t hosts() const { return M(h()); }
	// prod_{k<=l} m_k and prod_{k<=l} w_k (1 for l = 0).
	uint64_t M(unsigned l) const { return prefix_m_[l]; }
	uint64_t W(unsigned l) const { return prefix_w_[l]; }
	// Nodes at level l: prod_{i<=l} w_i * prod_{i>l} m_i.
	uint64_t nodes_at(unsigned l) const;
	// Up-ports of a level-l node, w_{l+1} p_{l+1} (0 at the top).
	unsigned up_ports(unsigned l) const;
	// Down-ports of a level-l node, m_l p_l (0 for hosts).
	unsigned down_ports(unsigned l) const;
	// The congestion-free block, N_CF = prod_k w_k (seed 000 V-B).
	uint64_t block() const { return W(h()); }

	// Digits a_1..a_h (index 0 = a_1) of node `index` at level l, and back.
	std::vector<unsigned> digits(unsigned l, uint64_t index) const;
	uint64_t index(unsigned l, const std::vector<unsigned> &digits) const;
	unsigned radix(unsigned l, unsigned i) const { return i <= l ? w(i) : m(i); }

	// Why this PGFT is not a Real Life Fat-Tree (seed 000 IV-C): one
	// sentence per violated rule; empty for an RLFT.
	std::vector<std::string> rlft_violations() const;

	std::string text() const; // "h;m..;w..;p.."

	bool operator==(const Pgft &o) const
	{
		return m_ == o.m_ && w_ == o.w_ && p_ == o.p_;
	}

private:
	void validate() const;

	std::vector<unsigned> m_, w_, p_;
	std::vector<uint64_t> prefix_m_, prefix_w_;
};

} // namespace qft

#endif
