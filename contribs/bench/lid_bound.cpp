// SPDX-License-Identifier: GPL-2.0-or-later
// The exact optimum of the per-pair LID choice (lib/lid, LidMode::pair),
// stage by stage, against what the search reaches: is a stage it leaves at
// HSD 2 congestion-free with some choice of offsets, or is HSD 2 a real
// limit of the routing?
//
//   lid_bound FABRIC LMC HOSTS STAGES [--tmlim SEC] [--feas LIST] [--feas-all]
//             [--min needed|always|no] [--min-solver glpk|cbc] [--no-lp]
//             [--keep DIR] [--pattern SPEC] [--brute COMBINATIONS] [--no-implied]
//             [--beside KEPT]
//     FABRIC  a PGFT tuple ("3;18,18,6;1,18,6;1,1,3", generated as
//             `qft gen pgft` does) or a fabric JSON file (routed by D-Mod-K)
//     LMC     its LMC (2^LMC offsets)
//     HOSTS   the job: a Slurm host list, or @FILE of them; ranks in tree
//             order, as `qft score` orders them
//     STAGES  comma separated: a stage number (0-based: Shift's stage s
//             sends rank i to rank i+s+1), a range A-B, "all",
//             "sample:N" (N spread over the pattern), "hsd=V[:N]" (the
//             stages the search leaves at HSD V, N of them spread) or
//             "floor=free|proven|undecided[:N]" (the stages the search
//             routed free, proved congested, left congested unproven:
//             PairFloor, lib/lid/pair_search.hpp)
//     KEPT    --beside: running jobs, their pair offsets fixed, as `qft
//             score --lid-out` keeps them (lib/lid/kept.hpp), one job a
//             line, on other hosts than the job's
//
// Per stage, an integer program: x[f][k] = 1 when flow f (pattern.stage())
// takes offset k (its path router.path(src, dst, k)); sum_k x[f][k] = 1;
// on every directed link the flows crossing it <= H; minimise H. Exactly
// equivalent reductions, which keep the optimum: offsets of a flow whose
// paths are the same link set are one variable; a link every offset of a
// flow crosses counts that flow as a constant; a flow with one path is
// constant; H >= the largest constant load (lb0); a link that cannot carry
// more than lb0 flows has no row. Written as CPLEX LP files (or DIMACS CNF)
// in a temporary directory (--keep DIR: that one) and solved by:
//   lp    the LP relaxation, GLPK (glpsol --nomip): its optimum, whose
//         ceil bounds H from below;
//   feas  is H = 1 feasible? The solvers of --feas LIST in turn (default
//         "cadical,cbc,glpk") until one decides (--feas-all: every one, and
//         also when lb0 or the LP already refuted H = 1), each a proof
//         either way unless its time runs out:
//           glpk     glpsol's branch and bound, H fixed at 1 (--tmlim);
//           cbc      COIN-OR CBC's branch and bound, the same program;
//           cadical  the 0-1 program as CNF (a clause per flow: one of its
//                    paths; per link with a constant flow: none of the
//                    others; per link without: at most one, by a
//                    sequential counter; equisatisfiable, a flow that takes
//                    two paths can drop one), plus implied clauses where
//                    counting forces every link of a group (a switch's
//                    up- or down-links, the links into a switch from
//                    below or above, and the stage's classes: the links
//                    of one kind joined by the options of a flow,
//                    with_classes()) to carry one flow (tight_groups();
//                    --no-implied: none), CaDiCaL;
//           minisat  glpsol --minisat (GLPK's own CNF translation);
//   min   the integer optimum (--min-solver, branch and bound, --tmlim),
//         or the best integer value and the best bound when the time limit
//         stops it; "needed" (default): only when lp and feas leave a gap
//         below the search's HSD (the search's table is a solution).
// The solvers are Debian's glpk-utils, coinor-cbc and cadical, run as
// commands, each killed 30 s after --tmlim. Every solution a solver
// returns is routed again here and its HSD checked (a model error would
// show as a mismatch, "BAD"); solvers that disagree show as "CONFLICT".
// The search's HSD per stage: choose_lids(..., LidMode::pair) once on the
// whole job, scored by score_jobs (stage_hsd), its table routed again;
// with it, what the search proved of the stage ("floor": free, proven
// congested, undecided).
//
// --beside KEPT: the job as it starts beside running jobs (the simulator's
// question): the search chooses beside them (LidOptions::beside) and a
// stage's HSD is the busiest link any of the job's flows crosses, the
// running jobs' flows of the same stage counted (score_jobs' job_hsd, the
// figure `qft score --per-job` averages). That is 1 exactly when no flow
// crosses a link they load and no link carries two of the job's flows: the
// H = 1 program above without the options that cross a loaded link,
// removed before the reductions (which stay exact for what is left); a
// flow left without an option ("blocked") refutes H = 1, and so does lb0
// above 1 (a bound of the options left only, not of the stage's HSD).
// Solutions are routed again beside the running jobs' loads. The LP and min do not
// model those loads (a link's load counts only when a flow of the job
// crosses it, a condition, not a constant), so they are off: the verdict
// H = 1 and the summary by the search's floor are the answer. The search's
// HSD is computed from the running jobs' loads (Beside) and checked
// ("chk") against the scoring engine playing all jobs in lock-step.
//
// Per stage: "H=1" is the verdict of every run (yes: a congestion-free
// choice exists and was routed; no: proven impossible; ?: undecided);
// "opt" the stage's optimum, the best lower bound (lb0, the LP's ceil, H =
// 1 refuted, min's bound) where it meets the best solution (the search's,
// feas's, min's), "LB..UB" where they do not meet. --brute N also
// enumerates the stages of at most N combinations of paths, over the full
// paths, a check of the model (tiny jobs only).
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "lib/common/error.hpp"
#include "lib/common/file.hpp"
#include "lib/common/hostlist.hpp"
#include "lib/lid/kept.hpp"
#include "lib/lid/lid.hpp"
#include "lib/lid/pair_search.hpp"
#include "lib/model/model.hpp"
#include "lib/place/order.hpp"
#include "lib/score/score.hpp"
#include "lib/traffic/pattern.hpp"
#include "lib/tree/generate.hpp"

using namespace qft;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
	unsigned tmlim = 60;
	std::vector<std::string> feas{"cadical", "cbc", "glpk"};
	std::string min = "needed"; // needed, always, no
	std::string min_solver = "glpk";
	bool feas_all = false; // every --feas solver, also once one decided
	bool lp = true;
	std::string keep; // directory to keep the models in; "" a temporary one
	std::string pattern = "shift";
	double brute = 0; // enumerate stages of at most this many combinations
	bool implied = true; // cadical: tight_groups()' clauses
	std::string beside; // the running jobs' kept offsets; "" none
};

// One stage's program.
struct Stage {
	size_t s = 0;
	size_t flows = 0;
	uint32_t lb0 = 0;   // the largest constant load: H >= lb0
	// per variable: its flow and the offset it stands for (the first
	// offset of its link set), and the link set's other offsets
	struct Var {
		uint32_t flow;
		unsigned k;
		std::vector<unsigned> same;
	};
	std::vector<Var> vars;
	std::vector<std::pair<size_t, size_t>> choices; // per flow with a choice: [first, last) var
	std::vector<unsigned> only; // per flow: the offset it takes without a choice
	size_t removed = 0;  // options that cross a link the running jobs load
	size_t blocked = 0;  // flows left without an option: H = 1 is impossible
	struct Row {
		PortIdx link;
		uint32_t constant;
		std::vector<uint32_t> vars;
	};
	std::vector<Row> rows;
	std::vector<uint32_t> const_load; // per link
	std::vector<std::vector<PortIdx>> common; // per flow: the links of all its paths
	std::vector<std::vector<PortIdx>> own;    // per var: its path's other links
	size_t components = 0, largest = 0; // of the flows joined by rows
};

