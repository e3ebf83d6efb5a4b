// SPDX-License-Identifier: GPL-2.0-or-later
// Copyright (C) 2026 slurm-qft developers.
//
// The scheduling rules beside the placer (wait.hpp).

#include "lib/place/wait.hpp"

#include <algorithm>
#include <cmath>

namespace qft {

double shape_wait(const WaitingJob &job, const ShapeWaitRule &rule)
{
	double w = INFINITY;
	if (job.own_set) {
		w = job.own * 60.0;
	} else {
		if (!rule.percent)
			return 0;
		uint32_t limit = job.limit;
		if (!limit)
			limit = job.part_default ? job.part_default : job.part_max;
		if (limit)
			w = limit * 60.0 * rule.percent / 100.0;
	}
	if (rule.max_seconds && w > rule.max_seconds)
		w = rule.max_seconds;
	// no limit anywhere and no cap: a wait without end is no wait
	return std::isinf(w) ? 0 : w;
}

double shape_left(const WaitingJob &job, double wait, std::time_t now)
{
	// not begun yet, or begins later (--begin): the whole wait is left
	const double waited = job.since ? std::difftime(now, job.since) : 0;
	return waited > 0 ? wait - waited : wait;
}

void shape_forecast(double *free_at, std::size_t hosts, const ShapeWaitRule &rule)
{
	if (!rule.ends || rule.ends >= 100)
		return; // by the limits, as backfill plans
	const double scale = rule.ends / 100.0;
	for (std::size_t h = 0; h < hosts; h++)
		if (std::isfinite(free_at[h]))
			free_at[h] *= scale; // 0 (free) stays free
}

bool decline_for_shape(bool now_shape, std::size_t now_hosts, double ahead_at)
{
	// one host uses no switch link: nothing to wait for
	return !now_shape && now_hosts > 1 && ahead_at > 0;
}

bool isolation_in_play(bool asks_isolation, std::size_t isolated_running, uint32_t max_nodes)
{
	return asks_isolation || (isolated_running > 0 && max_nodes > 1);
}

Pass pass_to_cons_tres(bool run_now, bool asks_isolation, std::size_t isolated_running,
		       uint32_t max_nodes)
{
	// backfill's plans (WILL_RUN) start nothing: RUN_NOW will judge
	if (!run_now || (!asks_isolation && !isolated_running))
		return Pass::whole_bitmap;
	if (max_nodes <= 1) // no switch link: only the nodes matter
		return asks_isolation ? Pass::idle_off_isolated : Pass::off_isolated;
	return Pass::wait;
}

bool ShapeHolders::may_hold(uint32_t id, uint32_t priority, uint32_t limit,
			    const Pending &pending)
{
	size_t above = 0, kept = 0;
	for (Held h : held_) {
		if (h.id != id && !pending(h.id, h.priority))
			continue; // started, or gone
		held_[kept++] = h;
		if (h.id != id && (h.priority > priority || (h.priority == priority && h.id < id)))
			above++;
	}
	held_.resize(kept);
	return !limit || above < limit;
}

void ShapeHolders::hold(uint32_t id, uint32_t priority)
{
	for (Held &h : held_)
		if (h.id == id) {
			h.priority = priority;
			return;
		}
	held_.push_back(Held{id, priority});
}

void ShapeHolders::unhold(uint32_t id)
{
	auto it = std::find_if(held_.begin(), held_.end(), [&](const Held &h) { return h.id == id; });
	if (it != held_.end()) {
		*it = held_.back();
		held_.pop_back();
	}
}

} // namespace qft
