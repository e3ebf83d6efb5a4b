// SPDX-License-Identifier: GPL-2.0-or-later
// The table of routings, by name. A new routing adds one row here, its
// test, and its line in qft(1) and qft.conf(5).
#include <algorithm>
#include <functional>

#include "lib/common/error.hpp"
#include "lib/route/dmodk.hpp"
#include "lib/route/lft.hpp"
#include "lib/route/qft_route.hpp"
#include "lib/route/router.hpp"

namespace qft {

uint32_t LinkLoads::max() const
{
	uint32_t m = 0;
	if (sparse_) {
		for (size_t i = 0; i < count_; i++)
			m = std::max(m, load_[touched_[i]]);
		return m;
	}
	// Eight running maxima: a fixed-width inner loop the compiler turns
	// into vector code at -O2, where a plain reduction stays scalar.
	constexpr size_t kLanes = 8;
	uint32_t lane[kLanes] = {};
	const uint32_t *ld = load_.data();
	const size_t n = load_.size(), whole = n - n % kLanes;
	for (size_t i = 0; i < whole; i += kLanes)
		for (size_t k = 0; k < kLanes; k++)
			lane[k] = ld[i + k] > lane[k] ? ld[i + k] : lane[k];
	for (size_t i = whole; i < n; i++)
		m = std::max(m, ld[i]);
	for (uint32_t l : lane)
		m = std::max(m, l);
	return m;
}

void LinkLoads::clear()
{
	if (sparse_) {
		for (size_t i = 0; i < count_; i++)
			load_[touched_[i]] = 0;
	} else {
		std::fill(load_.begin(), load_.end(), 0);
	}
	count_ = 0;
}

void Router::add_loads(const Flow *flows, size_t n, LinkLoads &loads) const
{
	PortIdx links[kMaxPathLinks];
	for (size_t i = 0; i < n; i++) {
		unsigned len = path(flows[i].src, flows[i].dst, flows[i].offset, links);
		for (unsigned k = 0; k < len; k++)
			loads.add(links[k]);
	}
}

namespace {

using MakeRouter = std::function<std::unique_ptr<Router>(const Fabric &, const Tree *,
							  const std::string &arg)>;

struct RouterEntry {
	RoutingInfo info;
	MakeRouter make;
};

const std::vector<RouterEntry> &entries()
{
	static const std::vector<RouterEntry> table = {
		// One name for the closed form of the fabric's tree: a QFT's is
		// seed 002's (lib/route/qft_route.hpp), whose name() says "qft".
		{{"dmodk", "",
		  "closed-form D-Mod-K on the recognised PGFT (seed 000 eq. 1); on a QFT, "
		  "its closed form (seed 002 slide 16)"},
		 [](const Fabric &f, const Tree *t, const std::string &) -> std::unique_ptr<Router> {
			 if (!t)
				 fail(Status::invalid, "routing dmodk needs the fabric's PGFT tree");
			 if (t->qft())
				 return std::make_unique<QftRoute>(f, *t);
			 return std::make_unique<DModK>(f, *t);
		 }},
		{{"lft", "FILE",
		  "the switches' forwarding tables as the subnet manager programmed them "
		  "(OpenSM's opensm-lfts.dump, ibroute or dump_lfts output)"},
		 [](const Fabric &f, const Tree *, const std::string &file) -> std::unique_ptr<Router> {
			 return std::make_unique<TableRouter>(f, load_lfts(f, file));
		 }},
	};
	return table;
}

} // namespace

const std::vector<RoutingInfo> &routing_table()
{
	static const std::vector<RoutingInfo> infos = [] {
		std::vector<RoutingInfo> v;
		for (const RouterEntry &e : entries())
			v.push_back(e.info);
		return v;
	}();
	return infos;
}

std::unique_ptr<Router> make_router(std::string_view spec, const Fabric &fabric,
				    const Tree *tree)
{
	const size_t colon = spec.find(':');
	const std::string_view name = spec.substr(0, colon);
	const std::string arg = colon == std::string_view::npos ? "" : std::string(spec.substr(colon + 1));
	std::string known;
	for (const RouterEntry &e : entries()) {
		const bool wants_arg = e.info.argument[0] != '\0';
		known += cat(known.empty() ? "" : ", ", e.info.name, wants_arg ? ":" : "",
			     e.info.argument);
		if (name != e.info.name)
			continue;
		if (wants_arg && arg.empty())
			fail(Status::invalid, "routing \"", spec, "\": expected ", e.info.name, ":",
			     e.info.argument);
		if (!wants_arg && colon != std::string_view::npos)
			fail(Status::invalid, "routing \"", spec, "\": ", e.info.name,
			     " takes no argument");
		return e.make(fabric, tree, arg);
	}
	fail(Status::invalid, "routing \"", spec, "\": expected one of ", known);
}

std::vector<HostOrd> shared_down_destinations(const Fabric &f, const Router &r)
{
	std::vector<HostOrd> all(f.hosts().size());
	for (HostOrd h = 0; h < all.size(); h++)
		all[h] = h;
	return shared_down_destinations(f, r, all);
}

std::vector<HostOrd> shared_down_destinations(const Fabric &f, const Router &r,
					      const std::vector<HostOrd> &among)
{
	const size_t n = f.hosts().size();
	constexpr uint32_t kFree = UINT32_MAX;
	// owner: the first destination down a link; seen: the last one that
	// listed it in its own down[] (each destination lists its links once,
	// the owner and every later one alike, so both ends of a share count).
	std::vector<uint32_t> owner(f.port_count(), kFree), seen(f.port_count(), kFree);
	std::vector<bool> shared(f.port_count(), false);
	std::vector<std::vector<PortIdx>> down(n);
	PortIdx path[kMaxPathLinks];
	for (HostOrd d : among)
		for (HostOrd s : among) {
			const unsigned len = r.path(s, d, 0, path);
			for (unsigned k = 0; k < len; k++) {
				const PortIdx l = path[k];
				const Node &to = f.node(f.port(f.port(l).peer).node);
				if (f.node(f.port(l).node).level <= to.level &&
				    to.type != NodeType::host)
					continue;
				if (seen[l] != d) {
					seen[l] = uint32_t(d);
					down[d].push_back(l);
				}
				if (owner[l] == kFree)
					owner[l] = uint32_t(d);
				else if (owner[l] != d)
					shared[l] = true;
			}
		}
	std::vector<HostOrd> out;
	for (HostOrd d : among)
		for (PortIdx l : down[d])
			if (shared[l]) {
				out.push_back(d);
				break;
			}
	return out;
}

} // namespace qft
