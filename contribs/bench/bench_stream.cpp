// SPDX-License-Identifier: GPL-2.0-or-later
// Placement policies on a job stream, without Slurm: a fast model for
// comparing the placer's settings on qft-sim's workload (workload.json),
// in seconds where a front-end run takes minutes. Figures, no asserts.
//
// The scheduler is a plain EASY backfill by node counts: the queue's head
// starts when the placer finds it hosts; behind it a job starts if the
// placer finds it hosts and it ends before the head's earliest start by
// counts, or uses no more than the nodes left over then. Slurm's own
// backfill differs in detail, so waits here are for comparing policies in
// the same run, not for reading as Slurm's. Per policy, for multi-node
// jobs: the share congestion-free alone (the placer's proof, exact under
// D-Mod-K), the switch links shared among the running multi-node jobs at
// each start (lib/place/links.hpp, the count qft-sim's scorer gives), the
// kinds of placement, utilisation and mean wait.
//
//   bench_stream TUPLE WORKLOAD.json [NODE_RANGE_PCT [HOLD_S [RESERVE_S [NEAR [LIMIT_S [SHARED_MAX]]]]]]
//
// HOLD_S > 0: a multi-node job whose placement is not congestion-free
// waits up to HOLD_S seconds (while anything runs) for one that is; it
// shows what waiting for shapes would buy and cost.
//
// The ReserveShape settings hold nodes for a shape the way backfill holds
// them for the top job: when the queue's head has no congestion-free
// placement now, it looks for the earliest end of a running job after
// which one exists on the hosts free by then (at most RESERVE_S ahead,
// default 7200), holds those hosts until then, and the jobs behind it
// start now only off them or if they end before; with no such shape
// ahead, the head starts as it can. Behind the head, a job whose
// placement now is not congestion-free waits when a congestion-free one
// comes within NEAR (default 0.5) times its own runtime, by the same
// search. LIMIT_S > 0: the ReserveShape rules see what slurmctld sees in
// qft-sim's front end, where every job has the same time limit: a running
// job ends (they think) at its start plus LIMIT_S, a job behind the head
// waits for a shape within NEAR x LIMIT_S and may use the head's hosts if
// LIMIT_S ends before the head's start; jobs still end at their runtime.
// LIMIT_S < 0: each job's limit is -LIMIT_S times its runtime (users who
// overestimate by that factor).
//
// The Isolate settings show what keeping jobs apart on the fabric costs: a
// multi-node job starts only on a candidate that shares at most SHARED_MAX
// (default 0) switch links with the running jobs (LinkUse, as the placer
// counts them; the best ranked such candidate among those the placer
// considered), else it waits, behind the head as at the head.
#include <jansson.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lib/common/error.hpp"
#include "lib/place/links.hpp"
#include "lib/place/placement.hpp"
#include "lib/place/shape.hpp"
#include "lib/route/dmodk.hpp"
#include "lib/tree/generate.hpp"
#include "lib/tree/tree.hpp"

using namespace qft;

namespace {

struct StreamJob {
	double arrival, runtime;
	uint32_t size;
};

std::vector<StreamJob> read_workload(const char *path)
{
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err);
	if (!root) {
		std::fprintf(stderr, "%s:%d: %s\n", path, err.line, err.text);
		std::exit(2);
	}
	std::vector<StreamJob> out;
	size_t i;
	json_t *j;
	json_array_foreach(json_object_get(root, "jobs"), i, j)
		out.push_back({json_number_value(json_object_get(j, "arrival")),
			       json_number_value(json_object_get(j, "runtime")),
			       uint32_t(json_integer_value(json_object_get(j, "size")))});
	json_decref(root);
	std::sort(out.begin(), out.end(),
		  [](const StreamJob &a, const StreamJob &b) { return a.arrival < b.arrival; });
	return out;
}

struct Setting {
	const char *name;
	bool products;
	uint32_t round_up;
	Remainder remainder;
	bool reserve_shape = false;
	// A multi-node job starts only on hosts that share at most SHARED_MAX
	// switch links with the running jobs (the best ranked such candidate
	// the placer considered), else it waits: what keeping jobs apart costs.
	bool isolate = false;
};

struct Figures {
	size_t multi = 0, congestion_free = 0, placements = 0, reservations = 0;
	double shared_sum = 0, wait_sum = 0, busy = 0, makespan = 0, usec = 0;
	std::map<std::string, size_t> kinds;
};

