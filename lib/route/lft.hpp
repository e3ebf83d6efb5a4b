// SPDX-License-Identifier: GPL-2.0-or-later
// Linear forwarding tables (LFTs): for every switch, the out-port of every
// destination LID. Read from what a subnet manager programmed (OpenSM's
// opensm-lfts.dump, ibroute or dump_lfts output), written for OpenSM's
// `file` routing engine (-R file -U), and routed over by TableRouter, which
// follows them hop by hop exactly as the switches do.
#ifndef QFT_ROUTE_LFT_HPP
#define QFT_ROUTE_LFT_HPP

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lib/fabric/fabric.hpp"
#include "lib/route/router.hpp"

namespace qft {

constexpr uint8_t kNoRoute = 255;

class Lfts {
public:
	explicit Lfts(const Fabric &fabric);
	// Out-port of `lid` at switch `sw` (0 = the switch itself), kNoRoute if
	// the table has no entry.
	uint8_t port(NodeId sw, uint32_t lid) const
	{
		const std::vector<uint8_t> &t = table_[sw];
		return lid < t.size() ? t[lid] : kNoRoute;
	}
	void set(NodeId sw, uint32_t lid, uint8_t port);
	size_t switches_with_tables() const;

private:
	std::vector<std::vector<uint8_t>> table_; // by NodeId
};

class Tree;

// The next link of a closed-form routing from the switch at (level, index)
// of the tree toward the host of tree index j addressed at LID offset k:
// its sending port, kNone when the routing has no way there.
using FirstHop = std::function<PortIdx(unsigned level, uint64_t index, uint64_t j, unsigned k)>;

// The forwarding tables of a closed-form routing (the one builder of
// TreeRouter::tables(), lib/route/tree_router.hpp): every switch of `tree` gets,
// for every placed host's LID + k (k < offsets), the IB port of
// first_hop(level, index, j, k), or no entry where that is kNone;
// every switch gets the switch LIDs by shortest paths over switch cables,
// lowest port first (management traffic, which no closed form routes).
// The tables are sized to the highest LID of the fabric.
Lfts tree_tables(const Fabric &fabric, const Tree &tree, unsigned offsets,
		 const FirstHop &first_hop);

// Reads opensm-lfts.dump or ibroute/dump_lfts text. Switches are matched by
// GUID; a table for a GUID the fabric lacks, a port beyond the switch's,
// or a malformed line is an Error(parse / not_found) naming file and line.
Lfts parse_lfts(const Fabric &fabric, const std::string &text, const std::string &origin);
Lfts load_lfts(const Fabric &fabric, const std::string &path);

// OpenSM's opensm-lfts.dump format, which `opensm -R file -U FILE` loads.
std::string lfts_dump_text(const Fabric &fabric, const Lfts &lfts);

// The routing the tables give: from the source's leaf, out-port by out-port
// to the switch that delivers the destination LID. Throws
// Error(unroutable) for a missing entry or a loop, naming switch and LID.
class TableRouter final : public Router {
public:
	// Borrows fabric, which must outlive the router; keeps the tables.
	TableRouter(const Fabric &fabric, Lfts lfts);
	const char *name() const override { return "lft"; }
	unsigned offsets() const override { return 1u << fabric_.lmc(); }
	unsigned path(HostOrd src, HostOrd dst, unsigned offset,
		      PortIdx *out) const override;

private:
	const Fabric &fabric_;
	Lfts lfts_;
	std::vector<HostOrd> lid_owner_; // LID -> host ordinal (kNone: none)
};

} // namespace qft

#endif
