#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Jobs of a qft-sim run placed again among the hosts free at their start:
what the pair choice reaches on each of the placer's candidates, beside
the jobs that ran then with the offsets they kept (docs/lid-offsets.md,
"Ranking by what the offsets reach").

A placement rule that ranks candidates by what the pair choice proves
(its floor) can only pick among the candidates the placer makes. This
measures that headroom before building the rule: for each job picked,
the multi-node jobs running at its start (qft-sim's neighbour_sets) with
their kept offsets (OUT/POLICY/lid-kept.txt); the hosts free then (no job
of any size on them); `qft place --candidate-hosts` on those hosts beside
them; then `qft score --lid pair` of the job's own hosts and of every
candidate beside them: HSD beside and floor (stages proven congested).

  place-beside.py OUT POLICY [--above N] [--count K] [--congested]
                  [--path-pressure] [--whole-leaves] [--first C] [--lid-threads T]
                  [--qft Q]
                  [--keep DIR]
    OUT          a qft-sim output directory with a LID choice
    --above N    jobs above N nodes (default 18: more than a leaf)
    --count K    K of them, spread over the run (default 20)
    --congested  only jobs whose pair choice was proven congested at start
    --first C    score the placer's first C candidates (default 8)
    --lid-threads T  the pair choice's threads, as the run's (default 1)
Prints one JSON line per job, then a summary line."""
import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sim"))
from qftsim.common import expand_hostlist  # noqa: E402
from qftsim.fabric import Fabric  # noqa: E402
from qftsim.scoring import neighbour_sets, ran_multi  # noqa: E402
from beside import kept_lines, run, score_pair, write_kept  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out")
    p.add_argument("policy")
    p.add_argument("--above", type=int, default=18)
    p.add_argument("--count", type=int, default=20)
    p.add_argument("--congested", action="store_true")
    p.add_argument("--path-pressure", action="store_true")
    p.add_argument("--whole-leaves", action="store_true")
    p.add_argument("--first", type=int, default=8)
    p.add_argument("--lid-threads", type=int, default=1)
    p.add_argument("--qft", default="qft")
    p.add_argument("--keep")
    args = p.parse_args()
    fabric = os.path.join(args.out, "fabric.json")
    fab = Fabric(fabric)
    lmc = fab.file_lmc
    with open(os.path.join(args.out, args.policy, "jobs.json")) as f:
        every = [j for j in json.load(f)["jobs"]
                 if j.get("nodelist") and j.get("start_wall") is not None
                 and j.get("end_wall") is not None]
    jobs = ran_multi(every)
    jobs.sort(key=lambda j: (j["start_wall"], j["idx"]))
    sets = neighbour_sets(jobs, {j["idx"]: j for j in jobs})
    pick = [j for j in jobs if j["nodes"] > args.above]
    if args.congested:
        pick = [j for j in pick if (j.get("lid_start") or {}).get("proven", 0) > 0]
    pick = pick[::max(1, len(pick) // max(1, args.count))][:args.count]
    kept = kept_lines(args.out, args.policy)
    work = args.keep or tempfile.mkdtemp(prefix="place-beside.")
    os.makedirs(work, exist_ok=True)
    total = {"jobs": 0, "lower_floor": 0, "free_candidate": 0, "actual_free": 0}
    for j in pick:
        t = j["start_wall"]
        nb = sets[j["idx"]][:-1]
        busy = set()
        for k in every:
            if k is not j and k["start_wall"] <= t < k["end_wall"]:
                busy.update(expand_hostlist(k["nodelist"]))
        free = [h for h in fab.names if h not in busy]
        pre = os.path.join(work, j["name"])
        with open(pre + ".running", "w") as f:
            f.write("".join(k["nodelist"] + "\n" for k in nb))
        with open(pre + ".free", "w") as f:
            f.write("\n".join(free) + "\n")
        cmd = [args.qft, "place", "--fabric", fabric, "--running", pre + ".running",
               "--eligible", "@" + pre + ".free", "--nodes", str(j["nodes"]),
               "--candidate-hosts"]
        if args.path_pressure:
            cmd.append("--path-pressure")
        if args.whole_leaves:
            cmd.append("--whole-leaves")
        cands = [line.split(": ", 1)[1] for line in run(cmd, "place-beside").splitlines()
                 if line.startswith("candidate ")][:args.first]
        write_kept(pre + ".kept", nb, kept, "place-beside")
        groups = [j["nodelist"]] + cands
        with open(pre + ".batch", "w") as f:
            f.write("\n".join("".join("%s: %s\n" % (k["name"], k["nodelist"]) for k in nb)
                              + "new%d: %s\n" % (i, g) for i, g in enumerate(groups)))
        res = score_pair(args.qft, fabric, lmc, pre + ".kept", pre + ".batch", "place-beside",
                         ["--lid-threads", str(args.lid_threads)])

        def fig(r):
            fl = r["lid_floor"][-1]
            return {"hsd": round(r["job_hsd"][-1], 3), "floor": round(fl["hsd"], 3),
                    "proven": fl["congested"], "stages": fl["stages"]}
        actual, cand = fig(res[0]), [fig(r) for r in res[1:]]
        rec = {"job": j["name"], "nodes": j["nodes"], "free": len(free),
               "room": round(len(free) / j["nodes"], 2), "neighbours": len(nb),
               "actual": actual, "candidates": cand}
        print(json.dumps(rec), flush=True)
        total["jobs"] += 1
        total["actual_free"] += actual["hsd"] == 1.0
        if cand and min(c["floor"] for c in cand) < actual["floor"]:
            total["lower_floor"] += 1
        if any(c["hsd"] == 1.0 for c in cand) and actual["hsd"] > 1.0:
            total["free_candidate"] += 1
    print(json.dumps({"summary": total}))


if __name__ == "__main__":
    main()
