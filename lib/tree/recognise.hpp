// SPDX-License-Identifier: GPL-2.0-or-later
// Recognition: from a fabric graph alone (no tuple given), its PGFT tuple
// and the position of every switch and host, written into the fabric's
// tree annotation so that the closed-form routing applies.
//
// Levels: hosts are 0, a switch with a host is a leaf (1), the others are
// one more than their nearest leaf (breadth first). A level-l subtree is a
// connected component of the nodes of levels <= l. The tuple: m_l = most
// level-(l-1) subtrees in one level-l subtree, w_l = most level-l
// neighbours of one level-(l-1) switch, p_l = most cables to one of them.
// Digits: a_l orders the child subtrees by the port a reference switch (the
// smallest GUID of the subtree) reaches them on; b_l orders the parents of
// equal route position by the port a reference child reaches them on. For
// a fabric cabled as seed 000 IV-B numbers ports (qft gen), this gives
// back the generator's numbering exactly.
//
// QFT (lib/tree/qft_wiring.hpp, docs/qft.md "Recognition"): a graph that is
// no PGFT is read as the QFT of a PGFT tuple. Its level-l subtrees are QFT
// sub-trees, p'_l PGFT subtrees wide (p'_l = p_l on a side-linked level,
// else 1); the tuple follows from counts (switches and hosts per sub-tree,
// distinct parents and cables per parent); child sub-trees are ordered by
// a reference switch's down-ports as above. Side-linked switches of equal
// digits but digit l+1 within its group ("twins") have the same
// neighbours: which twin is which is a free choice (an automorphism), made
// by the port order of a reference child, which gives the generator's
// numbering back for a fabric cabled as `qft gen qft` cables it. Rule: a
// graph both readings fit is a PGFT; that happens exactly when no level
// below the top has p_l > 1 (then the QFT is the PGFT: same cables).
//
// Not handled: hosts with cables to several leaf switches (w_1 > 1; on a
// QFT, hosts cabled to the p_1 leaves of their group are handled), and a
// leaf switch that lost every host (it would look like an upper level).
#ifndef QFT_TREE_RECOGNISE_HPP
#define QFT_TREE_RECOGNISE_HPP

#include <string>
#include <vector>

#include "lib/fabric/fabric.hpp"
#include "lib/tree/pgft.hpp"

namespace qft {

struct RecognisedCable { // a cable the tuple has and the fabric lacks
	NodeId lower, upper; // upper is kNone when that switch is missing too
	unsigned level;      // of the lower node
	unsigned up_port;    // q at the lower node, seed 000 IV-B
	std::string text;    // "L1 0.3 "desc" 0x.. up-port 4 -> L2 1.0 "desc" 0x.."
};

struct Recognition {
	explicit Recognition(Pgft g) : pgft(std::move(g)) {}
	Pgft pgft;                              // on a QFT, the PGFT it is derived from
	TreeKind kind = TreeKind::pgft;
	std::vector<size_t> nodes_per_level;    // present
	std::vector<uint64_t> slots_per_level;  // the tuple's
	std::vector<RecognisedCable> missing_cables;
	std::vector<std::string> missing_switches; // positions without a switch
	std::vector<NodeId> detached;  // nodes with no place: no cable, no tree
	uint64_t absent_hosts = 0;     // empty host positions (partial leaves)
	std::vector<std::string> detached_text;
};

// Annotates `fabric` (levels, indices, tuple, kind) and returns what it
// found. Throws Error(invalid) "not a fat tree: ..." naming the nodes and
// cables that make the graph no PGFT (followed by why it is no QFT either
// when it looked like one); the fabric is then left unannotated.
Recognition recognise(Fabric &fabric);

// Human and JSON reports of a recognition.
std::string recognition_text(const Fabric &fabric, const Recognition &r);
std::string recognition_json(const Fabric &fabric, const Recognition &r);

} // namespace qft

#endif
