// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target for every text parser of the core. The first input byte
// picks the parser, the rest is its text. A qft::Error is the expected
// answer to bad input; a crash, a sanitizer report, a hang or any other
// exception is a bug. Parser 5 is the loader topology/qft calls in
// slurmctld (qft_fabric_load, the C API) on a fabric file, then what the
// plugin reads back: groups, tree indexes, the findings.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "lib/common/error.hpp"
#include "lib/common/hostlist.hpp"
#include "lib/fabric/fabric_json.hpp"
#include "lib/fabric/ibnetdiscover.hpp"
#include "lib/route/lft.hpp"
#include "lib/tree/generate.hpp"
#include "lib/tree/pgft.hpp"
#include "lib/tree/recognise.hpp"
#include "qft/qft.h"

namespace {

const qft::Fabric &small_fabric()
{
	static const qft::Fabric f =
		qft::generate_pgft(qft::Pgft::parse("2;4,4;1,4;1,1"), qft::GenOptions());
	return f;
}

void check(bool ok)
{
	if (!ok)
		__builtin_trap();
}

// As slurmctld's topology/qft: load the file, then read the fabric as the
// plugin does when it ranks nodes and builds the switch table.
void plugin_load(const std::string &text)
{
	static const std::string path = "/tmp/qft-fuzz-fabric-" + std::to_string(getpid()) + ".json";
	FILE *out = std::fopen(path.c_str(), "wb");
	if (!out)
		return;
	std::fwrite(text.data(), 1, text.size(), out);
	std::fclose(out);
	qft_fabric_t *f = nullptr;
	char *err = nullptr;
	const qft_status_t rc = qft_fabric_load(path.c_str(), &f, &err);
	check((rc == QFT_OK) == (f != nullptr) && (rc == QFT_OK) == (err == nullptr));
	qft_free(err);
	if (!f)
		return;
	const size_t hosts = qft_fabric_host_count(f), groups = qft_fabric_group_count(f);
	for (size_t g = 0; g < groups; g++) {
		const qft_group_t *grp = qft_fabric_group(f, g);
		check(grp && (grp->parent == QFT_NONE || grp->parent < groups));
		for (size_t i = 0; i < grp->host_count; i++)
			check(grp->hosts[i] < hosts);
	}
	for (size_t h = 0; h < hosts; h++) {
		const char *name = qft_fabric_host_name(f, h);
		uint64_t index = 0;
		check(name != nullptr);
		if (*name && qft_fabric_tree_index(f, name, &index, nullptr) == QFT_OK)
			check(qft_fabric_host_group(f, h) == QFT_NONE || qft_fabric_host_group(f, h) < groups);
	}
	check(qft_fabric_report(f) != nullptr);
	if (hosts <= 64) {
		size_t *lost = nullptr, count = 0;
		if (qft_fabric_lost_destinations(f, &lost, &count, &err) == QFT_OK)
			check(count <= hosts);
		qft_free(lost);
		qft_free(err);
	}
	qft_fabric_destroy(f);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 1 << 16)
		return 0;
	std::string text(reinterpret_cast<const char *>(data + 1), size - 1);
	try {
		switch (data[0] % 6) {
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
		case 5:
			plugin_load(text);
			break;
		}
	} catch (const qft::Error &) {
	}
	return 0;
}
