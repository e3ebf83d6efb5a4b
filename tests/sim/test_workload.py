#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The simulator's workloads without Slurm or root (make check): the
synthetic kinds give the same stream for the same seed as every published
run did, and SWF traces are read, counted and refused as documented."""

import hashlib
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("QFT_SRCDIR") or os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRC, "contribs", "sim"))

from qftsim import workload  # noqa: E402
from qftsim.common import SimError  # noqa: E402
from qftsim.fabric import Fabric  # noqa: E402

SAMPLE = os.path.join(SRC, "contribs", "sim", "samples", "small.swf")


def fabric(tmp, tuple_, hosts):
    """A fabric file with what Fabric reads (named hosts, the tuple): the
    streams depend on nothing else, so no qft tool is needed."""
    path = os.path.join(tmp, "fabric-%d.json" % hosts)
    with open(path, "w") as f:
        json.dump({"tree": tuple_, "hosts": [{"name": "n%04d" % (i + 1), "index": i}
                                             for i in range(hosts)]}, f)
    return Fabric(path)


def fingerprint(jobs):
    """The stream as workload.json rounds it, hashed."""
    text = json.dumps([j.to_dict() for j in jobs], sort_keys=True)
    return hashlib.sha1(text.encode()).hexdigest()[:16]


class Base(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.f324 = fabric(cls.tmp.name, "2;18,18;1,18;1,1", 324)
        cls.f72 = fabric(cls.tmp.name, "2;12,6;1,12;1,1", 72)
        cls.f4536 = fabric(cls.tmp.name, "3;18,18,14;1,18,9;1,1,2", 4536)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def swf(self, text, name="t.swf"):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path


class TestSynthetic(Base):
    def test_demo_stream_is_the_published_one(self):
        # demo.sh's stream: --synthetic mixed --jobs 200 --seed 1 --load 0.9
        jobs, info = workload.synthetic("mixed", 200, 1, 0.9, self.f324)
        sizes = [j.size for j in jobs]
        self.assertEqual(len(jobs), 200)
        self.assertEqual(sizes[:12], [3, 16, 27, 7, 1, 70, 34, 23, 29, 11, 1, 19])
        self.assertEqual((sum(sizes), min(sizes), max(sizes)), (5599, 1, 157))
        # small <= L = 18, medium (18, M = 40], large (40, N/2 = 162]
        self.assertEqual((sum(1 for s in sizes if s <= 18),
                          sum(1 for s in sizes if 18 < s <= 40),
                          sum(1 for s in sizes if s > 40)), (102, 71, 27))
        self.assertTrue(all(s <= 162 for s in sizes))
        self.assertEqual(jobs[0].arrival, 0.0)
        self.assertAlmostEqual(jobs[1].arrival, 734.0904745004696, places=9)
        self.assertAlmostEqual(jobs[-1].arrival, 23665.306, places=2)
        self.assertTrue(all(a.arrival <= b.arrival for a, b in zip(jobs, jobs[1:])))
        self.assertTrue(all(300 <= j.runtime <= 3600 for j in jobs))
        # the jobs of the old single-file qft-sim's workload.json, hashed
        self.assertEqual(fingerprint(jobs), "9ae02460a92ae4cc")
        self.assertEqual(info, {"kind": "mixed", "jobs": 200, "seed": 1, "load": 0.9,
                                "runtime": "LogUniform(300 s, 3600 s)"})

    def test_same_seed_same_stream_other_seed_other(self):
        a, _ = workload.synthetic("mixed", 40, 7, 0.9, self.f72)
        b, _ = workload.synthetic("mixed", 40, 7, 0.9, self.f72)
        c, _ = workload.synthetic("mixed", 40, 8, 0.9, self.f72)
        self.assertEqual(fingerprint(a), fingerprint(b))
        self.assertNotEqual(fingerprint(a), fingerprint(c))

    def test_offered_load(self):
        # the rate makes the expected work per second LOAD x N
        jobs, _ = workload.synthetic("mixed", 2000, 3, 0.5, self.f324)
        work = sum(j.size * j.runtime for j in jobs)
        load = work / (324 * jobs[-1].arrival)
        self.assertTrue(0.45 < load < 0.55, load)

    def test_kinds_on_4536_hosts(self):
        jobs, _ = workload.synthetic("normal300", 12, 1, 0.9, self.f4536)
        sizes = [j.size for j in jobs]
        self.assertEqual(sizes[:8], [326, 329, 301, 285, 278, 301, 280, 271])
        self.assertEqual(sum(sizes), 3571)
        self.assertTrue(all(600 <= j.runtime <= 3600 for j in jobs))
        jobs, _ = workload.synthetic("pow2", 250, 1, 0.9, self.f4536)
        sizes = [j.size for j in jobs]
        self.assertEqual(sum(sizes), 47602)
        self.assertTrue(all(s & (s - 1) == 0 and s <= 4536 // 4 for s in sizes))
        jobs, _ = workload.synthetic("uniform", 250, 1, 0.9, self.f4536)
        sizes = [j.size for j in jobs]
        self.assertEqual((sum(sizes), min(sizes), max(sizes)), (147130, 4, 1133))

    def test_refused(self):
        with self.assertRaisesRegex(SimError, "unknown --synthetic nosuch"):
            workload.synthetic("nosuch", 5, 1, 0.9, self.f72)
        with self.assertRaisesRegex(SimError, "--load must be > 0"):
            workload.synthetic("mixed", 5, 1, 0, self.f72)


class TestSwf(Base):
    def test_sample(self):
        jobs, info = workload.read_swf(SAMPLE, self.f72, 0, 0, None, "drop", None)
        self.assertEqual(info["counts"], {"lines": 60, "no_runtime": 1, "no_size": 0,
                                          "oversize": 1, "clipped": 0})
        self.assertEqual(info["procs_per_node"], 2)     # MaxProcs 144 / MaxNodes 72
        self.assertEqual(len(jobs), 58)
        self.assertEqual([(j.size, j.arrival, j.req_time, j.ref) for j in jobs[:3]],
                         [(12, 0.0, 4920.0, 1), (6, 1195.0, 840.0, 2), (30, 1676.0, 1260.0, 3)])
        self.assertAlmostEqual(info["offered_load"], 0.7592419799164667, places=12)

    def test_sample_clip_skip_load(self):
        # 2 processors per node: job 33's 160 processors are 80 nodes
        jobs, info = workload.read_swf(SAMPLE, self.f72, 40, 3, 2, "clip", 0.7)
        self.assertEqual(info["counts"]["clipped"], 1)
        self.assertEqual(info["counts"]["oversize"], 0)
        self.assertEqual(len(jobs), 40)
        self.assertEqual(jobs[0].ref, 4)                 # three skipped
        self.assertEqual(jobs[0].arrival, 0.0)
        self.assertEqual(info["offered_load"], 0.7)
        self.assertTrue(all(1 <= j.size <= 72 for j in jobs))

    def test_unknown_values(self):
        # -1 is unknown: no run time skips the job, requested processors
        # fall back to the allocated ones, no requested time is None
        path = self.swf(
            "; MaxNodes: 8\n; MaxProcs: 32\n"
            "1 0 -1 100 8 -1 -1 -1 -1 -1 1 1 1 -1 1 1 -1 -1\n"     # alloc 8 -> 2 nodes
            "2 10 -1 -1 4 -1 -1 4 600 -1 1 1 1 -1 1 1 -1 -1\n"     # no run time
            "3 20 -1 50 -1 -1 -1 -1 600 -1 1 1 1 -1 1 1 -1 -1\n"   # no size
            "4 -1 -1 50 4 -1 -1 4 600 -1 1 1 1 -1 1 1 -1 -1\n"     # no submit time
            "5 30 -1 70.5 -1 -1 -1 9 300 -1 1 1 1 -1 1 1 -1 -1\n"  # 9 procs -> 3 nodes
            "\n; a comment between jobs\n")
        jobs, info = workload.read_swf(path, self.f72, 0, 0, None, "drop", None)
        self.assertEqual(info["procs_per_node"], 4)
        self.assertEqual(info["counts"], {"lines": 5, "no_runtime": 1, "no_size": 2,
                                          "oversize": 0, "clipped": 0})
        self.assertEqual([(j.idx, j.arrival, j.size, j.runtime, j.req_time, j.ref) for j in jobs],
                         [(0, 0.0, 2, 100.0, None, 1), (1, 30.0, 3, 70.5, 300.0, 5)])

    def test_no_header_one_proc_per_node(self):
        path = self.swf("1 5 -1 100 3 -1 -1 3 -1 -1 1 1 1 -1 1 1 -1 -1\n")
        jobs, info = workload.read_swf(path, self.f72, 0, 0, None, "drop", None)
        self.assertEqual((info["procs_per_node"], jobs[0].size, info["offered_load"]), (1, 3, None))

    def test_errors_name_file_and_line(self):
        path = self.swf("; Version: 2.2\n\n1 0 -1 100 8 -1 -1 8 -1 -1 1 1 1 -1 1 1 -1 -1\n"
                        "2 10 -1 100 8 -1 -1 8\n", "short.swf")
        with self.assertRaisesRegex(SimError, r"short\.swf:4: 8 fields, an SWF line has 18"):
            workload.read_swf(path, self.f72, 0, 0, None, "drop", None)
        path = self.swf("1 0 -1 100 8 -1 -1 8 -1 -1 1 1 1 -1 1 1 -1 -1\n"
                        "2 10 -1 1h 8 -1 -1 8 -1 -1 1 1 1 -1 1 1 -1 -1\n", "word.swf")
        with self.assertRaisesRegex(SimError, r"word\.swf:2: a field is not a number"):
            workload.read_swf(path, self.f72, 0, 0, None, "drop", None)
        path = self.swf("1 0 -1 -1 8 -1 -1 8 -1 -1 1 1 1 -1 1 1 -1 -1\n", "none.swf")
        with self.assertRaisesRegex(SimError, r"none\.swf: no usable job"):
            workload.read_swf(path, self.f72, 0, 0, None, "drop", None)

    def test_written_stream_reads_back(self):
        jobs, info = workload.synthetic("mixed", 30, 5, 0.9, self.f72)
        path = os.path.join(self.tmp.name, "out.swf")
        workload.write_swf(path, jobs, self.f72, info)
        back, binfo = workload.read_swf(path, self.f72, 0, 0, None, "drop", None)
        self.assertEqual(binfo["procs_per_node"], 1)
        self.assertEqual([j.size for j in back], [j.size for j in jobs])
        self.assertEqual([j.arrival for j in back],
                         [round(j.arrival) - round(jobs[0].arrival) for j in jobs])


if __name__ == "__main__":
    unittest.main(verbosity=2)