// `beside` (per link; null: none): the running jobs' loads. At H = 1 a
// flow cannot cross a loaded link, so its options that do are removed
// first: what follows (common links, constants, rows) is then exact for
// what is left.
Stage build_stage(const Router &router, const std::vector<std::pair<HostOrd, HostOrd>> &flows,
		  size_t links, size_t s, const std::vector<uint32_t> *beside)
{
	Stage st;
	st.s = s;
	st.flows = flows.size();
	st.const_load.assign(links, 0);
	st.only.assign(flows.size(), 0);
	const unsigned offsets = router.offsets();
	PortIdx buf[kMaxPathLinks];
	// link -> vars crossing it (a flow's vars consecutive), and the number
	// of flows with vars there
	std::vector<std::vector<uint32_t>> on(links);
	std::vector<uint32_t> flows_on(links, 0), last_flow(links, UINT32_MAX);
	std::vector<std::vector<PortIdx>> paths(offsets);
	for (uint32_t f = 0; f < flows.size(); f++) {
		for (unsigned k = 0; k < offsets; k++) {
			const unsigned n = router.path(flows[f].first, flows[f].second, k, buf);
			paths[k].assign(buf, buf + n);
			std::sort(paths[k].begin(), paths[k].end());
		}
		// distinct link sets, by first offset
		std::vector<unsigned> rep;
		std::vector<std::vector<unsigned>> same;
		for (unsigned k = 0; k < offsets; k++) {
			size_t r = 0;
			while (r < rep.size() && paths[rep[r]] != paths[k])
				r++;
			if (r == rep.size()) {
				rep.push_back(k);
				same.emplace_back();
			} else {
				same[r].push_back(k);
			}
		}
		if (beside) {
			size_t kept = 0;
			for (size_t r = 0; r < rep.size(); r++) {
				const auto &p = paths[rep[r]];
				if (std::any_of(p.begin(), p.end(),
						[&](PortIdx l) { return (*beside)[l] > 0; })) {
					st.removed += 1 + same[r].size();
					continue;
				}
				if (kept != r) {
					rep[kept] = rep[r];
					same[kept] = std::move(same[r]);
				}
				kept++;
			}
			rep.resize(kept);
			same.resize(kept);
			if (rep.empty()) {
				st.blocked++;
				st.common.emplace_back();
				continue;
			}
		}
		st.only[f] = rep[0];
		// links every option crosses: constant
		std::vector<PortIdx> common = paths[rep[0]];
		for (unsigned r = 1; r < rep.size(); r++) {
			std::vector<PortIdx> both;
			std::set_intersection(common.begin(), common.end(), paths[rep[r]].begin(),
					      paths[rep[r]].end(), std::back_inserter(both));
			common.swap(both);
		}
		for (PortIdx l : common)
			st.const_load[l]++;
		st.common.push_back(common);
		if (rep.size() == 1)
			continue;
		const size_t first = st.vars.size();
		for (unsigned r = 0; r < rep.size(); r++) {
			const uint32_t v = uint32_t(st.vars.size());
			st.vars.push_back({f, rep[r], same[r]});
			std::vector<PortIdx> own;
			std::set_difference(paths[rep[r]].begin(), paths[rep[r]].end(),
					    common.begin(), common.end(), std::back_inserter(own));
			st.own.push_back(own);
			for (PortIdx l : own) {
				on[l].push_back(v);
				if (last_flow[l] != f) {
					last_flow[l] = f;
					flows_on[l]++;
				}
			}
		}
		st.choices.push_back({first, st.vars.size()});
	}
	st.lb0 = *std::max_element(st.const_load.begin(), st.const_load.end());
	// a row only where the link could carry more than lb0 flows
	std::vector<uint32_t> parent(flows.size());
	for (uint32_t f = 0; f < parent.size(); f++)
		parent[f] = f;
	auto find = [&](uint32_t f) {
		while (parent[f] != f)
			f = parent[f] = parent[parent[f]];
		return f;
	};
	for (PortIdx l = 0; l < PortIdx(links); l++) {
		if (on[l].empty() || st.const_load[l] + flows_on[l] <= st.lb0)
			continue;
		st.rows.push_back({l, st.const_load[l], on[l]});
		for (uint32_t v : on[l])
			parent[find(st.vars[v].flow)] = find(st.vars[on[l][0]].flow);
	}
	std::vector<size_t> size(flows.size(), 0);
	for (const auto &c : st.choices) {
		const uint32_t f = st.vars[c.first].flow;
		if (size[find(f)]++ == 0)
			st.components++;
		st.largest = std::max(st.largest, size[find(f)]);
	}
	return st;
}

enum class Program { lp, feas, min };

// CPLEX LP text. Columns appear first in the objective (min, lp: H; feas:
// var 0), then in the assignment rows in var order, so glpsol's column j
// is var j-2 (min, lp) or var j-1 (feas); CBC names them.
std::string lp_text(const Stage &st, Program kind)
{
	std::ostringstream o;
	const bool with_h = kind != Program::feas;
	o << "\\ stage " << st.s << "\nMinimize\n obj: " << (with_h ? "H" : "0 x0") << "\n";
	o << "Subject To\n";
	auto terms = [&](const std::vector<uint32_t> &vs) {
		for (size_t i = 0; i < vs.size(); i++) {
			o << (i ? " + x" : " x") << vs[i];
			if (i % 16 == 15)
				o << "\n";
		}
	};
	for (size_t c = 0; c < st.choices.size(); c++) {
		std::vector<uint32_t> vs;
		for (size_t v = st.choices[c].first; v < st.choices[c].second; v++)
			vs.push_back(uint32_t(v));
		o << " a" << c << ":";
		terms(vs);
		o << " = 1\n";
	}
	for (const Stage::Row &r : st.rows) {
		o << " l" << r.link << ":";
		terms(r.vars);
		if (with_h)
			o << " - H <= " << -double(r.constant) << "\n";
		else // H = 1
			o << " <= " << (1.0 - double(r.constant)) << "\n";
	}
	if (with_h)
		o << "Bounds\n H >= " << st.lb0 << "\n";
	if (kind == Program::lp) {
		for (size_t v = 0; v < st.vars.size(); v++)
			o << " x" << v << " <= 1\n";
	} else {
		o << "Binary\n";
		for (size_t v = 0; v < st.vars.size(); v++)
			o << " x" << v << (v % 16 == 15 ? "\n" : "");
		o << "\n";
		if (kind == Program::min)
			o << "General\n H\n";
	}
	o << "End\n";
	return o.str();
}

