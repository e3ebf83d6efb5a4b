// SPDX-License-Identifier: GPL-2.0-or-later
// Live discovery: the fabric a local InfiniBand port sees, read with
// libibnetdisc (rdma-core; Debian: libibnetdisc-dev), into the same Fabric
// that parse_ibnetdiscover() builds from ibnetdiscover's output of the same
// fabric: node GUIDs, node descriptions, port counts and numbers, each cable
// once, switch LIDs (port 0), CA port base LIDs, the LMC of the CA ports,
// and link width and speed as ibnetdiscover prints them ("4x", "HDR").
// Nodes are added in ibnetdiscover's order (switches, then CAs, each in
// libibnetdisc's list order) and a cable takes the rate of the end listed
// first, so a discovery and an import of the same scan are equal.
//
// Discovery sends directed-route SMPs from one CA port: it needs read and
// write access to /dev/infiniband/umad* (root, or the rdma group with
// udev's umad rules). It opens exactly one management port at a time (the
// CA and port checks only read sysfs), so it also runs under ibsim's
// libumad2sim preload, which crashes when two are open at once.
//
// Not handled: routers (Error(unsupported), as the parser), and fabrics
// that change during the scan (libibnetdisc reports what it saw).
// libibnetdisc prints its own diagnostics to stderr when a scan fails; the
// error thrown here carries the CA, the port and errno.
#ifndef QFT_FABRIC_DISCOVER_HPP
#define QFT_FABRIC_DISCOVER_HPP

#include <string>

#include "lib/fabric/ibnetdiscover.hpp"

namespace qft {

struct DiscoverOptions {
	// Local CA (umad name such as "mlx5_0"); empty: the first CA that has
	// an active port, or else one whose link is up, or else the first.
	std::string ca;
	// Local port number; 0: the first port in state Active, or else the
	// first whose physical link is up (LinkUp).
	unsigned port = 0;
	HostNaming naming;
	// Per-SMP timeout in milliseconds and retries; 0: libibnetdisc's
	// defaults (as ibnetdiscover's, 1000 ms here unless ibdiag.conf says).
	unsigned timeout_ms = 0;
	unsigned retries = 0;
	// SMPs outstanding at once; 0: libibnetdisc's default (2).
	unsigned max_smps = 0;
};

// What the scan cost, for the caller to report; never needed for the result.
struct DiscoverStats {
	std::string ca;          // the CA and port used
	unsigned port = 0;
	uint64_t from_guid = 0;  // the local node
	unsigned switches = 0, cas = 0;
	unsigned mads = 0;       // SMPs libibnetdisc sent
	unsigned max_hops = 0;   // hops of the longest directed route
	double seconds = 0;      // ibnd_discover_fabric() alone
};

// Scans the fabric. Throws Error(io) when there is no CA, the CA or port
// does not exist, the port's link is down, or libibnetdisc fails (its errno
// in the message); Error(unsupported) for a fabric with routers or when
// this qft was built without libibnetdisc; Error(invalid) for a fabric the
// Fabric model refuses (as parse_ibnetdiscover would) or a bad naming
// regex. Host naming problems are warnings, as in the import.
ImportResult discover_fabric(const DiscoverOptions &opt, DiscoverStats *stats = nullptr);

} // namespace qft

#endif
