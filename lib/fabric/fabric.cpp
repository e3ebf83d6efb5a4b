// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/fabric/fabric.hpp"

#include <cinttypes>
#include <cstdio>
#include <sstream>

#include "lib/common/error.hpp"
#include "lib/common/hostlist.hpp"

namespace qft {

namespace {
constexpr unsigned kMaxPorts = 254; // IB port numbers 1..254
}

std::string guid_text(uint64_t guid)
{
	char buf[32];
	std::snprintf(buf, sizeof(buf), "0x%016" PRIx64, guid);
	return buf;
}

NodeId Fabric::add_node(Node n, unsigned num_ports)
{
	if (num_ports == 0 || num_ports > kMaxPorts)
		fail(Status::invalid, "node ", n.desc.empty() ? guid_text(n.guid) : n.desc,
		     ": port count ", num_ports, ", expected 1..", kMaxPorts);
	if (by_guid_.count(n.guid))
		fail(Status::invalid, "duplicate GUID ", guid_text(n.guid), " (",
		     n.desc, " and ", nodes_[by_guid_[n.guid]].desc, ")");
	NodeId id = static_cast<NodeId>(nodes_.size());
	n.first_port = static_cast<PortIdx>(ports_.size());
	n.num_ports = num_ports;
	for (unsigned p = 1; p <= num_ports; p++) {
		Port port;
		port.node = id;
		port.num = p;
		ports_.push_back(port);
	}
	by_guid_[n.guid] = id;
	nodes_.push_back(std::move(n));
	host_ord_.push_back(kNone);
	return id;
}

NodeId Fabric::add_switch(uint64_t guid, std::string desc, unsigned num_ports,
			  uint32_t lid)
{
	Node n;
	n.type = NodeType::switch_node;
	n.guid = guid;
	n.desc = std::move(desc);
	n.lid = lid;
	return add_node(std::move(n), num_ports);
}

NodeId Fabric::add_host(uint64_t guid, std::string desc, std::string name,
			unsigned num_ports)
{
	if (!name.empty() && by_name_.count(name))
		fail(Status::invalid, "duplicate host name \"", name, "\" (GUIDs ",
		     guid_text(nodes_[hosts_[by_name_[name]]].guid), " and ",
		     guid_text(guid), ")");
	Node n;
	n.type = NodeType::host;
	n.guid = guid;
	n.desc = std::move(desc);
	n.name = std::move(name);
	std::string key = n.name;
	NodeId id = add_node(std::move(n), num_ports);
	HostOrd ord = static_cast<HostOrd>(hosts_.size());
	hosts_.push_back(id);
	host_ord_[id] = ord;
	if (!key.empty())
		by_name_[key] = ord;
	return id;
}

PortIdx Fabric::port_index(NodeId id, unsigned num) const
{
	const Node &n = nodes_.at(id);
	if (num < 1 || num > n.num_ports)
		fail(Status::invalid, node_label(id), ": port ", num,
		     " does not exist, expected 1..", n.num_ports);
	return n.first_port + num - 1;
}

void Fabric::connect(NodeId a, unsigned port_a, NodeId b, unsigned port_b,
		     const LinkRate &rate)
{
	if (a == b)
		fail(Status::invalid, node_label(a), ": cable from port ", port_a,
		     " to its own port ", port_b);
	PortIdx pa = port_index(a, port_a), pb = port_index(b, port_b);
	for (PortIdx p : {pa, pb})
		if (ports_[p].peer != kNone)
			fail(Status::invalid, port_label(p), " is already cabled to ",
			     port_label(ports_[p].peer));
	uint16_t r = 0;
	for (; r < rates_.size(); r++)
		if (rates_[r].width == rate.width && rates_[r].speed == rate.speed)
			break;
	if (r == rates_.size())
		rates_.push_back(rate);
	ports_[pa].peer = pb;
	ports_[pb].peer = pa;
	ports_[pa].rate = ports_[pb].rate = r;
}

HostOrd Fabric::host_ord(NodeId id) const
{
	return id < host_ord_.size() ? host_ord_[id] : kNone;
}

HostOrd Fabric::find_host(std::string_view name) const
{
	auto it = by_name_.find(std::string(name));
	return it == by_name_.end() ? kNone : it->second;
}

NodeId Fabric::find_guid(uint64_t guid) const
{
	auto it = by_guid_.find(guid);
	return it == by_guid_.end() ? kNone : it->second;
}

uint32_t Fabric::host_lid(HostOrd h) const
{
	const Node &n = nodes_[hosts_.at(h)];
	for (unsigned p = 0; p < n.num_ports; p++)
		if (ports_[n.first_port + p].peer != kNone)
			return ports_[n.first_port + p].lid;
	return 0;
}

void Fabric::set_lmc(unsigned lmc)
{
	if (lmc > 7)
		fail(Status::invalid, "LMC ", lmc, ", expected 0..7");
	lmc_ = lmc;
}

void check_lid_space(size_t hosts, size_t switches, unsigned lmc)
{
	if (lmc > 7)
		fail(Status::invalid, "LMC ", lmc, ", expected 0..7");
	auto need = [&](unsigned l) { return uint64_t(hosts) * (uint64_t(1) << l) + switches; };
	if (need(lmc) <= kUnicastLids)
		return;
	int fits = -1;
	for (unsigned l = 0; l < lmc; l++)
		if (need(l) <= kUnicastLids)
			fits = int(l);
	std::ostringstream best;
	if (fits < 0)
		best << "no LMC fits";
	else
		best << "the largest LMC that fits is " << fits;
	fail(Status::invalid, "LMC ", lmc, ": ", hosts, " hosts x ", 1u << lmc, " LIDs + ",
	     switches, " switch LIDs = ", need(lmc), " LIDs, more than the ", kUnicastLids,
	     " unicast LIDs (0x0001-0xBFFF); ", best.str());
}

void set_lmc_checked(Fabric &f, unsigned lmc)
{
	check_lid_space(f.hosts().size(), f.node_count() - f.hosts().size(), lmc);
	uint32_t per = 1u << lmc;
	std::unordered_map<uint32_t, NodeId> owner;
	for (NodeId id = 0; id < f.node_count(); id++) {
		const Node &n = f.node(id);
		if (n.type == NodeType::switch_node)
			owner[n.lid] = id;
		else
			for (unsigned p = 0; p < n.num_ports; p++)
				owner[f.port(n.first_port + p).lid] = id;
	}
	for (NodeId h : f.hosts()) {
		uint32_t base = f.host_lid(f.host_ord(h));
		if (base % per)
			fail(Status::invalid, f.node_label(h), ": base LID ", base,
			     " is not a multiple of 2^LMC = ", per,
			     "; generate with qft gen --lmc or discover under opensm -l");
		for (uint32_t k = 1; k < per; k++) {
			auto it = owner.find(base + k);
			if (it != owner.end() && it->second != h)
				fail(Status::invalid, f.node_label(h), ": LID ", base + k,
				     " (offset ", k, ") belongs to ", f.node_label(it->second));
		}
	}
	f.set_lmc(lmc);
}

std::vector<HostOrd> resolve_hosts(const Fabric &fabric,
				   const std::vector<std::string> &names)
{
	if (names.empty())
		fail(Status::invalid, "the host list is empty");
	std::vector<HostOrd> out;
	std::vector<std::string> unknown;
	std::vector<bool> seen(fabric.hosts().size(), false);
	for (const std::string &name : names) {
		HostOrd h = fabric.find_host(name);
		if (h == kNone) {
			unknown.push_back(name);
			continue;
		}
		if (seen[h])
			fail(Status::invalid, "host ", name, " is listed twice");
		seen[h] = true;
		out.push_back(h);
	}
	if (!unknown.empty())
		fail(Status::not_found, unknown.size(), " host(s) not in the fabric: ",
		     hostlist_compress(unknown));
	return out;
}

std::string Fabric::node_label(NodeId id) const
{
	const Node &n = nodes_.at(id);
	if (!n.name.empty())
		return n.name;
	if (!n.desc.empty())
		return "\"" + n.desc + "\"";
	return guid_text(n.guid);
}

std::string Fabric::port_label(PortIdx idx) const
{
	const Port &p = ports_.at(idx);
	return cat(node_label(p.node), " port ", p.num);
}

} // namespace qft