// Implied clauses of H = 1 for CDCL, which cannot count: a group of links
// (a switch's up-links, its down-links, the links into a switch from
// below, from above: `groups` per link) that as many flows must cross,
// one link each whatever their choice, as the group has links any flow can
// use, carries one such flow on each of those links. Appends, per usable
// link of such a group that no such flow crosses whatever its choice,
// "one of the vars of such flows that cross it".
void tight_groups(const Stage &st, const std::vector<std::vector<uint32_t>> &groups,
		  uint32_t group_count, std::vector<std::vector<long>> &clauses, size_t *added)
{
	const size_t links = groups.size();
	std::vector<uint32_t> must(group_count, 0);         // flows that must cross it
	std::vector<std::vector<PortIdx>> usable(group_count);
	std::vector<uint8_t> seen(links, 0);
	auto use = [&](PortIdx l) {
		if (seen[l])
			return;
		seen[l] = 1;
		for (uint32_t g : groups[l])
			usable[g].push_back(l);
	};
	// per (group, link): the vars of the group's must-flows crossing it,
	// and whether one of them crosses it whatever its choice
	std::vector<std::vector<std::pair<uint32_t, PortIdx>>> on(group_count);
	std::vector<std::vector<PortIdx>> fixed(group_count);
	std::vector<int> choice_of(st.flows, -1);
	for (size_t c = 0; c < st.choices.size(); c++)
		choice_of[st.vars[st.choices[c].first].flow] = int(c);
	std::vector<uint32_t> count(group_count, 0);
	for (uint32_t f = 0; f < st.flows; f++) {
		for (PortIdx l : st.common[f]) {
			use(l);
			for (uint32_t g : groups[l]) {
				must[g]++;
				fixed[g].push_back(l);
			}
		}
		if (choice_of[f] < 0)
			continue;
		// the groups every option crosses (once: a path crosses a switch
		// once each way)
		const auto &c = st.choices[size_t(choice_of[f])];
		std::vector<uint32_t> touched;
		for (size_t v = c.first; v < c.second; v++)
			for (PortIdx l : st.own[v]) {
				use(l);
				for (uint32_t g : groups[l])
					if (count[g]++ == 0)
						touched.push_back(g);
			}
		const uint32_t options = uint32_t(c.second - c.first);
		for (uint32_t g : touched) {
			if (count[g] == options) {
				must[g]++;
				for (size_t v = c.first; v < c.second; v++)
					for (PortIdx l : st.own[v])
						for (uint32_t h : groups[l])
							if (h == g)
								on[g].push_back({uint32_t(v), l});
			}
			count[g] = 0;
		}
	}
	auto no = [&]() {
		clauses.push_back({1});
		clauses.push_back({-1});
		(*added) += 2;
	};
	for (uint32_t g = 0; g < group_count; g++) {
		if (must[g] == 0 || must[g] < usable[g].size())
			continue;
		if (must[g] > usable[g].size()) { // more flows than links
			no();
			continue;
		}
		std::sort(fixed[g].begin(), fixed[g].end());
		std::sort(on[g].begin(), on[g].end(),
			  [](const auto &x, const auto &y) { return x.second < y.second; });
		for (PortIdx l : usable[g]) {
			if (std::binary_search(fixed[g].begin(), fixed[g].end(), l))
				continue;
			std::vector<long> cl;
			auto it = std::lower_bound(
				on[g].begin(), on[g].end(), l,
				[](const std::pair<uint32_t, PortIdx> &x, PortIdx y) { return x.second < y; });
			for (; it != on[g].end() && it->second == l; ++it)
				cl.push_back(long(it->first) + 1);
			if (cl.empty()) { // no must-flow can use it
				no();
				continue;
			}
			clauses.push_back(std::move(cl));
			(*added)++;
		}
	}
}

// The stage's own groups, added to the switches' (`groups`, `count`
// of them; `count` grows): for each kind of link (its sending node's
// level, up or down), the links joined by the options of one flow. A
// path crosses each kind once at most, so a flow whose options all cross
// a kind takes one link of that kind's component: the pod's classes of
// docs/lid-offsets.md ("The map's classes"), which no switch's group is.
std::vector<std::vector<uint32_t>> with_classes(const Stage &st, const Fabric &f,
						const std::vector<std::vector<uint32_t>> &groups,
						uint32_t &count)
{
	std::vector<std::vector<uint32_t>> out = groups;
	const size_t links = groups.size();
	std::vector<uint32_t> parent(links);
	for (size_t l = 0; l < links; l++)
		parent[l] = uint32_t(l);
	auto root = [&](uint32_t a) {
		while (parent[a] != a)
			a = parent[a] = parent[parent[a]];
		return a;
	};
	auto kind = [&](PortIdx l) {
		const Port &p = f.port(l);
		const int at = f.node(p.node).level;
		const int to = f.node(f.port(p.peer).node).level;
		return unsigned(std::max(at, 0)) * 2 + (to > at);
	};
	std::vector<uint8_t> member(links, 0);
	for (const auto &c : st.choices) {
		std::map<unsigned, PortIdx> first; // by kind
		for (size_t v = c.first; v < c.second; v++)
			for (PortIdx l : st.own[v]) {
				member[l] = 1;
				auto [it, fresh] = first.emplace(kind(l), l);
				if (!fresh)
					parent[root(l)] = root(it->second);
			}
	}
	std::map<uint32_t, uint32_t> id; // root -> group
	for (size_t l = 0; l < links; l++)
		if (member[l]) {
			auto [it, fresh] = id.emplace(root(uint32_t(l)), count);
			if (fresh)
				count++;
			out[l].push_back(it->second);
		}
	return out;
}

// DIMACS CNF of H = 1 (needs lb0 <= 1): var v is SAT variable v+1.
// `groups` (per link; empty: none) adds tight_groups()' clauses.
std::string cnf_text(const Stage &st, const std::vector<std::vector<uint32_t>> &groups,
		     uint32_t group_count, size_t *implied)
{
	std::vector<std::vector<long>> clauses;
	long next = long(st.vars.size()) + 1;
	*implied = 0;
	if (!groups.empty())
		tight_groups(st, groups, group_count, clauses, implied);
	for (const auto &c : st.choices) {
		clauses.emplace_back();
		for (size_t v = c.first; v < c.second; v++)
			clauses.back().push_back(long(v) + 1);
	}
	for (const Stage::Row &r : st.rows) {
		const size_t m = r.vars.size();
		auto lit = [&](size_t i) { return long(r.vars[i]) + 1; };
		if (r.constant >= 1) {
			for (size_t i = 0; i < m; i++)
				clauses.push_back({-lit(i)});
		} else if (m <= 5) {
			for (size_t i = 0; i < m; i++)
				for (size_t j = i + 1; j < m; j++)
					clauses.push_back({-lit(i), -lit(j)});
		} else { // sequential counter: s_i = some of x_0..x_i
			const long s0 = next;
			next += long(m) - 1;
			clauses.push_back({-lit(0), s0});
			for (size_t i = 1; i + 1 < m; i++) {
				const long si = s0 + long(i), sp = si - 1;
				clauses.push_back({-lit(i), si});
				clauses.push_back({-sp, si});
				clauses.push_back({-lit(i), -sp});
			}
			clauses.push_back({-lit(m - 1), -(s0 + long(m) - 2)});
		}
	}
	std::ostringstream o;
	o << "c lid_bound stage " << st.s << ", H = 1\np cnf " << (next - 1) << " "
	  << clauses.size() << "\n";
	for (const auto &cl : clauses) {
		for (long l : cl)
			o << l << " ";
		o << "0\n";
	}
	return o.str();
}

struct Solve {
	std::string status;    // optimal, feasible, infeasible, timeout, error; "" not run
	double value = NAN;    // the objective of the solution found (feas: 0)
	double bound = NAN;    // min: the best bound when stopped
	double seconds = 0;
	std::vector<double> x; // per var, when a solution was found
	bool solved() const { return status == "optimal" || status == "feasible" ||
				     (status == "timeout" && !std::isnan(value)); }
};

