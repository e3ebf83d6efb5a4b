// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/tree/recognise.hpp"

#include <jansson.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include "lib/common/error.hpp"
#include "lib/tree/qft_wiring.hpp"
#include "lib/tree/tree.hpp"

namespace qft {

namespace {

[[noreturn]] void not_fat_tree(const std::string &why)
{
	fail(Status::invalid, "not a fat tree: ", why);
}

struct UnionFind {
	std::vector<uint32_t> up;
	explicit UnionFind(size_t n) : up(n) { std::iota(up.begin(), up.end(), 0); }
	uint32_t find(uint32_t x)
	{
		while (up[x] != x)
			x = up[x] = up[up[x]];
		return x;
	}
	void join(uint32_t a, uint32_t b) { up[find(a)] = find(b); }
};

// One attempt at reading the graph as a tree of one kind: a PGFT, or the
// QFT of a PGFT (lib/tree/qft_wiring.hpp). Levels and subtrees (connected
// components of the levels <= l) are found alike; on a QFT a component
// is a QFT sub-tree, p_l PGFT subtrees wide on a side-linked level.
class Recogniser {
public:
	Recogniser(Fabric &f, TreeKind kind) : f_(f), kind_(kind), level_(f.node_count(), -1) {}

	Recognition run()
	{
		neighbours();
		levels();
		subtrees();
		if (kind_ == TreeKind::qft) {
			Pgft g = qft_tuple();
			qft_tuple_ = g.text();
			qft_positions(g);
			return annotate(g);
		}
		Pgft g = tuple();
		positions(g);
		return annotate(g);
	}

	// The QFT tuple the counts gave, once they gave one ("" before).
	const std::string &qft_tuple_text() const { return qft_tuple_; }

private:
	struct Link {
		PortIdx port; // this node's port
		NodeId peer;
	};

	void neighbours()
	{
		adj_.resize(f_.node_count());
		for (NodeId id = 0; id < f_.node_count(); id++) {
			const Node &n = f_.node(id);
			for (unsigned p = 0; p < n.num_ports; p++) {
				PortIdx pi = n.first_port + p;
				if (f_.port(pi).peer != kNone)
					adj_[id].push_back({pi, f_.port(f_.port(pi).peer).node});
			}
		}
	}

	bool is_host(NodeId id) const { return f_.node(id).type == NodeType::host; }

	void levels()
	{
		std::deque<NodeId> queue;
		for (NodeId id = 0; id < f_.node_count(); id++) {
			if (!is_host(id))
				continue;
			if (adj_[id].empty()) {
				detach(id, "host has no cable");
				continue;
			}
			level_[id] = 0;
			std::set<NodeId> leaves;
			for (const Link &l : adj_[id]) {
				if (is_host(l.peer))
					not_fat_tree(cat("hosts ", f_.node_label(id), " and ",
							 f_.node_label(l.peer), " are cabled to each other"));
				leaves.insert(l.peer);
			}
			// a QFT side-linked at level 1 cables a host to p_1 leaves
			if (leaves.size() > 1 && kind_ == TreeKind::pgft)
				fail(Status::unsupported, "host ", f_.node_label(id),
				     " has cables to ", leaves.size(),
				     " switches; hosts on several leaf switches (w1 > 1) are not supported");
			for (NodeId leaf : leaves)
				if (level_[leaf] < 0) {
					level_[leaf] = 1;
					queue.push_back(leaf);
				}
		}
		if (queue.empty())
			not_fat_tree("no switch has a host");
		while (!queue.empty()) {
			NodeId id = queue.front();
			queue.pop_front();
			for (const Link &l : adj_[id])
				if (level_[l.peer] < 0) {
					level_[l.peer] = level_[id] + 1;
					queue.push_back(l.peer);
				}
		}
		for (NodeId id = 0; id < f_.node_count(); id++) {
			if (level_[id] < 0 && !is_host(id))
				detach(id, "switch reaches no host");
			h_ = std::max(h_, level_[id]);
		}
		for (NodeId id = 0; id < f_.node_count(); id++)
			for (const Link &l : adj_[id])
				if (level_[id] >= 0 && std::abs(level_[id] - level_[l.peer]) != 1)
					not_fat_tree(cat("cable ", f_.port_label(l.port), " -> ",
							 f_.port_label(f_.port(l.port).peer),
							 " joins levels ", level_[id], " and ",
							 level_[l.peer], "; a fat tree cables adjacent levels only"));
	}

