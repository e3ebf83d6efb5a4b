// SPDX-License-Identifier: GPL-2.0-or-later
// qft score: congestion of a collective pattern for one job or several
// jobs in lock-step.
#include <cerrno>
#include <algorithm>
#include <cstdio>
#include <thread>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "lib/fabric/fabric.hpp"

#include "contribs/qft/cli.hpp"
#include "lib/common/error.hpp"
#include "lib/common/hostlist.hpp"
#include "lib/lid/kept.hpp"
#include "lib/lid/lid.hpp"
#include "lib/place/order.hpp"
#include "lib/score/report.hpp"
#include "lib/score/score.hpp"
#include "lib/traffic/pattern.hpp"

namespace qft::cli {

namespace {

// One group of a --batch file: its jobs' host names, the key each may
// carry ("KEY:" before its hosts; empty: none) and the line each is on.
struct Group {
	std::vector<std::vector<std::string>> jobs;
	std::vector<std::string> keys;
	std::vector<size_t> lines;
};

// Groups separated by blank lines, one job per line (host list expressions,
// blank or comma separated, after an optional "KEY:" naming the job);
// '#' starts a comment, and a line holding only a comment does not end a
// group.
std::vector<Group> batch_groups(const std::string &path)
{
	std::ifstream in(path);
	if (!in)
		fail(Status::io, path, ": cannot open: ", std::strerror(errno));
	std::vector<Group> groups(1);
	std::string line;
	for (size_t lineno = 1; std::getline(in, line); lineno++) {
		if (line.find_first_not_of(" \t\r") == std::string::npos) {
			if (!groups.back().jobs.empty())
				groups.emplace_back();
			continue;
		}
		std::istringstream words(line.substr(0, line.find('#')));
		std::vector<std::string> names;
		std::string key;
		for (std::string w; words >> w;) {
			if (names.empty() && key.empty() && w.size() > 1 && w.back() == ':' &&
			    w.find(':') == w.size() - 1) {
				key = w.substr(0, w.size() - 1);
				continue;
			}
			try {
				for (std::string &n : hostlist_expand(w))
					names.push_back(std::move(n));
			} catch (const Error &e) {
				fail(e.status(), path, ":", lineno, ": ", e.what());
			}
		}
		if (!names.empty()) {
			Group &g = groups.back();
			if (!key.empty() && std::find(g.keys.begin(), g.keys.end(), key) != g.keys.end())
				fail(Status::invalid, path, ":", lineno, ": job ", key,
				     " is twice in its group");
			g.jobs.push_back(std::move(names));
			g.keys.push_back(std::move(key));
			g.lines.push_back(lineno);
		} else if (!key.empty()) {
			fail(Status::invalid, path, ":", lineno, ": job ", key, ": no hosts");
		}
	}
	if (groups.back().jobs.empty())
		groups.pop_back();
	if (groups.empty())
		fail(Status::invalid, path,
		     ": no jobs (expected groups of host lists, one job per line, "
		     "a blank line between groups)");
	return groups;
}

// score_json's object on one line: jansson never writes a raw newline
// inside a string, so every newline and the indent after it are layout.
std::string one_line(const std::string &json)
{
	std::string out;
	for (size_t i = 0; i < json.size(); i++) {
		if (json[i] != '\n') {
			out += json[i];
			continue;
		}
		size_t j = i + 1;
		while (j < json.size() && json[j] == ' ')
			j++;
		if (j < json.size() && !out.empty() && out.back() != '{' && out.back() != '[' &&
		    json[j] != '}' && json[j] != ']')
			out += ' ';
		i = j - 1;
	}
	return out + "\n";
}

// pair's search: --lid-threads N, threads of its stage search (1: the
// offsets of every earlier release; N > 1 gives other offsets, the same
// for any machine); --lid-exact N, steps per new flow of its exhaustive
// stage search, the job's total scaled alike, --lid-hall FLOWS, its
// Hall's condition up to that many flows, --lid-walk N, steps per new
// flow of the walk after it, --lid-lns ROUNDS, --lid-lns-flows N and
// --lid-lns-probe ROUNDS, the large neighbourhoods after the walk (rounds
// per stage, flows per neighbourhood, rounds a thread spends per free
// one before it stops; 0 rounds: none), and --lid-spare 0 leaves the running
// jobs' links as the search left them (a study of what more steps and
// checks find and prove; the plugins keep the defaults).
PairSearchOptions pair_options(const Args &args)
{
	PairSearchOptions o;
	o.threads = unsigned(args.number("--lid-threads", 1, 256));
	const size_t exact = o.exact;
	o.exact = size_t(args.number("--lid-exact", o.exact, 100000));
	o.exact_total = o.exact_total / exact * o.exact;
	o.hall_flows = size_t(args.number("--lid-hall", o.hall_flows, 1000000));
	o.walk = unsigned(args.number("--lid-walk", o.walk, 10000000));
	o.lns = unsigned(args.number("--lid-lns", o.lns, 100000));
	o.lns_flows = size_t(args.number("--lid-lns-flows", o.lns_flows, 100000));
	o.lns_probe = size_t(args.number("--lid-lns-probe", o.lns_probe, 100000000));
	o.spare = args.number("--lid-spare", 1, 1) != 0;
	return o;
}

// --lid MODE for a group of jobs in lock-step: the jobs choose in the
// order listed, each beside the ones before it (their offsets fixed, as
// a running job's table does not change): job 1 alone, job 2 beside job
// 1, ... (LidOptions::beside). The simulator lists a job's running
// neighbours first, in the order they started, and the job last.
// A job whose offsets are `kept` (true) keeps them and is only beside
// the jobs after it (--batch with --lid-in, or a key chosen in an earlier
// group).
// `pair`: pair's search (pair_options()). Returns each job's floor
// (ScoreContext::lid_floor) for a pair choice; none otherwise.
std::vector<LidFloor> choose_in_order(const Model &m, const Pattern &pattern, LidMode mode,
				      const PairSearchOptions &pair, std::vector<Job> &jobs,
				      const std::vector<bool> *kept = nullptr)
{
	std::vector<LidFloor> floors(mode == LidMode::pair ? jobs.size() : 0);
	std::vector<Job> chosen;
	chosen.reserve(jobs.size());
	LidOptions opt;
	opt.beside = &chosen;
	opt.pair = pair;
	for (size_t i = 0; i < jobs.size(); i++) {
		Job &job = jobs[i];
		if (!kept || !(*kept)[i]) {
			const LidTable t = choose_lids(m.fabric(), m.router(), m.tree(), pattern,
						       job.ranks, mode, opt);
			if (mode == LidMode::pair)
				floors[i] = {t.floor.hsd(), t.floor.stages(),
					     t.floor.count(PairFloor::congested),
					     t.floor.count(PairFloor::undecided)};
			job = t.job();
		}
		chosen.push_back(job);
	}
	return floors;
}

// --batch FILE: every group scored as `--jobs` would score it (a group of
// one job as `--hosts`), in one process: the simulator scores hundreds of
// placements per policy, and loading the fabric and its routing once is
// most of the saving.
int score_batch(const Args &args, const Model &m, const std::string &routing,
		const Pattern &pattern, const std::string &pattern_spec,
		const std::string &order_text, unsigned offset)
{
	const bool lid = args.has("--lid");
	const LidMode mode = lid ? lid_mode(args.get("--lid")) : LidMode::job;
	if (lid && mode == LidMode::stripe)
		throw UsageError{"--lid stripe scores one job (--hosts), not --batch: "
				 "give --lid job, dest or pair"};
	if (!lid && (args.has("--lid-in") || args.has("--lid-out")))
		throw UsageError{"--lid-in and --lid-out keep the offsets of --lid MODE"};
	const std::string path = args.get("--batch");
	const Fabric &f = m.fabric();
	// Offsets kept by key: from --lid-in, and every keyed job that chose
	// in this batch (later groups reuse its choice).
	std::map<std::string, KeptLids> kept;
	if (args.has("--lid-in"))
		kept = read_kept(args.get("--lid-in"), f, mode);
	std::string chosen_out;
	const Tree *tree = m.tree();
	const RankOrder order = RankOrder::parse(order_text);
	ScoreOptions opt;
	opt.worst_links = args.number("--worst", 5, 1000);
	opt.bandwidth = args.has("--bandwidth") || pattern_spec.rfind("bisect", 0) == 0;
	opt.per_job = args.has("--per-job");
	std::string out;
	std::vector<size_t> owner(f.hosts().size(), 0);
	for (const Group &g : batch_groups(path)) {
		std::vector<Job> jobs;
		std::vector<LidFloor> floors;
		size_t hosts = 0;
		std::fill(owner.begin(), owner.end(), 0);
		for (size_t i = 0; i < g.jobs.size(); i++) {
			Job job;
			RankOrder o = order;
			o.seed += i; // as --jobs: each job its own random order
			try {
				job.ranks = apply_order(o, f, tree, resolve_hosts(f, g.jobs[i]));
			} catch (const Error &e) {
				fail(e.status(), path, ":", g.lines[i], ": ", e.what());
			}
			for (HostOrd h : job.ranks) {
				if (owner[h])
					fail(Status::invalid, path, ":", g.lines[i], ": host ",
					     f.node(f.hosts()[h]).name, " is in job ", owner[h],
					     " and job ", i + 1, " of its group");
				owner[h] = i + 1;
			}
			if (offset)
				job.offsets.assign(job.ranks.size(), uint8_t(offset));
			hosts += job.ranks.size();
			jobs.push_back(std::move(job));
		}
		if (lid) {
			std::vector<bool> fixed(jobs.size(), false);
			for (size_t i = 0; i < jobs.size(); i++) {
				auto it = g.keys[i].empty() ? kept.end() : kept.find(g.keys[i]);
				if (it == kept.end())
					continue;
				if (it->second.ranks != jobs[i].ranks)
					fail(Status::invalid, path, ":", g.lines[i], ": job ",
					     g.keys[i], ": not the hosts (in rank order) its "
					     "offsets were kept for");
				jobs[i].offsets = it->second.offsets;
				jobs[i].lid_choice = kept_choice(mode);
				fixed[i] = true;
			}
			floors = choose_in_order(m, pattern, mode, pair_options(args), jobs, &fixed);
			for (size_t i = 0; i < jobs.size(); i++) {
				if (fixed[i] || g.keys[i].empty())
					continue;
				KeptLids &k = kept[g.keys[i]];
				k.mode = mode;
				k.ranks = jobs[i].ranks;
				k.offsets = jobs[i].offsets;
				chosen_out += kept_line(f, g.keys[i], k);
			}
		}
		opt.shared_links = jobs.size() > 1;
		Score sc = score_jobs(f, m.router(), pattern, jobs, opt);
		ScoreContext ctx{routing, order_text, jobs.size(), hosts, floors};
		if (args.has("--json"))
			out += one_line(score_json(f, sc, ctx));
		else
			out += (out.empty() ? "" : "\n") + score_text(f, sc, ctx);
	}
	if (args.has("--lid-out")) {
		const std::string out_path = args.get("--lid-out");
		std::ofstream o(out_path, std::ios::binary | std::ios::trunc);
		if (!o || !(o << chosen_out) || !o.flush())
			fail(Status::io, out_path, ": cannot write");
	}
	std::fputs(out.c_str(), stdout);
	return 0;
}

// --lid stripe: every pair over every offset, flows in shares (seed 004);
// the engine's integer counts cannot say it, lib/lid does.
int score_striped(const Args &args, const Model &m, const Pattern &pattern,
		  const std::vector<Job> &jobs)
{
	if (jobs.size() != 1 || args.has("--json") || args.has("--flows") ||
	    args.has("--link-loads"))
		throw UsageError{"--lid stripe scores one job (--hosts), in text"};
	const Fabric &f = m.fabric();
	LidTable t = choose_lids(f, m.router(), m.tree(), pattern, jobs[0].ranks, LidMode::stripe);
	const LidScore s = score_lids(f, m.router(), pattern, t);
	std::printf("pattern %s\nlid stripe over %u offsets (LMC %u)\nhosts %zu\nstages %zu\n"
		    "hsd_avg %.4f\nhsd_max %.4f\ncongested_stages %zu\n",
		    pattern.name().c_str(), t.offsets, f.lmc(), t.hosts.size(), s.stages, s.avg_hsd,
		    s.max_hsd, s.congested);
	return 0;
}

} // namespace

int cmd_score(int argc, char **argv)
{
	Args args(argc, argv, 2,
		  {"--fabric", "--hosts", "--jobs", "--batch", "--pattern", "--order",
		   "--routing", "--lid-offset", "--worst", "--lft", "--link-loads", "--flows",
		   "--threads", "--lid", "--lmc", "--lid-in", "--lid-out", "--lid-threads",
		   "--lid-exact", "--lid-hall", "--lid-walk", "--lid-lns", "--lid-lns-flows",
		   "--lid-lns-probe", "--lid-spare"},
		  {"--json", "--bandwidth", "--per-job"});
	args.no_positional();
	if (args.has("--hosts") + args.has("--jobs") + args.has("--batch") != 1)
		throw UsageError{"give exactly one of --hosts, --jobs and --batch"};
	if (!args.has("--batch") && (args.has("--lid-in") || args.has("--lid-out")))
		throw UsageError{"--lid-in and --lid-out keep offsets across the groups of --batch"};
	if (args.has("--batch") && (args.has("--flows") || args.has("--link-loads")))
		throw UsageError{"--flows and --link-loads score one job or group, not --batch"};
	std::string routing = routing_arg(args);
	std::unique_ptr<Model> m = load_model(args.need("--fabric"), routing);
	lmc_arg(args, *m, routing);
	const Fabric &f = m->fabric();
	const Tree *tree = m->tree();
	if (args.has("--lid") && args.has("--lid-offset"))
		throw UsageError{"--lid chooses the offsets: not with --lid-offset"};

	std::string pattern_spec = args.get("--pattern", "shift");
	std::unique_ptr<Pattern> pattern =
		make_pattern(pattern_spec, tree ? &tree->pgft() : nullptr);
	std::string order_text = args.get("--order", "tree");
	RankOrder order = RankOrder::parse(order_text);
	unsigned offset = unsigned(args.number("--lid-offset", 0, 127));
	if (args.has("--batch"))
		return score_batch(args, *m, routing, *pattern, pattern_spec, order_text, offset);

	std::vector<std::vector<std::string>> job_names;
	if (args.has("--hosts"))
		job_names.push_back(host_names(f, args.get("--hosts")));
	else
		job_names = job_lines(args.get("--jobs"));

	std::vector<Job> jobs;
	size_t hosts = 0;
	for (size_t i = 0; i < job_names.size(); i++) {
		Job job;
		RankOrder o = order;
		o.seed += i; // each job its own random order, reproducibly
		try {
			job.ranks = apply_order(o, f, tree, resolve_hosts(f, job_names[i]));
		} catch (const Error &e) {
			if (job_names.size() == 1)
				throw;
			fail(e.status(), "job ", i + 1, ": ", e.what());
		}
		if (offset)
			job.offsets.assign(job.ranks.size(), uint8_t(offset));
		hosts += job.ranks.size();
		jobs.push_back(std::move(job));
	}
	// Two jobs cannot share a host.
	std::vector<size_t> owner(f.hosts().size(), 0);
	for (size_t i = 0; i < jobs.size(); i++)
		for (HostOrd h : jobs[i].ranks) {
			if (owner[h])
				fail(Status::invalid, "host ", f.node(f.hosts()[h]).name,
				     " is in job ", owner[h], " and job ", i + 1);
			owner[h] = i + 1;
		}
	std::vector<LidFloor> floors;
	if (args.has("--lid")) {
		// The choice of lib/lid, on the pattern the jobs are scored by;
		// several jobs choose in the order listed, each beside the ones
		// before it (as a group of --batch does).
		const LidMode mode = lid_mode(args.get("--lid"));
		if (mode == LidMode::stripe)
			return score_striped(args, *m, *pattern, jobs);
		floors = choose_in_order(*m, *pattern, mode, pair_options(args), jobs);
	}

	ScoreOptions opt;
	opt.threads = args.number("--threads", std::max(1u, std::thread::hardware_concurrency()), 1024);
	opt.worst_links = args.number("--worst", 5, 1000);
	opt.bandwidth = args.has("--bandwidth") || pattern_spec.rfind("bisect", 0) == 0;
	opt.per_job = args.has("--per-job");
	opt.shared_links = jobs.size() > 1;
	// Per-stage detail for comparisons with other tools (ibdm): the flows
	// by host name and LID, and every loaded link.
	std::FILE *flows_out = nullptr, *loads_out = nullptr;
	auto open_out = [](const std::string &path) {
		std::FILE *fp = std::fopen(path.c_str(), "w");
		if (!fp)
			fail(Status::io, path, ": cannot write");
		return fp;
	};
	if (args.has("--flows"))
		flows_out = open_out(args.get("--flows"));
	if (args.has("--link-loads"))
		loads_out = open_out(args.get("--link-loads"));
	if (flows_out || loads_out)
		opt.observer = [&](size_t stage, const std::vector<Flow> &flows,
				   const std::vector<uint32_t> &load) {
			for (const Flow &fl : flows)
				if (flows_out)
					std::fprintf(flows_out, "%zu %s %s %u\n", stage,
						     f.node(f.hosts()[fl.src]).name.c_str(),
						     f.node(f.hosts()[fl.dst]).name.c_str(),
						     f.host_lid(fl.dst) + fl.offset);
			for (PortIdx l = 0; loads_out && l < load.size(); l++)
				if (load[l])
					std::fprintf(loads_out, "%zu %s %u %s %u %u\n", stage,
						     guid_text(f.node(f.port(l).node).guid).c_str(),
						     f.port(l).num,
						     guid_text(f.node(f.port(f.port(l).peer).node).guid).c_str(),
						     f.port(f.port(l).peer).num, load[l]);
		};
	Score sc = score_jobs(f, m->router(), *pattern, jobs, opt);
	for (std::FILE *fp : {flows_out, loads_out})
		if (fp && std::fclose(fp))
			fail(Status::io, "cannot finish writing --flows / --link-loads");
	ScoreContext ctx{routing, order_text, jobs.size(), hosts, floors};
	std::fputs(args.has("--json") ? score_json(f, sc, ctx).c_str()
				      : score_text(f, sc, ctx).c_str(),
		   stdout);
	return 0;
}

} // namespace qft::cli
