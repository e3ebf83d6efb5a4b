// SPDX-License-Identifier: GPL-2.0-or-later
// Copyright (C) 2026 slurm-qft developers.
//
// Isolation (--qft-isolate, docs/isolation.md) for the jobs the placer
// cannot size: select/rlft lets cons_tres choose their nodes inside a
// subtree apart, so that they neither wait while isolated jobs run nor
// cross an isolated job's links.

#include "lib/common/error.hpp"
#include "lib/place/placement.hpp"

namespace qft {

bool Placer::hosts_apart(const std::vector<HostOrd> &hosts, bool from_every) const
{
	std::vector<bool> mine(fabric_.hosts().size(), false);
	for (HostOrd h : hosts) {
		if (h >= mine.size())
			fail(Status::invalid, "isolation: host ordinal ", h, " out of range");
		mine[h] = true;
	}
	// an isolated job shares its nodes with no one
	if (isolated_count_)
		for (const auto &[id, job] : jobs_)
			if (job.isolated)
				for (HostOrd h : job.hosts)
					if (mine[h])
						return false;
	const std::vector<uint64_t> idx = tree_indexes(hosts);
	return isolated_links_.shared(idx) == 0 && (!from_every || every_links_.shared(idx) == 0);
}

unsigned Placer::subtree_apart(const std::vector<uint8_t> &eligible, uint32_t min_hosts,
			       bool from_every, unsigned after, std::vector<HostOrd> &out) const
{
	const size_t hosts = fabric_.hosts().size();
	const Pgft &g = tree_.pgft();
	if (eligible.size() != hosts)
		fail(Status::invalid, "isolation: ", eligible.size(), " eligible entries, expected ",
		     hosts);
	out.clear();
	// the hosts that close their subtree, by tree index
	std::vector<bool> closed(g.hosts(), false);
	for (const auto &[id, job] : jobs_)
		if (from_every || job.isolated)
			for (uint64_t j : job.placed)
				if (j < closed.size())
					closed[j] = true;
	const unsigned top = tree_.kind() == TreeKind::qft || !tree_.missing().empty() ? 1 : g.h();
	for (unsigned l = after + 1; l <= top; l++) {
		const uint64_t m = tree_.subtree_hosts(l);
		std::vector<uint32_t> count((g.hosts() + m - 1) / m, 0);
		std::vector<bool> shut(count.size(), false);
		for (uint64_t j = 0; j < g.hosts(); j++)
			shut[j / m] = shut[j / m] || closed[j];
		for (HostOrd h = 0; h < hosts; h++) {
			const uint64_t j = tree_.host_index(h);
			if (eligible[h] && j != kNone && tree_.host_attached(h))
				count[j / m]++;
		}
		size_t best = count.size();
		for (size_t sub = 0; sub < count.size(); sub++)
			if (!shut[sub] && count[sub] >= std::max<uint32_t>(min_hosts, 1) &&
			    (best == count.size() || count[sub] < count[best]))
				best = sub;
		if (best == count.size())
			continue;
		for (HostOrd h = 0; h < hosts; h++) {
			const uint64_t j = tree_.host_index(h);
			if (eligible[h] && j != kNone && tree_.host_attached(h) && j / m == best)
				out.push_back(h);
		}
		return l;
	}
	return 0;
}

} // namespace qft
