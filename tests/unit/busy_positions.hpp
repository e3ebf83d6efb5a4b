// SPDX-License-Identifier: GPL-2.0-or-later
// Placement on a tree whose leaves hold more hosts than a mask word:
// positions 0-7 of every leaf busy, and every size in `sizes` placed on
// distinct free hosts only (test_place: a PGFT, test_qft: a QFT).
// Include after tests/unit/cmocka.hpp and lib/place/placement.hpp.
#ifndef QFT_TESTS_UNIT_BUSY_POSITIONS_HPP
#define QFT_TESTS_UNIT_BUSY_POSITIONS_HPP

#include <initializer_list>
#include <set>

#include "tests/unit/model.hpp"

namespace qft::test {

// The placements made, for the caller's own checks.
inline std::vector<Placement> place_beside_busy_positions(const Modelled &m, const Placer &placer,
							  uint64_t leaf_hosts,
							  std::initializer_list<uint32_t> sizes)
{
	PlacementRequest req;
	req.eligible.assign(m.fabric.hosts().size(), true);
	for (HostOrd h = 0; h < req.eligible.size(); h++)
		if (m.tree->host_index(h) % leaf_hosts < 8)
			req.eligible[h] = false;
	std::vector<Placement> placed;
	for (uint32_t n : sizes) {
		req.nodes = n;
		const Placement p = placer.place(req);
		assert_int_equal(p.outcome, Placement::placed);
		assert_int_equal(p.chosen.hosts.size(), n);
		std::set<HostOrd> distinct(p.chosen.hosts.begin(), p.chosen.hosts.end());
		assert_int_equal(distinct.size(), n);
		for (HostOrd h : p.chosen.hosts)
			assert_true(req.eligible[h]);
		placed.push_back(p);
	}
	return placed;
}

} // namespace qft::test

#endif