	void detach(NodeId id, const char *why)
	{
		detached_.push_back(id);
		detached_text_.push_back(cat(f_.node_label(id), " ", guid_text(f_.node(id).guid),
					     ": ", why));
	}

	// comp_[l][node]: the level-l subtree of a node of level <= l (compact ids).
	void subtrees()
	{
		comp_.assign(h_ + 1, std::vector<uint32_t>(f_.node_count(), kNone));
		count_.assign(h_ + 1, 0);
		for (int l = 1; l <= h_; l++) {
			UnionFind uf(f_.node_count());
			for (NodeId id = 0; id < f_.node_count(); id++)
				if (level_[id] >= 0 && level_[id] <= l)
					for (const Link &link : adj_[id])
						if (level_[link.peer] >= 0 && level_[link.peer] <= l)
							uf.join(id, link.peer);
			std::map<uint32_t, uint32_t> ids;
			for (NodeId id = 0; id < f_.node_count(); id++)
				if (level_[id] >= 0 && level_[id] <= l) {
					auto it = ids.emplace(uf.find(id), uint32_t(ids.size())).first;
					comp_[l][id] = it->second;
				}
			count_[l] = ids.size();
		}
		if (count_[h_] != 1)
			not_fat_tree(cat("the fabric falls into ", count_[h_],
					 " disconnected parts"));
	}

	Pgft tuple()
	{
		std::vector<unsigned> m(h_, 0), w(h_, 0), p(h_, 0);
		w[0] = 1;
		for (NodeId id = 0; id < f_.node_count(); id++) {
			int l = level_[id];
			if (l < 0 || l >= h_)
				continue;
			// parents and cables per parent
			std::map<NodeId, unsigned> cables;
			for (const Link &link : adj_[id])
				if (level_[link.peer] == l + 1)
					cables[link.peer]++;
			if (l > 0)
				w[l] = std::max<unsigned>(w[l], unsigned(cables.size()));
			for (const auto &[peer, c] : cables)
				p[l] = std::max(p[l], c);
		}
		for (int l = 1; l <= h_; l++) {
			// children subtrees per level-l subtree
			std::map<uint32_t, std::set<uint32_t>> kids;
			for (NodeId id = 0; id < f_.node_count(); id++) {
				if (level_[id] < 0 || level_[id] > l - 1)
					continue;
				uint32_t child = l == 1 ? id : comp_[l - 1][id];
				kids[comp_[l][id]].insert(child);
			}
			for (const auto &[parent, set] : kids)
				m[l - 1] = std::max<unsigned>(m[l - 1], unsigned(set.size()));
		}
		try {
			return Pgft(m, w, p);
		} catch (const Error &e) {
			not_fat_tree(cat("the inferred tuple is no PGFT: ", e.what()));
		}
	}

	// The lowest port of `from` that reaches `to`, or kNone.
	PortIdx port_to(NodeId from, NodeId to) const
	{
		for (const Link &l : adj_[from])
			if (l.peer == to)
				return l.port;
		return kNone;
	}

	NodeId min_guid(const std::vector<NodeId> &ids) const
	{
		return *std::min_element(ids.begin(), ids.end(), [&](NodeId a, NodeId b) {
			return f_.node(a).guid < f_.node(b).guid;
		});
	}

	// Orders `items` by the port `ref` reaches them on (through any of the
	// nodes reach(item) gives); the unreached follow, by smallest GUID.
	template <typename Item, typename Reach>
	void order_by_ports(std::vector<Item> &items, NodeId ref, Reach reach) const
	{
		std::vector<std::pair<uint64_t, Item>> keyed;
		for (const Item &it : items) {
			PortIdx best = kNone;
			uint64_t guid = UINT64_MAX;
			for (NodeId n : reach(it)) {
				PortIdx p = port_to(ref, n);
				if (p != kNone)
					best = std::min(best, p);
				guid = std::min(guid, f_.node(n).guid);
			}
			// reached ones first, by port; then by GUID
			keyed.push_back({best != kNone ? uint64_t(best) : (uint64_t(1) << 63) + (guid >> 1), it});
		}
		std::sort(keyed.begin(), keyed.end(),
			  [](const auto &a, const auto &b) { return a.first < b.first; });
		for (size_t i = 0; i < items.size(); i++)
			items[i] = keyed[i].second;
	}