class Stream {
public:
	Stream(const Tree &t, const Router &r, const Fabric &f, const Setting &s,
	       const std::vector<StreamJob> &jobs, double range_pct, double hold, double reserve,
	       double near, double limit, size_t shared_max)
		: t_(t), jobs_(jobs), isolate_(s.isolate), shared_max_(shared_max),
		  range_(range_pct), hold_(hold),
		  reserve_(s.reserve_shape ? reserve : -1), near_(near), limit_(limit),
		  links_(t.pgft()),
		  free_(f.hosts().size())
	{
		PlacementPolicy pol;
		pol.products = s.products;
		pol.round_up = s.round_up;
		pol.remainder = s.remainder;
		placer_ = std::make_unique<Placer>(f, t, r, pol);
		req_.eligible.assign(f.hosts().size(), true);
		held_.assign(f.hosts().size(), false);
	}

	Figures run()
	{
		size_t next = 0;
		double now = 0;
		while (next < jobs_.size() || !queue_.empty() || !running_.empty()) {
			double t_arr = next < jobs_.size() ? jobs_[next].arrival : INFINITY;
			double t_end = running_.empty() ? INFINITY : running_.begin()->first;
			now = std::min(t_arr, t_end);
			while (!running_.empty() && running_.begin()->first <= now)
				finish();
			while (next < jobs_.size() && jobs_[next].arrival <= now)
				queue_.push_back(next++);
			schedule(now);
		}
		fig_.makespan = now;
		return fig_;
	}

private:
	struct Running {
		uint32_t id;
		std::vector<HostOrd> hosts;
		double seen_end; // what the ReserveShape rules think
	};
	// What the ReserveShape rules think job j runs for.
	double seen_runtime(size_t j) const
	{
		return limit_ > 0 ? limit_ : limit_ < 0 ? -limit_ * jobs_[j].runtime : jobs_[j].runtime;
	}

	// The job's placement now, off the `avoid` hosts (none: nullptr).
	Placement place(size_t j, const std::vector<bool> *avoid)
	{
		const StreamJob &job = jobs_[j];
		req_.nodes = job.size;
		req_.nodes_min = range_ > 0 ? uint32_t(std::max(
						      1.0, std::floor(job.size * (1.0 - range_ / 100.0))))
					    : 0;
		for (size_t h = 0; h < req_.eligible.size(); h++)
			req_.eligible[h] = !avoid || !(*avoid)[h];
		auto t0 = std::chrono::steady_clock::now();
		Placement p = placer_->place(req_);
		fig_.usec += std::chrono::duration<double, std::micro>(
				     std::chrono::steady_clock::now() - t0)
				     .count();
		fig_.placements++;
		return p;
	}

	bool start(size_t j, double now, const std::vector<bool> *avoid = nullptr)
	{
		if (jobs_[j].size > free_)
			return false;
		Placement p = place(j, avoid);
		if (p.outcome != Placement::placed)
			return false;
		// ReserveShape behind the head: a job with a shape within
		// near_ of its own runtime ahead waits for it
		if (reserve_ >= 0 && near_ > 0 && p.chosen.hosts.size() > 1 &&
		    !p.chosen.congestion_free &&
		    shape_ahead(j, now, near_ * seen_runtime(j), false))
			return false;
		// --hold: a job that is not congestion-free waits up to hold_
		// seconds for a shape that is (while something runs)
		if (hold_ > 0 && p.chosen.hosts.size() > 1 && !p.chosen.congestion_free &&
		    now - jobs_[j].arrival < hold_ && !running_.empty())
			return false;
		if (isolate_ && p.chosen.hosts.size() > 1 && p.chosen.shared > shared_max_) {
			auto alone = std::find_if(p.considered.begin(), p.considered.end(),
						  [&](const Candidate &c) { return c.shared <= shared_max_; });
			if (alone == p.considered.end())
				return false;
			p.chosen = *alone;
			// the placer proves its first choice only; the fabric is complete
			p.chosen.congestion_free = congestion_free_hosts(t_.pgft(), indexes(p.chosen.hosts));
		}
		commit(j, now, p);
		return true;
	}

