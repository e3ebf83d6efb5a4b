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
//   bench_stream TUPLE WORKLOAD.json [NODE_RANGE_PCT [HOLD_S]]
//
// HOLD_S > 0: a multi-node job whose placement is not congestion-free
// waits up to HOLD_S seconds (while anything runs) for one that is; it
// shows what waiting for shapes would buy and cost.
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

#include "lib/place/links.hpp"
#include "lib/place/placement.hpp"
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
};

struct Figures {
	size_t multi = 0, congestion_free = 0, placements = 0;
	double shared_sum = 0, wait_sum = 0, busy = 0, makespan = 0, usec = 0;
	std::map<std::string, size_t> kinds;
};

class Stream {
public:
	Stream(const Tree &t, const Router &r, const Fabric &f, const Setting &s,
	       const std::vector<StreamJob> &jobs, double range_pct, double hold)
		: t_(t), jobs_(jobs), range_(range_pct), hold_(hold), links_(t.pgft()),
		  free_(f.hosts().size())
	{
		PlacementPolicy pol;
		pol.products = s.products;
		pol.round_up = s.round_up;
		pol.remainder = s.remainder;
		placer_ = std::make_unique<Placer>(f, t, r, pol);
		req_.eligible.assign(f.hosts().size(), true);
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
	};

	bool start(size_t j, double now)
	{
		const StreamJob &job = jobs_[j];
		if (job.size > free_)
			return false;
		req_.nodes = job.size;
		req_.nodes_min = range_ > 0 ? uint32_t(std::max(
						      1.0, std::floor(job.size * (1.0 - range_ / 100.0))))
					    : 0;
		auto t0 = std::chrono::steady_clock::now();
		Placement p = placer_->place(req_);
		fig_.usec += std::chrono::duration<double, std::micro>(
				     std::chrono::steady_clock::now() - t0)
				     .count();
		fig_.placements++;
		if (p.outcome != Placement::placed)
			return false;
		// --hold: a job that is not congestion-free waits up to hold_
		// seconds for a shape that is (while something runs)
		if (hold_ > 0 && p.chosen.hosts.size() > 1 && !p.chosen.congestion_free &&
		    now - job.arrival < hold_ && !running_.empty())
			return false;
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
		running_.insert({now + job.runtime, Running{id, p.chosen.hosts}});
		return true;
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
		while (!queue_.empty() && start(queue_.front(), now))
			queue_.pop_front();
		if (queue_.empty())
			return;
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
	double range_, hold_;
	LinkUse links_;
	std::unique_ptr<Placer> placer_;
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
		std::fprintf(stderr, "usage: bench_stream TUPLE WORKLOAD.json [NODE_RANGE_PCT [HOLD_S]]\n");
		return 2;
	}
	Fabric f = generate_pgft(Pgft::parse(argv[1]), GenOptions());
	Tree t = Tree::from_fabric(f);
	DModK r(f, t);
	const std::vector<StreamJob> jobs = read_workload(argv[2]);
	const double range = argc > 3 ? std::atof(argv[3]) : 0;
	const double hold = argc > 4 ? std::atof(argv[4]) : 0;
	std::printf("qft bench: %zu jobs of %s on PGFT(%s), %zu hosts, node range %.0f%%, hold %.0f s\n",
		    jobs.size(), argv[2], argv[1], f.hosts().size(), range, hold);
	std::printf("%-34s %7s %9s %6s %9s %8s  kinds of multi-node jobs\n", "setting", "HSD=1",
		    "shared", "util", "wait", "place");
	const Setting settings[] = {
		{"Shapes=blocks", false, 0, Remainder::exact},
		{"Shapes=products", true, 0, Remainder::exact},
		{"Shapes=products RoundUp=5", true, 5, Remainder::exact},
		{"Shapes=products RoundUp=5 reserve", true, 5, Remainder::reserve},
	};
	for (const Setting &s : settings) {
		Figures fg = Stream(t, r, f, s, jobs, range, hold).run();
		std::string kinds;
		for (const auto &[k, n] : fg.kinds)
			kinds += " " + k + " " + std::to_string(n);
		std::printf("%-34s %6.1f%% %9.1f %5.1f%% %8.0fs %6.0fus %s\n", s.name,
			    100.0 * double(fg.congestion_free) / double(std::max<size_t>(fg.multi, 1)),
			    fg.shared_sum / double(std::max<size_t>(fg.multi, 1)),
			    100.0 * fg.busy / (double(f.hosts().size()) * fg.makespan),
			    fg.wait_sum / double(jobs.size()), fg.usec / double(fg.placements),
			    kinds.c_str());
	}
	return 0;
}
