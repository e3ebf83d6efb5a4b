#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What ShapeWaitEnds= would let a qft-sim run's jobs wait for, replayed
on its record (docs/lid-offsets.md, "Waiting for whole leaves"). An
estimate, not a run: the rule is replayed on each job's start with the
other jobs' hosts as they were, so that waiting changes nothing after it.

For each job of the communication share --comm and --min..--max nodes
that started on no whole-leaf shape (its placement not aligned or
unaligned blocks at level 2): whole leaves of one level-2 subtree, free
within --share of the job's time limit, when each running job is
expected to end after P% of what is left of its limit (the forecast
ShapeWait= searches with), and by the real ends (what came). Prints,
for each P, how many jobs the forecast puts a shape within reach of, and
how many of those had one free by the real ends.

  shape-ends.py OUT [--policy NAME] [--percent 100,50,30,20]
    OUT   a qft-sim output directory (fabric.json, workload.json,
          POLICY/jobs.json) of a run with LID offsets"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sim"))
from qftsim.common import expand_hostlist  # noqa: E402
from qftsim.replay import time_limit_minutes  # noqa: E402


def limit_of(job, compress, min_sleep):
    # the time limit qft-sim gave the job, on the stream's clock
    sleep = max(min_sleep, job["runtime"] / compress)
    return 60.0 * time_limit_minutes(sleep) * compress


def whole_leaves(free, nodes, leaf, per_pod, pods):
    """Whether one level-2 subtree has nodes // leaf whole free leaves and
    the rest in one more leaf (whole, or with that many hosts free)."""
    q, r = divmod(nodes, leaf)
    for pod in range(pods):
        first = pod * per_pod
        counts = [sum(free[(first + k) * leaf:(first + k + 1) * leaf]) for k in range(per_pod)]
        whole = sum(1 for c in counts if c == leaf)
        if whole >= q + (1 if r else 0):
            return True
        if r and whole >= q and any(r <= c < leaf for c in counts):
            return True
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--policy", help="the policy's directory (default: the first rlft one)")
    ap.add_argument("--percent", default="100,50,30,20")
    ap.add_argument("--share", type=float, default=0.25, help="the wait, a share of the limit")
    ap.add_argument("--comm", type=float, default=0.5, help="the jobs' communication share")
    ap.add_argument("--min", type=int, default=19)
    ap.add_argument("--max", type=int, default=324)
    ap.add_argument("--min-sleep", type=float, default=1.0, help="qft-sim's --min-sleep")
    a = ap.parse_args()

    with open(os.path.join(a.out, "fabric.json")) as f:
        tree = json.load(f)["tree"]
    m = [int(x) for x in tree.split(";")[1].split(",")]
    if len(m) < 3:
        sys.exit("shape-ends: %s: a tree of three or more levels is needed" % tree)
    leaf, per_pod = m[0], m[1]
    hosts = 1
    for x in m:
        hosts *= x
    pods = hosts // (leaf * per_pod)
    with open(os.path.join(a.out, "workload.json")) as f:
        compress = json.load(f)["compress"]
    policy = a.policy or sorted(p for p in os.listdir(a.out) if p.startswith("rlft"))[0]
    with open(os.path.join(a.out, policy, "jobs.json")) as f:
        jobs = [j for j in json.load(f)["jobs"] if j.get("nodelist") and j.get("start") is not None]
    for j in jobs:
        # names n0001... in tree order (qft-sim's nodes file)
        j["hosts"] = [int(n[1:]) - 1 for n in expand_hostlist(j["nodelist"])]
        j["limit"] = limit_of(j, compress, a.min_sleep)

    picked = [j for j in jobs if j.get("comm") == a.comm and a.min <= j["nodes"] <= a.max and
              not (j["rlft"]["placement"].startswith("L2-") and
                   j["rlft"]["kind"] in ("aligned", "unaligned"))]
    print("%s, %s: %d jobs of share %.2f and %d-%d nodes started on shared leaves"
          % (a.out, policy, len(picked), a.comm, a.min, a.max))
    for p in (int(x) for x in a.percent.split(",")):
        forecast = came = 0
        for j in picked:
            t, horizon = j["start"], j["start"] + a.share * j["limit"]
            expect, real = [True] * hosts, [True] * hosts
            for o in jobs:
                if o is j or not (o["start"] <= t < o["end"]):
                    continue
                expected_end = t + p / 100.0 * (o["start"] + o["limit"] - t)
                for h in o["hosts"]:
                    if expected_end > horizon:
                        expect[h] = False
                    if o["end"] > horizon:
                        real[h] = False
            if whole_leaves(expect, j["nodes"], leaf, per_pod, pods):
                forecast += 1
                came += whole_leaves(real, j["nodes"], leaf, per_pod, pods)
        print("  ShapeWaitEnds=%d: whole leaves within the wait for %d, free by the real ends "
              "for %d of them" % (p, forecast, came))


if __name__ == "__main__":
    main()