	void positions(const Pgft &g)
	{
		// Members of every subtree, per level.
		std::vector<std::vector<std::vector<NodeId>>> at(h_ + 1); // [l][comp] level-l switches
		std::vector<std::vector<std::vector<uint32_t>>> kids(h_ + 1); // [l][comp] child comps
		for (int l = 1; l <= h_; l++) {
			at[l].resize(count_[l]);
			kids[l].resize(count_[l]);
		}
		for (NodeId id = 0; id < f_.node_count(); id++)
			if (level_[id] >= 1)
				at[level_[id]][comp_[level_[id]][id]].push_back(id);
		for (int l = 2; l <= h_; l++) {
			std::vector<std::set<uint32_t>> sets(count_[l]);
			for (NodeId id = 0; id < f_.node_count(); id++)
				if (level_[id] == l - 1)
					sets[comp_[l][id]].insert(comp_[l - 1][id]);
			for (uint32_t c = 0; c < count_[l]; c++)
				kids[l][c].assign(sets[c].begin(), sets[c].end());
		}
		// Route index R_l of every switch, bottom-up (b_1 = 0: w_1 = 1).
		route_.assign(f_.node_count(), 0);
		for (int l = 2; l <= h_; l++) {
			for (uint32_t c = 0; c < count_[l]; c++) {
				// order child subtrees (digit a_l) by the reference switch
				NodeId ref = min_guid(at[l][c]);
				order_by_ports(kids[l][c], ref,
					       [&](uint32_t kid) -> const std::vector<NodeId> & {
						       return at[l - 1][kid];
					       });
				std::map<uint64_t, std::vector<NodeId>> groups; // prefix -> switches
				for (NodeId sw : at[l][c]) {
					std::set<uint64_t> prefixes;
					for (const Link &link : adj_[sw])
						if (level_[link.peer] == l - 1)
							prefixes.insert(route_[link.peer]);
					if (prefixes.size() != 1)
						not_fat_tree(cat("switch ", f_.node_label(sw), " ",
								 guid_text(f_.node(sw).guid),
								 prefixes.empty()
									 ? " has no cable down to level "
									 : " has children of different tree "
									   "positions at level ",
								 l - 1));
					groups[*prefixes.begin()].push_back(sw);
				}
				for (auto &[prefix, sws] : groups) {
					if (sws.size() > g.w(l))
						not_fat_tree(cat(sws.size(), " level-", l,
								 " switches share the children of ",
								 f_.node_label(sws[0]), ", expected at most w",
								 l, " = ", g.w(l)));
					// reference child: in the first child subtree that reaches them
					NodeId child = kNone;
					for (uint32_t kid : kids[l][c]) {
						for (NodeId cand : at[l - 1][kid])
							if (route_[cand] == prefix) {
								for (NodeId sw : sws)
									if (port_to(cand, sw) != kNone)
										child = cand;
							}
						if (child != kNone)
							break;
					}
					order_by_ports(sws, child == kNone ? sws[0] : child,
						       [](NodeId n) { return std::vector<NodeId>{n}; });
					for (size_t b = 0; b < sws.size(); b++)
						route_[sws[b]] = prefix + b * g.W(l - 1);
				}
			}
		}
		// Positions top-down: U_l(subtree) = a_{l+1} + m_{l+1} U_{l+1}(parent).
		std::vector<std::vector<uint64_t>> pos(h_ + 1);
		pos[h_].assign(1, 0);
		for (int l = h_; l >= 2; l--) {
			pos[l - 1].assign(count_[l - 1], 0);
			for (uint32_t c = 0; c < count_[l]; c++)
				for (size_t a = 0; a < kids[l][c].size(); a++)
					pos[l - 1][kids[l][c][a]] = a + g.m(l) * pos[l][c];
		}
		index_.assign(f_.node_count(), 0);
		for (NodeId id = 0; id < f_.node_count(); id++) {
			int l = level_[id];
			if (l >= 1)
				index_[id] = route_[id] + g.W(l) * pos[l][comp_[l][id]];
		}
		// Hosts: a_1 by the leaf port order.
		for (NodeId leaf = 0; leaf < f_.node_count(); leaf++) {
			if (level_[leaf] != 1)
				continue;
			std::vector<NodeId> hosts;
			for (const Link &link : adj_[leaf])
				if (is_host(link.peer) &&
				    std::find(hosts.begin(), hosts.end(), link.peer) == hosts.end())
					hosts.push_back(link.peer); // adj_ is in port order
			for (size_t a = 0; a < hosts.size(); a++)
				index_[hosts[a]] = a + g.m(1) * pos[1][comp_[1][leaf]];
		}
	}

