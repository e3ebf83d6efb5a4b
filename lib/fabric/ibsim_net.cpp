// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/fabric/ibsim_net.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "lib/common/error.hpp"

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
	out << "# ibsim net file written by qft (slurm-qft)";
	if (!f.tree_tuple().empty())
		out << " for PGFT(" << f.tree_tuple() << ")";
	out << "\n# run: ibsim -s <this file> (raise -N/-S/-P for large fabrics)\n\n";
	for (NodeId id = 0; id < f.node_count(); id++) {
		const Node &n = f.node(id);
		// ibsim reads lines of at most 255 characters.
		if (n.desc.size() > 64 || n.desc.find('"') != std::string::npos)
			fail(Status::invalid, f.node_label(id),
			     ": node description must be at most 64 characters "
			     "without '\"' for ibsim");
		bool sw = n.type == NodeType::switch_node;
		out << (sw ? "switchguid=" : "caguid=") << guid_text(n.guid) << "\n";
		out << (sw ? "Switch\t" : "Ca\t") << n.num_ports << " \"" << sim_id(f, id)
		    << "\"\t# \"" << n.desc << "\"";
		if (sw)
			out << " enhanced port 0 lid " << n.lid << " lmc 0";
		out << "\n";
		for (unsigned p = 0; p < n.num_ports; p++) {
			const Port &port = f.port(n.first_port + p);
			if (port.peer == kNone)
				continue;
			const Port &peer = f.port(port.peer);
			out << "[" << port.num << "]\t\"" << sim_id(f, peer.node) << "\"["
			    << peer.num << "]";
			if (!sw)
				out << "\t# lid " << port.lid << " lmc " << f.lmc();
			out << "\n";
		}
		out << "\n";
	}
}

void save_ibsim_net(const Fabric &f, const std::string &path)
{
	std::ofstream out(path, std::ios::trunc);
	if (!out)
		fail(Status::io, path, ": cannot write: ", std::strerror(errno));
	write_ibsim_net(f, out);
	out.close();
	if (!out)
		fail(Status::io, path, ": write error");
}

} // namespace qft
