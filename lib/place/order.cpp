// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/place/order.hpp"

#include <map>

#include "lib/common/error.hpp"
#include "lib/common/random.hpp"

namespace qft {

RankOrder RankOrder::parse(std::string_view text)
{
	RankOrder o;
	if (text == "tree") {
		o.kind = tree;
	} else if (text == "given") {
		o.kind = given;
	} else if (text.substr(0, 7) == "random:" && text.size() > 7 &&
		   text.size() <= 7 + 19 &&
		   text.find_first_not_of("0123456789", 7) == std::string_view::npos) {
		o.kind = random;
		o.seed = std::stoull(std::string(text.substr(7)));
	} else {
		fail(Status::invalid, "rank order \"", text,
		     "\": expected tree, given or random:SEED");
	}
	return o;
}

void sort_tree_order(const Tree &tree, std::vector<HostOrd> &hosts)
{
	sort_tree_order(tree, hosts.begin(), hosts.end());
}

std::vector<HostOrd> tree_order(const Fabric &fabric, const Tree &tree,
				std::vector<HostOrd> hosts)
{
	for (HostOrd h : hosts)
		if (tree.host_index(h) == kNone)
			fail(Status::invalid, fabric.node_label(fabric.hosts()[h]),
			     ": host has no tree position");
	sort_tree_order(tree, hosts);
	return hosts;
}

std::vector<HostOrd> apply_order(const RankOrder &order, const Fabric &fabric,
				 const Tree *tree, std::vector<HostOrd> hosts)
{
	switch (order.kind) {
	case RankOrder::tree:
		if (!tree)
			fail(Status::invalid, "rank order tree needs the fabric's PGFT tree");
		return tree_order(fabric, *tree, std::move(hosts));
	case RankOrder::given:
		return hosts;
	case RankOrder::random: {
		Rng rng(order.seed);
		shuffle(hosts, rng);
		return hosts;
	}
	}
	return hosts;
}

Alignment alignment(const Fabric &fabric, const Tree &tree,
		    const std::vector<HostOrd> &hosts)
{
	Alignment a;
	const Pgft &g = tree.pgft();
	a.block = g.block();
	a.size = hosts.size();
	a.multiple = a.size > 0 && a.size % a.block == 0;
	std::vector<uint64_t> idx;
	for (HostOrd h : tree_order(fabric, tree, hosts))
		idx.push_back(tree.host_index(h));
	if (idx.empty())
		return a;
	a.contiguous = idx.back() - idx.front() + 1 == idx.size();
	a.aligned = a.contiguous && idx.front() % a.block == 0;
	std::map<uint64_t, uint64_t> per_leaf; // leaf subtree -> hosts in set
	for (uint64_t j : idx)
		per_leaf[j / g.m(1)]++;
	a.leaves = per_leaf.size();
	for (const auto &[leaf, count] : per_leaf) {
		// A leaf is whole when every host it has in the fabric is in the set.
		uint64_t present = 0;
		for (uint64_t j = leaf * g.m(1); j < (leaf + 1) * g.m(1); j++)
			present += tree.node_at(0, j) != kNone;
		a.whole_leaves += count == present;
	}
	return a;
}

} // namespace qft
