// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/model/model.hpp"

#include "lib/common/error.hpp"
#include "lib/fabric/fabric_json.hpp"

namespace qft {

Model::Model(Fabric fabric) : fabric_(std::move(fabric))
{
	if (fabric_.tree_tuple().empty())
		return;
	tree_.emplace(Tree::from_fabric(fabric_));
	set_routing("dmodk");
}

Model::Model(Fabric fabric, std::string_view routing) : Model(std::move(fabric))
{
	if (!routing.empty() && routing != routing_)
		set_routing(routing);
}

std::unique_ptr<Model> Model::load(const std::string &path, std::string_view routing)
{
	std::unique_ptr<Model> m;
	naming_origin(path, [&] { m = std::make_unique<Model>(fabric_load_json(path)); });
	if (!routing.empty() && routing != m->routing())
		m->set_routing(routing); // its errors name its own file
	return m;
}

Fabric &Model::edit_fabric()
{
	router_.reset();
	routing_.clear();
	return fabric_;
}

const Tree &Model::need_tree() const
{
	if (!tree_)
		fail(Status::invalid, "the fabric has no recognised tree");
	return *tree_;
}

const Router &Model::router() const
{
	if (!router_)
		fail(Status::invalid, "the fabric has no routing",
		     tree_ ? "" : " (no recognised tree for dmodk; give lft:FILE)");
	return *router_;
}

void Model::set_routing(std::string_view spec)
{
	std::unique_ptr<Router> r = make_router(spec, fabric_, tree());
	router_ = std::move(r);
	routing_ = std::string(spec);
}

} // namespace qft
