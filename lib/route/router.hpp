// SPDX-License-Identifier: GPL-2.0-or-later
// A routing: for a source host, a destination host and the destination LID
// offset (0 .. 2^LMC-1), the directed links a packet crosses. Every
// strategy (closed forms, tables imported from a subnet manager) derives
// from Router and is picked by name in make_router() (route/routers.cpp).
#ifndef QFT_ROUTE_ROUTER_HPP
#define QFT_ROUTE_ROUTER_HPP

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "lib/fabric/fabric.hpp"

namespace qft {

constexpr unsigned kMaxPathLinks = 64;

// One flow of a stage: a source host, a destination host and the LID
// offset the source addresses the destination at.
struct Flow {
	HostOrd src, dst;
	uint8_t offset;
};

class Router {
public:
	virtual ~Router() = default;
	virtual const char *name() const = 0;
	// Number of LID offsets this routing distinguishes (2^LMC).
	virtual unsigned offsets() const = 0;
	// Writes the links (sending ports) from host src to host dst, in order,
	// into out[0..n) and returns n (at most kMaxPathLinks). src == dst
	// gives 0. Throws Error(unroutable) naming the hop that has no route.
	virtual unsigned path(HostOrd src, HostOrd dst, unsigned offset,
			      PortIdx *out) const = 0;
	// Adds one to load[link] for every link of every flow. The default
	// walks path(); a routing may do it faster, with the same result.
	virtual void add_loads(const Flow *flows, size_t n, uint32_t *load) const;
};

class Tree;

// The routing named `name` ("dmodk") for `fabric` (and its `tree` when the
// routing needs one). Throws Error(invalid) for an unknown name, listing
// the known ones.
std::unique_ptr<Router> make_router(std::string_view name, const Fabric &fabric,
				    const Tree *tree);

} // namespace qft

#endif
