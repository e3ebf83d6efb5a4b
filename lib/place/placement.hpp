// SPDX-License-Identifier: GPL-2.0-or-later
// Placement: which hosts a job of N nodes gets.
//
// Seed 000 V-B: D-Mod-K keeps Shift (and every unidirectional collective)
// congestion-free on any set of N = i prod_k w_k hosts contiguous in tree
// order. Inside one level-l subtree only levels <= l carry the job's
// traffic, so blocks of W_l = prod_{k<=l} w_k hosts suffice there.
// Measured exception (docs/sim.md, run 4): with parallel links above
// (p_l > 1) runs of an odd number (>= 5) of blocks congest; seed 000
// lemma 3 wants N / W_{l-1} to be a multiple of w_l p_l. The prediction
// reports it; the block is not widened yet.
//
// With products on (Shapes=products), the placer first looks for product
// shapes (docs/product-shapes.md, lib/place/products.cpp): congestion-free
// for the Shift family, and link-disjoint from every other product, for
// far more sizes than blocks. Then N <= 2 m_1 hosts in two leaves of one
// level-2 subtree (congestion-free when U_1 = M_1), then near products if
// asked (round_up). Without any, and always with products off, it looks in
// the smallest level l whose subtrees can hold N, for runs of free aligned
// blocks of W_l hosts in one subtree (contiguous first, then scattered
// whole blocks), falls back level by level, and last to a
// best fit down the tree (whole free subtrees that fit, the rest in the
// subtree with the fewest free hosts that holds it, as cons_tres does with
// Slurm's switches). Candidates are ranked by the congestion the
// routing gives them (a sample of Shift stages, each link's load plus the
// busiest load the running jobs put on it; with LID offsets and
// PathPressure=yes, after the path pressure, lib/place/pressure.hpp),
// then by the switch links they
// would share with the running jobs (lib/place/links.hpp), then by best fit
// (the fewest free hosts left in the subtree), then by position.
//
// On a QFT (issue 14) the subtrees are QFT sub-trees (S_l = M_l p'_l
// hosts, Tree::subtree_hosts), a level-l block is a whole level-(l-1) QFT
// sub-tree, and products are read in the QFT's digits (radix()), under
// which the QFT routing keeps them congestion-free and link-disjoint
// (lib/place/qft_runs.hpp).
//
// N not a multiple of W_l: Remainder::exact gives N hosts (q whole blocks
// and r hosts of one more block); Remainder::reserve keeps the rest of that
// block away from every other job while this one runs.
//
// Answers: placed; not_now (no candidate among the hosts free now); never
// (the eligible hosts, busy or not, are fewer than N or cannot include the
// required ones).
#ifndef QFT_PLACE_PLACEMENT_HPP
#define QFT_PLACE_PLACEMENT_HPP

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/fabric/fabric.hpp"
#include "lib/place/links.hpp"
#include "lib/place/pressure.hpp"
#include "lib/route/router.hpp"
#include "lib/score/stages.hpp"
#include "lib/traffic/pattern.hpp"
#include "lib/tree/tree.hpp"

