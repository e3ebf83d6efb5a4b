#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A job of a qft-sim run, chosen again beside the jobs that ran at its
start: what its pair choice gets there and what no offsets can do
(docs/lid-offsets.md, "Beside the running jobs").

For each job picked: the multi-node jobs running at its start (qft-sim's
neighbour_sets: start <= t < end, in start order), with the offsets they
kept (OUT/POLICY/lid-kept.txt), then the job, chosen again beside them by `qft score
--lid pair` (its HSD beside them, the floor its search proved: stages
proven congested and undecided); alone too. With --bound, lid_bound
--beside settles every stage (cadical): `least`, 1 + infeasible /
stages, is the least mean HSD any offsets give beside them (the best
there is when no stage stays open and the search has 2 on each
infeasible one).

  lid-beside.py OUT POLICY (--job NAME | --above N [--count K]) [--qft Q]
                [--bound LID_BOUND] [--tmlim S] [--keep DIR] [--score ARG ...]
    OUT     a qft-sim output directory (fabric.json, POLICY/jobs.json,
            POLICY/lid-kept.txt: a run with a LID choice)
    --above N --count K: K jobs above N nodes, spread over the run
    --score ARG  passed on to `qft score` (repeatable): the search's
            budgets, e.g. --score=--lid-walk=1000 --score=--lid-exact=240
Prints one JSON line per job."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sim"))
from qftsim.scoring import neighbour_sets, ran_multi  # noqa: E402
from beside import kept_lines, score_pair, write_kept  # noqa: E402


def qft_score(args, fabric, lmc, kept, batch):
    extra = []
    for a in args.score:
        extra += a.split("=", 1) if a.startswith("--") and "=" in a else [a]
    return score_pair(args.qft, fabric, lmc, kept, batch, "lid-beside", extra)


def bound(args, fabric, lmc, hosts, kept):
    """lid_bound --beside on every stage: (feasible, infeasible, open, stages)."""
    cmd = [args.bound, fabric, str(lmc), hosts, "all", "--beside", kept, "--feas", "cadical",
           "--tmlim", str(args.tmlim)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit("lid-beside: %s: %s" % (" ".join(cmd), r.stderr.strip()[-500:]))
    for line in r.stdout.splitlines():
        if line.startswith("summary:"):
            # summary: N stages; H = 1 feasible A, infeasible (proven) B, undecided C
            w = line.replace(",", " ").replace(";", " ").split()
            num = [int(x) for x in w if x.isdigit()]
            return {"stages": num[0], "feasible": num[2], "infeasible": num[3], "open": num[4]}
    sys.exit("lid-beside: no summary from %s" % " ".join(cmd))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out")
    p.add_argument("policy")
    p.add_argument("--job")
    p.add_argument("--above", type=int)
    p.add_argument("--count", type=int, default=10)
    p.add_argument("--qft", default="qft")
    p.add_argument("--bound")
    p.add_argument("--tmlim", type=int, default=60)
    p.add_argument("--keep")
    p.add_argument("--score", action="append", default=[])
    args = p.parse_args()
    if (args.job is None) == (args.above is None):
        p.error("give --job NAME or --above N")
    fabric = os.path.join(args.out, "fabric.json")
    with open(fabric) as f:
        lmc = json.load(f).get("lmc", 0)
    with open(os.path.join(args.out, args.policy, "jobs.json")) as f:
        jobs = ran_multi(json.load(f)["jobs"])
    jobs.sort(key=lambda j: (j["start_wall"], j["idx"]))
    # the jobs running at each start, as the simulator scored them
    sets = neighbour_sets(jobs, {j["idx"]: j for j in jobs})
    if args.job:
        pick = [j for j in jobs if j["name"] == args.job]
        if not pick:
            p.error("no multi-node job %s in %s" % (args.job, args.policy))
    else:
        pick = [j for j in jobs if j["nodes"] > args.above]
        pick = pick[::max(1, len(pick) // max(1, args.count))][:args.count]
    kept = kept_lines(args.out, args.policy)
    work = args.keep or tempfile.mkdtemp(prefix="lid-beside.")
    os.makedirs(work, exist_ok=True)
    for j in pick:
        nb = sets[j["idx"]][:-1]
        kept_file = os.path.join(work, "%s.kept" % j["name"])
        write_kept(kept_file, nb, kept, "lid-beside")
        batch = os.path.join(work, "%s.batch" % j["name"])
        with open(batch, "w") as f:
            f.write("".join("%s: %s\n" % (k["name"], k["nodelist"]) for k in nb))
            f.write("again: %s\n\nalone: %s\n" % (j["nodelist"], j["nodelist"]))
        beside, alone = qft_score(args, fabric, lmc, kept_file, batch)
        fl = beside["lid_floor"][-1]
        rec = {"job": j["name"], "nodes": j["nodes"], "neighbours": len(nb),
               "hsd_beside": beside["job_hsd"][-1], "floor": fl["hsd"], "stages": fl["stages"],
               "proven": fl["congested"], "undecided": fl["undecided"],
               "hsd_alone": alone["avg_hsd"]}
        if args.bound:
            b = bound(args, fabric, lmc, j["nodelist"], kept_file)
            rec["bound"] = b
            # each infeasible stage costs 2 at least: no offsets give less
            # (the best there is when the search's table has 2 on each)
            rec["least"] = 1.0 + b["infeasible"] / b["stages"]
        print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
