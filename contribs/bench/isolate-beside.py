#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The jobs that asked isolation in one qft-sim run, and the others, in
other runs of the same stream (docs/isolation.md): what the same jobs
got where nobody asked (`--isolate` left out, or another build), with
the figures qft-sim's report gives a run with --isolate (metrics.py
isolate_figures: count, mean wait, turnaround, slowdown, H run; for the
jobs that asked, how many ran at H > 1 at some time and of those how
many had H > 1 alone). The stream must be the same: same --synthetic,
--jobs, --load, --comm and --seed (the job indexes are compared).

  isolate-beside.py ISO_OUT OUT:POLICY [OUT:POLICY ...]
    ISO_OUT  a run with --isolate (its workload.json names the jobs)"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sim"))
from qftsim.metrics import isolate_figures  # noqa: E402


def hm(s):
    if s is None:
        return "-"
    s = int(round(s))
    return "%dh%02dm" % (s // 3600, s % 3600 // 60) if s >= 3600 else "%dm%02ds" % (s // 60, s % 60)


def main():
    if len(sys.argv) < 3 or any(":" not in a for a in sys.argv[2:]):
        sys.exit(__doc__.split("\n\n")[-1].strip())
    with open(os.path.join(sys.argv[1], "workload.json")) as f:
        work = json.load(f)
    asking = set(work["isolate"])
    for arg in sys.argv[2:]:
        out, policy = arg.rsplit(":", 1)
        with open(os.path.join(out, "workload.json")) as f:
            other = json.load(f)
        if other["jobs"] != work["jobs"] or other.get("comm") != work.get("comm"):
            sys.exit("%s: another stream than %s (workload.json's jobs or comm differ)"
                     % (out, sys.argv[1]))
        with open(os.path.join(out, policy, "jobs.json")) as f:
            jobs = json.load(f)["jobs"]
        for j in jobs:
            j["isolate_asked"] = j["idx"] in asking
        fig = isolate_figures(jobs)
        for group in ("asking", "others"):
            g = fig[group]
            extra = ""
            if group == "asking":
                extra = "  H > 1 at some time %d (alone %d), QFT_ISOLATED %d" % (
                    g["h_above_1"], g["h_above_1_alone"], g["isolated"])
            print("%-28s %-6s jobs %4d completed %4d  wait %7s  turnaround %7s  "
                  "slowdown %.3f (max %.3f)  H run %.2f%s" % (
                      arg, group, g["jobs"], g["completed"], hm(g["wait_mean"]),
                      hm(g["turnaround_mean"]), g["slowdown_mean"], g["slowdown_max"],
                      g["h_mean"], extra))


if __name__ == "__main__":
    main()