namespace qft {

enum class Remainder { exact, reserve };

// Routed flows one call may play: place() (shared among the candidates it
// scores), add_running() and predict() each. slurmctld calls them under
// its write locks (job_test, job_begin); a routed flow with its link
// bookkeeping costs 30-40 ns on one core, and add_running() of 2^15 flows
// took 1.25 ms for a 4536-node job at 4536 hosts (make bench), whatever
// the job's size. Every call plays at least one whole stage.
constexpr size_t kFlowBudget = size_t(1) << 15;

struct PlacementPolicy {
	Remainder remainder = Remainder::exact;
	std::string pattern = "shift";  // what the score plays
	size_t sample_stages = 32;      // stages of it scored per candidate, at most
	bool rank_by_congestion = true; // false: best fit only
	size_t max_candidates = 16;     // scored per level
	size_t flow_budget = kFlowBudget; // SIZE_MAX: no bound
	// Product shapes first (lib/place/products.cpp), then N <= 2 m_1
	// hosts in two leaves (qft.conf Shapes=products); false: blocks only.
	// Off by default: more jobs are congestion-free with it, but the jobs
	// that find no shape congest more, and under qft-sim's runtime model
	// jobs ran slower on average (docs/sim.md, run 8).
	bool products = false;
	// With products: a size with no free product may take the first N
	// hosts of a free product of up to N + round_up% hosts (a near
	// product): its links are the product's, which no other product
	// uses; under Remainder::reserve the rest of that product stays idle
	// while it runs. 0: no near products.
	uint32_t round_up = 0;
	// Jobs may take LID offsets (LMC > 0 and a LID choice): isolation
	// then keeps whole subtrees apart (LinkUse every_key), since an offset
	// may move a flow to any up-link of the subtree it leaves; false: the
	// links D-Mod-K names, where the routing is D-Mod-K.
	bool lid_offsets = false;
	// With lid_offsets: rank candidates by the path pressure they meet
	// (lib/place/pressure.hpp) before the congestion score, which plays
	// base LIDs only, and give each best fit a second candidate in the
	// quietest subtrees (qft.conf PathPressure=yes). Off by default.
	bool path_pressure = false;
	// With lid_offsets: rank candidates by the leaves they take in part
	// (fewest first) right after the path pressure, and offer beside
	// each level's best fits one of whole free leaves (lib/place/
	// leaves.cpp; qft.conf WholeLeaves=yes). Off by default: under the
	// runtime model it changed no figure beyond the noise (docs/sim.md
	// run 38).
	bool whole_leaves = false;
};

// A job's predicted congestion alone (seed 000 section VII: the average
// over stages of the stage HSD), over the stages actually played: with a
// flow budget, `stages_played` evenly spread ones of the pattern's
// `stages_total`. A job of one host has no stage: 1.0 over 0 of 0.
struct Prediction {
	double avg_hsd = 1.0;
	uint32_t max_hsd = 1;
	size_t stages_played = 0;
	size_t stages_total = 0;
};

struct PlacementRequest {
	uint32_t nodes = 0;
	// With products: a product of any size in [nodes_min, nodes] beats
	// anything else (the largest found); 0: nodes. A job's node range.
	uint32_t nodes_min = 0;
	std::vector<bool> eligible;     // by host ordinal: may ever run the job
	std::vector<bool> busy;         // by host ordinal: held now (besides
					// what the placer's running jobs hold)
	std::vector<bool> shared;       // by host ordinal: held by running jobs
					// yet with room for this job beside
					// them (shared nodes); empty: none
	std::vector<HostOrd> required;  // must be among the hosts
	// --qft-isolate: share no switch link with any running job (see
	// Placer::isolate_running); a candidate that would is dropped, and
	// with none left the job is not placed now.
	bool isolate = false;
	// Running jobs taken as ended: their hosts free, their links unused
	// (backfill's plan at a later time: the jobs whose nodes it offers).
	std::vector<uint32_t> ended;
};

// What a candidate is, from the most to the least congestion-free.
enum class PlacementKind {
	product,    // a product shape S_h x .. x S_1 (lib/place/products.cpp)
	near_product, // the first N hosts of a product of a few more
	two_leaves, // no product: N <= 2 m_1 hosts in two leaves, congestion-free on an RLFT
	aligned,    // whole aligned blocks of W_l hosts (N = i W_l)
	unaligned,  // aligned blocks, the last one partial (N not a multiple)
	best_fit,   // no aligned block was free: a best fit down one subtree
	tree_order, // the required hosts, then any free hosts in tree order
};
// "product", "near_product", "aligned", ...: the words of
// QFT_PLACEMENT_KIND and of the simulator's report.
const char *placement_kind_name(PlacementKind kind);

struct Candidate {
	std::vector<HostOrd> hosts; // in tree order
	PlacementKind kind = PlacementKind::tree_order;
	unsigned level = 0;         // subtree level; 0: tree_order
	uint64_t subtree = 0;
	uint64_t block = 0;         // block_hosts(level) (lib/place/qft_runs.hpp)
	std::vector<uint64_t> blocks; // block indexes within the subtree
	bool contiguous = false;
	std::string shape;          // product: "6x7x18", top level first;
				    // near product: "7x14-1" (one host short)
	// Provably HSD 1.0 for Shift (and ring, dissemination, tournament,
	// binomial) in tree order: routed by D-Mod-K, over no missing cable,
	// and the host set passes lib/place/shape.hpp's exact test; on a
	// complete QFT routed by its closed form, a QFT-aligned run
	// (lib/place/qft_runs.hpp: checked exhaustively, not proven). Set for
	// the chosen candidate only.
	bool congestion_free = false;
	// With LID offsets (PlacementPolicy::lid_offsets): whole leaves of one
	// level-2 subtree (aligned or unaligned blocks of a leaf's hosts),
	// which the pair choice made congestion-free at the start for 86 of
	// 92 jobs of 19-64 nodes and 67 of 80 of 65-256, against 26 of 81 and
	// 4 of 98 across pods (docs/lid-offsets.md "Placing for the
	// offsets"): a Shift stage there is a bipartite multigraph between
	// leaves of degree <= m_1, which a list edge colouring routes free
	// when the offsets reach as many up-links (Galvin). Not a proof: the
	// offsets may reach fewer (2^LMC < w_2 p_2). What ShapeWait= waits
	// for at LMC > 0 beside the proven shapes; set for the chosen
	// candidate and shape_ahead()'s.
	bool offset_shape = false;
	double hsd = 0;             // sampled, with the running jobs' loads
	double hsd_alone = 0;
	uint64_t free_left = 0;     // free hosts left in the subtree
	// Switch links that running jobs use too (lib/place/links.hpp; 0
	// when the routing is not D-Mod-K, whose link names it counts).
	size_t shared = 0;
	// With PlacementPolicy::path_pressure: the running jobs' traffic its
	// flows meet out of the subtrees it spans (lib/place/pressure.hpp),
	// and whether a best fit took the quietest subtrees, not the tightest.
	double pressure = 0;
	bool quiet = false;
	// With PlacementPolicy::whole_leaves: leaves it takes some but not
	// all hosts of, and whether it is the best fit of whole free leaves.
	size_t partial_leaves = 0;
	bool whole_leaves = false;
	std::string label() const;  // "L2-3 blocks 4-5 of 18 (aligned)"
};

struct Placement {
	enum Outcome { placed, not_now, never } outcome = never;
	Candidate chosen;
	std::vector<Candidate> considered; // scored, best first
	bool by_pressure = false;          // ranked by path pressure first
	bool by_leaves = false;            // by the leaves taken in part (whole_leaves)
	std::string reason;                // for not_now / never
};

// Not thread-safe (a scratch buffer serves every scoring): slurmctld calls
// select plugins under its own locks, one at a time.
class Placer {
public:
	// Borrows fabric, tree and router; they must outlive the placer.
	Placer(const Fabric &fabric, const Tree &tree, const Router &router,
	       PlacementPolicy policy);
	~Placer();