	// --- the QFT of a PGFT ------------------------------------------------

	// p'_l: the PGFT level-l subtrees in one QFT level-l sub-tree, p_l on
	// a side-linked level, else 1 (hosts and the top: 1).
	static std::vector<unsigned> qft_widths(const Pgft &g)
	{
		std::vector<unsigned> pp(g.h() + 1, 1);
		for (unsigned l = 1; l < g.h(); l++)
			pp[l] = qft_side_linked(g, l) ? g.p(l) : 1;
		return pp;
	}

	// The tuple from counts, each the largest seen (a missing cable or
	// switch lowers a count only where it is): D_l distinct level-l
	// neighbours of a level-(l-1) node (w_l p'_l), C_l cables to one of
	// them, H_l hosts and S_l level-l switches in a level-l component
	// (M_l p'_l and W_l p'_l). Top down from p'_h = 1:
	//   p'_l = D_{l+1} S_l / S_{l+1},  w_l = D_l / p'_l,
	//   m_l = H_l p'_{l-1} / (H_{l-1} p'_l),
	// p_l = p'_l below the top (C_l = 1 there: a QFT has no parallel
	// cables below the top) and p_h = C_h.
	Pgft qft_tuple()
	{
		const unsigned h = unsigned(h_);
		std::vector<uint64_t> D(h + 1, 0), C(h + 1, 0), H(h + 1, 1), S(h + 1, 1);
		for (NodeId id = 0; id < f_.node_count(); id++) {
			const int l = level_[id];
			if (l < 0 || l >= h_)
				continue;
			std::map<NodeId, unsigned> cables;
			for (const Link &link : adj_[id])
				if (level_[link.peer] == l + 1)
					cables[link.peer]++;
			D[l + 1] = std::max<uint64_t>(D[l + 1], cables.size());
			for (const auto &[peer, c] : cables)
				C[l + 1] = std::max<uint64_t>(C[l + 1], c);
		}
		for (unsigned l = 1; l <= h; l++) {
			std::vector<uint64_t> hosts(count_[l], 0), switches(count_[l], 0);
			for (NodeId id = 0; id < f_.node_count(); id++) {
				if (level_[id] == 0)
					hosts[comp_[l][id]]++;
				else if (level_[id] == int(l))
					switches[comp_[l][id]]++;
			}
			H[l] = *std::max_element(hosts.begin(), hosts.end());
			S[l] = *std::max_element(switches.begin(), switches.end());
		}
		auto exact = [](uint64_t num, uint64_t den, const char *what, unsigned l) {
			if (!den || num % den)
				not_fat_tree(cat("as a QFT, ", what, l, " = ", num, "/", den,
						 " is no whole number"));
			return num / den;
		};
		std::vector<uint64_t> pp(h + 1, 1);
		for (unsigned l = h; l-- > 0;)
			pp[l] = exact(D[l + 1] * S[l], S[l + 1], "p'", l);
		if (pp[0] != 1)
			not_fat_tree(cat("as a QFT, hosts would be side-linked (p'0 = ", pp[0], ")"));
		std::vector<unsigned> m(h), w(h), p(h);
		bool side = false;
		for (unsigned l = 1; l <= h; l++) {
			w[l - 1] = unsigned(exact(D[l], pp[l], "w", l));
			m[l - 1] = unsigned(exact(H[l] * pp[l - 1], H[l - 1] * pp[l], "m", l));
			if (l < h && C[l] != 1)
				not_fat_tree(cat("as a QFT, ", C[l], " cables join a level-", l - 1,
						 " node to one level-", l,
						 " switch; a QFT has parallel cables at the top only"));
			p[l - 1] = unsigned(l < h ? pp[l] : C[l]);
			side = side || (l < h && pp[l] > 1);
		}
		if (!side)
			not_fat_tree("as a QFT, no level has side links");
		try {
			Pgft g(m, w, p);
			check_qft(g);
			return g;
		} catch (const Error &e) {
			not_fat_tree(cat("the inferred QFT tuple is no QFT: ", e.what()));
		}
	}

