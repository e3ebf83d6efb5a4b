// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/common/file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "lib/common/error.hpp"

namespace qft {

std::string read_file(const std::string &path)
{
	std::ifstream in(path, std::ios::binary);
	if (!in)
		fail(Status::io, path, ": cannot open: ", std::strerror(errno));
	std::ostringstream buf;
	buf << in.rdbuf();
	if (in.bad())
		fail(Status::io, path, ": read error");
	return buf.str();
}

void write_file(const std::string &path, const std::string &text)
{
	std::ofstream out(path, std::ios::binary | std::ios::trunc);
	if (!out)
		fail(Status::io, path, ": cannot write: ", std::strerror(errno));
	out << text;
	out.close();
	if (!out)
		fail(Status::io, path, ": write error");
}

} // namespace qft