	Placement place(const PlacementRequest &req) const;

	// The earliest congestion-free placement ahead (qft.conf ShapeWait=,
	// docs/product-shapes.md section 11): free_at[h] is when host h is
	// free, in seconds from now (0: now; +inf: not within reach; the
	// running jobs' end times), req.busy and the running jobs' holds are
	// not looked at. Answers the earliest distinct time up to `horizon` at
	// which the hosts free by then hold a product, two leaves or aligned
	// blocks that prove congestion-free (unscored: only whether and
	// where), by a binary search over the times (lib/place/ahead.cpp).
	// With LID offsets, whole leaves of one level-2 subtree count too
	// (Candidate::offset_shape).
	// Costs about log2(times) + 1 product searches, no traffic played.
	struct Ahead {
		double at = 0;   // seconds from now
		Candidate chosen;
	};
	std::optional<Ahead> shape_ahead(const PlacementRequest &req,
					 const std::vector<double> &free_at, double horizon) const;

	// Running jobs: their hosts (rank order) and, under Remainder::reserve,
	// the whole blocks they keep. Adding a known id replaces it.
	void add_running(uint32_t job_id, const std::vector<HostOrd> &hosts);
	void remove_running(uint32_t job_id);
	size_t running() const { return jobs_.size(); }
	// A running job that shares no switch link with any other while it
	// runs (--qft-isolate, issue 33): no later placement takes its hosts
	// (shared nodes included) or a link of it; a request with `isolate`
	// also keeps off every other running job's links. Links: every link
	// of the subtrees a job spans out of under policy lid_offsets or a
	// routing other than D-Mod-K, else D-Mod-K's (lib/place/links.hpp).
	// Kept when add_running() replaces the job; false for an unknown id.
	bool isolate_running(uint32_t job_id, bool isolated);
	size_t isolated() const { return isolated_count_; }
	bool holds(HostOrd h) const { return holder_[h] != 0; }

