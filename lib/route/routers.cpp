// SPDX-License-Identifier: GPL-2.0-or-later
// The table of routings, by name. A new routing adds one row here, its
// test, and its line in qft(1).
#include <functional>

#include "lib/common/error.hpp"
#include "lib/route/dmodk.hpp"
#include "lib/route/router.hpp"

namespace qft {

void Router::add_loads(const Flow *flows, size_t n, uint32_t *load) const
{
	PortIdx links[kMaxPathLinks];
	for (size_t i = 0; i < n; i++) {
		unsigned len = path(flows[i].src, flows[i].dst, flows[i].offset, links);
		for (unsigned k = 0; k < len; k++)
			load[links[k]]++;
	}
}

namespace {

struct RouterEntry {
	const char *name;
	const char *summary;
	std::function<std::unique_ptr<Router>(const Fabric &, const Tree *)> make;
};

const RouterEntry kRouters[] = {
	{"dmodk", "closed-form D-Mod-K on the recognised PGFT (seed 000 eq. 1)",
	 [](const Fabric &f, const Tree *t) -> std::unique_ptr<Router> {
		 if (!t)
			 fail(Status::invalid, "routing dmodk needs the fabric's PGFT tree");
		 return std::make_unique<DModK>(f, *t);
	 }},
};

} // namespace

std::unique_ptr<Router> make_router(std::string_view name, const Fabric &fabric,
				    const Tree *tree)
{
	std::string known;
	for (const RouterEntry &e : kRouters) {
		if (name == e.name)
			return e.make(fabric, tree);
		known += cat(known.empty() ? "" : ", ", e.name);
	}
	fail(Status::invalid, "routing \"", name, "\": expected one of ", known);
}

} // namespace qft
