// SPDX-License-Identifier: GPL-2.0-or-later
// qft order: a host set in tree order, one name per line (a hostfile for
// srun --distribution=arbitrary) or as one host list.
#include <cstdio>

#include "contribs/qft/cli.hpp"
#include "lib/common/error.hpp"
#include "lib/common/hostlist.hpp"
#include "lib/place/order.hpp"

namespace qft::cli {

int cmd_order(int argc, char **argv)
{
	Args args(argc, argv, 2, {"--fabric", "--hosts"}, {"--hostlist"});
	args.no_positional();
	std::unique_ptr<Model> m = load_model(args.need("--fabric"), "");
	if (!m->tree())
		fail(Status::invalid, args.need("--fabric"),
		     ": the fabric has no PGFT tree, so no tree order");
	const Fabric &f = m->fabric();
	std::vector<HostOrd> hosts =
		tree_order(f, m->need_tree(), resolve_hosts(f, host_names(f, args.need("--hosts"))));
	std::vector<std::string> names;
	for (HostOrd h : hosts)
		names.push_back(f.node(f.hosts()[h]).name);
	if (args.has("--hostlist")) {
		std::printf("%s\n", hostlist_compress(names).c_str());
	} else {
		for (const std::string &n : names)
			std::printf("%s\n", n.c_str());
	}
	Alignment a = alignment(f, m->need_tree(), hosts);
	std::fprintf(stderr,
		     "qft order: %llu hosts, block %llu: %s, %s, %llu of %llu leaves whole\n",
		     (unsigned long long)a.size, (unsigned long long)a.block,
		     a.multiple ? "a multiple of the block" : "not a multiple of the block",
		     a.aligned ? "contiguous and aligned"
			       : (a.contiguous ? "contiguous, not aligned" : "not contiguous"),
		     (unsigned long long)a.whole_leaves, (unsigned long long)a.leaves);
	return 0;
}

} // namespace qft::cli
