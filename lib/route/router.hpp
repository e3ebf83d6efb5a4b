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
#include <vector>

#include "lib/fabric/fabric.hpp"

namespace qft {

constexpr unsigned kMaxPathLinks = 64;

// One flow of a stage: a source host, a destination host and the LID
// offset the source addresses the destination at.
struct Flow {
	// Left uninitialised: a stage's buffer grows by resize() and is
	// written at once (value-initialising it cost a tenth of a score).
	Flow() {}
	Flow(HostOrd s, HostOrd d, uint8_t o) : src(s), dst(d), offset(o) {}
	HostOrd src, dst;
	uint8_t offset;
};

// One stage's flow counts per directed link (indexed by sending port).
// Sparse: it also lists the links it touched, so that a stage costs its
// flows and not the fabric's size (a placement scores tens of small
// candidates per decision). Dense: no list, and max() and clear() scan
// every link, which vectorises and wins when the flows touch most links
// (a whole-fabric job).
class LinkLoads {
public:
	// One spare entry: add() writes before it counts.
	explicit LinkLoads(size_t links) : load_(links, 0), touched_(links + 1) {}
	// Only between stages (after clear()).
	void set_sparse(bool sparse) { sparse_ = sparse; }
	bool sparse() const { return sparse_; }

	// For a routing's inner loop: the count and the arrays in registers
	// (through the object, every store could alias the count and
	// serialise the loop), sparse or dense fixed at compile time (a
	// routing dispatches on sparse()). One writer at a time; its
	// destructor hands the count back, also when the loop throws.
	template <bool Sparse> class Writer {
	public:
		explicit Writer(LinkLoads &loads)
			: owner_(loads), load_(loads.load_.data()), touched_(loads.touched_.data()),
			  count_(loads.count_) {}
		Writer(const Writer &) = delete;
		Writer &operator=(const Writer &) = delete;
		~Writer() { owner_.count_ = count_; }
		void add(PortIdx link)
		{
			if (Sparse) { // listed every time, kept when it was 0: no branch
				touched_[count_] = link;
				count_ += load_[link] == 0;
			}
			load_[link]++;
		}

	private:
		LinkLoads &owner_;
		uint32_t *__restrict load_;
		PortIdx *__restrict touched_;
		size_t count_;
	};
	void add(PortIdx link)
	{
		if (sparse_)
			Writer<true>(*this).add(link);
		else
			Writer<false>(*this).add(link);
	}

	uint32_t operator[](PortIdx link) const { return load_[link]; }
	size_t links() const { return load_.size(); }
	// Every link's count, zero where untouched.
	const std::vector<uint32_t> &dense() const { return load_; }
	// f(link) for every link with a flow.
	template <typename F> void for_each(F &&f) const
	{
		if (sparse_) {
			for (size_t i = 0; i < count_; i++)
				f(touched_[i]);
			return;
		}
		for (PortIdx l = 0; l < PortIdx(load_.size()); l++)
			if (load_[l])
				f(l);
	}
	// The most flows on one link.
	uint32_t max() const;
	void clear();

private:
	std::vector<uint32_t> load_;
	std::vector<PortIdx> touched_; // sparse: [0, count_), each link once
	size_t count_ = 0;
	bool sparse_ = true;
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
	// Adds every link of every flow to `loads`. The default walks path();
	// a routing may do it faster, with the same result. Throws as path().
	virtual void add_loads(const Flow *flows, size_t n, LinkLoads &loads) const;
};

class Tree;

// The routing a spec names, for `fabric` (and its `tree` when the routing
// needs one): "dmodk" (closed form), "lft:FILE" (the forwarding tables of
// an OpenSM dump, ibroute or dump_lfts output). Throws Error(invalid) for
// an unknown name, listing the known ones, and the errors of reading FILE.
std::unique_ptr<Router> make_router(std::string_view spec, const Fabric &fabric,
				    const Tree *tree);

// Every ordered pair of hosts routed at offset 0: the destinations whose
// traffic, from some source, comes down a link that another destination's
// traffic also comes down. D-Mod-K gives every down-link the traffic of
// one destination (seed 000 theorem 2): on a whole tree none; with missing
// cables, the destinations whose congestion freedom the fallback cost.
// "Down" is by the fabric's tree annotation (Node::level). On a QFT too:
// its side links join levels l-1 and l like every cable (they change a
// digit above the lower node's level, not the level), and its closed form
// also gives every down-link one destination (lib/route/qft_route.hpp), so
// a whole QFT has none either. Throws
// Error(unroutable) for a pair without a path. n^2 paths: a tool's check,
// not for slurmctld. `among`: the sources and destinations to route
// (Tree::attached_hosts() leaves out the hosts whose cable is cut); all
// hosts without it.
std::vector<HostOrd> shared_down_destinations(const Fabric &fabric, const Router &router);
std::vector<HostOrd> shared_down_destinations(const Fabric &fabric, const Router &router,
					      const std::vector<HostOrd> &among);

struct RoutingInfo {
	const char *name, *argument, *summary;
};
// The known routings, for usage texts.
const std::vector<RoutingInfo> &routing_table();

} // namespace qft

#endif
