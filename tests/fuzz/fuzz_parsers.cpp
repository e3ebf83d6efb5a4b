// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target for every text parser of the core. The first input byte
// picks the parser, the rest is its text. A qft::Error is the expected
// answer to bad input; a crash, a sanitizer report, a hang or any other
// exception is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "lib/common/error.hpp"
#include "lib/common/hostlist.hpp"
#include "lib/fabric/fabric_json.hpp"
#include "lib/fabric/ibnetdiscover.hpp"
#include "lib/route/lft.hpp"
#include "lib/tree/generate.hpp"
#include "lib/tree/pgft.hpp"
#include "lib/tree/recognise.hpp"

namespace {

const qft::Fabric &small_fabric()
{
	static const qft::Fabric f =
		qft::generate_pgft(qft::Pgft::parse("2;4,4;1,4;1,1"), qft::GenOptions());
	return f;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 1 << 16)
		return 0;
	std::string text(reinterpret_cast<const char *>(data + 1), size - 1);
	try {
		switch (data[0] % 5) {
		case 0: {
			qft::Fabric f = qft::fabric_parse_json(text, "fuzz.json");
			qft::recognise(f);
			break;
		}
		case 1: {
			qft::ImportResult r = qft::parse_ibnetdiscover(text, "fuzz.txt");
			qft::recognise(r.fabric);
			break;
		}
		case 2:
			qft::parse_lfts(small_fabric(), text, "fuzz.dump");
			break;
		case 3:
			qft::Pgft::parse(text);
			break;
		case 4:
			qft::hostlist_expand(text);
			break;
		}
	} catch (const qft::Error &) {
	}
	return 0;
}