	// Isolation for hosts chosen elsewhere: cons_tres's choice for a job
	// the placer cannot size (GRES, sockets, nodes that differ), which
	// select/rlft restricts to a subtree apart (lib/place/apart.cpp).
	// Whether a job on `hosts` shares no host and no switch link with an
	// isolated job, and with `from_every` no link with any running job.
	bool hosts_apart(const std::vector<HostOrd> &hosts, bool from_every) const;
	// The subtree at the smallest level above `after` (0: from the
	// leaves) with at least `min_hosts` eligible hosts and no host of an
	// isolated job (`from_every`: of any running job), the fewest eligible
	// hosts first; its eligible hosts into `out`. A job inside one subtree
	// crosses only its links, and no flow between hosts outside it uses
	// them (up/down routing stays below the ends' common ancestor). On a
	// QFT or a tree with missing cables only leaves (a detour may leave a
	// larger subtree). Returns its level, 0 when there is none.
	unsigned subtree_apart(const std::vector<uint8_t> &eligible, uint32_t min_hosts,
			       bool from_every, unsigned after, std::vector<HostOrd> &out) const;

	// Sampled HSD of a host set in the given rank order: alone, and with
	// the running jobs' loads; at most sample_stages stages and `flows`
	// routed flows (at least one stage). The first form: the whole budget.
	std::pair<double, double> score(const std::vector<HostOrd> &ranks) const;
	std::pair<double, double> score(const std::vector<HostOrd> &ranks, size_t flows) const;

	// The prediction a job is told: every stage of the pattern, or as many
	// evenly spread ones as kPredictStages and the flow budget allow.
	// add_running() computes the same figures for the job it adds; the
	// same ranks predicted right after it cost no replay.
	static constexpr size_t kPredictStages = 1024;
	Prediction predict(const std::vector<HostOrd> &ranks) const;

