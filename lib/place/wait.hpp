// SPDX-License-Identifier: GPL-2.0-or-later
// Copyright (C) 2026 slurm-qft developers.
//
// The scheduling rules beside the placer: ShapeWait=, by which a job
// waits for a congestion-free shape rather than start congested now
// (docs/product-shapes.md section 11): how long it may wait, what is left
// of that, when a start is declined for a shape, and which waiting jobs
// hold nodes for theirs in backfill's plan (ShapeHolds=); and what
// isolation leaves to cons_tres (the placement apart is Placer's). Plain
// arithmetic on times and priorities: the shape itself is
// Placer::shape_ahead's; what slurmctld knows of the job (limits, when its
// wait began, its priority) the caller reads from its own records.
#ifndef QFT_PLACE_WAIT_HPP
#define QFT_PLACE_WAIT_HPP

#include <cstddef>
#include <cstdint>
#include <ctime>
#include <functional>
#include <vector>

namespace qft {

// What the rules need of a waiting job. Limits in minutes, 0 for none.
struct WaitingJob {
	uint32_t limit = 0;        // its --time
	uint32_t part_default = 0; // its partition's DefaultTime
	uint32_t part_max = 0;     // its partition's MaxTime
	std::time_t since = 0;     // when its wait began to count (0: not yet)
	bool own_set = false;      // --qft-shape-wait given:
	uint32_t own = 0;          // its minutes (0: the job never waits)
};

// The site's rule (qft.conf).
struct ShapeWaitRule {
	uint32_t percent = 0;     // ShapeWait=: % of the time limit
	uint32_t max_seconds = 0; // ShapeWaitMax=: the admin's cap, 0: none
	uint32_t ends = 0;        // ShapeWaitEnds=: % of what is left of a
				  // running job's limit it is expected to
				  // run; 0 or 100: to its limit
};

// Seconds the job may wait for a shape, in all: its own minutes when it
// gave them, else rule.percent of its time limit (the partition's default,
// else maximum, when it gave none); at most rule.max_seconds either way; 0
// when it may not wait.
double shape_wait(const WaitingJob &job, const ShapeWaitRule &rule);

// Seconds from `now` within which a shape must come for the job to wait
// for it: `wait` counted from job.since, so that waiting never delays a
// start past since + wait whatever the tests in between saw. <= 0: the
// job may wait no longer.
double shape_left(const WaitingJob &job, double wait, std::time_t now);

// When the running jobs' hosts are expected free, from when their limits
// free them: `free_at[h]` seconds from now (0: free, INFINITY: never) is
// scaled to rule.ends percent of itself. Why: Slurm knows only limits,
// and users ask several times the time their jobs take (docs/sim.md run
// 31: whole leaves were due within the wait by the limits for 14 of 58
// jobs, by the real ends for 57), so a shape the limits put past the wait
// often comes within it. No job waits longer for it: shape_left still
// bounds the wait, and the forecast shrinks as the jobs run.
void shape_forecast(double *free_at, std::size_t hosts, const ShapeWaitRule &rule);

// Whether a start now is declined for a shape: the placement now is no
// shape (not proven congestion-free, nor with LID offsets whole leaves of
// one level-2 subtree: Candidate::offset_shape) and spans more than one
// host, and a shape is due later, at `ahead_at` seconds from now
// (negative: none within what is left of the wait). A shape free now is
// not waited for: the placer would have taken it (blocks before best fit).
bool decline_for_shape(bool now_shape, std::size_t now_hosts, double ahead_at);

// Isolation (--qft-isolate, docs/isolation.md) is in play for a job when
// it asks it, or when an isolated job runs and the job may span hosts (a
// job of one host uses no switch link).
bool isolation_in_play(bool asks_isolation, std::size_t isolated_running, uint32_t max_nodes);

// What select/rlft lets cons_tres do with a job it does not place
// itself in RUN_NOW (cons_tres knows no switch link).
enum class Pass {
	whole_bitmap,       // any node cons_tres likes: no isolation in play
	off_isolated,       // one node, off the isolated jobs' nodes
	idle_off_isolated,  // one node that no job uses: the job asks isolation
	wait,               // none: the job waits (its reason says why)
};
Pass pass_to_cons_tres(bool run_now, bool asks_isolation, std::size_t isolated_running,
		       uint32_t max_nodes);

// The waiting jobs that hold nodes for their shape in backfill's plan
// (ShapeHolds=), with their priorities as last seen.
class ShapeHolders {
public:
	// Asked of each other holder: its current priority, or false when it
	// no longer waits (it is dropped).
	using Pending = std::function<bool(uint32_t id, uint32_t &priority)>;

	// Whether job (id, priority) may hold: fewer than `limit` other
	// holders rank above it (a higher priority, or the same and a lower
	// id: the order slurmctld's schedulers try them in); limit 0: any
	// number may hold. The holders are first refreshed with `pending`.
	bool may_hold(uint32_t id, uint32_t priority, uint32_t limit, const Pending &pending);
	// The job holds (added, or its priority updated) / no longer holds.
	void hold(uint32_t id, uint32_t priority);
	void unhold(uint32_t id);
	std::size_t size() const { return held_.size(); }

private:
	struct Held {
		uint32_t id, priority;
	};
	std::vector<Held> held_;
};

} // namespace qft

#endif