	// The switch of `among` with the most cables to level `to`, the
	// smallest GUID among equals: the reference whose port order numbers
	// the others (one that lost a cable numbers less).
	NodeId best_reference(const std::vector<NodeId> &among, int to,
			      const std::vector<NodeId> *only = nullptr) const
	{
		NodeId best = kNone;
		size_t best_links = 0;
		for (NodeId n : among) {
			size_t links = 0;
			for (const Link &l : adj_[n])
				if (level_[l.peer] == to &&
				    (!only || std::find(only->begin(), only->end(), l.peer) != only->end()))
					links++;
			if (best == kNone || links > best_links ||
			    (links == best_links && f_.node(n).guid < f_.node(best).guid)) {
				best = n;
				best_links = links;
			}
		}
		return best;
	}

	// Positions of the QFT of `g`. A level-l component K (a QFT sub-tree)
	// holds W_l p'_l switches and m_l p'_l / p'_{l-1} "units", its
	// level-(l-1) components (hosts for l = 1). unit_[l][u] ranks unit u
	// by the port a reference switch of K reaches it on: seed 000's
	// down-port r = a_l + k m_l, with k = a_{l+1} mod p_l on a side-linked
	// level (slide 16's f), so the rank is a_l div p'_{l-1} + (m_l /
	// p'_{l-1}) (a_{l+1} mod p'_l). Switches: route digits as for a PGFT;
	// the "twins" of a side-linked level (the same digits but a_{l+1} mod
	// p_l, the member) have the same neighbours, so which twin is which
	// member is a free choice (an automorphism of the graph): the order a
	// reference child reaches them in (up-port q = b_l + k w_l) makes it.
	void qft_positions(const Pgft &g)
	{
		const unsigned h = g.h();
		const std::vector<unsigned> pp = qft_widths(g);
		std::vector<std::vector<std::vector<NodeId>>> at(h + 1);
		std::vector<std::vector<std::vector<uint32_t>>> units(h + 1);
		for (unsigned l = 1; l <= h; l++) {
			at[l].resize(count_[l]);
			units[l].resize(count_[l]);
		}
		for (NodeId id = 0; id < f_.node_count(); id++) {
			const int l = level_[id];
			if (l >= 1)
				at[l][comp_[l][id]].push_back(id);
			if (l == 0)
				units[1][comp_[1][id]].push_back(id);
		}
		for (unsigned l = 2; l <= h; l++) {
			std::vector<std::set<uint32_t>> sets(count_[l]);
			for (NodeId id = 0; id < f_.node_count(); id++)
				if (level_[id] == int(l) - 1)
					sets[comp_[l][id]].insert(comp_[l - 1][id]);
			for (uint32_t c = 0; c < count_[l]; c++)
				units[l][c].assign(sets[c].begin(), sets[c].end());
		}
		// Units, ranked by the ports of a reference switch.
		unit_.assign(h + 1, {});
		for (unsigned l = 1; l <= h; l++) {
			unit_[l].assign(l == 1 ? f_.node_count() : count_[l - 1], 0);
			const uint64_t most = uint64_t(g.m(l)) * pp[l] / pp[l - 1];
			for (uint32_t c = 0; c < count_[l]; c++) {
				std::vector<uint32_t> &u = units[l][c];
				if (u.size() > most)
					not_fat_tree(cat("a level-", l, " sub-tree of the QFT of PGFT(",
							 g.text(), ") holds ", u.size(),
							 " level-", l - 1, " parts, expected at most ", most));
				const NodeId ref = best_reference(at[l][c], int(l) - 1);
				if (l == 1)
					order_by_ports(u, ref, [](uint32_t host) {
						return std::vector<NodeId>{host};
					});
				else
					order_by_ports(u, ref,
						       [&](uint32_t kid) -> const std::vector<NodeId> & {
							       return at[l - 1][kid];
						       });
				for (size_t r = 0; r < u.size(); r++)
					unit_[l][u[r]] = uint32_t(r);
			}
		}
		// Route digits and members, bottom-up.
		route_.assign(f_.node_count(), 0);
		member_.assign(f_.node_count(), 0);
		for (unsigned l = 1; l <= h; l++)
			for (uint32_t c = 0; c < count_[l]; c++)
				qft_routes(g, l, pp[l], at[l][c]);
		// Digits, top-down in the formula: for a node y of level e and
		// L = e..h-1, a_{L+1} = hi p'_L + lo, where hi is the rank of y's
		// level-L unit in its level-(L+1) component modulo
		// m_{L+1} / p'_L, and lo is y's member (L = e) or the member part
		// of the rank of y's level-(L-1) unit in its level-L component.
		index_.assign(f_.node_count(), 0);
		for (NodeId y = 0; y < f_.node_count(); y++) {
			const int e = level_[y];
			if (e < 0)
				continue;
			auto unit_of = [&](unsigned L) -> uint32_t { return L == 0 ? y : comp_[L][y]; };
			std::vector<unsigned> d(h, 0);
			for (unsigned i = 1; i <= unsigned(e); i++)
				d[i - 1] = unsigned(route_[y] / g.W(i - 1) % g.w(i));
			for (unsigned L = unsigned(e); L < h; L++) {
				const unsigned hi = unit_[L + 1][unit_of(L)] % (g.m(L + 1) / pp[L]);
				const unsigned lo = L == unsigned(e)
							    ? member_[y]
							    : unit_[L][unit_of(L - 1)] / (g.m(L) / pp[L - 1]);
				d[L] = hi * pp[L] + lo;
			}
			index_[y] = g.index(unsigned(e), d);
		}
	}

