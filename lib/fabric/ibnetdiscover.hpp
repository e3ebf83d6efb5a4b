// SPDX-License-Identifier: GPL-2.0-or-later
// ibnetdiscover's topology output (infiniband-diags 44, the default format)
// into a Fabric: switches, channel adapters, ports, cables, LIDs, LMC, link
// width and speed, node descriptions, GUIDs. Slurm host names come from the
// node descriptions by a HostNaming rule.
//
// Grammar (tests/data/ib/README.md has the full one): records of
//   vendid=/devid=/sysimgguid=/switchguid=0x..(..)/caguid=0x.. lines,
//   Switch N "S-<guid>"  # "<desc>" enhanced|base port 0 lid L lmc M
//   Ca     N "H-<guid>"  # "<desc>"
//   [p](portguid) "<remote id>"[rp](remote portguid)  # <comment>
// where a Ca port's comment starts "lid L lmc M", and every comment ends
// with the remote's "<desc>" lid RL <width><speed> (4xHDR). Each cable is
// listed from both ends; both must agree.
#ifndef QFT_FABRIC_IBNETDISCOVER_HPP
#define QFT_FABRIC_IBNETDISCOVER_HPP

#include <string>
#include <vector>

#include "lib/fabric/fabric.hpp"

namespace qft {

// How a host's Slurm name comes from its node description.
struct HostNaming {
	// POSIX extended regular expression with one capture group, matched
	// against the whole description; empty: the first word.
	std::string regex;
};

struct ImportResult {
	Fabric fabric;
	// Things an admin should know that do not stop the import: hosts whose
	// description gives no name, or a name another host already has.
	std::vector<std::string> warnings;
};

// Throws Error(parse) naming `origin`, the line and what was expected, or
// Error(invalid) for a fabric that is not self-consistent (duplicate GUID,
// a cable the two ends disagree about).
ImportResult parse_ibnetdiscover(const std::string &text, const std::string &origin,
				 const HostNaming &naming = HostNaming());
ImportResult load_ibnetdiscover(const std::string &path,
				const HostNaming &naming = HostNaming());

// The Slurm name a description gives, or "" when the rule does not match.
std::string host_name_from_desc(const std::string &desc, const HostNaming &naming);

} // namespace qft

#endif
