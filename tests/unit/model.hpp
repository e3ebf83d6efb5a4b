// SPDX-License-Identifier: GPL-2.0-or-later
// The model a unit test works on (lib/model), with plain members for what
// the tests read: fabric, *tree, *router.
#ifndef QFT_TESTS_UNIT_MODEL_HPP
#define QFT_TESTS_UNIT_MODEL_HPP

#include <memory>

#include "lib/model/model.hpp"
#include "lib/tree/generate.hpp"

namespace qft::test {

struct Modelled {
	std::unique_ptr<Model> model;
	const Fabric &fabric;
	const Tree *tree;
	const Router *router; // set_routing() replaces it: reassign

	explicit Modelled(Fabric f)
		: model(std::make_unique<Model>(std::move(f))), fabric(model->fabric()),
		  tree(model->tree()), router(&model->router())
	{
	}
	// PGFT `tuple` as qft gen makes it.
	static Fabric generated(const char *tuple, unsigned lmc = 0)
	{
		GenOptions opt;
		opt.lmc = lmc;
		return generate_pgft(Pgft::parse(tuple), opt);
	}
};

} // namespace qft::test

#endif
