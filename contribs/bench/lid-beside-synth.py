#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A busy machine and a new job beside it, for `qft score --lid pair
--batch` (docs/lid-offsets.md, "The walk"): running jobs of the sizes a
mixed stream holds, each on a run of free hosts from a random one on (tree
order, as the placers give), until OCCUPANCY of the hosts left beside the
new job are busy; then the new job of NEW hosts, on a run of the free ones
(--run) or at random among them. Hosts n0001..nHOSTS.

  lid-beside-synth.py SEED NEW OCCUPANCY [--run] [--hosts N] > GROUP.txt

Prints one --batch group: "rK: HOSTS" per running job, "new: HOSTS" last.
Choose the running jobs once (--lid-out ALL.txt), keep them (ALL.txt
without its "new" line as --lid-in) and choose the new job again beside
them as often as wanted."""
import argparse
import random


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("seed", type=int)
    p.add_argument("new", type=int, help="hosts of the new job")
    p.add_argument("occupancy", type=float, help="share of the other hosts running jobs")
    p.add_argument("--run", action="store_true", help="the new job on a run of free hosts")
    p.add_argument("--hosts", type=int, default=1944)
    a = p.parse_args()
    r = random.Random(a.seed)
    n = a.hosts
    if a.new > n:
        p.error("NEW %d is more than the %d hosts" % (a.new, n))
    target = int((n - a.new - r.randint(0, 60)) * a.occupancy)
    used, jobs = set(), []
    while len(used) < target * 0.98:
        size = min(r.choice([2, 4, 8, 16, 18, 32, 36, 54, 64, 100, 128, 200, 256]),
                   target - len(used))
        if size < 2:
            break
        free = [h for h in range(1, n + 1) if h not in used]
        i = r.randrange(len(free))
        take = free[i:i + size]
        if len(take) < size:
            take = free[:size]
        used.update(take)
        jobs.append(take)
    free = [h for h in range(1, n + 1) if h not in used]
    if a.run:
        i = r.randrange(len(free))
        new = sorted((free[i:] + free[:i])[:a.new])
    else:
        new = sorted(r.sample(free, a.new))

    def hosts(hs):
        return ",".join("n%04d" % h for h in hs)

    for k, j in enumerate(jobs):
        print("r%d: %s" % (k, hosts(j)))
    print("new: %s" % hosts(new))


if __name__ == "__main__":
    main()