	// Route digit b_l and member of the level-l switches `sws` of one
	// component: grouped by their children's route (b_1..b_{l-1}), ordered
	// by a reference child's ports; twins are the switches that share a
	// parent (level l < h: switches of one route and different b_l have
	// none in common).
	void qft_routes(const Pgft &g, unsigned l, unsigned width, const std::vector<NodeId> &sws)
	{
		std::map<uint64_t, std::vector<NodeId>> groups; // prefix -> switches
		for (NodeId sw : sws) {
			std::set<uint64_t> prefixes;
			for (const Link &link : adj_[sw])
				if (level_[link.peer] == int(l) - 1)
					prefixes.insert(route_[link.peer]);
			if (prefixes.size() != 1)
				not_fat_tree(cat("switch ", f_.node_label(sw), " ",
						 guid_text(f_.node(sw).guid),
						 prefixes.empty() ? " has no cable down to level "
								  : " has children of different tree "
								    "positions at level ",
						 l - 1));
			groups[*prefixes.begin()].push_back(sw);
		}
		for (auto &[prefix, group] : groups) {
			std::vector<NodeId> kids;
			for (NodeId sw : group)
				for (const Link &link : adj_[sw])
					if (level_[link.peer] == int(l) - 1 &&
					    std::find(kids.begin(), kids.end(), link.peer) == kids.end())
						kids.push_back(link.peer);
			const NodeId ref = best_reference(kids, int(l), &group);
			order_by_ports(group, ref, [](NodeId n) { return std::vector<NodeId>{n}; });
			// twin classes, in the order of their first member
			UnionFind uf(group.size());
			std::map<NodeId, uint32_t> parent_of;
			for (uint32_t i = 0; i < group.size(); i++)
				for (const Link &link : adj_[group[i]])
					if (level_[link.peer] == int(l) + 1) {
						auto [it, fresh] = parent_of.emplace(link.peer, i);
						if (!fresh)
							uf.join(i, it->second);
					}
			std::map<uint32_t, std::vector<NodeId>> classes; // first member -> twins
			std::map<uint32_t, uint32_t> first;               // root -> first member
			for (uint32_t i = 0; i < group.size(); i++) {
				const uint32_t at = first.emplace(uf.find(i), i).first->second;
				classes[at].push_back(group[i]);
			}
			if (classes.size() > g.w(l))
				not_fat_tree(cat(classes.size(), " sets of level-", l,
						 " switches share the children of ", f_.node_label(group[0]),
						 ", expected at most w", l, " = ", g.w(l)));
			unsigned b = 0;
			for (const auto &[i, twins] : classes) {
				if (twins.size() > width)
					not_fat_tree(cat(twins.size(), " level-", l, " switches share the parents of ",
							 f_.node_label(twins[0]), ", expected at most ",
							 width));
				for (unsigned k = 0; k < twins.size(); k++) {
					route_[twins[k]] = prefix + b * g.W(l - 1);
					member_[twins[k]] = k;
				}
				b++;
			}
		}
	}

