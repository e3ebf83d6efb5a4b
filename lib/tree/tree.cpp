// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/tree/tree.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "lib/common/error.hpp"
#include "lib/tree/qft_wiring.hpp"

namespace qft {

namespace {

struct UpCable {
	unsigned port; // its number within its node
	PortIdx pi;
	unsigned parent_digit; // b_{l+1} of the parent
	unsigned k;            // which of the p_{l+1} parallel links
};

// cables[node]: one level's up-cables, each node's in port order, k its
// rank among the node's cables to that parent. Where a node has fewer than
// p cables to a parent, gives each remaining cable the k that the nodes
// with all p cables give its port number, when they all agree on it and
// the remaining cables get distinct ones; else leaves the ranks.
void keep_parallel_indexes(std::vector<std::vector<UpCable>> &cables, unsigned p)
{
	std::map<unsigned, unsigned> k_of_port; // from complete groups
	std::set<unsigned> disputed;
	auto groups = [](const std::vector<UpCable> &node) {
		std::map<unsigned, std::vector<size_t>> by_parent;
		for (size_t i = 0; i < node.size(); i++)
			by_parent[node[i].parent_digit].push_back(i);
		return by_parent;
	};
	for (const std::vector<UpCable> &node : cables)
		for (const auto &[digit, group] : groups(node)) {
			if (group.size() != p)
				continue;
			for (size_t i : group) {
				auto [it, fresh] = k_of_port.emplace(node[i].port, node[i].k);
				if (!fresh && it->second != node[i].k)
					disputed.insert(node[i].port);
			}
		}
	for (std::vector<UpCable> &node : cables)
		for (const auto &[digit, group] : groups(node)) {
			if (group.size() == p)
				continue;
			std::vector<unsigned> ks;
			for (size_t i : group) {
				auto it = k_of_port.find(node[i].port);
				if (it == k_of_port.end() || disputed.count(node[i].port) ||
				    std::find(ks.begin(), ks.end(), it->second) != ks.end())
					break;
				ks.push_back(it->second);
			}
			if (ks.size() != group.size())
				continue; // no agreement: port order
			for (size_t j = 0; j < group.size(); j++)
				node[group[j]].k = ks[j];
		}
}

} // namespace

std::string Tree::position_label(unsigned level, uint64_t index) const
{
	std::vector<unsigned> d = pgft_.digits(level, index);
	std::string s = cat("L", level, " ");
	for (unsigned i = pgft_.h(); i >= 1; i--)
		s += cat(d[i - 1], i > 1 ? "." : "");
	return s;
}

bool Tree::host_attached(HostOrd h) const
{
	const uint64_t j = h < host_index_.size() ? host_index_[h] : kNone;
	if (j == kNone)
		return false;
	for (unsigned q = 0; q < pgft_.up_ports(0); q++)
		if (up_port(0, j, q) != kNone)
			return true;
	return false;
}

std::vector<HostOrd> Tree::attached_hosts() const
{
	std::vector<HostOrd> out;
	for (HostOrd h = 0; h < host_index_.size(); h++)
		if (host_attached(h))
			out.push_back(h);
	return out;
}

uint64_t Tree::subtree_hosts(unsigned level) const
{
	return pgft_.M(level) * (qft() ? qft_width(pgft_, level) : 1);
}

Tree Tree::from_fabric(const Fabric &fabric)
{
	if (fabric.tree_tuple().empty())
		fail(Status::invalid, "the fabric carries no PGFT tuple: generate it "
				      "with 'qft gen' or recognise it first");
	Tree t(Pgft::parse(fabric.tree_tuple()), fabric.tree_kind());
	const Pgft &g = t.pgft_;
	if (t.qft())
		check_qft(g);
	unsigned h = g.h();
	t.nodes_.resize(h + 1);
	t.up_.resize(h + 1);
	for (unsigned l = 0; l <= h; l++) {
		t.nodes_[l].assign(g.nodes_at(l), kNone);
		t.up_[l].assign(g.nodes_at(l) * g.up_ports(l), kNone);
	}
	t.host_index_.assign(fabric.hosts().size(), kNone);

	for (NodeId id = 0; id < fabric.node_count(); id++) {
		const Node &n = fabric.node(id);
		if (n.level < 0)
			continue;
		unsigned l = static_cast<unsigned>(n.level);
		bool is_host = n.type == NodeType::host;
		if (l > h || (l == 0) != is_host)
			fail(Status::invalid, fabric.node_label(id), ": tree level ", n.level,
			     ", expected ", is_host ? "0 for a host" : "1..h for a switch",
			     " (h = ", h, ")");
		if (n.tree_index >= g.nodes_at(l))
			fail(Status::invalid, fabric.node_label(id), ": tree index ",
			     n.tree_index, " at level ", l, ", expected below ",
			     g.nodes_at(l));
		NodeId &slot = t.nodes_[l][n.tree_index];
		if (slot != kNone)
			fail(Status::invalid, fabric.node_label(id), " and ",
			     fabric.node_label(slot), " both sit at ",
			     t.position_label(l, n.tree_index));
		slot = id;
		if (is_host)
			t.host_index_[fabric.host_ord(id)] = n.tree_index;
	}

	// Up-ports: the cables from a node to one parent, in ascending port
	// order, are its k = 0..p_{l+1}-1 parallel links to that parent, so
	// up-port q = b_{l+1} + k w_{l+1} (seed 000 IV-B). On a QFT's
	// side-linked level, one cable to each parent of the lower node's
	// group, k = b_{l+2} mod p_{l+1} (lib/tree/qft_wiring.hpp).
	//
	// A node that lost some of its parallel cables to a parent keeps the
	// k of each remaining one when the complete nodes of its level agree
	// on the k of that port number: the cut cable is then the missing
	// one, and the destinations that D-Mod-K sent over the remaining
	// cables stay on them. Numbered in port order instead, the remaining
	// cable would take the cut one's k, and the destinations of both
	// would move.
	const char *rule = t.qft() ? "QFT" : "PGFT";
	for (unsigned l = 0; l < h; l++) {
		unsigned up = g.up_ports(l), wl = g.w(l + 1), pl = g.p(l + 1);
		const bool side = t.qft() && qft_side_linked(g, l + 1);
		std::vector<std::vector<UpCable>> cables(g.nodes_at(l));
		for (uint64_t idx = 0; idx < g.nodes_at(l); idx++) {
			NodeId id = t.nodes_[l][idx];
			if (id == kNone)
				continue;
			const Node &n = fabric.node(id);
			std::vector<unsigned> a = g.digits(l, idx);
			std::map<unsigned, unsigned> links_to; // b_{l+1} -> cables so far
			for (unsigned pn = 0; pn < n.num_ports; pn++) {
				PortIdx pi = n.first_port + pn;
				PortIdx peer = fabric.port(pi).peer;
				if (peer == kNone)
					continue;
				const Node &pn_node = fabric.node(fabric.port(peer).node);
				if (pn_node.level != static_cast<int>(l + 1))
					continue;
				std::vector<unsigned> b = g.digits(l + 1, pn_node.tree_index);
				for (unsigned i = 1; i <= h; i++) {
					// a side link also moves digit l+2 within its group
					const bool moved = side && i == l + 2;
					if (i != l + 1 && (moved ? a[i - 1] / pl != b[i - 1] / pl
								 : a[i - 1] != b[i - 1]))
						fail(Status::invalid, "cable ", fabric.port_label(pi),
						     " -> ", fabric.port_label(peer), " breaks the ", rule,
						     " connection rule: ", t.position_label(l, idx), " and ",
						     t.position_label(l + 1, pn_node.tree_index),
						     " differ in digit ", i);
				}
				unsigned k = side ? b[l + 1] % pl : links_to[b[l]]++;
				if (k >= pl || (side && t.up_[l][idx * up + b[l] + k * wl] != kNone))
					fail(Status::invalid, fabric.node_label(id), " has more than ",
					     side ? "1" : cat("p", l + 1, " = ", pl), " cable",
					     side ? "" : "s", " to ",
					     fabric.node_label(fabric.port(peer).node));
				if (side)
					t.up_[l][idx * up + b[l] + k * wl] = pi;
				cables[idx].push_back({pn, pi, b[l], k});
			}
		}
		if (!side && pl > 1)
			keep_parallel_indexes(cables, pl);
		for (uint64_t idx = 0; idx < g.nodes_at(l); idx++) {
			if (t.nodes_[l][idx] == kNone)
				continue;
			if (!side)
				for (const UpCable &c : cables[idx])
					t.up_[l][idx * up + c.parent_digit + c.k * wl] = c.pi;
			for (unsigned q = 0; q < up; q++)
				if (t.up_[l][idx * up + q] == kNone)
					t.missing_.push_back({l, idx, q});
		}
	}
	for (NodeId id : t.nodes_[0])
		if (id == kNone)
			t.absent_hosts_++;
	return t;
}

std::string unplaced_hosts_report(const Fabric &fabric, const Tree &tree,
				  const std::string &origin)
{
	std::string out;
	for (HostOrd h = 0; h < fabric.hosts().size(); h++)
		if (tree.host_index(h) == kNone)
			out += cat(origin, ": host ", fabric.node_label(fabric.hosts()[h]),
				   " has no tree position (no cable to a leaf): not placed, unroutable\n");
	return out;
}

std::string missing_cables_report(const Fabric &fabric, const Tree &tree,
				  const std::string &origin)
{
	std::string out;
	for (const MissingCable &c : tree.missing()) {
		NodeId id = tree.node_at(c.level, c.index);
		out += cat(origin, ": missing cable: ",
			   id == kNone ? tree.position_label(c.level, c.index) : fabric.node_label(id),
			   " (", tree.position_label(c.level, c.index), ") up-port ", c.up_port,
			   c.level == 0 ? ": the host is unreachable\n" : ": routed around\n");
	}
	return out;
}

} // namespace qft
