// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/place/links.hpp"

#include <algorithm>

#include "lib/common/error.hpp"

namespace qft {

LinkUse::LinkUse(const Pgft &g, bool every_key) : g_(g), every_key_(every_key)
{
	for (unsigned l = 1; l < g.h(); l++) {
		const size_t n = size_t(g.hosts() / g.M(l) * up_links(l));
		up_.emplace_back(n, 0);
		down_.emplace_back(n, 0);
	}
}

template <typename Visit>
void LinkUse::visit(const std::vector<uint64_t> &tree_indexes, Visit visit) const
{
	std::vector<uint64_t> idx(tree_indexes);
	std::sort(idx.begin(), idx.end());
	if (!idx.empty() && idx.back() >= g_.hosts())
		fail(Status::invalid, "link use: host index ", idx.back(), " outside the tree");
	for (unsigned l = 1; l < g_.h(); l++) {
		const uint64_t M = g_.M(l), U = up_links(l);
		if (idx.empty() || idx.front() / M == idx.back() / M)
			return; // one level-l subtree: no link at this level or above
		if (every_key_) {
			// the job spans out of every level-l subtree it is in
			for (size_t a = 0; a < idx.size(); a++) {
				const uint64_t y = idx[a] / M;
				if (a && idx[a - 1] / M == y)
					continue;
				for (uint64_t r = 0; r < U; r++) {
					visit(l, true, size_t(y * U + r));
					visit(l, false, size_t(y * U + r));
				}
			}
			continue;
		}
		// all[r]: the job's hosts with d mod U = r; in[r]: those in y
		std::vector<uint32_t> all(U, 0), in(U, 0);
		std::vector<uint64_t> keys; // residues the job has, ascending
		for (uint64_t d : idx)
			if (!all[d % U]++)
				keys.push_back(d % U);
		std::sort(keys.begin(), keys.end());
		for (size_t a = 0; a < idx.size();) {
			const uint64_t y = idx[a] / M;
			size_t b = a;
			for (; b < idx.size() && idx[b] / M == y; b++)
				in[idx[b] % U]++;
			for (uint64_t r : keys) {
				if (all[r] > in[r])
					visit(l, true, size_t(y * U + r));
				if (in[r])
					visit(l, false, size_t(y * U + r));
			}
			for (size_t k = a; k < b; k++)
				in[idx[k] % U] = 0;
			a = b;
		}
	}
}

void LinkUse::add(const std::vector<uint64_t> &tree_indexes, int delta)
{
	// Counted only once every link is known: visit() allocates level by
	// level, and an exception half-way (out of memory, a job that was not
	// added) must leave the counts as they were. visit() names each link
	// once, so the check below sees every count before it changes.
	std::vector<uint32_t *> links;
	visit(tree_indexes, [&](unsigned l, bool up, size_t at) {
		uint32_t &n = (up ? up_ : down_)[l - 1][at];
		if (delta < 0 && n == 0)
			fail(Status::internal, "link use: removing a job that was not added");
		links.push_back(&n);
	});
	for (uint32_t *n : links)
		*n = uint32_t(int64_t(*n) + delta);
}

size_t LinkUse::shared(const std::vector<uint64_t> &tree_indexes) const
{
	size_t n = 0;
	visit(tree_indexes, [&](unsigned l, bool up, size_t at) {
		n += (up ? up_ : down_)[l - 1][at] != 0;
	});
	return n;
}

size_t LinkUse::shared() const
{
	size_t n = 0;
	for (const auto *dir : {&up_, &down_})
		for (const std::vector<uint32_t> &level : *dir)
			for (uint32_t c : level)
				n += c > 1;
	return n;
}

} // namespace qft
