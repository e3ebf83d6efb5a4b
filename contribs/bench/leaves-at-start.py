#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The leaves a qft-sim run's jobs took in part, against the whole free
leaves at their start (docs/lid-offsets.md, "Whole leaves across pods").

For each job of more than a leaf: the hosts free at its start (no other
job's between its start and end stamps), the free whole leaves then, and
whether they held all but N mod m_1 of its hosts with some leaf holding
the rest. Jobs fall in three groups: took whole leaves (no more leaves
in part than that needs), could have and did not, had no whole-leaf
candidate. Per size class (19 to one pod, above) and group: jobs,
node-hours lost to congestion (the runtime model's H all along) and at
the proven floor at its start, as qft-sim's report counts them.

  leaves-at-start.py OUT POLICY"""
import collections
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sim"))
from qftsim.common import expand_hostlist  # noqa: E402
from qftsim.fabric import Fabric  # noqa: E402

GROUPS = ("took whole leaves", "could have, did not", "no whole-leaf candidate")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[-1].strip())
    out, policy = sys.argv[1:]
    fab = Fabric(os.path.join(out, "fabric.json"))
    leaf_of = {h: i // fab.leaf for i, h in enumerate(fab.names)}
    with open(os.path.join(out, policy, "jobs.json")) as f:
        jobs = [j for j in json.load(f)["jobs"] if j.get("nodelist") and
                j.get("start_wall") is not None and j.get("end_wall") is not None]
    hosts = {j["idx"]: expand_hostlist(j["nodelist"]) for j in jobs}
    size = collections.Counter(leaf_of.values())
    tot = collections.defaultdict(float)
    for j in jobs:
        n = j["nodes"]
        if n <= fab.leaf or j.get("h_mean") is None or not j.get("work"):
            continue
        t = j["start_wall"]
        busy = set()
        for k in jobs:
            if k is not j and k["start_wall"] <= t < k["end_wall"]:
                busy.update(hosts[k["idx"]])
        free = collections.Counter(leaf_of[h] for h in fab.names if h not in busy)
        whole = sum(1 for leaf, c in free.items() if c == size[leaf])
        full, rest = divmod(n, fab.leaf)
        can = whole >= full and (rest == 0 or whole > full or
                                 any(rest <= c < size[leaf] for leaf, c in free.items()))
        mine = collections.Counter(leaf_of[h] for h in hosts[j["idx"]])
        partial = sum(1 for leaf, c in mine.items() if c < size[leaf])
        group = GROUPS[2] if not can else GROUPS[0] if partial <= (rest > 0) else GROUPS[1]
        cls = "19-%d" % fab.pod if n <= fab.pod else "above %d" % fab.pod
        w = n * j["work"] * j["comm"]
        floor = (j.get("lid_start") or {}).get("floor", 1.0)
        for key, v in (("jobs", 1), ("nh", n * j["work"]), ("lost", w * (j["h_mean"] - 1)),
                       ("floor", w * (floor - 1))):
            tot[(cls, group, key)] += v
    for cls in sorted({k[0] for k in tot}, key=lambda c: c.startswith("above")):
        for g in GROUPS:
            if tot[(cls, g, "jobs")]:
                nh = tot[(cls, g, "nh")]
                print("%-10s %-24s jobs %4d  node-hours lost %5.1f%%  at the floor %5.1f%%  "
                      "node-hours %.1fM" % (cls, g, tot[(cls, g, "jobs")],
                                            100 * tot[(cls, g, "lost")] / nh,
                                            100 * tot[(cls, g, "floor")] / nh, nh / 1e6))


if __name__ == "__main__":
    main()
