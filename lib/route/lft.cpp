// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/route/lft.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "lib/common/error.hpp"
#include "lib/common/file.hpp"
#include "lib/tree/tree.hpp"

namespace qft {

constexpr uint32_t kMaxLid = 0xbfff; // unicast

Lfts::Lfts(const Fabric &fabric) : table_(fabric.node_count()) {}

void Lfts::set(NodeId sw, uint32_t lid, uint8_t port)
{
	std::vector<uint8_t> &t = table_[sw];
	if (lid >= t.size())
		t.resize(lid + 1, kNoRoute);
	t[lid] = port;
}

size_t Lfts::switches_with_tables() const
{
	size_t n = 0;
	for (const auto &t : table_)
		n += !t.empty();
	return n;
}

namespace {

// Switch LIDs carry management traffic, which no closed form routes:
// breadth first from each switch over switch cables, on a compact
// switch-only adjacency (neighbour, local port), lowest port first among
// equally short ways.
void switch_lid_entries(const Fabric &fabric, Lfts &lfts)
{
	std::vector<NodeId> switches;
	std::vector<uint32_t> sw_at(fabric.node_count(), kNone);
	for (NodeId id = 0; id < fabric.node_count(); id++)
		if (fabric.node(id).type == NodeType::switch_node) {
			sw_at[id] = uint32_t(switches.size());
			switches.push_back(id);
		}
	std::vector<std::vector<std::pair<uint32_t, uint8_t>>> adj(switches.size());
	for (uint32_t i = 0; i < switches.size(); i++) {
		const Node &node = fabric.node(switches[i]);
		for (unsigned p = 0; p < node.num_ports; p++) {
			PortIdx peer = fabric.port(node.first_port + p).peer;
			if (peer != kNone && sw_at[fabric.port(peer).node] != kNone)
				adj[i].push_back({sw_at[fabric.port(peer).node], uint8_t(p + 1)});
		}
	}
	std::vector<uint32_t> dist(switches.size()), queue(switches.size());
	for (uint32_t ti = 0; ti < switches.size(); ti++) {
		uint32_t t_lid = fabric.node(switches[ti]).lid;
		if (!t_lid)
			continue;
		std::fill(dist.begin(), dist.end(), UINT32_MAX);
		size_t head = 0, tail = 0;
		queue[tail++] = ti;
		dist[ti] = 0;
		while (head < tail) {
			uint32_t n = queue[head++];
			for (const auto &[m, port] : adj[n])
				if (dist[m] == UINT32_MAX) {
					dist[m] = dist[n] + 1;
					queue[tail++] = m;
				}
		}
		lfts.set(switches[ti], t_lid, 0);
		for (uint32_t si = 0; si < switches.size(); si++) {
			if (si == ti || dist[si] == UINT32_MAX)
				continue;
			for (const auto &[m, port] : adj[si])
				if (dist[m] + 1 == dist[si]) {
					lfts.set(switches[si], t_lid, port);
					break;
				}
		}
	}
}

} // namespace

Lfts tree_tables(const Fabric &fabric, const Tree &tree, unsigned offsets,
		 const FirstHop &first_hop)
{
	Lfts lfts(fabric);
	const Pgft &g = tree.pgft();
	const size_t hosts = fabric.hosts().size();
	std::vector<uint32_t> lid(hosts);
	uint32_t top_lid = 0;
	for (HostOrd d = 0; d < hosts; d++) {
		lid[d] = fabric.host_lid(d);
		top_lid = std::max(top_lid, lid[d] + offsets - 1);
	}
	for (NodeId id = 0; id < fabric.node_count(); id++)
		top_lid = std::max(top_lid, fabric.node(id).lid);
	for (unsigned l = 1; l <= g.h(); l++)
		for (uint64_t idx = 0; idx < g.nodes_at(l); idx++) {
			const NodeId sw = tree.node_at(l, idx);
			if (sw == kNone)
				continue;
			lfts.set(sw, top_lid, kNoRoute); // size the table once
			for (HostOrd d = 0; d < hosts; d++) {
				const uint64_t j = tree.host_index(d);
				if (!lid[d] || j == kNone)
					continue;
				for (unsigned k = 0; k < offsets; k++) {
					const PortIdx hop = first_hop(l, idx, j, k);
					if (hop != kNone)
						lfts.set(sw, lid[d] + k, uint8_t(fabric.port(hop).num));
				}
			}
		}
	switch_lid_entries(fabric, lfts);
	return lfts;
}

Lfts parse_lfts(const Fabric &fabric, const std::string &text, const std::string &origin)
{
	Lfts lfts(fabric);
	std::istringstream in(text);
	std::string s;
	size_t line = 0, blocks = 0;
	NodeId sw = kNone;
	auto bad = [&](const std::string &what) {
		fail(Status::parse, origin, ":", line, ": expected ", what);
	};
	while (std::getline(in, s)) {
		line++;
		if (s.find("Unicast lids") != std::string::npos) {
			size_t g = s.find("guid 0x");
			if (g == std::string::npos)
				bad("\"guid 0x...\" in the \"Unicast lids\" header");
			uint64_t guid = std::strtoull(s.c_str() + g + 7, nullptr, 16);
			sw = fabric.find_guid(guid);
			if (sw == kNone)
				fail(Status::not_found, origin, ":", line, ": switch GUID ",
				     guid_text(guid), " is not in the fabric");
			if (fabric.node(sw).type != NodeType::switch_node)
				fail(Status::invalid, origin, ":", line, ": GUID ", guid_text(guid),
				     " is ", fabric.node_label(sw), ", not a switch");
			blocks++;
			continue;
		}
		size_t i = s.find_first_not_of(" \t");
		if (i == std::string::npos || s.compare(i, 2, "0x") != 0)
			continue; // column headers, trailers, warnings, blank lines
		if (sw == kNone)
			bad("a \"Unicast lids ... guid 0x...\" header before the first entry");
		char *end = nullptr;
		errno = 0;
		unsigned long lid = std::strtoul(s.c_str() + i, &end, 16);
		if (errno || end == s.c_str() + i + 2 || lid > kMaxLid)
			bad("a unicast LID 0x0001..0xbfff");
		char *pend = nullptr;
		unsigned long port = std::strtoul(end, &pend, 10);
		if (pend == end || !std::isspace((unsigned char)*end))
			bad("an out-port number after the LID");
		if (port > fabric.node(sw).num_ports)
			bad(cat("a port of ", fabric.node_label(sw), " (0..",
				fabric.node(sw).num_ports, "), not ", port).c_str());
		lfts.set(sw, uint32_t(lid), uint8_t(port));
	}
	if (blocks == 0)
		fail(Status::parse, origin, ": no \"Unicast lids\" table: not an LFT dump");
	return lfts;
}

Lfts load_lfts(const Fabric &fabric, const std::string &path)
{
	return parse_lfts(fabric, read_file(path), path);
}

std::string lfts_dump_text(const Fabric &f, const Lfts &lfts)
{
	// Who answers each LID: a host port (port GUID = node GUID + port) or
	// a switch (its node GUID, port 0).
	std::vector<std::string> who(kMaxLid + 1);
	uint32_t top = 0;
	unsigned per = 1u << f.lmc();
	for (NodeId id = 0; id < f.node_count(); id++) {
		const Node &n = f.node(id);
		if (n.type == NodeType::switch_node) {
			if (n.lid && n.lid <= kMaxLid) {
				who[n.lid] = cat("Switch portguid ", guid_text(n.guid), ": '", n.desc, "'");
				top = std::max(top, n.lid);
			}
			continue;
		}
		for (unsigned p = 0; p < n.num_ports; p++) {
			const Port &port = f.port(n.first_port + p);
			for (unsigned k = 0; port.lid && k < per && port.lid + k <= kMaxLid; k++) {
				who[port.lid + k] = cat("Channel Adapter portguid ",
							guid_text(n.guid + port.num), ": '", n.desc, "'");
				top = std::max(top, port.lid + k);
			}
		}
	}
	std::string out;
	char buf[512];
	for (NodeId id = 0; id < f.node_count(); id++) {
		const Node &n = f.node(id);
		if (n.type != NodeType::switch_node)
			continue;
		out += cat("Unicast lids [0-", top, "] of switch Lid ", n.lid, " guid ",
			   guid_text(n.guid), " ('", n.desc, "'):\n");
		for (uint32_t lid = 1; lid <= top; lid++) {
			uint8_t port = lfts.port(id, lid);
			if (port == kNoRoute || who[lid].empty())
				continue;
			int len = std::snprintf(buf, sizeof(buf), "0x%04x %03u # %s\n",
						unsigned(lid), unsigned(port), who[lid].c_str());
			out.append(buf, size_t(std::min(len, int(sizeof(buf)) - 1)));
		}
		out += cat(top, " lids dumped\n");
	}
	return out;
}

TableRouter::TableRouter(const Fabric &fabric, Lfts lfts)
	: fabric_(fabric), lfts_(std::move(lfts)), lid_owner_(kMaxLid + 1, kNone)
{
	unsigned per = 1u << fabric.lmc();
	for (HostOrd h = 0; h < fabric.hosts().size(); h++) {
		const Node &n = fabric.node(fabric.hosts()[h]);
		for (unsigned p = 0; p < n.num_ports; p++) {
			uint32_t base = fabric.port(n.first_port + p).lid;
			for (unsigned k = 0; base && k < per && base + k <= kMaxLid; k++)
				lid_owner_[base + k] = h;
		}
	}
}

unsigned TableRouter::path(HostOrd src, HostOrd dst, unsigned offset, PortIdx *out) const
{
	if (src == dst)
		return 0;
	if (offset >= offsets())
		fail(Status::invalid, "LID offset ", offset, ", expected 0..", offsets() - 1);
	uint32_t lid = fabric_.host_lid(dst) + offset;
	const Node &s = fabric_.node(fabric_.hosts()[src]);
	PortIdx at = kNone; // the sending port
	for (unsigned p = 0; p < s.num_ports && at == kNone; p++)
		if (fabric_.port(s.first_port + p).peer != kNone)
			at = s.first_port + p;
	if (at == kNone)
		fail(Status::unroutable, fabric_.node_label(fabric_.hosts()[src]), " has no cable");
	unsigned n = 0;
	for (;;) {
		if (n == kMaxPathLinks)
			fail(Status::unroutable, "LFTs loop on the way from ",
			     fabric_.node_label(fabric_.hosts()[src]), " to LID ", lid);
		out[n++] = at;
		const Port &arrive = fabric_.port(fabric_.port(at).peer);
		NodeId node = arrive.node;
		if (fabric_.node(node).type == NodeType::host) {
			if (lid_owner_[lid] != fabric_.host_ord(node))
				fail(Status::unroutable, "LFTs deliver LID ", lid, " to ",
				     fabric_.node_label(node), ", not to ",
				     fabric_.node_label(fabric_.hosts()[dst]));
			return n;
		}
		uint8_t port = lfts_.port(node, lid);
		if (port == kNoRoute || port == 0)
			fail(Status::unroutable, fabric_.node_label(node), " has no route to LID ",
			     lid, " (", fabric_.node_label(fabric_.hosts()[dst]), ")");
		at = fabric_.port_index(node, port);
		if (fabric_.port(at).peer == kNone)
			fail(Status::unroutable, fabric_.port_label(at), " routes LID ", lid,
			     " to a port without a cable");
	}
}

} // namespace qft