// Runs `cmd` (output to `log`) under timeout(1), tmlim + 30 s; its exit
// status.
int run_command(const std::string &cmd, const std::string &log, unsigned tmlim, double *secs)
{
	const std::string full = "timeout -k 5 " + std::to_string(tmlim + 30) + " " + cmd +
				 " > '" + log + "' 2>&1";
	const auto t0 = Clock::now();
	const int rc = std::system(full.c_str());
	*secs = std::chrono::duration<double>(Clock::now() - t0).count();
	return rc;
}

std::string read_or_empty(const std::string &path)
{
	try {
		return read_file(path);
	} catch (const Error &) {
		return "";
	}
}

bool killed(int rc)
{
	return WIFSIGNALED(rc) || (WIFEXITED(rc) && (WEXITSTATUS(rc) == 124 ||
						     WEXITSTATUS(rc) == 137));
}

// glpsol on an LP file. `first`: the column of var 0 (1-based).
Solve run_glpk(const std::string &path, const std::string &args, unsigned tmlim, bool mip,
	       size_t first, size_t vars)
{
	Solve out;
	const std::string sol = path + ".glpk.sol", log = path + ".glpk.log";
	std::remove(sol.c_str());
	const int rc = run_command("glpsol --lp '" + path + "' -w '" + sol + "' " + args, log,
				   tmlim, &out.seconds);
	const std::string text = read_or_empty(log);
	// the last "+ N: mip = X >= Y" line: best integer and best bound
	const size_t at = text.rfind("mip =");
	if (at != std::string::npos) {
		const size_t ge = text.find(">=", at), eol = text.find('\n', at);
		if (ge != std::string::npos && ge < eol) {
			char *end;
			const char *p = text.c_str() + ge + 2;
			const double b = std::strtod(p, &end);
			if (end != p)
				out.bound = b;
		}
	}
	const bool timed_out = text.find("TIME LIMIT EXCEEDED") != std::string::npos || killed(rc);
	std::ifstream in(sol);
	std::string line;
	char st = 0;
	while (std::getline(in, line)) {
		std::istringstream w(line);
		std::string tag;
		w >> tag;
		if (tag == "s") {
			std::string kind, p;
			size_t rows, cols;
			w >> kind >> rows >> cols >> p;
			if (kind == "bas") {
				std::string d;
				w >> d; // dual status
			}
			st = p.empty() ? 0 : p[0];
			w >> out.value;
			if (mip ? st != 'o' && st != 'f' : st != 'f')
				out.value = NAN; // no solution: glpsol writes 0
			if (mip && !std::isnan(out.value))
				out.x.assign(vars, NAN);
		} else if (tag == "j" && !out.x.empty()) {
			size_t j;
			double v;
			w >> j >> v;
			if (j >= first && j - first < vars)
				out.x[j - first] = v;
		}
	}
	if (!mip)
		out.status = st == 'f' ? "optimal" : st == 'n' ? "infeasible" :
			     timed_out ? "timeout" : "error";
	else if (st == 'o')
		out.status = "optimal";
	else if (st == 'n')
		out.status = "infeasible";
	else
		out.status = timed_out ? "timeout" : st == 'f' ? "feasible" : "error";
	if (out.status == "error")
		std::fprintf(stderr, "lid_bound: glpsol failed (rc %d), see %s\n", rc, log.c_str());
	return out;
}

// CBC on an LP file; columns by name (x<var>, H).
Solve run_cbc(const std::string &path, unsigned tmlim, size_t vars)
{
	Solve out;
	const std::string sol = path + ".cbc.sol", log = path + ".cbc.log";
	std::remove(sol.c_str());
	const int rc = run_command("cbc '" + path + "' timeMode elapsed sec " +
					   std::to_string(tmlim) +
					   " solve solu '" + sol + "'",
				   log, tmlim, &out.seconds);
	const std::string text = read_or_empty(log);
	for (const char *key : {"best possible ", "Lower bound:"}) {
		const size_t at = text.rfind(key);
		if (at != std::string::npos) {
			char *end;
			const char *p = text.c_str() + at + std::strlen(key);
			const double b = std::strtod(p, &end);
			if (end != p)
				out.bound = b;
		}
	}
	std::ifstream in(sol);
	std::string head;
	std::getline(in, head);
	const bool none = head.find("no integer solution") != std::string::npos;
	if (head.rfind("Optimal", 0) == 0)
		out.status = "optimal";
	else if (head.find("nfeasible") != std::string::npos)
		out.status = "infeasible";
	else if (head.rfind("Stopped", 0) == 0 || (head.empty() && killed(rc)))
		out.status = "timeout";
	else
		out.status = "error";
	const size_t ov = head.find("objective value");
	if (!none && ov != std::string::npos &&
	    (out.status == "optimal" || out.status == "timeout")) {
		out.value = std::strtod(head.c_str() + ov + 15, nullptr);
		out.x.assign(vars, 0); // lists the nonzero columns
		std::string line;
		while (std::getline(in, line)) {
			std::istringstream w(line);
			std::string idx, name;
			double v;
			if (!(w >> idx >> name >> v))
				continue;
			if (name.size() > 1 && name[0] == 'x') {
				const size_t var = std::stoul(name.substr(1));
				if (var < vars)
					out.x[var] = v;
			}
		}
	}
	if (out.status == "optimal")
		out.bound = out.value;
	if (out.status == "error")
		std::fprintf(stderr, "lid_bound: cbc failed (rc %d), see %s\n", rc, log.c_str());
	return out;
}

// CaDiCaL on a CNF file.
Solve run_cadical(const std::string &path, unsigned tmlim, size_t vars)
{
	Solve out;
	const std::string log = path + ".cadical.log";
	const int rc = run_command("cadical -t " + std::to_string(tmlim) + " '" + path + "'", log,
				   tmlim, &out.seconds);
	std::istringstream in(read_or_empty(log));
	std::string line;
	while (std::getline(in, line)) {
		if (line == "s SATISFIABLE") {
			out.status = "feasible";
			out.value = 0;
			out.x.assign(vars, 0);
		} else if (line == "s UNSATISFIABLE") {
			out.status = "infeasible";
		} else if (line == "s UNKNOWN" || line == "c UNKNOWN") { // time limit
			out.status = "timeout";
		} else if (line.rfind("v ", 0) == 0 && !out.x.empty()) {
			std::istringstream w(line.substr(2));
			for (long l; w >> l;)
				if (l > 0 && size_t(l) <= vars)
					out.x[size_t(l) - 1] = 1;
		}
	}
	if (out.status.empty())
		out.status = killed(rc) ? "timeout" : "error";
	if (out.status == "error")
		std::fprintf(stderr, "lid_bound: cadical failed (rc %d), see %s\n", rc, log.c_str());
	return out;
}

// The HSD of the stage when every flow takes `offset[f]`: the busiest
// link a flow crosses, with the running jobs' flows on it (`beside`, per
// link; null: none), as score_jobs' job_hsd counts a job beside others.
uint32_t hsd_of(const Router &router, const std::vector<std::pair<HostOrd, HostOrd>> &flows,
		const std::vector<unsigned> &offset, size_t links,
		const std::vector<uint32_t> *beside)
{
	std::vector<uint32_t> load = beside ? *beside : std::vector<uint32_t>(links, 0);
	uint32_t worst = 0;
	PortIdx buf[kMaxPathLinks];
	for (size_t f = 0; f < flows.size(); f++) {
		const unsigned n = router.path(flows[f].first, flows[f].second, offset[f], buf);
		for (unsigned i = 0; i < n; i++)
			worst = std::max(worst, ++load[buf[i]]);
	}
	return worst;
}