	// ReserveShape's head: starts now when congestion-free (or one
	// node), else holds the hosts of the earliest shape ahead (held_,
	// until held_until_) and waits; with none, starts as it can.
	bool start_head(size_t j, double now)
	{
		const StreamJob &job = jobs_[j];
		Placement p;
		if (job.size <= free_) {
			p = place(j, nullptr);
			if (p.outcome == Placement::placed &&
			    (p.chosen.hosts.size() == 1 || p.chosen.congestion_free)) {
				commit(j, now, p);
				return true;
			}
		}
		if (job.size > 1 && shape_ahead(j, now)) {
			fig_.reservations++;
			return false;
		}
		if (p.outcome != Placement::placed)
			return false;
		commit(j, now, p);
		return true;
	}

	// The earliest end of a running job within `horizon` after which the
	// hosts free by then hold a congestion-free placement of job j
	// (Placer::shape_ahead, as select/rlft's ShapeWait= asks it); with
	// `hold`, the head's: its hosts are held until then.
	bool shape_ahead(size_t j, double now) { return shape_ahead(j, now, reserve_, true); }
	bool shape_ahead(size_t j, double now, double horizon, bool hold)
	{
		std::vector<double> free_at(req_.eligible.size(), 0);
		for (const auto &[end, r] : running_)
			for (HostOrd h : r.hosts)
				free_at[h] = std::max(0.0, r.seen_end - now);
		PlacementRequest req;
		req.nodes = req_.nodes = jobs_[j].size;
		req.nodes_min = req_.nodes_min;
		req.eligible.assign(free_at.size(), true);
		std::optional<Placer::Ahead> a = placer_->shape_ahead(req, free_at, horizon);
		if (!a)
			return false;
		if (hold) {
			std::fill(held_.begin(), held_.end(), false);
			for (HostOrd h : a->chosen.hosts)
				held_[h] = true;
			held_until_ = now + a->at;
		}
		return true;
	}

	void commit(size_t j, double now, const Placement &p)
	{
		const StreamJob &job = jobs_[j];
		const uint32_t id = uint32_t(j + 1);
		placer_->add_running(id, p.chosen.hosts);
		free_ -= p.chosen.hosts.size(); // reserved hosts: the placer says not_now
		fig_.wait_sum += now - job.arrival;
		fig_.busy += double(p.chosen.hosts.size()) * job.runtime;
		if (p.chosen.hosts.size() > 1) {
			fig_.multi++;
			fig_.congestion_free += p.chosen.congestion_free;
			fig_.kinds[placement_kind_name(p.chosen.kind)]++;
			links_.add(indexes(p.chosen.hosts), 1);
			fig_.shared_sum += double(links_.shared());
		}
		running_.insert({now + job.runtime, Running{id, p.chosen.hosts, now + seen_runtime(j)}});
	}

	void finish()
	{
		const Running &r = running_.begin()->second;
		placer_->remove_running(r.id);
		free_ += r.hosts.size();
		if (r.hosts.size() > 1)
			links_.add(indexes(r.hosts), -1);
		running_.erase(running_.begin());
	}

	std::vector<uint64_t> indexes(const std::vector<HostOrd> &hosts) const
	{
		std::vector<uint64_t> idx;
		for (HostOrd h : hosts)
			idx.push_back(t_.host_index(h));
		return idx;
	}

	void schedule(double now)
	{
		held_until_ = -1;
		while (!queue_.empty() &&
		       (reserve_ >= 0 ? start_head(queue_.front(), now) : start(queue_.front(), now)))
			queue_.pop_front();
		if (queue_.empty())
			return;
		if (held_until_ >= 0) { // the head waits for its shape
			for (auto it = std::next(queue_.begin()); it != queue_.end();) {
				const bool before = now + seen_runtime(*it) <= held_until_;
				if (start(*it, now, before ? nullptr : &held_))
					it = queue_.erase(it);
				else
					++it;
			}
			return;
		}
		// the head's earliest start by counts, and the nodes left then
		const uint32_t need = jobs_[queue_.front()].size;
		size_t avail = free_;
		double shadow = now;
		for (const auto &[end, r] : running_) {
			if (avail >= need)
				break;
			avail += r.hosts.size();
			shadow = end;
		}
		size_t extra = avail >= need ? avail - need : 0;
		for (auto it = std::next(queue_.begin()); it != queue_.end();) {
			const StreamJob &job = jobs_[*it];
			const bool before = now + job.runtime <= shadow;
			if ((before || job.size <= extra) && start(*it, now)) {
				if (!before)
					extra -= job.size;
				it = queue_.erase(it);
			} else {
				++it;
			}
		}
	}

