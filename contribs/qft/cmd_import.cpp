// SPDX-License-Identifier: GPL-2.0-or-later
// qft import ibnetdiscover: a discovered fabric into fabric JSON, its tree
// recognised; qft recognise: the recognition of a fabric file, reported.
#include <cstdio>

#include "contribs/qft/cli.hpp"
#include "lib/common/error.hpp"
#include "lib/fabric/fabric_json.hpp"
#include "lib/fabric/ibnetdiscover.hpp"
#include "lib/tree/recognise.hpp"

namespace qft::cli {

namespace {

// Recognises `f` and prints the report (text to stderr, or JSON to stdout).
void report(Fabric &f, bool json)
{
	Recognition r = recognise(f);
	if (json)
		std::fputs(recognition_json(f, r).c_str(), stdout);
	else
		std::fputs(recognition_text(f, r).c_str(), stderr);
}

void write_fabric(const Fabric &f, const std::string &out)
{
	if (out == "-")
		std::fputs(fabric_to_json(f).c_str(), stdout);
	else
		fabric_save_json(f, out);
}

} // namespace

int cmd_import(int argc, char **argv)
{
	Args args(argc, argv, 2, {"-o", "--names"}, {"--raw", "--json"});
	const auto &pos = args.positional();
	if (pos.size() != 2 || pos[0] != "ibnetdiscover")
		throw UsageError{"expected: import ibnetdiscover FILE"};
	HostNaming naming{args.get("--names")};
	ImportResult imp = load_ibnetdiscover(pos[1], naming);
	for (const std::string &w : imp.warnings)
		std::fprintf(stderr, "qft import: warning: %s\n", w.c_str());
	if (!args.has("--raw"))
		report(imp.fabric, args.has("--json"));
	std::string out = args.get("-o", "-");
	if (out == "-" && args.has("--json"))
		throw UsageError{"--json prints the report: give the fabric a file with -o"};
	write_fabric(imp.fabric, out);
	return 0;
}

int cmd_recognise(int argc, char **argv)
{
	Args args(argc, argv, 2, {"-o"}, {"--json"});
	const auto &pos = args.positional();
	if (pos.size() != 1)
		throw UsageError{"expected: recognise FABRIC.json"};
	Fabric f = fabric_load_json(pos[0]);
	Recognition r = recognise(f);
	if (args.has("--json"))
		std::fputs(recognition_json(f, r).c_str(), stdout);
	else
		std::fputs(recognition_text(f, r).c_str(), stdout);
	if (args.has("-o"))
		write_fabric(f, args.get("-o"));
	return 0;
}

} // namespace qft::cli
