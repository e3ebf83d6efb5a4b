// SPDX-License-Identifier: GPL-2.0-or-later
// The fabric graph: switches and hosts (channel adapters), their ports, the
// cables between ports, GUIDs, LIDs with LMC, node descriptions and Slurm
// host names. One Fabric object owns everything; nodes and ports are plain
// records addressed by index and borrowed by every other module.
//
// A directed link is named by the port that sends on it (LinkId = PortIdx),
// so link loads are a vector indexed by global port index.
#ifndef QFT_FABRIC_FABRIC_HPP
#define QFT_FABRIC_FABRIC_HPP

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace qft {

using NodeId = uint32_t;
using PortIdx = uint32_t; // global index: node.first_port + port number - 1
using HostOrd = uint32_t; // ordinal of a host in Fabric::hosts()
constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

enum class NodeType : uint8_t { switch_node, host };

// What the tree tuple describes: the PGFT it names (seed 000 IV-B), or the
// Quasi Fat Tree derived from that PGFT (seed 002, lib/tree/qft_wiring.hpp).
// Both number their nodes alike; only the cables differ.
enum class TreeKind : uint8_t { pgft, qft };

// Link width and speed as ibnetdiscover prints them ("4x", "HDR").
struct LinkRate {
	std::string width = "4x";
	std::string speed = "HDR";
};

struct Port {
	NodeId node = kNone;
	unsigned num = 0;     // IB port number, 1-based
	PortIdx peer = kNone; // the port at the other end of the cable
	uint32_t lid = 0;     // base LID of a host port (switches: node.lid)
	uint16_t rate = 0;    // index into Fabric::rates()
};

struct Node {
	NodeType type = NodeType::host;
	uint64_t guid = 0;
	std::string desc; // IB node description
	std::string name; // Slurm host name (hosts only)
	uint32_t lid = 0; // switch LID (port 0)
	PortIdx first_port = 0;
	unsigned num_ports = 0;
	// Tree annotation: position in the recognised PGFT, level -1 if none.
	int level = -1;
	uint64_t tree_index = 0;
};

class Fabric {
public:
	NodeId add_switch(uint64_t guid, std::string desc, unsigned num_ports,
			  uint32_t lid);
	NodeId add_host(uint64_t guid, std::string desc, std::string name,
			unsigned num_ports);
	// Joins two free ports with a cable. Throws on a port already cabled,
	// an out-of-range port number or a self loop.
	void connect(NodeId a, unsigned port_a, NodeId b, unsigned port_b,
		     const LinkRate &rate = LinkRate());

	size_t node_count() const { return nodes_.size(); }
	size_t port_count() const { return ports_.size(); }
	const Node &node(NodeId id) const { return nodes_[id]; }
	Node &node(NodeId id) { return nodes_[id]; }
	const Port &port(PortIdx idx) const { return ports_[idx]; }
	Port &port(PortIdx idx) { return ports_[idx]; }
	PortIdx port_index(NodeId id, unsigned num) const;
	const std::vector<Node> &nodes() const { return nodes_; }
	const std::vector<LinkRate> &rates() const { return rates_; }

	const std::vector<NodeId> &hosts() const { return hosts_; }
	HostOrd host_ord(NodeId id) const; // kNone if not a host
	// Finds a host by Slurm name; kNone if absent.
	HostOrd find_host(std::string_view name) const;
	NodeId find_guid(uint64_t guid) const; // kNone if absent
	// The LID a host answers on at offset 0 (its first cabled port).
	uint32_t host_lid(HostOrd h) const;

	unsigned lmc() const { return lmc_; }
	void set_lmc(unsigned lmc);

	// The PGFT tuple text the tree annotation refers to, empty if none,
	// and whether the fabric is that PGFT or its QFT.
	const std::string &tree_tuple() const { return tree_tuple_; }
	TreeKind tree_kind() const { return tree_kind_; }
	void set_tree_tuple(std::string t, TreeKind kind = TreeKind::pgft)
	{
		tree_tuple_ = std::move(t);
		tree_kind_ = kind;
	}

	// "desc" port N, for messages and reports.
	std::string port_label(PortIdx idx) const;
	std::string node_label(NodeId id) const;

private:
	NodeId add_node(Node n, unsigned num_ports);

	std::vector<Node> nodes_;
	std::vector<Port> ports_;
	std::vector<NodeId> hosts_;
	std::vector<HostOrd> host_ord_; // by NodeId
	std::vector<LinkRate> rates_;
	std::unordered_map<std::string, HostOrd> by_name_;
	std::unordered_map<uint64_t, NodeId> by_guid_;
	unsigned lmc_ = 0;
	std::string tree_tuple_;
	TreeKind tree_kind_ = TreeKind::pgft;
};

std::string guid_text(uint64_t guid);

// Sets the LMC when the LIDs allow it: every host base LID a multiple of
// 2^lmc and its 2^lmc LIDs free of other nodes' LIDs. Throws Error(invalid)
// naming the first host that breaks this.
void set_lmc_checked(Fabric &fabric, unsigned lmc);

// Host ordinals of `names`, in their order. Throws Error(invalid) for an
// empty list or a repeated name, Error(not_found) listing every unknown name
// as one host list.
std::vector<HostOrd> resolve_hosts(const Fabric &fabric,
				   const std::vector<std::string> &names);

// The unicast LIDs (IBA 4.1.3): 0x0001 .. 0xBFFF.
constexpr uint32_t kUnicastLids = 0xBFFF;

// Throws Error(invalid) when `hosts` hosts of 2^lmc LIDs each and one LID
// per switch cannot fit the unicast LIDs, naming the LIDs needed and the
// largest LMC that fits.
void check_lid_space(size_t hosts, size_t switches, unsigned lmc);

} // namespace qft

#endif