	Recognition annotate(const Pgft &g)
	{
		for (NodeId id = 0; id < f_.node_count(); id++) {
			f_.node(id).level = level_[id];
			f_.node(id).tree_index = level_[id] >= 0 ? index_[id] : 0;
		}
		f_.set_tree_tuple(g.text(), kind_);
		std::optional<Tree> tree;
		try {
			tree.emplace(Tree::from_fabric(f_));
		} catch (const Error &e) {
			clear();
			not_fat_tree(e.what());
		}
		Recognition r(g);
		r.kind = kind_;
		r.detached = detached_;
		r.detached_text = detached_text_;
		r.absent_hosts = tree->absent_hosts();
		for (unsigned l = 0; l <= g.h(); l++) {
			size_t present = 0;
			for (uint64_t i = 0; i < g.nodes_at(l); i++)
				present += tree->node_at(l, i) != kNone;
			r.nodes_per_level.push_back(present);
			r.slots_per_level.push_back(g.nodes_at(l));
			if (l == 0)
				continue;
			for (uint64_t i = 0; i < g.nodes_at(l); i++)
				if (tree->node_at(l, i) == kNone)
					r.missing_switches.push_back(tree->position_label(l, i));
		}
		for (const MissingCable &mc : tree->missing()) {
			std::vector<unsigned> b = g.digits(mc.level, mc.index);
			if (tree->qft()) // a side link also moves digit l+2
				b = qft_uplink(g, mc.level, b, mc.up_port).parent;
			else
				b[mc.level] = mc.up_port % g.w(mc.level + 1);
			uint64_t up_index = g.index(mc.level + 1, b);
			NodeId lower = tree->node_at(mc.level, mc.index);
			NodeId upper = tree->node_at(mc.level + 1, up_index);
			auto label = [&](NodeId n, unsigned l, uint64_t i) {
				std::string s = tree->position_label(l, i);
				if (n != kNone)
					s += cat(" ", f_.node_label(n), " ", guid_text(f_.node(n).guid));
				else
					s += " (no switch)";
				return s;
			};
			r.missing_cables.push_back(
				{lower, upper, mc.level, mc.up_port,
				 cat(label(lower, mc.level, mc.index), " up-port ", mc.up_port, " -> ",
				     label(upper, mc.level + 1, up_index))});
		}
		return r;
	}

	void clear()
	{
		for (NodeId id = 0; id < f_.node_count(); id++)
			f_.node(id).level = -1;
		f_.set_tree_tuple("");
	}

