// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/fabric/discover.hpp"

#include "qft_config.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "lib/common/error.hpp"

#ifdef HAVE_LIBIBNETDISC
#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>
#include <infiniband/umad.h>
#endif

namespace qft {

#ifndef HAVE_LIBIBNETDISC

ImportResult discover_fabric(const DiscoverOptions &, DiscoverStats *)
{
	fail(Status::unsupported, "live discovery: this qft was built without libibnetdisc "
				  "(install libibnetdisc-dev libibmad-dev libibumad-dev and "
				  "run configure again)");
}

#else

namespace {

// PortInfo values (IBA 1.3 vol. 1, 14.2.5.6).
constexpr unsigned kStateActive = 4;
constexpr unsigned kPhysLinkUp = 5;
// PortInfo:CapabilityMask.IsExtendedSpeedsSupported (bit 14), host order
// as mad_get_field() returns it.
constexpr uint32_t kCapHasExtSpeeds = 1u << 14;
// Mellanox ExtendedPortInfo:LinkSpeedActive, FDR10 bit.
constexpr uint32_t kMlnxFdr10 = 0x01;

const char *port_state_name(unsigned s)
{
	static const char *const names[] = {"NoChange", "Down", "Initialize", "Armed",
					    "Active"};
	return s < 5 ? names[s] : "?";
}

const char *phys_state_name(unsigned s)
{
	static const char *const names[] = {"NoChange", "Sleep", "Polling", "Disabled",
					    "PortConfigurationTraining", "LinkUp",
					    "LinkErrorRecovery", "PhyTest"};
	return s < 8 ? names[s] : "?";
}

// The text ibnetdiscover (infiniband-diags 44, dump_linkwidth_compat,
// dump_linkspeed_compat, dump_linkspeedext_compat) prints for a port.
const char *width_text(uint32_t w)
{
	switch (w) {
	case 1: return "1x";
	case 2: return "4x";
	case 4: return "8x";
	case 8: return "12x";
	case 16: return "2x";
	}
	return "??";
}

const char *speed_text(uint32_t speed)
{
	switch (speed) {
	case 1: return "SDR";
	case 2: return "DDR";
	case 4: return "QDR";
	}
	return "???";
}

const char *speed_ext_text(uint32_t espeed, uint32_t speed, uint32_t fdr10)
{
	switch (espeed) {
	case 0: return (fdr10 & kMlnxFdr10) ? "FDR10" : speed_text(speed);
	case 1: return "FDR";
	case 2: return "EDR";
	case 4: return "HDR";
	case 8: return "NDR";
	}
	return "???";
}

// As out_switch_port()/out_ca_port(): a switch port's capability mask is
// port 0's (external ports do not carry one), a CA port has its own.
LinkRate port_rate(ibnd_port_t *port)
{
	ibnd_node_t *node = port->node;
	uint32_t width = mad_get_field(port->info, 0, IB_PORT_LINK_WIDTH_ACTIVE_F);
	uint32_t speed = mad_get_field(port->info, 0, IB_PORT_LINK_SPEED_ACTIVE_F);
	uint32_t fdr10 = mad_get_field(port->ext_info, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F);
	uint8_t *cap_info = nullptr;
	if (node->type != IB_NODE_SWITCH)
		cap_info = port->info;
	else if (node->ports[0])
		cap_info = node->ports[0]->info;
	uint32_t espeed = 0;
	if (!cap_info)
		speed = 0;
	else if (mad_get_field(cap_info, 0, IB_PORT_CAPMASK_F) & kCapHasExtSpeeds)
		espeed = mad_get_field(port->info, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
	LinkRate r;
	r.width = width_text(width);
	r.speed = (speed != 4 && !espeed) ? speed_text(speed)
					  : speed_ext_text(espeed, speed, fdr10);
	return r;
}

// clean_nodedesc(): at most 63 bytes, unprintable bytes become blanks.
std::string clean_desc(const char *raw)
{
	std::string d(raw, strnlen(raw, 63));
	for (char &c : d)
		if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e)
			c = ' ';
	return d;
}

struct LocalPort {
	unsigned num, state, phys_state;
	bool infiniband;
};

struct LocalCa {
	std::string name;
	std::vector<LocalPort> ports;
};

// umad_get_cas_names() answers "mthca0" when there is no CA at all (a
// libibumad default); the device list does not.
std::vector<std::string> local_ca_names()
{
	errno = 0;
	struct umad_device_node *list = umad_get_ca_device_list();
	int err = errno;
	std::vector<std::string> out;
	for (struct umad_device_node *d = list; d; d = d->next)
		out.emplace_back(d->ca_name);
	umad_free_ca_device_list(list);
	if (out.empty() && err && err != ENOENT)
		fail(Status::io, "live discovery: cannot list the InfiniBand CAs: ",
		     std::strerror(err));
	return out;
}

// sysfs only (no management port is opened).
LocalCa read_local_ca(const std::string &name)
{
	umad_ca_t ca;
	std::memset(&ca, 0, sizeof(ca));
	int rc = umad_get_ca(name.c_str(), &ca);
	if (rc < 0)
		fail(Status::io, "live discovery: CA ", name, ": cannot read its ports: ",
		     std::strerror(-rc));
	LocalCa out;
	out.name = name;
	for (int i = 0; i < UMAD_CA_MAX_PORTS; i++) {
		const umad_port_t *p = ca.ports[i];
		if (!p)
			continue;
		out.ports.push_back({unsigned(p->portnum), p->state, p->phys_state,
				     std::strcmp(p->link_layer, "Ethernet") != 0});
	}
	umad_release_ca(&ca);
	return out;
}

std::string ports_text(const LocalCa &ca)
{
	std::string s;
	for (const LocalPort &p : ca.ports)
		s += cat(s.empty() ? "" : ", ", "port ", p.num, " ",
			 p.infiniband ? "" : "Ethernet ", port_state_name(p.state), "/",
			 phys_state_name(p.phys_state));
	return s.empty() ? "no ports" : s;
}

// The port to scan from: `want`, or the first Active, or the first LinkUp.
const LocalPort *pick_port(const LocalCa &ca, unsigned want)
{
	const LocalPort *up = nullptr;
	for (const LocalPort &p : ca.ports) {
		if (want) {
			if (p.num == want)
				return &p;
			continue;
		}
		if (!p.infiniband || p.phys_state != kPhysLinkUp)
			continue;
		if (p.state == kStateActive)
			return &p;
		if (!up)
			up = &p;
	}
	return up;
}

// Resolves CA and port, failing with what is wrong and what exists.
std::pair<std::string, unsigned> choose_local_port(const DiscoverOptions &opt)
{
	std::vector<std::string> names = local_ca_names();
	if (names.empty())
		fail(Status::io, "live discovery: no InfiniBand CA on this host "
				 "(/sys/class/infiniband is empty: no HCA, or its driver or "
				 "ib_umad is not loaded)");
	std::string all;
	for (const std::string &n : names)
		all += (all.empty() ? "" : ", ") + n;
	LocalCa ca;
	if (!opt.ca.empty()) {
		if (std::find(names.begin(), names.end(), opt.ca) == names.end())
			fail(Status::io, "live discovery: no CA \"", opt.ca, "\" (CAs: ", all, ")");
		ca = read_local_ca(opt.ca);
	} else {
		// With a port number: the first CA where that port is up, else
		// the first that has it. Without: the first CA with an Active
		// port, else with a LinkUp port.
		std::vector<LocalCa> cas;
		for (const std::string &n : names)
			cas.push_back(read_local_ca(n));
		auto usable = [&](const LocalCa &c, bool active) {
			for (const LocalPort &p : c.ports)
				if ((!opt.port || p.num == opt.port) && p.infiniband &&
				    p.phys_state == kPhysLinkUp &&
				    (!active || p.state == kStateActive))
					return true;
			return false;
		};
		auto it = std::find_if(cas.begin(), cas.end(),
				       [&](const LocalCa &c) { return usable(c, true); });
		if (it == cas.end())
			it = std::find_if(cas.begin(), cas.end(),
					  [&](const LocalCa &c) { return usable(c, false); });
		if (it == cas.end() && opt.port)
			it = std::find_if(cas.begin(), cas.end(), [&](const LocalCa &c) {
				return pick_port(c, opt.port) != nullptr;
			});
		if (it == cas.end()) {
			std::string states;
			for (const LocalCa &c : cas)
				states += cat(states.empty() ? "" : "; ", c.name, ": ",
					      ports_text(c));
			if (opt.port)
				fail(Status::io, "live discovery: no CA has a port ", opt.port,
				     " (", states, ")");
			fail(Status::io, "live discovery: no InfiniBand port is up (",
			     states, "): no cable, or the peer is down");
		}
		ca = *it;
	}
	const LocalPort *p = pick_port(ca, opt.port);
	if (!p && opt.port)
		fail(Status::io, "live discovery: CA ", ca.name, " has no port ", opt.port,
		     " (", ports_text(ca), ")");
	if (!p)
		fail(Status::io, "live discovery: CA ", ca.name, ": no InfiniBand port is up (",
		     ports_text(ca), "): no cable, or the peer is down");
	if (!p->infiniband)
		fail(Status::unsupported, "live discovery: CA ", ca.name, " port ", p->num,
		     " is Ethernet (RoCE), not InfiniBand");
	if (p->phys_state != kPhysLinkUp)
		fail(Status::io, "live discovery: CA ", ca.name, " port ", p->num,
		     " is down (state ", port_state_name(p->state), ", physical state ",
		     phys_state_name(p->phys_state), "): no cable, or the peer is down");
	return {ca.name, p->num};
}

struct FabricFree {
	void operator()(ibnd_fabric_t *f) const { ibnd_destroy_fabric(f); }
};
using FabricPtr = std::unique_ptr<ibnd_fabric_t, FabricFree>;

void collect(ibnd_node_t *node, void *out)
{
	static_cast<std::vector<ibnd_node_t *> *>(out)->push_back(node);
}

std::string node_text(const ibnd_node_t *n)
{
	return cat(guid_text(n->guid), " \"", clean_desc(n->nodedesc), "\"");
}

// The Fabric of a scan, in ibnetdiscover's record order (see the header).
ImportResult build(ibnd_fabric_t *scan, const HostNaming &naming,
		   DiscoverStats *stats)
{
	std::vector<ibnd_node_t *> nodes, routers;
	ibnd_iter_nodes_type(scan, collect, IB_NODE_SWITCH, &nodes);
	size_t switches = nodes.size();
	ibnd_iter_nodes_type(scan, collect, IB_NODE_CA, &nodes);
	ibnd_iter_nodes_type(scan, collect, IB_NODE_ROUTER, &routers);
	if (!routers.empty())
		fail(Status::unsupported, "live discovery: router ", node_text(routers[0]),
		     routers.size() > 1 ? cat(" and ", routers.size() - 1, " more").c_str() : "",
		     ": routers are not supported (a fat tree has none)");
	if (stats) {
		stats->switches = unsigned(switches);
		stats->cas = unsigned(nodes.size() - switches);
	}

	ImportResult r;
	Fabric &f = r.fabric;
	std::map<std::string, uint64_t> name_owner; // name -> GUID
	for (size_t i = 0; i < nodes.size(); i++) {
		const ibnd_node_t *n = nodes[i];
		std::string desc = clean_desc(n->nodedesc);
		try {
			if (i < switches) {
				f.add_switch(n->guid, desc, unsigned(n->numports), n->smalid);
				continue;
			}
			std::string name = host_name_from_desc(desc, naming);
			if (name.empty()) {
				r.warnings.push_back(cat("host ", guid_text(n->guid), " \"", desc,
							 "\": the description gives no Slurm name"));
			} else if (name_owner.count(name)) {
				r.warnings.push_back(cat("host ", guid_text(n->guid), " \"", desc,
							 "\": name ", name, " is taken by host ",
							 guid_text(name_owner[name]), "; left unnamed"));
				name.clear();
			} else {
				name_owner[name] = n->guid;
			}
			f.add_host(n->guid, desc, name, unsigned(n->numports));
		} catch (const Error &e) {
			fail(e.status(), "live discovery: ", i < switches ? "switch " : "CA ",
			     node_text(n), ": ", e.what());
		}
	}
	// Each cable from both ends: joined at its first listing, with the
	// rate of that end; the second listing only checks.
	unsigned lmc = 0;
	size_t unnamed_rates = 0;
	std::string first_unnamed;
	for (size_t i = 0; i < nodes.size(); i++) {
		ibnd_node_t *n = nodes[i];
		NodeId a = f.find_guid(n->guid);
		for (int p = 1; p <= n->numports; p++) {
			ibnd_port_t *port = n->ports[p];
			if (!port || !port->remoteport)
				continue;
			ibnd_port_t *rp = port->remoteport;
			NodeId b = f.find_guid(rp->node->guid);
			try {
				if (b == kNone)
					fail(Status::internal, "the peer ", node_text(rp->node),
					     " is not in libibnetdisc's node lists");
				PortIdx pa = f.port_index(a, unsigned(p));
				PortIdx pb = f.port_index(b, unsigned(rp->portnum));
				if (i >= switches) {
					f.port(pa).lid = port->base_lid;
					lmc = std::max(lmc, unsigned(port->lmc));
				}
				if (f.port(pa).peer == pb)
					continue;
				LinkRate rate = port_rate(port);
				if (rate.width == "??" || rate.speed == "???") {
					if (!unnamed_rates++)
						first_unnamed = f.port_label(pa);
				}
				f.connect(a, unsigned(p), b, unsigned(rp->portnum), rate);
			} catch (const Error &e) {
				fail(e.status(), "live discovery: ", node_text(n), " port ", p,
				     " to ", node_text(rp->node), " port ", rp->portnum, ": ",
				     e.what());
			}
		}
	}
	if (unnamed_rates)
		r.warnings.push_back(cat(unnamed_rates, " cable(s) have a link width or speed "
					 "ibnetdiscover has no name for (\"??\"/\"???\"), "
					 "first ", first_unnamed));
	try {
		f.set_lmc(lmc);
	} catch (const Error &e) {
		fail(e.status(), "live discovery: ", e.what());
	}
	return r;
}

} // namespace

ImportResult discover_fabric(const DiscoverOptions &opt, DiscoverStats *stats)
{
	if (!opt.naming.regex.empty())
		host_name_from_desc("", opt.naming); // a bad regex fails before the scan
	auto [ca, port] = choose_local_port(opt);

	ibnd_config_t cfg;
	std::memset(&cfg, 0, sizeof(cfg));
	cfg.max_smps = opt.max_smps;
	cfg.timeout_ms = opt.timeout_ms;
	cfg.retries = opt.retries;
	cfg.flags = IBND_CONFIG_MLX_EPI; // as ibnetdiscover: FDR10 is seen
	std::vector<char> ca_buf(ca.begin(), ca.end());
	ca_buf.push_back('\0');

	auto t0 = std::chrono::steady_clock::now();
	errno = 0;
	FabricPtr scan(ibnd_discover_fabric(ca_buf.data(), int(port), nullptr, &cfg));
	int err = errno;
	auto t1 = std::chrono::steady_clock::now();
	if (!scan)
		fail(Status::io, "live discovery from CA ", ca, " port ", port,
		     " failed: libibnetdisc: ",
		     err ? std::strerror(err) : "no reason given (see its messages above)",
		     " (SMP access needs root or the umad device permissions)");
	if (stats) {
		stats->ca = ca;
		stats->port = port;
		stats->from_guid = scan->from_node ? scan->from_node->guid : 0;
		stats->mads = scan->total_mads_used;
		stats->max_hops = scan->maxhops_discovered;
		stats->seconds = std::chrono::duration<double>(t1 - t0).count();
	}
	return build(scan.get(), opt.naming, stats);
}

#endif // HAVE_LIBIBNETDISC

} // namespace qft