	const Tree &t_;
	const std::vector<StreamJob> &jobs_;
	const bool isolate_;
	const size_t shared_max_; // Isolate: the links a start may share
	double range_, hold_, reserve_; // reserve_ < 0: no ReserveShape
	double near_;                   // ReserveShape behind the head
	double limit_;                  // > 0: every job's time limit, as the rules see it;
					// < 0: -limit_ x its runtime
	LinkUse links_;
	std::unique_ptr<Placer> placer_;
	std::vector<bool> held_; // ReserveShape: the head's shape, until held_until_
	double held_until_ = -1;
	PlacementRequest req_;
	std::deque<size_t> queue_;
	std::multimap<double, Running> running_;
	size_t free_;
	Figures fig_;
};

} // namespace

int main(int argc, char **argv)
{
	if (argc < 3) {
		std::fprintf(stderr, "usage: bench_stream TUPLE WORKLOAD.json [NODE_RANGE_PCT [HOLD_S "
				     "[RESERVE_S [NEAR [LIMIT_S [SHARED_MAX]]]]]]\n");
		return 2;
	}
	Fabric f = generate_pgft(Pgft::parse(argv[1]), GenOptions());
	Tree t = Tree::from_fabric(f);
	DModK r(f, t);
	const std::vector<StreamJob> jobs = read_workload(argv[2]);
	const double range = argc > 3 ? std::atof(argv[3]) : 0;
	const double hold = argc > 4 ? std::atof(argv[4]) : 0;
	const double reserve = argc > 5 ? std::atof(argv[5]) : 7200;
	const double near = argc > 6 ? std::atof(argv[6]) : 0.5;
	const double limit = argc > 7 ? std::atof(argv[7]) : 0;
	const size_t shared_max = argc > 8 ? size_t(std::atol(argv[8])) : 0;
	std::printf("qft bench: %zu jobs of %s on PGFT(%s), %zu hosts, node range %.0f%%, hold %.0f s, "
		    "ReserveShape within %.0f s, near %.2f x %s; Isolate shares at most %zu links\n",
		    jobs.size(), argv[2], argv[1], f.hosts().size(), range, hold, reserve, near,
		    limit > 0   ? cat("a time limit of ", limit, " s for every job").c_str()
		    : limit < 0 ? cat("a time limit of ", -limit, " x runtime").c_str()
				: "runtime",
		    shared_max);
	std::printf("%-34s %7s %9s %6s %9s %8s  kinds of multi-node jobs\n", "setting", "HSD=1",
		    "shared", "util", "wait", "place");
	const Setting settings[] = {
		{"Shapes=blocks", false, 0, Remainder::exact},
		{"Shapes=products", true, 0, Remainder::exact},
		{"Shapes=products RoundUp=5", true, 5, Remainder::exact},
		{"Shapes=products RoundUp=5 reserve", true, 5, Remainder::reserve},
		{"Shapes=blocks ReserveShape", false, 0, Remainder::exact, true},
		{"Shapes=products ReserveShape", true, 0, Remainder::exact, true},
		{"Shapes=blocks Isolate", false, 0, Remainder::exact, false, true},
		{"Shapes=products Isolate", true, 0, Remainder::exact, false, true},
		{"Shapes=products RoundUp=5 Isolate", true, 5, Remainder::exact, false, true},
	};
	for (const Setting &s : settings) {
		Figures fg = Stream(t, r, f, s, jobs, range, hold, reserve, near, limit, shared_max).run();
		std::string kinds;
		for (const auto &[k, n] : fg.kinds)
			kinds += " " + k + " " + std::to_string(n);
		if (fg.reservations)
			kinds += " | head waited for a shape " + std::to_string(fg.reservations) + "x";
		std::printf("%-34s %6.1f%% %9.1f %5.1f%% %8.0fs %6.0fus %s\n", s.name,
			    100.0 * double(fg.congestion_free) / double(std::max<size_t>(fg.multi, 1)),
			    fg.shared_sum / double(std::max<size_t>(fg.multi, 1)),
			    100.0 * fg.busy / (double(f.hosts().size()) * fg.makespan),
			    fg.wait_sum / double(jobs.size()), fg.usec / double(fg.placements),
			    kinds.c_str());
	}
	return 0;
}
