// SPDX-License-Identifier: GPL-2.0-or-later
// ibsim's net file: the same fabric, simulated by ibsim so that the real
// ibnetdiscover, opensm and ibroute can run on it. GUIDs are pinned with
// switchguid=/caguid= lines so discovery gives back the fabric's GUIDs, and
// the node description travels as ibsim's '# "desc"' comment.
#ifndef QFT_FABRIC_IBSIM_NET_HPP
#define QFT_FABRIC_IBSIM_NET_HPP

#include <ostream>
#include <string>

#include "lib/fabric/fabric.hpp"

namespace qft {

void write_ibsim_net(const Fabric &fabric, std::ostream &out);
void save_ibsim_net(const Fabric &fabric, const std::string &path);

} // namespace qft

#endif
