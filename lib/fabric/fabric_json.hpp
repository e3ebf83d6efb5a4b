// SPDX-License-Identifier: GPL-2.0-or-later
// Fabric JSON, schema "slurm-qft-fabric" version 1 (docs/fabric-json.md):
//
//   { "format": "slurm-qft-fabric", "version": 1, "lmc": 0,
//     "tree": "3;18,18,6;1,18,6;1,1,3",            (optional)
//     "switches": [ {"guid": "0x..", "desc": "..", "lid": 7, "ports": 36,
//                    "level": 1, "index": 0} ],      (level/index optional)
//     "hosts":    [ {"guid": "0x..", "desc": "..", "name": "n0001",
//                    "ports": 1, "lid": 4, "level": 0, "index": 0} ],
//     "links":    [ ["0x..", 37, "0x..", 1, "4x", "HDR"] ] }
//
// A link names both ends by node GUID and IB port number. Errors name the
// file and either the line/column (syntax) or the JSON path (meaning).
#ifndef QFT_FABRIC_FABRIC_JSON_HPP
#define QFT_FABRIC_FABRIC_JSON_HPP

#include <string>

#include "lib/fabric/fabric.hpp"

namespace qft {

constexpr int kFabricJsonVersion = 1;

Fabric fabric_load_json(const std::string &path);
Fabric fabric_parse_json(const std::string &text, const std::string &origin);
void fabric_save_json(const Fabric &fabric, const std::string &path);
std::string fabric_to_json(const Fabric &fabric);

} // namespace qft

#endif
