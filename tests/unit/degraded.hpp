// SPDX-License-Identifier: GPL-2.0-or-later
// Degraded fabrics for the unit tests: a generated PGFT re-read from its
// JSON without some cables and without some hosts' tree positions, as
// `qft import` leaves a fabric with cut cables.
#ifndef QFT_TESTS_UNIT_DEGRADED_HPP
#define QFT_TESTS_UNIT_DEGRADED_HPP

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "lib/common/error.hpp"
#include "lib/fabric/fabric_json.hpp"
#include "lib/route/router.hpp"
#include "lib/tree/generate.hpp"

namespace qft::test {

// The fabric of `tuple` without the cables `cut` (indexes into its JSON
// "links": the host cables first, in tree order, then level by level) and,
// for each host named in `unplace`, without its tree position.
inline Fabric degraded(const char *tuple, const std::vector<size_t> &cut,
		       const std::vector<std::string> &unplace = {}, unsigned lmc = 0)
{
	GenOptions opt;
	opt.lmc = lmc;
	std::string json = fabric_to_json(generate_pgft(Pgft::parse(tuple), opt));
	for (const std::string &name : unplace) {
		size_t at = json.find(cat("\"name\":\"", name, "\""));
		size_t from = json.find(",\"level\"", at), to = json.find('}', from);
		json.erase(from, to - from);
	}
	size_t open = json.find('[', json.find("\"links\"")) + 1, close = json.rfind(']');
	std::istringstream in(json.substr(open, close - open));
	std::string line, kept;
	for (size_t i = 0; std::getline(in, line);) {
		line = line.substr(0, line.find_last_of(']') + 1);
		if (line.find('[') == std::string::npos)
			continue;
		if (std::find(cut.begin(), cut.end(), i++) == cut.end())
			kept += (kept.empty() ? "\n" : ",\n") + line;
	}
	return fabric_parse_json(json.substr(0, open) + kept + "\n" + json.substr(close), "edited");
}

// The links of r.path() as text, or "unroutable".
inline std::string path_text(const Router &r, HostOrd s, HostOrd d, unsigned k)
{
	PortIdx links[kMaxPathLinks];
	try {
		unsigned n = r.path(s, d, k, links);
		std::string t;
		for (unsigned i = 0; i < n; i++)
			t += cat(links[i], " ");
		return t;
	} catch (const Error &e) {
		if (e.status() != Status::unroutable)
			throw;
		return "unroutable";
	}
}

} // namespace qft::test

#endif