	Fabric &f_;
	const TreeKind kind_;
	std::string qft_tuple_;
	std::vector<std::vector<Link>> adj_;
	std::vector<int> level_;
	int h_ = 0;
	std::vector<std::vector<uint32_t>> comp_;
	std::vector<uint32_t> count_;
	std::vector<uint64_t> route_, index_;
	std::vector<unsigned> member_;             // QFT: digit l+1 mod p_l of a switch
	std::vector<std::vector<uint32_t>> unit_;  // QFT: [l][unit] rank in its component
	std::vector<NodeId> detached_;
	std::vector<std::string> detached_text_;
};

} // namespace

Recognition recognise(Fabric &fabric)
{
	for (NodeId id = 0; id < fabric.node_count(); id++)
		fabric.node(id).level = -1;
	fabric.set_tree_tuple("");
	// A PGFT first: the QFT of a tuple without side links is its PGFT,
	// and a QFT with side links is no PGFT (its twins break the PGFT's
	// one-route-per-parent rule), so the order decides only the first case.
	try {
		return Recogniser(fabric, TreeKind::pgft).run();
	} catch (const Error &pgft) {
		Recogniser q(fabric, TreeKind::qft);
		try {
			return q.run();
		} catch (const Error &e) {
			// Counts that gave no QFT tuple: the PGFT's reason stands.
			if (q.qft_tuple_text().empty())
				throw pgft;
			std::string why = e.what();
			const std::string lead = "not a fat tree: ";
			if (why.compare(0, lead.size(), lead) == 0)
				why.erase(0, lead.size());
			fail(e.status(), pgft.what(), "; read as the QFT of PGFT(",
			     q.qft_tuple_text(), "): ", why);
		}
	}
}

std::string recognition_text(const Fabric &f, const Recognition &r)
{
	std::string out = cat("tree ", r.kind == TreeKind::qft ? "QFT of " : "", "PGFT(",
			      r.pgft.text(), ")\nlevels ", r.pgft.h(), "\n");
	for (size_t l = 0; l < r.nodes_per_level.size(); l++)
		out += cat("level ", l, ": ", r.nodes_per_level[l], " of ", r.slots_per_level[l],
			   l ? " switches\n" : " hosts\n");
	std::vector<std::string> why = r.pgft.rlft_violations();
	out += cat("rlft ", why.empty() ? "yes" : "no", "\n");
	for (const std::string &w : why)
		out += cat("  ", w, "\n");
	out += cat("absent hosts ", r.absent_hosts, "\n");
	out += cat("missing switches ", r.missing_switches.size(), "\n");
	for (const std::string &s : r.missing_switches)
		out += cat("  ", s, "\n");
	out += cat("missing cables ", r.missing_cables.size(), "\n");
	for (const RecognisedCable &c : r.missing_cables)
		out += cat("  ", c.text, "\n");
	out += cat("detached nodes ", r.detached.size(), "\n");
	for (const std::string &s : r.detached_text)
		out += cat("  ", s, "\n");
	size_t unnamed = 0;
	for (NodeId id : f.hosts())
		unnamed += f.node(id).name.empty();
	out += cat("hosts without a Slurm name ", unnamed, "\n");
	return out;
}

std::string recognition_json(const Fabric &f, const Recognition &r)
{
	json_t *o = json_object();
	json_object_set_new(o, "tree", json_string(r.pgft.text().c_str()));
	if (r.kind == TreeKind::qft) // as in fabric JSON: a PGFT's report has no kind
		json_object_set_new(o, "tree_kind", json_string("qft"));
	json_object_set_new(o, "levels", json_integer(r.pgft.h()));
	json_t *lv = json_array();
	for (size_t l = 0; l < r.nodes_per_level.size(); l++) {
		json_t *e = json_object();
		json_object_set_new(e, "level", json_integer(json_int_t(l)));
		json_object_set_new(e, "present", json_integer(json_int_t(r.nodes_per_level[l])));
		json_object_set_new(e, "slots", json_integer(json_int_t(r.slots_per_level[l])));
		json_array_append_new(lv, e);
	}
	json_object_set_new(o, "per_level", lv);
	json_object_set_new(o, "rlft", json_boolean(r.pgft.rlft_violations().empty()));
	json_object_set_new(o, "absent_hosts", json_integer(json_int_t(r.absent_hosts)));
	json_t *ms = json_array();
	for (const std::string &s : r.missing_switches)
		json_array_append_new(ms, json_string(s.c_str()));
	json_object_set_new(o, "missing_switches", ms);
	json_t *mc = json_array();
	for (const RecognisedCable &c : r.missing_cables) {
		json_t *e = json_object();
		json_object_set_new(e, "lower_guid", json_string(guid_text(f.node(c.lower).guid).c_str()));
		json_object_set_new(e, "lower", json_string(f.node_label(c.lower).c_str()));
		json_object_set_new(e, "upper_guid", c.upper == kNone ? json_null()
					: json_string(guid_text(f.node(c.upper).guid).c_str()));
		json_object_set_new(e, "upper", c.upper == kNone ? json_null()
					: json_string(f.node_label(c.upper).c_str()));
		json_object_set_new(e, "level", json_integer(c.level));
		json_object_set_new(e, "up_port", json_integer(c.up_port));
		json_object_set_new(e, "text", json_string(c.text.c_str()));
		json_array_append_new(mc, e);
	}
	json_object_set_new(o, "missing_cables", mc);
	json_t *dt = json_array();
	for (const std::string &s : r.detached_text)
		json_array_append_new(dt, json_string(s.c_str()));
	json_object_set_new(o, "detached", dt);
	char *text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!text)
		fail(Status::internal, "jansson could not serialise the recognition");
	std::string s(text);
	std::free(text);
	return s + "\n";
}

} // namespace qft
