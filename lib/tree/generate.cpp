// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/tree/generate.hpp"

#include <cctype>

#include "lib/common/error.hpp"
#include "lib/common/random.hpp"

namespace qft {

namespace {
constexpr uint64_t kHostGuidBase = 0x0002c90300000000ull;
constexpr uint64_t kSwitchGuidBase = 0x0002c90400000000ull;
} // namespace

std::string format_host_name(const std::string &pattern, uint64_t number)
{
	std::string out;
	bool seen = false;
	for (size_t i = 0; i < pattern.size(); i++) {
		char c = pattern[i];
		if (c != '%') {
			out += c;
			continue;
		}
		if (i + 1 < pattern.size() && pattern[i + 1] == '%') {
			out += '%';
			i++;
			continue;
		}
		size_t j = i + 1;
		bool zero = j < pattern.size() && pattern[j] == '0';
		if (zero)
			j++;
		unsigned width = 0;
		while (j < pattern.size() && std::isdigit((unsigned char)pattern[j]) &&
		       width < 100)
			width = width * 10 + (pattern[j++] - '0');
		if (j >= pattern.size() || width > 20 ||
		    (pattern[j] != 'd' && pattern[j] != 'u' && pattern[j] != 'x'))
			fail(Status::invalid, "host name pattern \"", pattern,
			     "\", character ", i + 1,
			     ": expected %d, %u or %x with an optional 0 flag and width");
		if (seen)
			fail(Status::invalid, "host name pattern \"", pattern,
			     "\": expected exactly one number conversion, found two");
		seen = true;
		std::string num;
		if (pattern[j] == 'x') {
			const char *hex = "0123456789abcdef";
			uint64_t v = number;
			do {
				num.insert(num.begin(), hex[v % 16]);
				v /= 16;
			} while (v);
		} else {
			num = std::to_string(number);
		}
		if (num.size() < width)
			num.insert(0, width - num.size(), zero ? '0' : ' ');
		out += num;
		i = j;
	}
	if (!seen)
		fail(Status::invalid, "host name pattern \"", pattern,
		     "\": expected one number conversion such as %04d");
	if (out.empty() || out.find_first_of(" \t,[]") != std::string::npos)
		fail(Status::invalid, "host name pattern \"", pattern, "\" gives \"",
		     out, "\": expected a name without blanks, ',' or brackets");
	return out;
}

Fabric generate_nodes(const Pgft &g, const GenOptions &opt, TreeKind kind,
		      std::vector<std::vector<NodeId>> &nodes)
{
	Fabric f;
	f.set_lmc(opt.lmc);
	f.set_tree_tuple(g.text(), kind);
	unsigned h = g.h();
	uint64_t n = g.hosts();
	uint32_t lids_per_host = 1u << opt.lmc;
	uint64_t switches = 0;
	for (unsigned l = 1; l <= h; l++)
		switches += g.nodes_at(l);
	try {
		// hosts from LID 2^lmc up: the block of LID 0 stays unused
		check_lid_space(n + 1, switches, opt.lmc);
	} catch (const Error &e) {
		fail(e.status(), kind == TreeKind::qft ? "QFT of PGFT " : "PGFT ", g.text(), ": ",
		     e.what());
	}

	std::vector<std::string> names(n);
	for (uint64_t j = 0; j < n; j++)
		names[j] = format_host_name(opt.name_pattern, j + opt.first_number);
	if (opt.shuffle_names) {
		Rng rng(*opt.shuffle_names);
		shuffle(names, rng);
	}

	// nodes[l][index] -> NodeId; hosts first so host ordinal == tree index.
	nodes.assign(h + 1, {});
	unsigned host_ports = g.up_ports(0);
	for (uint64_t j = 0; j < n; j++) {
		// Port p's GUID is node GUID + p (ibsim, OpenSM): step by 2.
		NodeId id = f.add_host(kHostGuidBase + 2 * (j + 1), names[j] + " HCA-1",
				       names[j], host_ports);
		Node &node = f.node(id);
		node.level = 0;
		node.tree_index = j;
		for (unsigned p = 0; p < host_ports; p++)
			f.port(node.first_port + p).lid =
				static_cast<uint32_t>((j + 1) * lids_per_host);
		nodes[0].push_back(id);
	}
	uint32_t lid = static_cast<uint32_t>((n + 1) * lids_per_host);
	for (unsigned l = 1; l <= h; l++) {
		unsigned ports = g.down_ports(l) + g.up_ports(l);
		for (uint64_t idx = 0; idx < g.nodes_at(l); idx++) {
			std::vector<unsigned> d = g.digits(l, idx);
			std::string desc = cat("qft L", l, " ");
			for (unsigned i = h; i >= 1; i--)
				desc += cat(d[i - 1], i > 1 ? "." : "");
			NodeId id = f.add_switch(kSwitchGuidBase + (uint64_t(l) << 24) + idx,
						 desc, ports, lid++);
			f.node(id).level = static_cast<int>(l);
			f.node(id).tree_index = idx;
			nodes[l].push_back(id);
		}
	}
	return f;
}

Fabric generate_pgft(const Pgft &g, const GenOptions &opt)
{
	std::vector<std::vector<NodeId>> nodes;
	Fabric f = generate_nodes(g, opt, TreeKind::pgft, nodes);
	const unsigned h = g.h();

	// Seed 000 IV-B: ports (l, a.., q) and (l+1, b.., r) are linked iff
	// b_i = a_i for i != l+1; the k-th of the p_{l+1} links joins up-port
	// q = b_{l+1} + k w_{l+1} to down-port r = a_{l+1} + k m_{l+1}.
	for (unsigned l = 0; l < h; l++) {
		unsigned wl = g.w(l + 1), ml = g.m(l + 1);
		unsigned up_base = g.down_ports(l); // IB port of up-port 0, minus 1
		for (uint64_t idx = 0; idx < g.nodes_at(l); idx++) {
			std::vector<unsigned> a = g.digits(l, idx);
			for (unsigned q = 0; q < g.up_ports(l); q++) {
				std::vector<unsigned> b = a;
				b[l] = q % wl;
				unsigned k = q / wl;
				unsigned r = a[l] + k * ml;
				f.connect(nodes[l][idx], up_base + q + 1,
					  nodes[l + 1][g.index(l + 1, b)], r + 1, opt.rate);
			}
		}
	}
	return f;
}

} // namespace qft
