// SPDX-License-Identifier: GPL-2.0-or-later
// The root of the routing core: a fabric, its recognised PGFT tree (when
// the fabric has one) and the routing that runs on it, built in one place
// for the C API (and so the plugins), the qft tool, the benchmarks and the
// tests. Everything downstream (score, place) borrows from a Model.
#ifndef QFT_MODEL_MODEL_HPP
#define QFT_MODEL_MODEL_HPP

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "lib/fabric/fabric.hpp"
#include "lib/route/router.hpp"
#include "lib/tree/tree.hpp"

namespace qft {

// Not movable: the tree and the router point into the fabric. Hold it by
// unique_ptr.
class Model {
public:
	// Takes the fabric and builds its tree when it has a tuple. With no
	// routing named, a fabric with a tree routes by "dmodk", one without
	// has no routing until set_routing().
	explicit Model(Fabric fabric);
	Model(Fabric fabric, std::string_view routing);
	Model(const Model &) = delete;
	Model &operator=(const Model &) = delete;

	// A fabric JSON file, routed by `routing` ("": as the constructor
	// says). Every error names the file.
	static std::unique_ptr<Model> load(const std::string &path, std::string_view routing = "");

	const Fabric &fabric() const { return fabric_; }
	// The fabric to change (its LMC, say): the routing is dropped, set it
	// again afterwards.
	Fabric &edit_fabric();
	const Tree *tree() const { return tree_ ? &*tree_ : nullptr; }
	// The tree; Error(invalid) when the fabric has none.
	const Tree &need_tree() const;
	bool routed() const { return router_ != nullptr; }
	// The routing; Error(invalid) when there is none.
	const Router &router() const;
	// Its spec, as set_routing() took it ("dmodk", "lft:/path"); "" if none.
	const std::string &routing() const { return routing_; }
	// Replaces the routing by the one `spec` names (make_router). Whatever
	// borrowed the old one (a Placer) must be gone. On error the old one
	// stays.
	void set_routing(std::string_view spec);

private:
	Fabric fabric_;
	std::optional<Tree> tree_;
	std::unique_ptr<Router> router_;
	std::string routing_;
};

} // namespace qft

#endif
