// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/common/error.hpp"

namespace qft {

const char *status_name(Status s)
{
	switch (s) {
	case Status::ok: return "ok";
	case Status::invalid: return "invalid argument";
	case Status::not_found: return "not found";
	case Status::io: return "I/O error";
	case Status::parse: return "parse error";
	case Status::unroutable: return "unroutable";
	case Status::unsupported: return "unsupported";
	case Status::internal: return "internal error";
	}
	return "unknown status";
}

} // namespace qft
