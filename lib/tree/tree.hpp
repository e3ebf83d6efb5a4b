// SPDX-License-Identifier: GPL-2.0-or-later
// The tree view of a fabric: which fabric node sits at each PGFT position,
// and which fabric port is up-port q of each node (seed 000 IV-B numbering).
// Built from the tree annotations a fabric carries (Node::level and
// tree_index, Fabric::tree_tuple), whether the generator wrote them or the
// recognition derived them from a discovered graph.
//
// A fabric whose tree kind is qft (Fabric::tree_kind()) is the Quasi Fat
// Tree of its tuple (lib/tree/qft_wiring.hpp): the same positions, and on
// side-linked levels up-port q = b_{l+1} + k w_{l+1} leads to the parent
// whose digit l+2 is k-th of the lower node's group (k = b_{l+2} mod
// p_{l+1}) instead of over the k-th parallel cable.
#ifndef QFT_TREE_TREE_HPP
#define QFT_TREE_TREE_HPP

#include <cstdint>
#include <string>
#include <vector>

#include "lib/fabric/fabric.hpp"
#include "lib/tree/pgft.hpp"

namespace qft {

// A cable the PGFT has and the fabric lacks, named by its lower end.
struct MissingCable {
	unsigned level;     // of the lower node
	uint64_t index;     // of the lower node within its level
	unsigned up_port;   // q, seed 000 IV-B
};

class Tree {
public:
	// Throws Error(invalid) naming the node when the annotation is
	// inconsistent: a position outside the tuple, two nodes at one
	// position, a cable that breaks the PGFT (or QFT) connection rule or
	// more parallel cables than p_l (on a QFT's side-linked level, more
	// than one); for a QFT, also a tuple check_qft() refuses.
	static Tree from_fabric(const Fabric &fabric);

	// The tuple; on a QFT, the PGFT it is derived from.
	const Pgft &pgft() const { return pgft_; }
	TreeKind kind() const { return kind_; }
	bool qft() const { return kind_ == TreeKind::qft; }
	// Hosts one level-l sub-tree spans (what a level-l switch reaches
	// downward): M_l on a PGFT, M_l p_l on a QFT's side-linked level.
	uint64_t subtree_hosts(unsigned level) const;
	NodeId node_at(unsigned level, uint64_t index) const
	{
		return nodes_[level][index];
	}
	// Fabric port that is up-port q of node `index` at `level`; kNone if
	// that cable is missing.
	PortIdx up_port(unsigned level, uint64_t index, unsigned q) const
	{
		return up_[level][index * pgft_.up_ports(level) + q];
	}
	// The same, addressed by slot = index * up_ports(level) + q.
	const PortIdx &up_slot(unsigned level, uint64_t slot) const
	{
		return up_[level][slot];
	}
	// Tree index j of a fabric host, or kNone when it has no position.
	uint64_t host_index(HostOrd h) const { return host_index_[h]; }
	// Whether host h has a tree position and a cable up to a leaf: the
	// others are cut off (the router has no path to or from them).
	bool host_attached(HostOrd h) const;
	// The attached hosts, by ordinal.
	std::vector<HostOrd> attached_hosts() const;
	const std::vector<MissingCable> &missing() const { return missing_; }
	// Hosts of the tuple that the fabric does not have.
	uint64_t absent_hosts() const { return absent_hosts_; }

	// "L2 3.0.1": level and digits a_h..a_1, for messages.
	std::string position_label(unsigned level, uint64_t index) const;

private:
	Tree(Pgft p, TreeKind kind) : pgft_(std::move(p)), kind_(kind) {}

	Pgft pgft_;
	TreeKind kind_;
	std::vector<std::vector<NodeId>> nodes_;
	std::vector<std::vector<PortIdx>> up_;
	std::vector<uint64_t> host_index_;
	std::vector<MissingCable> missing_;
	uint64_t absent_hosts_ = 0;
};

// Findings of a load, a line each: every host without a tree position
// (its cable cut), named, which the placer never picks and the router
// reports unroutable. `origin` names the file.
// Cables of the tuple the fabric lacks, a line each, naming the lower
// node (a host by its name) and its up-port.
std::string missing_cables_report(const Fabric &fabric, const Tree &tree,
				  const std::string &origin);
std::string unplaced_hosts_report(const Fabric &fabric, const Tree &tree,
				  const std::string &origin);

} // namespace qft

#endif
