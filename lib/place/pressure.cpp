// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/place/pressure.hpp"

#include <algorithm>

#include "lib/common/error.hpp"
#include "lib/tree/tree.hpp"

namespace qft {

PathPressure::PathPressure(const Tree &tree) : hosts_(tree.pgft().hosts())
{
	for (unsigned l = 1; l < tree.pgft().h(); l++) {
		m_.push_back(tree.subtree_hosts(l));
		by_.emplace_back(size_t((hosts_ + m_.back() - 1) / m_.back()), 0);
	}
}

template <typename Visit>
void PathPressure::spans(const std::vector<uint64_t> &tree_indexes, Visit visit) const
{
	std::vector<uint64_t> idx(tree_indexes);
	std::sort(idx.begin(), idx.end());
	if (!idx.empty() && idx.back() >= hosts_)
		fail(Status::invalid, "path pressure: host index ", idx.back(), " outside the tree");
	for (unsigned l = 1; l <= m_.size(); l++) {
		const uint64_t M = m_[l - 1];
		if (idx.empty() || idx.front() / M == idx.back() / M)
			return; // inside one level-l subtree: no flow leaves it
		for (size_t a = 0; a < idx.size();) {
			size_t b = a;
			while (b < idx.size() && idx[b] / M == idx[a] / M)
				b++;
			visit(l, idx[a] / M, uint32_t(b - a));
			a = b;
		}
	}
}

void PathPressure::add(const std::vector<uint64_t> &tree_indexes, int delta)
{
	spans(tree_indexes, [&](unsigned l, uint64_t y, uint32_t k) {
		by_[l - 1][y] += delta > 0 ? k : uint32_t(-k);
	});
}

double PathPressure::of(const std::vector<uint64_t> &tree_indexes) const
{
	double sum = 0;
	spans(tree_indexes, [&](unsigned l, uint64_t y, uint32_t k) {
		sum += double(k) * double(by_[l - 1][y]) / double(m_[l - 1]);
	});
	return sum;
}

} // namespace qft
