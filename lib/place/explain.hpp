// SPDX-License-Identifier: GPL-2.0-or-later
// Why a placement was chosen: the candidates the placer scored, a line each,
// best first. One text for `qft place --explain` and slurmctld's log
// (DebugFlags=SelectType), so a decision replayed with the tool reads the
// same as the one the plugin logged.
#ifndef QFT_PLACE_EXPLAIN_HPP
#define QFT_PLACE_EXPLAIN_HPP

#include <string>

#include "lib/place/placement.hpp"

namespace qft {

// "  LABEL  HSD 1.000 (alone 1.000), 42 free left\n" per candidate of
// placement.considered, with the path pressure first when the placer
// ranked by it; empty when it holds none.
std::string explain(const Placement &placement);

} // namespace qft

#endif
