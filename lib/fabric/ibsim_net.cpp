// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/fabric/ibsim_net.hpp"

#include <algorithm>
#include <sstream>

#include "lib/common/error.hpp"
#include "lib/common/file.hpp"

namespace qft {

namespace {

// ibsim node ids: short, unique, free of its reserved '#' and '@'.
std::string sim_id(const Fabric &f, NodeId id)
{
	const Node &n = f.node(id);
	return cat(n.type == NodeType::switch_node ? "S-" : "H-",
		   guid_text(n.guid).substr(2));
}

} // namespace

void write_ibsim_net(const Fabric &f, std::ostream &out)
{
	size_t switches = f.node_count() - f.hosts().size();
	out << "# ibsim net file written by qft (slurm-qft)";
	if (!f.tree_tuple().empty())
		out << (f.tree_kind() == TreeKind::qft ? " for the QFT of PGFT(" : " for PGFT(")
		    << f.tree_tuple() << ")";
	// ibsim's defaults are 2048 nodes, 256 switches, 13312 ports.
	out << "\n# " << f.node_count() << " nodes, " << switches << " switches, "
	    << f.port_count() + switches << " ports: run ibsim -s -N "
	    << std::max<size_t>(f.node_count(), 2048) << " -S "
	    << std::max<size_t>(switches, 256) << " -P "
	    << std::max<size_t>(f.port_count() + switches, 13312) << " <this file>\n\n";
	for (NodeId id = 0; id < f.node_count(); id++) {
		const Node &n = f.node(id);
		// ibsim reads lines in 255-byte pieces and keeps 63 characters of
		// a description.
		if (n.desc.size() > 63 || n.desc.find('"') != std::string::npos)
			fail(Status::invalid, f.node_label(id),
			     ": node description must be at most 63 characters "
			     "without '\"' for ibsim");
		bool sw = n.type == NodeType::switch_node;
		out << (sw ? "switchguid=" : "caguid=") << guid_text(n.guid) << "\n";
		out << (sw ? "Switch\t" : "Ca\t") << n.num_ports << " \"" << sim_id(f, id)
		    << "\"\t# \"" << n.desc << "\"";
		if (sw)
			out << " enhanced port 0 lid " << n.lid << " lmc 0";
		out << "\n";
		// Port lines as ibnetdiscover writes them: ibsim reads the link
		// width and speed from the text after the last quote.
		for (unsigned p = 0; p < n.num_ports; p++) {
			const Port &port = f.port(n.first_port + p);
			if (port.peer == kNone)
				continue;
			const Port &peer = f.port(port.peer);
			const Node &pn = f.node(peer.node);
			const LinkRate &rate = f.rates()[port.rate];
			uint32_t peer_lid = pn.type == NodeType::host ? peer.lid : pn.lid;
			out << "[" << port.num << "]\t\"" << sim_id(f, peer.node) << "\"["
			    << peer.num << "]\t# ";
			if (!sw)
				out << "lid " << port.lid << " lmc " << f.lmc() << " ";
			out << "\"" << pn.desc << "\" lid " << peer_lid << " " << rate.width
			    << rate.speed << "\n";
		}
		out << "\n";
	}
}

void save_ibsim_net(const Fabric &f, const std::string &path)
{
	std::ostringstream text;
	write_ibsim_net(f, text);
	write_file(path, text.str());
}

} // namespace qft
