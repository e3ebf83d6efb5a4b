// SPDX-License-Identifier: GPL-2.0-or-later
// Exports: qft topology-conf (the tree as topology.conf for stock
// topology/tree, or with --block for 24.11's topology/block), qft lft
// (the closed form's tables for OpenSM's file routing engine: D-Mod-K on a
// PGFT, seed 002's routing on a QFT).
#include <cstdio>

#include "contribs/qft/cli.hpp"
#include "lib/common/error.hpp"
#include "lib/fabric/fabric_json.hpp"
#include "lib/route/dmodk.hpp"
#include "lib/route/qft_route.hpp"
#include "lib/slurm/topology_conf.hpp"

namespace qft::cli {

int cmd_topology_conf(int argc, char **argv)
{
	Args args(argc, argv, 2, {"--fabric", "-o"}, {"--block"});
	args.no_positional();
	std::unique_ptr<Model> m = load_model(args.need("--fabric"), "");
	if (!m->tree())
		fail(Status::invalid, args.need("--fabric"),
		     ": the fabric has no PGFT tree to export");
	std::string text = args.has("--block")
				   ? topology_block_conf_text(m->fabric(), m->need_tree())
				   : topology_conf_text(m->fabric(), m->need_tree());
	write_output(args, text);
	return 0;
}

int cmd_lft(int argc, char **argv)
{
	Args args(argc, argv, 2, {"--fabric", "-o", "--lmc"}, {});
	args.no_positional();
	std::unique_ptr<Model> m = load_model(args.need("--fabric"), "dmodk");
	if (args.has("--lmc"))
		set_lmc_checked(m->edit_fabric(), unsigned(args.number("--lmc", 0, 7)));
	// Built after the LMC: the router routes every offset.
	const Tree &tree = m->need_tree();
	const Lfts lfts = tree.qft() ? QftRoute(m->fabric(), tree).tables()
				     : DModK(m->fabric(), tree).tables();
	std::string text = lfts_dump_text(m->fabric(), lfts);
	write_output(args, text);
	return 0;
}

} // namespace qft::cli
