// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/place/explain.hpp"

#include <cstdio>

namespace qft {

std::string explain(const Placement &placement)
{
	std::string out;
	for (const Candidate &c : placement.considered) {
		// Labels padded to one column, so the figures line up in a log.
		std::string label = c.label();
		if (label.size() < 48)
			label.resize(48, ' ');
		char figures[224], pressure[32] = "", leaves[32] = "";
		if (placement.by_pressure)
			std::snprintf(pressure, sizeof(pressure), "path pressure %.2f, ", c.pressure);
		if (placement.by_leaves)
			std::snprintf(leaves, sizeof(leaves), "%zu leaves in part, ", c.partial_leaves);
		std::snprintf(figures, sizeof(figures),
			      " %s%sHSD %.3f (alone %.3f), %zu links shared, %llu free left%s\n", pressure,
			      leaves, c.hsd, c.hsd_alone, c.shared, (unsigned long long)c.free_left,
			      c.congestion_free ? ", congestion-free by construction" : "");
		out += "  " + label + figures;
	}
	return out;
}

} // namespace qft
