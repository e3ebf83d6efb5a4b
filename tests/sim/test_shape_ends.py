#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""contribs/bench/shape-ends.py, the replay of ShapeWaitEnds= on a qft-sim
record, on a record made by hand: PGFT(3;2,2,2): leaves of 2 hosts, 2
leaves a pod, 2 pods; every job's limit 3600 s (600 s of work at a
compression of 60: one real minute), its wait 900 s (25%)."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("QFT_SRCDIR") or os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(SRC, "contribs", "bench", "shape-ends.py")


def job(name, nodelist, nodes, start, end, comm=0.5, placement="L3-0 blocks 0-1", kind="fallback"):
    return {"name": name, "nodelist": nodelist, "nodes": nodes, "start": start, "end": end,
            "runtime": 600.0, "comm": comm, "rlft": {"placement": placement, "kind": kind}}


class TestShapeEnds(unittest.TestCase):
    def run_on(self, jobs):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "fabric.json"), "w") as f:
                json.dump({"tree": "3;2,2,2;1,2,2;1,1,2"}, f)
            with open(os.path.join(d, "workload.json"), "w") as f:
                json.dump({"compress": 60.0}, f)
            os.mkdir(os.path.join(d, "rlft"))
            with open(os.path.join(d, "rlft", "jobs.json"), "w") as f:
                json.dump({"jobs": jobs}, f)
            r = subprocess.run([sys.executable, SCRIPT, d, "--percent", "100,20",
                                "--min", "2", "--max", "8"],
                               capture_output=True, text=True, check=True)
        return r.stdout.splitlines()

    def test_forecast_and_what_came(self):
        jobs = [
            # A holds pod 0 until 1500 (its limit: 3600), B pod 1 until 3000
            job("A", "n[0001-0004]", 4, 0, 1500, comm=0.1),
            job("B", "n[0005-0008]", 4, 500, 3000, comm=0.1),
            # J (a pod's worth) starts at 1000 on shared leaves: by the
            # limits nothing is free by 1900; at 20% of what is left A is
            # expected at 1520 and B at 1620, and A really ends at 1500
            job("J", "n[0001-0002,0005-0006]", 4, 1000, 3500),
            # J2 at 2000: J expected at 2520 and B at 2420, within 2900 at
            # 20%, but both really end later: forecast, and none came
            job("J2", "n[0003-0004,0007-0008]", 4, 2000, 2100),
            # not counted: another share, and one on whole leaves already
            job("C", "n[0003-0004]", 2, 1000, 1100, comm=0.1),
            job("D", "n[0003-0004]", 2, 1200, 1300, placement="L2-0 leaves 1", kind="aligned"),
        ]
        out = self.run_on(jobs)
        self.assertIn(": 2 jobs of share 0.50 and 2-8 nodes started on shared leaves", out[0])
        self.assertEqual(out[1].split(":", 1)[1].strip(),
                         "whole leaves within the wait for 0, free by the real ends for 0 of them")
        self.assertEqual(out[2].split(":", 1)[1].strip(),
                         "whole leaves within the wait for 2, free by the real ends for 1 of them")


if __name__ == "__main__":
    unittest.main()
