/*****************************************************************************\
 *  rlft_cache.c - views of slurmctld's job list kept between tests
 *  (rlft_cache.h).
 *
 *  Copyright (C) 2026 slurm-qft developers.
 *
 *  This program is free software; you can redistribute it and/or modify it
 *  under the terms of the GNU General Public License as published by the
 *  Free Software Foundation; either version 2 of the License, or (at your
 *  option) any later version.
 *
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include "src/plugins/select/rlft/rlft_cache.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

extern bool rlft_ends_reset(rlft_ends_t *ends, size_t hosts)
{
	if (ends->hosts != hosts || !ends->end) {
		time_t *end = realloc(ends->end, (hosts ? hosts : 1) * sizeof(*end));

		if (!end)
			return false;
		ends->end = end;
		ends->hosts = hosts;
	}
	for (size_t h = 0; h < hosts; h++)
		ends->end[h] = 0;
	return true;
}

extern void rlft_ends_raise(rlft_ends_t *ends, size_t host, time_t end, bool never)
{
	time_t *e;

	if (host >= ends->hosts)
		return;
	e = &ends->end[host];
	if (never)
		*e = RLFT_ENDS_NEVER;
	else if (*e != RLFT_ENDS_NEVER && end > *e)
		*e = end;
}

extern void rlft_ends_free_at(const rlft_ends_t *ends, const uint8_t *eligible, time_t now,
			      double *at)
{
	for (size_t h = 0; h < ends->hosts; h++) {
		time_t e = ends->end[h];
		double left = e ? difftime(e, now) : 0;

		if (!eligible[h] || e == RLFT_ENDS_NEVER)
			at[h] = INFINITY;
		else /* past its limit (OverTimeLimit): ending any moment */
			at[h] = left > 0 ? left : 0;
	}
}

extern void rlft_ends_free(rlft_ends_t *ends)
{
	free(ends->end);
	*ends = (rlft_ends_t){ 0 };
}

extern rlft_stamp_t rlft_stamp(time_t job_update, uint64_t events, time_t now)
{
	return (rlft_stamp_t){ .job_update = job_update, .built = now, .events = events,
			       .valid = true };
}

extern bool rlft_stamp_fresh(const rlft_stamp_t *s, time_t job_update, uint64_t events,
			     time_t now)
{
	if (!s->valid || s->events != events || s->job_update != job_update)
		return false;
	/* built in the second of the last update: one more change in that
	 * second would not show; a later second rebuilds once */
	return !(job_update >= s->built && now > s->built);
}

/* FNV-1a over the ordinals and their number. */
extern uint64_t rlft_hosts_sig(const size_t *hosts, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t k = 0; k <= n; k++) {
		uint64_t v = k < n ? (uint64_t) hosts[k] : (uint64_t) n | (1ULL << 63);

		for (int b = 0; b < 8; b++) {
			h ^= (v >> (8 * b)) & 0xff;
			h *= 1099511628211ULL;
		}
	}
	return h;
}

static size_t _seen_home(const rlft_seen_t *seen, uint32_t id)
{
	return (size_t) (id * 2654435761U) & (seen->size - 1);
}

/* The slot of id, or of the empty slot where it would go. */
static rlft_seen_slot_t *_seen_slot(const rlft_seen_t *seen, uint32_t id)
{
	size_t i = _seen_home(seen, id);

	while (seen->slot[i].id && seen->slot[i].id != id)
		i = (i + 1) & (seen->size - 1);
	return &seen->slot[i];
}

extern bool rlft_seen_same(const rlft_seen_t *seen, uint32_t id, uint64_t sig)
{
	const rlft_seen_slot_t *s;

	if (!seen->size || !id)
		return false;
	s = _seen_slot(seen, id);
	return s->id == id && s->sig == sig;
}

/* Doubles the table (kept at most half full, so probes stay short). */
static bool _seen_grow(rlft_seen_t *seen)
{
	rlft_seen_t bigger = { .size = seen->size ? 2 * seen->size : 64 };

	if (!(bigger.slot = calloc(bigger.size, sizeof(*bigger.slot))))
		return false;
	for (size_t i = 0; i < seen->size; i++)
		if (seen->slot[i].id)
			*_seen_slot(&bigger, seen->slot[i].id) = seen->slot[i];
	bigger.count = seen->count;
	free(seen->slot);
	*seen = bigger;
	return true;
}

extern bool rlft_seen_put(rlft_seen_t *seen, uint32_t id, uint64_t sig)
{
	rlft_seen_slot_t *s;

	if (!id)
		return false;
	if (2 * (seen->count + 1) > seen->size && !_seen_grow(seen)) {
		rlft_seen_del(seen, id); /* no stale signature stays */
		return false;
	}
	s = _seen_slot(seen, id);
	if (!s->id)
		seen->count++;
	*s = (rlft_seen_slot_t){ id, sig };
	return true;
}

extern void rlft_seen_del(rlft_seen_t *seen, uint32_t id)
{
	size_t i, j, mask = seen->size - 1;

	if (!seen->size || !id || _seen_slot(seen, id)->id != id)
		return;
	i = (size_t) (_seen_slot(seen, id) - seen->slot);
	/* backward shift: no tombstones, so a miss stops at the first empty
	 * slot; an entry moves into the gap unless its home lies between the
	 * gap and it (cyclically) */
	for (j = (i + 1) & mask; seen->slot[j].id; j = (j + 1) & mask) {
		size_t home = _seen_home(seen, seen->slot[j].id);

		if (((j - home) & mask) >= ((j - i) & mask)) {
			seen->slot[i] = seen->slot[j];
			i = j;
		}
	}
	seen->slot[i] = (rlft_seen_slot_t){ 0 };
	seen->count--;
}

extern void rlft_seen_sweep(rlft_seen_t *seen, bool (*keep)(uint32_t id, void *arg),
			    void (*drop)(uint32_t id, void *arg), void *arg)
{
	uint32_t *gone;
	size_t n = 0;

	if (!seen->count || !(gone = malloc(seen->count * sizeof(*gone))))
		return;
	/* collected first: a deletion shifts entries behind the cursor */
	for (size_t i = 0; i < seen->size; i++)
		if (seen->slot[i].id && !keep(seen->slot[i].id, arg))
			gone[n++] = seen->slot[i].id;
	for (size_t k = 0; k < n; k++) {
		drop(gone[k], arg);
		rlft_seen_del(seen, gone[k]);
	}
	free(gone);
}

extern void rlft_seen_free(rlft_seen_t *seen)
{
	free(seen->slot);
	*seen = (rlft_seen_t){ 0 };
}
