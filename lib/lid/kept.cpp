// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/lid/kept.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "lib/common/error.hpp"
#include "lib/common/hostlist.hpp"

namespace qft {

LidChoice kept_choice(LidMode mode)
{
	return mode == LidMode::pair ? LidChoice::pair : LidChoice::destination;
}

std::string kept_line(const Fabric &f, const std::string &key, const KeptLids &k)
{
	static const char hex[] = "0123456789abcdef";
	std::vector<std::string> names;
	names.reserve(k.ranks.size());
	for (HostOrd h : k.ranks)
		names.push_back(f.node(f.hosts()[h]).name);
	std::string line = key + " " + lid_mode_name(k.mode) + " " + std::to_string(f.lmc()) +
			   " " + hostlist_compress(names) + " ";
	const bool two = f.lmc() > 4;
	line.reserve(line.size() + k.offsets.size() * (two ? 2 : 1) + 1);
	for (uint8_t o : k.offsets) {
		if (two)
			line += hex[o >> 4];
		line += hex[o & 15];
	}
	return line + "\n";
}

std::map<std::string, KeptLids> read_kept(const std::string &path, const Fabric &f, LidMode mode,
					  std::vector<std::string> *keys)
{
	std::ifstream in(path);
	if (!in)
		fail(Status::io, path, ": cannot open: ", std::strerror(errno));
	std::map<std::string, KeptLids> out;
	std::string line;
	for (size_t lineno = 1; std::getline(in, line); lineno++) {
		std::istringstream w(line);
		std::string key, mode_name, hosts, digits;
		unsigned lmc = 0;
		if (line.find_first_not_of(" \t\r") == std::string::npos || line[0] == '#')
			continue;
		if (!(w >> key >> mode_name >> lmc >> hosts >> digits))
			fail(Status::parse, path, ":", lineno,
			     ": expected KEY MODE LMC HOSTS OFFSETS");
		KeptLids k;
		try {
			k.mode = lid_mode(mode_name);
			k.ranks = resolve_hosts(f, hostlist_expand(hosts));
		} catch (const Error &e) {
			fail(e.status(), path, ":", lineno, ": ", e.what());
		}
		if (k.mode != mode || lmc != f.lmc())
			fail(Status::invalid, path, ":", lineno, ": ", key, " kept ", mode_name,
			     " at LMC ", lmc, ", scored --lid ", lid_mode_name(mode), " at LMC ",
			     f.lmc());
		const size_t n = k.ranks.size(), want = mode == LidMode::pair ? n * n : n;
		const size_t width = f.lmc() > 4 ? 2 : 1;
		if (digits.size() != want * width)
			fail(Status::parse, path, ":", lineno, ": ", key, ": ", digits.size(),
			     " offset digits, expected ", want * width);
		k.offsets.resize(want);
		for (size_t i = 0; i < want; i++) {
			unsigned v = 0;
			for (size_t d = 0; d < width; d++) {
				const char c = digits[i * width + d];
				const int x = c >= '0' && c <= '9' ? c - '0'
					      : c >= 'a' && c <= 'f' ? c - 'a' + 10
								     : -1;
				if (x < 0)
					fail(Status::parse, path, ":", lineno, ": ", key,
					     ": offsets are hex digits");
				v = v * 16 + unsigned(x);
			}
			if (v >= (1u << f.lmc()))
				fail(Status::invalid, path, ":", lineno, ": ", key, ": offset ", v,
				     " at LMC ", f.lmc());
			k.offsets[i] = uint8_t(v);
		}
		if (keys)
			keys->push_back(key);
		out[key] = std::move(k);
	}
	return out;
}

} // namespace qft
