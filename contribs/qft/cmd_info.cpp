// SPDX-License-Identifier: GPL-2.0-or-later
// qft info: what a fabric file holds; qft patterns: the traffic patterns.
#include <cstdio>

#include "contribs/qft/cli.hpp"
#include "lib/common/error.hpp"
#include "lib/traffic/pattern.hpp"

namespace qft::cli {

int cmd_info(int argc, char **argv)
{
	Args args(argc, argv, 2, {"--fabric"}, {});
	args.no_positional();
	std::unique_ptr<Model> m = load_model(args.need("--fabric"), "");
	const Fabric &f = m->fabric();
	size_t cables = 0;
	for (PortIdx p = 0; p < f.port_count(); p++)
		cables += f.port(p).peer != kNone;
	std::printf("hosts %zu\nswitches %zu\ncables %zu\nlmc %u\n", f.hosts().size(),
		    f.node_count() - f.hosts().size(), cables / 2, f.lmc());
	if (!m->tree()) {
		std::printf("tree none\n");
		return 0;
	}
	const Pgft &g = m->need_tree().pgft();
	std::printf("tree %sPGFT(%s)\nlevels %u\nblock %llu\n",
		    m->need_tree().qft() ? "QFT of " : "", g.text().c_str(), g.h(),
		    (unsigned long long)g.block());
	for (unsigned l = 0; l <= g.h(); l++)
		std::printf("level %u: %llu nodes, %u down-ports, %u up-ports\n", l,
			    (unsigned long long)g.nodes_at(l), g.down_ports(l),
			    g.up_ports(l));
	std::vector<std::string> why = g.rlft_violations();
	std::printf("rlft %s\n", why.empty() ? "yes" : "no");
	for (const std::string &w : why)
		std::printf("  %s\n", w.c_str());
	std::printf("absent hosts %llu\nmissing cables %zu\n",
		    (unsigned long long)m->need_tree().absent_hosts(), m->need_tree().missing().size());
	for (const MissingCable &c : m->need_tree().missing())
		std::printf("  %s up-port %u\n",
			    m->need_tree().position_label(c.level, c.index).c_str(), c.up_port);
	std::fputs(unplaced_hosts_report(f, m->need_tree(), args.need("--fabric")).c_str(), stdout);
	if (m->need_tree().missing().empty() && !m->need_tree().absent_hosts())
		return 0;
	// What the fallback costs (dmodk.hpp; on a QFT, qft_route.hpp's rule):
	// destinations whose traffic now comes down a link that another
	// destination's uses too.
	m->set_routing("dmodk");
	const std::vector<HostOrd> attached = m->need_tree().attached_hosts();
	std::printf("hosts cut off %zu\n", f.hosts().size() - attached.size());
	try {
		const std::vector<HostOrd> lost = shared_down_destinations(f, m->router(), attached);
		std::printf("destinations sharing a down-link %zu of %zu\n", lost.size(),
			    attached.size());
		for (size_t i = 0; i < lost.size() && i < 20; i++)
			std::printf("  %s\n", f.node(f.hosts()[lost[i]]).name.c_str());
		if (lost.size() > 20)
			std::printf("  ... %zu more\n", lost.size() - 20);
	} catch (const Error &e) {
		std::printf("routing incomplete: %s\n", e.what());
	}
	return 0;
}

int cmd_patterns(int argc, char **argv)
{
	Args args(argc, argv, 2, {}, {});
	for (const PatternInfo &p : pattern_table())
		std::printf("%-14s %s\n", p.name, p.summary);
	return 0;
}

} // namespace qft::cli