	const PlacementPolicy &policy() const { return policy_; }
	// Candidates ranked by path pressure first (policy path_pressure, and
	// offsets to move flows with).
	bool ranks_by_pressure() const
	{
		return policy_.path_pressure && policy_.lid_offsets && policy_.rank_by_congestion;
	}
	// Candidates ranked by the leaves they take in part (policy
	// whole_leaves, with offsets).
	bool ranks_by_leaves() const
	{
		return policy_.whole_leaves && policy_.lid_offsets && policy_.rank_by_congestion;
	}
	// What the placer plays, and on what: for lib/lid's choice of a
	// placed job's LIDs, judged on the prediction's stages.
	const Pattern &pattern() const { return *pattern_; }
	const Router &router() const { return router_; }
	const Tree &tree() const { return tree_; }
	size_t predict_stages(size_t n) const
	{
		return stages_for(n, kPredictStages, policy_.flow_budget);
	}

private:
	struct RunningJob {
		std::vector<HostOrd> hosts, reserved;
		std::vector<uint64_t> placed; // tree indexes of its hosts in the tree
		std::vector<std::pair<PortIdx, uint32_t>> peak; // link, busiest stage load
		Prediction alone; // what predict() gives its hosts
		bool isolated = false;
	};
	// Stages to play for n ranks: the pattern's, at most `cap` and what
	// `flows` routed flows allow (a stage routes at most n flows in every
	// pattern of lib/traffic), at least one if the pattern has any.
	size_t stages_for(size_t n, size_t cap, size_t flows) const;
	// Plays the prediction's stages of `hosts`: their figures, and into
	// `peak` each link's busiest load. `peak` may be null (predict()).
	Prediction play_peaks(const std::vector<HostOrd> &hosts,
			      std::vector<std::pair<PortIdx, uint32_t>> *peak) const;
	// Free and present hosts before each tree index (prefix sums), so
	// that any block's or subtree's counts cost two lookups.
	struct Counts {
		std::vector<uint32_t> free, present;
		uint32_t free_in(uint64_t a, uint64_t b) const { return free[b] - free[a]; }
		uint32_t present_in(uint64_t a, uint64_t b) const { return present[b] - present[a]; }
	};
	// One decision: the request, the hosts free for it, their counts.
	struct Search {
		const PlacementRequest &req;
		std::vector<bool> free; // by host ordinal
		Counts counts;          // by tree index
		bool has_required(const std::vector<HostOrd> &hosts) const;
		// isolation's link counts without req.ended's jobs; empty: the
		// placer's own (no job ended)
		std::optional<LinkUse> isolated_links, every_links;
		size_t isolated = 0; // isolated jobs still running
		// the path pressure without req.ended's jobs; empty: the
		// placer's own
		std::optional<PathPressure> pressure;
		const PathPressure &pressure_of(const Placer &p) const
		{
			return pressure ? *pressure : p.pressure_;
		}
	};
	// Digits of level l, for the product search and hulls: m_l on a PGFT,
	// S_l / S_{l-1} on a QFT (its level-(l-1) QFT sub-trees in a level-l
	// one; lib/place/qft_runs.hpp), so that products are the QFT's there.
	unsigned radix(unsigned l) const
	{
		return unsigned(tree_.subtree_hosts(l) / tree_.subtree_hosts(l - 1));
	}
	// The blocks of one level-l subtree (lib/place/qft_runs.hpp
	// block_hosts(): W_l hosts on a PGFT, whole level-(l-1) QFT sub-trees
	// in a level-l QFT sub-tree on a QFT), and how a job of n
	// hosts fills them: `full` whole blocks and `rest` hosts of one more.
	struct Blocks {
		Blocks(const Tree &t, unsigned lvl, uint64_t subtree, uint32_t n);
		std::pair<uint64_t, uint64_t> range(uint64_t b) const; // tree indexes
		unsigned level;
		uint64_t sub, w, m, hosts, per, full, rest, need;
	};
	// The request's Search, or nothing with `p` saying why it cannot be
	// placed (never / not_now).
	std::optional<Search> search_of(const PlacementRequest &req, Placement &p) const;
	// Fills s.counts from s.free and the request's eligible hosts.
	void count_free(Search &s) const;
	// The first congestion-free shape on s.free, proven, unscored; with
	// LID offsets an offset shape too (Candidate::offset_shape).
	std::optional<Candidate> first_shape(const Search &s) const;
	// Candidate::offset_shape's test: kind, level and block size only.
	bool offset_shape(const Candidate &c) const;
	// Level-l subtrees with at least N free hosts: (free hosts, subtree),
	// tightest first.
	std::vector<std::pair<uint32_t, uint64_t>> subtrees_holding(unsigned level,
								    const Search &s) const;
	// The candidate sources, in the order place() tries them.
	void product_candidates(const Search &s, const std::vector<uint64_t> &leaves, uint32_t n,
				std::vector<Candidate> &out) const;
	// Products of the largest size in the request's range that has one.
	void products_in_range(const Search &s, const std::vector<uint64_t> &leaves,
			       std::vector<Candidate> &out) const;
	void candidates_at(unsigned level, const Search &s, std::vector<Candidate> &out) const;
	void best_fit_at(unsigned level, const Search &s, std::vector<Candidate> &out) const;
	// A best fit's candidate of the level-l subtree: the hosts at tree
	// indexes `idx` (sorted here), in tree order.
	Candidate best_fit_of(unsigned level, uint64_t subtree, std::vector<uint64_t> &idx) const;
	// lib/place/leaves.cpp: the whole free leaves candidate of level l,
	// and the leaves a host set takes in part.
	void whole_leaves_at(unsigned level, const Search &s, std::vector<Candidate> &out) const;
	size_t partial_leaves(const std::vector<HostOrd> &hosts) const;
	Candidate tree_order_candidate(const Search &s) const;
	// Pieces of candidates_at(): whether block b can take its share (the
	// last one maybe partial), the candidate of blocks `bs`, contiguous
	// windows of blocks (how many), whole blocks scattered in the subtree.
	bool block_usable(const Search &s, const Blocks &bl, uint64_t b, bool last) const;
	bool block_candidate(const Search &s, const Blocks &bl, const std::vector<uint64_t> &bs,
			     bool contiguous, uint32_t free_total, std::vector<Candidate> &out) const;
	size_t windows_in(const Search &s, const Blocks &bl, uint32_t free_total,
			  std::vector<Candidate> &out) const;
	void scattered_in(const Search &s, const Blocks &bl, uint32_t free_total,
			  std::vector<Candidate> &out) const;
	// Pieces of product_candidates() (lib/place/products.cpp): the
	// factorisations of n over the levels (n_1 first in each), the digit
	// sets of a free product for one (bit d of sets[l-1]: digit d at
	// level l), and its candidate.
	std::vector<std::vector<uint32_t>> factorisations(uint32_t n) const;
	// Free positions per leaf, a bit each; none at all (no product or
	// two-leaf search) on a tree with a level of more than 64 children,
	// such as the 72-host leaves of 144-port switches: a mask is one word.
	std::vector<uint64_t> leaf_masks(const Search &s) const;
	bool product_for(const std::vector<uint64_t> &leaves, const std::vector<uint32_t> &n,
			 bool fragments_first, std::vector<uint64_t> &sets) const;
	// Sizes of a range tried for products, at most (largest first), and
	// factorisations of one size (the most hosts per leaf first).
	static constexpr uint32_t kRangeSizes = 32;
	static constexpr size_t kFactorisations = 12;
	// Subtrees searched per factorisation (the tightest first), and how
	// many that give a product are enough.
	static constexpr size_t kScopesSearched = 8, kScopesFound = 2;
	Candidate product_candidate(const Search &s, const std::vector<uint64_t> &sets) const;
	// N <= 2 m_1 hosts of two leaves (the pairs with the fewest free hosts
	// left first): any such set plays Shift without congestion on an RLFT.
	void two_leaf_candidates(const Search &s, const std::vector<uint64_t> &leaves,
				 std::vector<Candidate> &out) const;
	// Near products: the first `n` hosts of products of up to n + round_up%.
	void near_products(const Search &s, const std::vector<uint64_t> &leaves, uint32_t n,
			   std::vector<Candidate> &out) const;
	// Free hosts (tree indexes) of [lo, hi) for `need`, best fit down
	// the tree; the range must hold that many free hosts. With `quiet`,
	// the part no whole free subtree takes goes to the subtree of least
	// path pressure that holds it, not the tightest (where none holds
	// it, the least pressure per free host, not the most free hosts).
	void fill(uint64_t lo, uint64_t hi, uint64_t need, const Counts &counts,
		  std::vector<uint64_t> &out, const PathPressure *quiet = nullptr) const;
	std::vector<HostOrd> reserve_of(const std::vector<HostOrd> &hosts) const;
	// The smallest product holding `idx` (digits used at each level), if it
	// has at most round_up% more hosts: a near product's whole shape.
	std::vector<uint64_t> product_hull(const std::vector<uint64_t> &idx) const;
	std::vector<uint64_t> tree_indexes(const std::vector<HostOrd> &hosts) const;
	// Plays `stages` evenly spread stages of the pattern on `ranks`; for
	// each calls visit(loads). Costs the flows, not the fabric's size: a
	// placement scores tens of candidates per decision.
	template <typename Visit>
	void play(const std::vector<HostOrd> &ranks, size_t stages, Visit visit) const;
	// Sets the candidate's congestion_free (for the chosen one only: the
	// proof is O(h N s), and job_test runs it under slurmctld's locks)
	// and offset_shape.
	void prove(Candidate &c) const;
	// Keeps the best fitting max_candidates, scores them and drops the
	// unroutable ones (why: the first message).
	// Candidates that would break isolation go first, counted in *apart.
	void score_candidates(const Search &s, std::vector<Candidate> &cands, std::string &why,
			      size_t *apart) const;
	// Whether a candidate keeps isolation: off the isolated jobs' links
	// and, for an isolating request, off every running job's.
	bool keeps_apart(const Search &s, const Candidate &c) const;

	const Fabric &fabric_;
	const Tree &tree_;
	const Router &router_;
	PlacementPolicy policy_;
	std::unique_ptr<Pattern> pattern_;
	std::map<uint32_t, RunningJob> jobs_;
	uint32_t last_added_ = 0; // predict() reuses its figures
	std::vector<uint32_t> holder_;     // by host ordinal: running jobs holding or reserving it
	std::vector<uint32_t> background_; // by link: sum of the running jobs' peaks
	const bool link_names_;            // the routing is D-Mod-K: links_ names its links
	LinkUse links_;                    // switch links the running jobs use
	// Isolation's count of links (every_key unless D-Mod-K without
	// offsets): every running job's, and the isolated jobs' alone.
	LinkUse every_links_, isolated_links_;
	size_t isolated_count_ = 0;
	PathPressure pressure_; // the running jobs' traffic out of each subtree
	// Scratch of every play (slurmctld calls the placer under its locks,
	// one call at a time).
	mutable StagePlayer player_;
	mutable LinkPeaks peaks_;
	mutable Job scratch_job_;
};

} // namespace qft

#endif