// The offsets of a solution: per flow with a choice, its first var set;
// flows without one take their one option. Empty when a flow has none set.
std::vector<unsigned> offsets_of(const Stage &st, const std::vector<double> &x)
{
	std::vector<unsigned> offset = st.only;
	for (const auto &c : st.choices) {
		size_t v = c.first;
		while (v < c.second && !(v < x.size() && x[v] > 0.5))
			v++;
		if (v == c.second)
			return {};
		offset[st.vars[v].flow] = st.vars[v].k;
	}
	return offset;
}

// The optimum by enumeration, over the full paths and every offset (none
// of the model's reductions, no option removed): a check of the model on
// small stages. With `beside` (null: none) the HSD counts the running
// jobs' flows on the links the stage's flows cross. 0 when the flows have
// more than `limit` combinations of distinct paths.
uint32_t brute_force(const Router &router, const std::vector<std::pair<HostOrd, HostOrd>> &flows,
		     size_t links, const std::vector<uint32_t> *beside, double limit)
{
	PortIdx buf[kMaxPathLinks];
	std::vector<std::vector<std::vector<PortIdx>>> paths(flows.size()); // [flow][option]
	double combos = 1;
	for (size_t f = 0; f < flows.size(); f++) {
		for (unsigned k = 0; k < router.offsets(); k++) {
			const unsigned n = router.path(flows[f].first, flows[f].second, k, buf);
			std::vector<PortIdx> p(buf, buf + n);
			std::vector<PortIdx> sorted = p;
			std::sort(sorted.begin(), sorted.end());
			bool seen = false;
			for (const auto &q : paths[f]) {
				std::vector<PortIdx> qs = q;
				std::sort(qs.begin(), qs.end());
				seen = seen || qs == sorted;
			}
			if (!seen)
				paths[f].push_back(std::move(p));
		}
		combos *= double(paths[f].size());
	}
	if (combos > limit)
		return 0;
	std::vector<uint32_t> load = beside ? *beside : std::vector<uint32_t>(links, 0);
	uint32_t best = UINT32_MAX;
	// depth-first, pruned at the best so far
	std::function<void(size_t, uint32_t)> walk = [&](size_t f, uint32_t worst) {
		if (worst >= best)
			return;
		if (f == paths.size()) {
			best = worst;
			return;
		}
		for (const auto &path : paths[f]) {
			uint32_t w = worst;
			for (PortIdx l : path)
				w = std::max(w, ++load[l]);
			walk(f + 1, w);
			for (PortIdx l : path)
				load[l]--;
		}
	};
	walk(0, 0);
	return best;
}

std::vector<std::string> host_names(const std::string &arg)
{
	std::string text = arg;
	if (!arg.empty() && arg[0] == '@')
		text = read_file(arg.substr(1));
	std::vector<std::string> names;
	std::istringstream words(text);
	for (std::string w; words >> w;)
		for (std::string &n : hostlist_expand(w))
			names.push_back(std::move(n));
	return names;
}

const char *floor_name(uint8_t state)
{
	switch (state) {
	case PairFloor::free:
		return "free";
	case PairFloor::congested:
		return "proven";
	case PairFloor::undecided:
		return "undecided";
	default:
		return "-";
	}
}

// Stage numbers of `spec`, sorted, each once; `hsd` and `floor` per
// stage, the search's.
std::vector<size_t> parse_stages(const std::string &spec, size_t count,
				 const std::vector<uint32_t> &hsd, const PairFloor &floor)
{
	std::vector<size_t> out;
	auto spread = [&](const std::vector<size_t> &from, size_t n) {
		if (n == 0 || n >= from.size()) {
			out.insert(out.end(), from.begin(), from.end());
			return;
		}
		for (size_t i = 0; i < n; i++)
			out.push_back(from[(2 * i + 1) * from.size() / (2 * n)]);
	};
	std::istringstream items(spec);
	for (std::string item; std::getline(items, item, ',');) {
		std::vector<size_t> every;
		if (item == "all" || item.rfind("sample:", 0) == 0) {
			for (size_t s = 0; s < count; s++)
				every.push_back(s);
			spread(every, item == "all" ? 0 : std::stoul(item.substr(7)));
		} else if (item.rfind("hsd=", 0) == 0) {
			const size_t colon = item.find(':');
			const uint32_t v = uint32_t(std::stoul(item.substr(4, colon - 4)));
			for (size_t s = 0; s < count; s++)
				if (hsd[s] == v)
					every.push_back(s);
			spread(every, colon == std::string::npos ? 0 : std::stoul(item.substr(colon + 1)));
		} else if (item.rfind("floor=", 0) == 0) {
			const size_t colon = item.find(':');
			const std::string state = item.substr(6, colon - 6);
			for (size_t s = 0; s < count; s++)
				if (s < floor.stage.size() && state == floor_name(floor.stage[s]))
					every.push_back(s);
			if (every.empty() && state != "free" && state != "proven" &&
			    state != "undecided")
				fail(Status::invalid, "stages: floor=free, proven or undecided");
			spread(every, colon == std::string::npos ? 0 : std::stoul(item.substr(colon + 1)));
		} else {
			const size_t dash = item.find('-');
			const size_t a = std::stoul(item.substr(0, dash));
			const size_t b = dash == std::string::npos ? a : std::stoul(item.substr(dash + 1));
			for (size_t s = a; s <= b; s++)
				out.push_back(s);
		}
	}
	std::sort(out.begin(), out.end());
	out.erase(std::unique(out.begin(), out.end()), out.end());
	for (size_t s : out)
		if (s >= count)
			fail(Status::invalid, "stage ", s, " out of range (", count, " stages)");
	return out;
}

std::string fmt(double v)
{
	if (std::isnan(v))
		return "-";
	char b[32];
	std::snprintf(b, sizeof(b), "%.4g", v);
	return b;
}

std::vector<std::string> split(const std::string &text, char sep)
{
	std::vector<std::string> out;
	std::istringstream items(text);
	for (std::string item; std::getline(items, item, sep);)
		if (!item.empty())
			out.push_back(item);
	return out;
}

