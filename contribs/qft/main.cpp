// SPDX-License-Identifier: GPL-2.0-or-later
// qft: the slurm-qft command-line tool. See qft(1).
#include <cstdio>
#include <cstring>
#include <new>

#include "contribs/qft/cli.hpp"
#include "lib/common/error.hpp"

namespace {

const char kUsage[] =
	"usage: qft COMMAND [OPTIONS]\n"
	"commands:\n"
	"  gen pgft|qft TUPLE [-o FABRIC.json] [--ibsim NET] [--names PATTERN]\n"
	"                 [--first N] [--lmc N] [--shuffle-names SEED] [--require-rlft]\n"
	"  import ibnetdiscover FILE [-o FABRIC.json] [--names REGEX] [--raw] [--json]\n"
	"  discover [-C CA] [-P PORT] [-o FABRIC.json] [--names REGEX] [--raw] [--json]\n"
	"           [--timeout MS] [--retries N]\n"
	"  recognise FABRIC.json [-o ANNOTATED.json] [--json]\n"
	"  info     --fabric F\n"
	"  route    --fabric F --src HOST --dst HOST [--lid-offset K]\n"
	"  score    --fabric F (--hosts LIST | --jobs FILE | --batch FILE) [--pattern P]\n"
	"           [--order tree|given|random:SEED] [--lid-offset K] [--json]\n"
	"           [--worst N] [--bandwidth] [--per-job] [--lft LFTS.dump]\n"
	"           [--lid job|dest|pair|stripe] [--lmc N] [--lid-in KEPT] [--lid-out KEPT]\n"
	"           [--lid-threads N] [--lid-exact STEPS] [--lid-hall FLOWS]\n"
	"           [--lid-walk STEPS] [--lid-lns ROUNDS] [--lid-lns-flows N]\n"
	"           [--lid-lns-probe ROUNDS] [--lid-spare 0|1]\n"
	"           (--lid with --jobs or --batch: the jobs of a group choose in the\n"
	"           order listed, each beside those before it; stripe: --hosts only;\n"
	"           --batch lines \"KEY: HOSTS\" keep a job's offsets by KEY: chosen\n"
	"           once, in its first group, read from --lid-in, new ones to --lid-out)\n"
	"  order    --fabric F --hosts LIST [--hostlist]\n"
	"  place    --fabric F --nodes N [--running FILE] [--remainder exact|reserve]\n"
	"           [--eligible LIST] [--require LIST] [--no-congestion] [--explain]\n"
	"           [--path-pressure] [--whole-leaves]\n"
	"  topology-conf --fabric F [--block] [-o FILE]\n"
	"  lft      --fabric F [--lmc N] [-o LFTS.dump]\n"
	"  lid      --fabric F --hosts LIST [--choice job|dest|pair|stripe] [--lmc N]\n"
	"           [--pattern P] [--threads N] [-o TABLE] | --compare\n"
	"  status   [--file STATUS.json] [--json]\n"
	"  patterns\n"
	"LIST is a Slurm host list (n[0001-0036]), 'all', or @FILE. See qft(1).\n";

struct Command {
	const char *name;
	int (*run)(int, char **);
};

const Command kCommands[] = {
	{"gen", qft::cli::cmd_gen},       {"info", qft::cli::cmd_info},
	{"route", qft::cli::cmd_route},   {"score", qft::cli::cmd_score},
	{"order", qft::cli::cmd_order},   {"patterns", qft::cli::cmd_patterns},
	{"topology-conf", qft::cli::cmd_topology_conf},
	{"import", qft::cli::cmd_import},   {"recognise", qft::cli::cmd_recognise},
	{"recognize", qft::cli::cmd_recognise}, {"lft", qft::cli::cmd_lft},
	{"discover", qft::cli::cmd_discover}, {"place", qft::cli::cmd_place},
	{"lid", qft::cli::cmd_lid},       {"status", qft::cli::cmd_status},
};

} // namespace

int main(int argc, char **argv)
{
	if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")) {
		std::fputs(kUsage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (const Command &c : kCommands) {
		if (std::strcmp(argv[1], c.name))
			continue;
		try {
			return c.run(argc, argv);
		} catch (const qft::cli::UsageError &e) {
			std::fprintf(stderr, "qft %s: %s\n%s", c.name, e.msg.c_str(), kUsage);
			return 2;
		} catch (const qft::Error &e) {
			std::fprintf(stderr, "qft %s: %s\n", c.name, e.what());
			return 1;
		} catch (const std::bad_alloc &) {
			std::fprintf(stderr, "qft %s: out of memory\n", c.name);
			return 1;
		}
	}
	std::fprintf(stderr, "qft: unknown command \"%s\"\n%s", argv[1], kUsage);
	return 2;
}
