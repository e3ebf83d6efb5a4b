// SPDX-License-Identifier: GPL-2.0-or-later
// Copyright (C) 2026 slurm-qft developers.
//
// The earliest congestion-free shape ahead: what select/rlft's ShapeWait=
// waits for and backfill reserves (docs/product-shapes.md section 11).
// Only existence and place matter here, so nothing is scored: a product
// (or two leaves, or whole aligned blocks) that prove() passes is
// congestion-free whoever runs beside it, since two disjoint products share
// no link. With LID offsets, whole leaves of one level-2 subtree count too
// (Candidate::offset_shape): measured, not proven, and beside running jobs
// whose offsets may cross the subtree's links.

#include <algorithm>
#include <cmath>

#include "lib/common/error.hpp"
#include "lib/place/placement.hpp"

namespace qft {

std::optional<Candidate> Placer::first_shape(const Search &s) const
{
	const Pgft &g = tree_.pgft();
	std::vector<Candidate> cands;
	if (policy_.products) {
		const std::vector<uint64_t> leaves = leaf_masks(s);
		products_in_range(s, leaves, cands);
		two_leaf_candidates(s, leaves, cands);
	}
	unsigned smallest = 1;
	while (smallest < g.h() && tree_.subtree_hosts(smallest) < s.req.nodes)
		smallest++;
	for (unsigned l = smallest; l <= g.h(); l++)
		candidates_at(l, s, cands);
	// proofs cost O(h N) each: a handful per time step
	size_t proofs = 0;
	for (Candidate &c : cands) {
		const bool offsets = offset_shape(c);
		if (c.kind != PlacementKind::product && c.kind != PlacementKind::two_leaves &&
		    c.kind != PlacementKind::aligned && !offsets)
			continue;
		if (!s.has_required(c.hosts))
			continue;
		if (offsets) {
			// no proof to pay for: its kind and place say it
			c.offset_shape = true;
			return std::move(c);
		}
		prove(c);
		if (c.congestion_free)
			return std::move(c);
		if (++proofs == 4)
			break;
	}
	return std::nullopt;
}

std::optional<Placer::Ahead> Placer::shape_ahead(const PlacementRequest &req,
						 const std::vector<double> &free_at,
						 double horizon) const
{
	const size_t hosts = fabric_.hosts().size();
	if (req.nodes == 0)
		fail(Status::invalid, "shape ahead: a job of 0 nodes");
	if (req.eligible.size() != hosts || free_at.size() != hosts)
		fail(Status::invalid, "shape ahead: host vectors of ", req.eligible.size(), " and ",
		     free_at.size(), " entries, expected ", hosts);
	const uint32_t lo = req.nodes_min ? std::min(req.nodes_min, req.nodes) : req.nodes;
	std::vector<double> times;
	for (HostOrd h = 0; h < hosts; h++)
		if (req.eligible[h] && tree_.host_index(h) != kNone && free_at[h] <= horizon)
			times.push_back(std::max(0.0, free_at[h]));
	std::sort(times.begin(), times.end());
	times.erase(std::unique(times.begin(), times.end()), times.end());
	// the shape at time t, if the hosts free by then hold one
	Search s{req, std::vector<bool>(hosts, false), {}, {}, {}, 0, {}};
	auto at = [&](double t) -> std::optional<Candidate> {
		size_t free_count = 0;
		for (HostOrd h = 0; h < hosts; h++) {
			s.free[h] = req.eligible[h] && tree_.host_index(h) != kNone &&
				    std::max(0.0, free_at[h]) <= t;
			free_count += s.free[h];
		}
		if (free_count < lo)
			return std::nullopt;
		for (HostOrd r : req.required)
			if (r >= hosts || !s.free[r])
				return std::nullopt;
		count_free(s);
		return first_shape(s);
	};
	// More free hosts rarely lose a shape: the latest time first (none
	// there, none at all), then a binary search for the earliest. Where
	// the search is not monotone, the time found is a little late, never
	// wrong: its shape is checked at that time. 8 searches for 200 ends
	// instead of 200 (make bench).
	if (times.empty())
		return std::nullopt;
	std::optional<Candidate> best = at(times.back());
	if (!best)
		return std::nullopt;
	size_t lo_i = 0, hi_i = times.size() - 1; // a shape at hi_i
	while (lo_i < hi_i) {
		const size_t mid = lo_i + (hi_i - lo_i) / 2;
		if (std::optional<Candidate> c = at(times[mid])) {
			best = std::move(c);
			hi_i = mid;
		} else {
			lo_i = mid + 1;
		}
	}
	return Ahead{times[hi_i], std::move(*best)};
}

} // namespace qft