int run(int argc, char **argv)
{
	if (argc < 5)
		return 2;
	Options opt;
	for (int i = 5; i < argc; i++) {
		const std::string a = argv[i];
		auto value = [&]() -> std::string {
			if (i + 1 >= argc)
				fail(Status::invalid, a, " needs a value");
			return argv[++i];
		};
		if (a == "--tmlim")
			opt.tmlim = unsigned(std::stoul(value()));
		else if (a == "--feas")
			opt.feas = split(value(), ',');
		else if (a == "--min")
			opt.min = value();
		else if (a == "--min-solver")
			opt.min_solver = value();
		else if (a == "--feas-all")
			opt.feas_all = true;
		else if (a == "--no-implied")
			opt.implied = false;
		else if (a == "--no-lp")
			opt.lp = false;
		else if (a == "--keep")
			opt.keep = value();
		else if (a == "--pattern")
			opt.pattern = value();
		else if (a == "--brute")
			opt.brute = std::stod(value());
		else if (a == "--beside")
			opt.beside = value();
		else
			fail(Status::invalid, "unknown option ", a);
	}
	for (const std::string &s : opt.feas)
		if (s != "glpk" && s != "cbc" && s != "cadical" && s != "minisat" && s != "none")
			fail(Status::invalid, "--feas: a list of glpk, cbc, cadical, minisat (or none)");
	if (opt.min != "needed" && opt.min != "always" && opt.min != "no")
		fail(Status::invalid, "--min: needed, always or no");
	if (opt.min_solver != "glpk" && opt.min_solver != "cbc")
		fail(Status::invalid, "--min-solver: glpk or cbc");

	const std::string fabric_arg = argv[1];
	const unsigned lmc = unsigned(std::stoul(argv[2]));
	std::unique_ptr<Model> m;
	if (fabric_arg.size() > 5 && fabric_arg.compare(fabric_arg.size() - 5, 5, ".json") == 0) {
		m = Model::load(fabric_arg, "dmodk");
		set_lmc_checked(m->edit_fabric(), lmc);
		m->set_routing("dmodk");
	} else {
		GenOptions g;
		g.lmc = lmc;
		m = std::make_unique<Model>(generate_pgft(Pgft::parse(fabric_arg), g));
	}
	const Fabric &f = m->fabric();
	const Router &router = m->router();
	const size_t links = f.port_count();
	// per link: its groups for tight_groups(): the sending node's up- or
	// down-links, the receiving node's links from below or from above
	const uint32_t nodes = uint32_t(f.node_count());
	const uint32_t group_count = 4 * nodes;
	std::vector<std::vector<uint32_t>> link_groups(links), no_groups;
	for (PortIdx l = 0; l < PortIdx(links); l++) {
		const Port &p = f.port(l);
		if (p.peer == kNone)
			continue;
		const NodeId to = f.port(p.peer).node;
		const uint32_t up = f.node(to).level > f.node(p.node).level;
		link_groups[l] = {p.node * 2 + up, 2 * nodes + to * 2 + up};
	}
	auto pattern = make_pattern(opt.pattern, &m->need_tree().pgft());
	const std::vector<HostOrd> ranks =
		tree_order(f, m->need_tree(), resolve_hosts(f, host_names(argv[3])));
	const uint32_t n = uint32_t(ranks.size());
	const size_t count = pattern->stage_count(n);

	// --beside: the running jobs, one per line of their kept offsets
	std::vector<Job> running;
	if (!opt.beside.empty()) {
		std::vector<std::string> keys;
		const std::map<std::string, KeptLids> kept =
			read_kept(opt.beside, f, LidMode::pair, &keys);
		// a host in two jobs would put two jobs' flows on its links
		const size_t the_job = SIZE_MAX;
		std::vector<size_t> owner(f.hosts().size(), 0); // running job + 1
		for (HostOrd h : ranks)
			owner[h] = the_job;
		for (const std::string &key : keys) {
			if (std::count(keys.begin(), keys.end(), key) > 1)
				fail(Status::invalid, opt.beside, ": running job ", key,
				     " is on two lines");
			const KeptLids &k = kept.at(key);
			for (HostOrd h : k.ranks) {
				const std::string &name = f.node(f.hosts()[h]).name;
				if (owner[h] == the_job)
					fail(Status::invalid, opt.beside, ": host ", name,
					     " is in running job ", key, " and in the job");
				if (owner[h])
					fail(Status::invalid, opt.beside, ": host ", name,
					     " is in running jobs ", keys[owner[h] - 1], " and ", key);
				owner[h] = running.size() + 1;
			}
			running.push_back({k.ranks, k.offsets, kept_choice(k.mode)});
		}
		if (running.empty())
			fail(Status::invalid, opt.beside, ": no running jobs");
		// Their optimum would need the running jobs' loads as conditional
		// constants (a link's load counts only if a new flow crosses it),
		// which they do not model; H = 1 does, by the removed options.
		opt.lp = false;
		opt.min = "no";
	}
	const std::vector<Job> *beside_jobs = running.empty() ? nullptr : &running;

	// the search, once on the whole job (beside the running jobs, as a
	// job that starts beside them chooses), scored per stage
	const auto t0 = Clock::now();
	LidOptions lo;
	lo.beside = beside_jobs;
	const LidTable table = choose_lids(f, router, m->tree(), *pattern, ranks, LidMode::pair, lo);
	const double search_s = std::chrono::duration<double>(Clock::now() - t0).count();
	Beside beside(f, router, *pattern, beside_jobs);
	// Per stage, the search's HSD and, as a check, the same figure by
	// another road. Alone: score_jobs, then hsd_of per chosen stage.
	// Beside: hsd_of over Beside's loads, then the scoring engine playing
	// every job in lock-step (what `qft score --per-job` averages).
	std::vector<uint32_t> search_hsd(count, 0), engine_hsd(count, 0);
	double engine_mean = 0;
	std::vector<RankPair> pairs;
	auto stage_flows = [&](size_t s, std::vector<std::pair<HostOrd, HostOrd>> &flows,
			       std::vector<unsigned> &offsets) {
		pattern->stage(n, s, pairs);
		flows.clear();
		offsets.clear();
		for (const RankPair &p : pairs) {
			if (p.src == p.dst)
				continue;
			flows.push_back({ranks[p.src], ranks[p.dst]});
			offsets.push_back(table.offset(p.src, p.dst));
		}
	};
	if (!beside_jobs) {
		const Score sc = score_jobs(f, router, *pattern, {table.job()});
		if (sc.stage_hsd.size() != count)
			fail(Status::internal, "score has ", sc.stage_hsd.size(), " stages, pattern ",
			     count);
		search_hsd = sc.stage_hsd;
	} else {
		std::vector<std::pair<HostOrd, HostOrd>> flows;
		std::vector<unsigned> offsets;
		for (size_t s = 0; s < count; s++) {
			stage_flows(s, flows, offsets);
			search_hsd[s] =
				hsd_of(router, flows, offsets, links, &beside.stage(s).dense());
		}
		std::vector<Job> all = running;
		all.push_back(table.job());
		std::vector<bool> mine(f.hosts().size(), false);
		for (HostOrd h : ranks)
			mine[h] = true;
		ScoreOptions so;
		so.per_job = true;
		so.observer = [&](size_t t, const std::vector<Flow> &fl,
				  const std::vector<uint32_t> &load) {
			PortIdx buf[kMaxPathLinks];
			for (const Flow &x : fl) {
				if (!mine[x.src] || t >= count)
					continue;
				const unsigned len = router.path(x.src, x.dst, x.offset, buf);
				for (unsigned i = 0; i < len; i++)
					engine_hsd[t] = std::max(engine_hsd[t], load[buf[i]]);
			}
		};
		engine_mean = score_jobs(f, router, *pattern, all, so).job_hsd.back();
	}
	size_t at2 = 0, with_flow = 0;
	uint64_t sum = 0;
	uint32_t max_hsd = 0;
	for (uint32_t h : search_hsd) {
		at2 += h >= 2;
		with_flow += h > 0;
		sum += h;
		max_hsd = std::max(max_hsd, h);
	}
	std::vector<std::string> names;
	for (HostOrd h : ranks)
		names.push_back(f.node(f.hosts()[h]).name);
	std::string shown = hostlist_compress(names);
	if (shown.size() > 60)
		shown = shown.substr(0, 57) + "...";
	std::printf("lid_bound: PGFT %s, LMC %u (%u offsets), %u hosts %s, %s, %zu stages\n",
		    m->need_tree().pgft().text().c_str(), f.lmc(), router.offsets(), n,
		    shown.c_str(), pattern->name().c_str(), count);
	if (beside_jobs) {
		size_t hosts = 0;
		for (const Job &j : running)
			hosts += j.ranks.size();
		std::printf("beside %zu running jobs (%s, %zu hosts), their offsets fixed: the job's "
			    "HSD is the busiest link its flows cross, their flows counted\n",
			    running.size(), opt.beside.c_str(), hosts);
	}
	std::printf("search (pair%s): %.1f s, mean HSD %.4f, max %u, %zu stages at HSD >= 2",
		    beside_jobs ? ", beside them" : "", search_s,
		    with_flow ? double(sum) / double(with_flow) : 0.0, max_hsd, at2);
	if (beside_jobs)
		std::printf(" (scoring engine: %.4f)", engine_mean);
	std::printf("\nsearch floor: %zu stages, %zu proven congested, %zu undecided, floor HSD "
		    "%.4f\n",
		    table.floor.stages(), table.floor.count(PairFloor::congested),
		    table.floor.count(PairFloor::undecided), table.floor.hsd());

	const std::vector<size_t> stages = parse_stages(argv[4], count, search_hsd, table.floor);
	std::string dir = opt.keep;
	if (dir.empty()) {
		char tmpl[] = "/tmp/lid_bound.XXXXXX";
		if (!mkdtemp(tmpl))
			fail(Status::io, "mkdtemp: ", std::strerror(errno));
		dir = tmpl;
	} else if (mkdir(dir.c_str(), 0777) && errno != EEXIST) {
		fail(Status::io, dir, ": ", std::strerror(errno));
	}
	std::string feas_list;
	for (const std::string &s : opt.feas)
		feas_list += (feas_list.empty() ? "" : ",") + s;
	std::printf("models in %s; time limit %u s per solver run; lp: %s; feas: %s; min: %s "
		    "(%s)%s\n",
		    dir.c_str(), opt.tmlim, opt.lp ? "glpk" : "no", feas_list.c_str(),
		    opt.min.c_str(), opt.min_solver.c_str(),
		    beside_jobs ? "; --beside: no lp, no min (they do not model the running jobs' "
				  "loads), H = 1 without the options that cross them"
				: "");
	std::printf("stage: 0-based (shift = stage+1); vars: distinct paths of the flows with a "
		    "choice; rows: links that could exceed lb0;\ncomp: components of the flows "
		    "joined by rows (largest); lb0: the largest constant load; chk: the search's "
		    "table routed again%s;\nfloor: what the search proved of the stage (free, "
		    "proven congested, undecided)%s\n",
		    beside_jobs ? " (by the scoring engine, all jobs in lock-step)" : "",
		    beside_jobs ? ";\ncut(N): N offsets removed, their paths cross a running job's "
				  "link; blocked(N): N flows left without one"
				: "");
	std::printf("%5s %5s %5s %6s %5s %9s %3s | %6s %3s %-9s | %6s %4s %6s | %-4s %s | %s | "
		    "%s\n",
		    "stage", "shift", "flows", "vars", "rows", "comp", "lb0", "search", "chk",
		    "floor", "lp", "ceil", "lp_s", "H=1", "feas: solver status s",
		    "min: status value bound s", "opt");
	size_t n_yes = 0, n_no = 0, n_open = 0, n_bad = 0;
	struct Tally {
		size_t stages = 0, tight = 0, better = 0, open = 0, yes = 0, no = 0;
		double secs = 0, max_secs = 0;
	};
	std::vector<Tally> by_search;
	Tally by_floor[4];
	double total_s = 0;
	for (size_t s : stages) {
		std::vector<std::pair<HostOrd, HostOrd>> flows;
		std::vector<unsigned> search_off;
		stage_flows(s, flows, search_off);
		std::vector<uint32_t> loaded;
		if (beside_jobs)
			loaded = beside.stage(s).dense();
		const std::vector<uint32_t> *loads = beside_jobs ? &loaded : nullptr;
		const Stage st = build_stage(router, flows, links, s, loads);
		const uint32_t search = search_hsd[s];
		const uint32_t check =
			beside_jobs ? engine_hsd[s] : hsd_of(router, flows, search_off, links, nullptr);
		const uint8_t state =
			s < table.floor.stage.size() ? table.floor.stage[s] : uint8_t(PairFloor::no_flow);
		const std::string base = dir + "/stage" + std::to_string(s);
		const std::string tm = std::to_string(opt.tmlim);
		double secs = 0;
		bool bad = check != search;
		// the search's own word: free exactly when its offsets route free
		if ((state == PairFloor::free) != (search == 1)) {
			std::fprintf(stderr, "stage %zu: the search's floor says %s, its HSD is %u\n", s,
				     floor_name(state), search);
			bad = true;
		}
		// A solution's routed HSD against what the solver claims.
		auto verify = [&](const Solve &r, double claim, const char *who) {
			const auto off = offsets_of(st, r.x);
			const uint32_t got = off.empty() ? 0 : hsd_of(router, flows, off, links, loads);
			if (double(got) == claim)
				return true;
			std::fprintf(stderr, "stage %zu: %s's solution routes to HSD %u, not %g\n", s,
				     who, got, claim);
			bad = true;
			return false;
		};

		// the LP relaxation
		Solve lp;
		if (opt.lp && !st.vars.empty()) {
			const std::string path = base + ".lp.lp";
			write_file(path, lp_text(st, Program::lp));
			lp = run_glpk(path, "--nomip --tmlim " + tm, opt.tmlim, false, 2,
				      st.vars.size());
			secs += lp.seconds;
		} else if (opt.lp) {
			lp.status = "optimal";
			lp.value = st.lb0;
		}
		// H = 1? Every listed solver, each a proof either way.
		bool yes = false, no = st.lb0 > 1 || st.blocked > 0 ||
					       (lp.status == "optimal" && lp.value > 1 + 1e-6);
		if (st.vars.empty() && st.lb0 <= 1 && !st.blocked) {
			// nothing to choose, no constant load above 1
			Solve given;
			yes = flows.empty() || verify(given, 1, "the one choice");
		}
		std::string feas_text;
		size_t implied_clauses = 0;
		if (beside_jobs)
			feas_text = "cut(" + std::to_string(st.removed) + ") ";
		if (st.blocked)
			feas_text += "blocked(" + std::to_string(st.blocked) + ") ";
		if (st.lb0 > 1)
			feas_text += "lb0>1 ";
		for (const std::string &solver : opt.feas) {
			if (solver == "none" || st.vars.empty() || st.lb0 > 1 || st.blocked ||
			    ((yes || no) && !opt.feas_all))
				continue;
			Solve r;
			if (solver == "cadical") {
				const std::string path = base + ".feas.cnf";
				size_t implied;
				uint32_t groups = group_count;
				const auto with = opt.implied ? with_classes(st, f, link_groups, groups)
							      : no_groups;
				write_file(path, cnf_text(st, with, groups, &implied));
				implied_clauses = implied;
				r = run_cadical(path, opt.tmlim, st.vars.size());
			} else {
				const std::string path = base + ".feas.lp";
				write_file(path, lp_text(st, Program::feas));
				if (solver == "cbc")
					r = run_cbc(path, opt.tmlim, st.vars.size());
				else
					r = run_glpk(path, solver == "minisat" ? "--minisat"
									    : "--tmlim " + tm,
						     opt.tmlim, true, 1, st.vars.size());
			}
			secs += r.seconds;
			if (r.solved() && verify(r, 1, solver.c_str()))
				yes = true;
			if (r.status == "infeasible")
				no = true;
			char b[96];
			if (solver == "cadical" && opt.implied)
				std::snprintf(b, sizeof(b), "%s(+%zu) %s %.1f ", solver.c_str(),
					      implied_clauses, r.status.c_str(), r.seconds);
			else
				std::snprintf(b, sizeof(b), "%s %s %.1f ", solver.c_str(),
					      r.status.c_str(), r.seconds);
			feas_text += b;
		}
		// the integer optimum; "needed": unless the bounds so far meet
		// the search's HSD (its table is a solution) or H = 1 holds.
		// Beside running jobs lb0 bounds only the options left, not what
		// a flow on a loaded link would do: a refuted H = 1 is the bound.
		uint32_t lb = beside_jobs ? 1 : std::max<uint32_t>(st.lb0, 1);
		if (lp.status == "optimal")
			lb = std::max(lb, uint32_t(std::ceil(lp.value - 1e-6)));
		if (no)
			lb = std::max<uint32_t>(lb, 2);
		uint32_t ub = yes ? 1 : search;
		Solve mn;
		std::string min_text = "-";
		if (!st.vars.empty() &&
		    (opt.min == "always" || (opt.min == "needed" && lb < ub))) {
			const std::string path = base + ".min.lp";
			write_file(path, lp_text(st, Program::min));
			mn = opt.min_solver == "cbc"
				     ? run_cbc(path, opt.tmlim, st.vars.size())
				     : run_glpk(path, "--tmlim " + tm, opt.tmlim, true, 2,
						st.vars.size());
			secs += mn.seconds;
			if (mn.status == "optimal")
				mn.bound = mn.value;
			if (mn.solved() && verify(mn, mn.value, opt.min_solver.c_str())) {
				ub = std::min(ub, uint32_t(mn.value));
				if (mn.value <= 1)
					yes = true;
			}
			if (!std::isnan(mn.bound)) {
				lb = std::max(lb, uint32_t(std::ceil(mn.bound - 1e-6)));
				if (mn.bound > 1 + 1e-6)
					no = true;
			}
			if (mn.status == "infeasible") // cannot be: the search's table is one
				bad = true;
			char b[96];
			std::snprintf(b, sizeof(b), "%s %s %s %.1f", mn.status.c_str(),
				      fmt(mn.value).c_str(), fmt(std::ceil(mn.bound - 1e-6)).c_str(),
				      mn.seconds);
			min_text = b;
		}
		if (yes && no)
			bad = true; // solvers disagree
		if (yes && state == PairFloor::congested) {
			std::fprintf(stderr, "stage %zu: H = 1 routed, but the search proved it "
				     "congested\n", s);
			bad = true;
		}
		const char *h1 = yes && no ? "CONFLICT" : yes ? "yes" : no ? "no" : "?";
		n_bad += bad;
		n_yes += yes && !no;
		n_no += no && !yes;
		n_open += !yes && !no;
		total_s += secs;
		if (by_search.size() <= search)
			by_search.resize(search + 1);
		Tally &t = by_search[search];
		t.stages++;
		t.secs += secs;
		t.max_secs = std::max(t.max_secs, secs);
		t.yes += yes && !no;
		t.no += no && !yes;
		Tally &ft = by_floor[state];
		ft.stages++;
		ft.yes += yes && !no;
		ft.no += no && !yes;
		ft.open += !yes && !no;
		if (lb == ub && ub == search)
			t.tight++;
		else if (lb == ub)
			t.better++;
		else
			t.open++;
		char comp[32];
		std::snprintf(comp, sizeof(comp), "%zu(%zu)", st.components, st.largest);
		std::printf("%5zu %5zu %5zu %6zu %5zu %9s %3u | %6u %3s %-9s | %6s %4s %6.1f | %-4s %s| "
			    "%s | %s%s\n",
			    s, s + 1, st.flows, st.vars.size(), st.rows.size(), comp, st.lb0, search,
			    check == search ? "ok" : "BAD", floor_name(state), fmt(lp.value).c_str(),
			    fmt(std::ceil(lp.value - 1e-6)).c_str(), lp.seconds, h1,
			    feas_text.c_str(), min_text.c_str(),
			    lb == ub ? std::to_string(lb).c_str()
				     : (std::to_string(lb) + ".." + std::to_string(ub)).c_str(),
			    bad ? " BAD" : "");
		if (opt.brute > 0) {
			const uint32_t b = brute_force(router, flows, links, loads, opt.brute);
			if (b == 0)
				std::printf("stage %zu: brute force: too many combinations\n", s);
			else
				std::printf("stage %zu: brute force optimum %u: %s\n", s, b,
					    lb == ub && lb == b     ? "agrees"
					    : lb <= b && b <= ub ? "within the bounds"
								  : "DISAGREES");
		}
		std::fflush(stdout);
	}
	std::printf("summary: %zu stages; H = 1 feasible %zu, infeasible (proven) %zu, "
		    "undecided %zu%s\n",
		    stages.size(), n_yes, n_no, n_open,
		    n_bad ? (", " + std::to_string(n_bad) + " BAD").c_str() : "");
	for (uint32_t v = 0; v < by_search.size(); v++) {
		const Tally &t = by_search[v];
		if (t.stages)
			std::printf("  search HSD %u: %zu stages; H = 1 feasible %zu, infeasible %zu; "
				    "optimum = search %zu, below it %zu, open %zu; solvers %.1f s "
				    "(max %.1f s per stage)\n",
				    v, t.stages, t.yes, t.no, t.tight, t.better, t.open, t.secs,
				    t.max_secs);
	}
	for (uint8_t state : {PairFloor::free, PairFloor::congested, PairFloor::undecided}) {
		const Tally &t = by_floor[state];
		if (t.stages)
			std::printf("  search %s: %zu stages; H = 1 feasible %zu, infeasible %zu, "
				    "%sundecided %zu\n",
				    state == PairFloor::congested ? "proven congested"
				    : state == PairFloor::undecided ? "left undecided"
								    : "free",
				    t.stages, t.yes, t.no, state == PairFloor::undecided ? "still " : "",
				    t.open);
	}
	std::printf("solver time %.1f s\n", total_s);
	return n_bad ? 1 : 0;
}

} // namespace

int main(int argc, char **argv)
{
	try {
		const int rc = run(argc, argv);
		if (rc != 2)
			return rc;
	} catch (const std::exception &e) {
		std::fprintf(stderr, "lid_bound: %s\n", e.what());
		return 1;
	}
	std::fprintf(stderr,
		     "usage: lid_bound FABRIC LMC HOSTS STAGES [--tmlim SEC] [--feas LIST] [--feas-all]\n"
		     "                 [--min needed|always|no] [--min-solver glpk|cbc] [--no-lp]\n"
		     "                 [--keep DIR] [--pattern SPEC] [--brute COMBINATIONS]\n"
		     "                 [--no-implied] [--beside KEPT]\n"
		     "  FABRIC: PGFT tuple or fabric JSON; HOSTS: host list or @FILE;\n"
		     "  STAGES: comma list of N, A-B, all, sample:N, hsd=V[:N],\n"
		     "          floor=free|proven|undecided[:N];\n"
		     "  --beside KEPT: beside running jobs, their pair offsets kept (qft score\n"
		     "          --lid-out lines, one job each); no lp, no min\n"
		     "  --feas: comma list of glpk, cbc, cadical, minisat (or none)\n");
	return 2;
}
