#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What the simulator reads back from Slurm, without Slurm (make check):
jobcomp/filetxt lines (cut and run-on records), the record kept around a
slurmctld kill, and select/rlft's placement kind from the job's
environment file."""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("QFT_SRCDIR") or os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRC, "contribs", "sim"))

from qftsim.cluster import (choose_record, env_dump_command, first_submit,  # noqa: E402
                            job_env, parse_jobcomp_line, parse_slurm_time, repeat_kind,
                            rlft_log)
from qftsim.metrics import placement_kind  # noqa: E402
from qftsim.common import SimError  # noqa: E402
from qftsim.replay import PolicyRun, node_range, policy_conf  # noqa: E402

REC = ("JobId=%d UserId=root(0) GroupId=root(0) Name=s%05d JobState=%s Partition=all "
       "TimeLimit=1 StartTime=2026-11-23T10:00:0%d EndTime=2026-11-23T10:00:09 "
       "NodeList=n[0001-0004] NodeCnt=4 ProcCnt=4 WorkDir=/tmp ExitCode=0:0")


class TestJobcomp(unittest.TestCase):
    def test_one_record(self):
        (rec,) = parse_jobcomp_line(REC % (7, 6, "COMPLETED", 1))
        self.assertEqual((rec["JobId"], rec["JobState"], rec["NodeList"], rec["NodeCnt"]),
                         ("7", "COMPLETED", "n[0001-0004]", "4"))
        self.assertNotIn("_truncated", rec)

    def test_cut_record_runs_into_the_next(self):
        # Slurm 22.05 cuts a long record and drops its newline
        cut = (REC % (7, 6, "COMPLETED", 1)).split(" ProcCnt=")[0]
        recs = parse_jobcomp_line(cut + REC % (8, 7, "FAILED", 2))
        self.assertEqual([r["JobId"] for r in recs], ["7", "8"])
        self.assertEqual([r.get("_truncated") for r in recs], ["1", None])

    def test_first_completed_record_wins(self):
        recs = [parse_jobcomp_line(REC % (7, 6, s, i))[0]
                for i, s in enumerate(("COMPLETED", "NODE_FAIL"), 1)]
        self.assertEqual(choose_record(recs)["StartTime"], "2026-11-23T10:00:01")
        self.assertEqual(choose_record(recs[::-1])["StartTime"], "2026-11-23T10:00:01")
        self.assertEqual(choose_record([recs[1]])["JobState"], "NODE_FAIL")

    def test_why_a_job_has_two_records(self):
        # docs/sim.md run 42's job 209: a launch lost while slurmctld was
        # stopped (NODE_FAIL, requeued, a new SubmitTime), then its run
        failed = parse_jobcomp_line(REC % (7, 6, "NODE_FAIL", 1))[0]
        run = parse_jobcomp_line(REC % (7, 6, "COMPLETED", 5))[0]
        run["SubmitTime"] = "2026-11-23T10:00:09"
        failed["SubmitTime"] = "2026-11-23T10:00:00"
        self.assertIsNone(repeat_kind([run]))
        self.assertEqual(repeat_kind([failed, run]), "requeued")
        self.assertEqual(repeat_kind([run, failed]), "ended_again")
        # no COMPLETED end: the last counts, and a FAILED before it is no requeue
        self.assertEqual(repeat_kind([dict(run, JobState="FAILED"), failed]), "ended_again")
        first = parse_slurm_time("2026-11-23T10:00:00")
        later = parse_slurm_time("2026-11-23T10:00:09")
        self.assertEqual(first_submit([failed, run], later), first)
        self.assertEqual(first_submit([run], None), later)
        self.assertEqual(first_submit([], later), later)


class TestPlacementKind(unittest.TestCase):
    def test_categories(self):
        self.assertEqual([placement_kind(k) for k in
                          ("product", "aligned", "unaligned", "best_fit", "tree_order",
                           "cons_tres", None, "")],
                         ["product", "aligned", "unaligned", "fallback", "fallback",
                          "cons_tres", "other", "other"])

    def test_kind_from_the_jobs_environment(self):
        # what the job's script writes, as sh runs it in the job
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, SLURM_JOB_ID="42", QFT_PLACEMENT_KIND="best_fit",
                       QFT_PLACEMENT="L2-0 best fit, 40 hosts (no aligned block was free)",
                       QFT_HOSTS="n0001,n0002", QFT_SHAPE_WAITED="12")
            subprocess.run(["sh", "-c", env_dump_command(tmp) + "true"], env=env, check=True)
            got = job_env(tmp, 42)
            self.assertEqual(got["QFT_PLACEMENT_KIND"], "best_fit")
            self.assertEqual(got["QFT_SHAPE_WAITED"], "12")  # ShapeWait='s seconds
            self.assertEqual(got["QFT_PLACEMENT"], env["QFT_PLACEMENT"])
            self.assertNotIn("QFT_HOSTS", got)
            self.assertEqual(job_env(tmp, 43), {})


class TestRlftLog(unittest.TestCase):
    def test_line(self):
        line = ("[2026-11-23T14:52:01.123] select/rlft: JobId=17 on 324 nodes n[0325-0648]: "
                "product 1x18x18 (324 hosts); shift HSD 1.000 avg, 1 worst over 101 of 323 "
                "stages; placed in 512 us over 7 candidates, cons_tres 800 us, job_begin 900 us\n")
        wait = ("[2026-11-23T14:51:01.000] select/rlft: JobId=17 waits for a whole-leaf unaligned "
                "(40 nodes) due in 30 s, within its ShapeWait of 600 s (590 s left)\n")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "slurmctld.log")
            with open(path, "w") as f:
                f.write("noise\n" + line)
            got = rlft_log(path)
            with open(path, "w") as f:
                f.write(wait + line)
            waited = rlft_log(path)
        self.assertEqual(set(got), {17})
        self.assertEqual(got[17]["placement"], "product 1x18x18 (324 hosts)")
        self.assertNotIn("shape_wait", got[17])
        self.assertEqual(waited[17]["shape_wait"], "whole-leaf unaligned")
        self.assertEqual((got[17]["stages_played"], got[17]["stages_total"]), (101, 323))
        self.assertEqual((got[17]["place_us"], got[17]["candidates"]), (512, 7))
        self.assertEqual(got[17]["predicted_avg"], 1.0)


class TestNodeRange(unittest.TestCase):
    def test_ranges(self):
        self.assertEqual(node_range(100, 0), "100")
        self.assertEqual(node_range(100, 5), "95-100")
        self.assertEqual(node_range(97, 2), "95-97")   # floor(95.06)
        self.assertEqual(node_range(19, 5), "18-19")
        self.assertEqual(node_range(10, 5), "9-10")    # floor(9.5)
        self.assertEqual(node_range(1, 50), "1")


class TestPolicyConf(unittest.TestCase):
    def test_sweep_sets_qft_conf_lines(self):
        self.assertEqual(policy_conf("rlft-wait")["qft_conf"], ["Shapes=products", "ShapeWait=100"])
        c = policy_conf("rlft-wait+ShapeWait=25+RoundUp=5")
        # a key the policy has is replaced, a new one added
        self.assertEqual(c["qft_conf"], ["Shapes=products", "ShapeWait=25", "RoundUp=5"])
        self.assertEqual(c["select"], "select/rlft")
        self.assertEqual(c["label"], "select/rlft (Shapes=products ShapeWait=25 RoundUp=5) + topology/qft")
        self.assertEqual(policy_conf("rlft+ShapeWait=5")["label"], "select/rlft + topology/qft, ShapeWait=5")
        # the table is not changed by a sweep
        self.assertEqual(policy_conf("rlft-wait")["qft_conf"], ["Shapes=products", "ShapeWait=100"])

    def test_refused(self):
        for bad in ("nosuch", "cons_tres+ShapeWait=25", "rlft-wait+ShapeWait",
                    "rlft-wait+=3", "rlft-wait+Shape Wait=3"):
            with self.assertRaises(SimError, msg=bad):
                policy_conf(bad)


class TestRequeued(unittest.TestCase):
    """A policy whose jobs cannot launch (slurmctld requeues them) stops
    with an error instead of polling until its timeout."""

    class Run:
        policy = "p"
        REQUEUED_MAX = PolicyRun.REQUEUED_MAX
        check_requeued = PolicyRun.check_requeued

        def __init__(self):
            self.ran, self.requeued = set(), set()
            self.cluster = type("C", (), {"work": "/w"})()

    def test_requeues_stop_the_run(self):
        r = self.Run()
        r.check_requeued({1: ("PENDING", 4), 2: ("RUNNING", 2), 3: ("COMPLETED", 1)})
        r.check_requeued({1: ("RUNNING", 4), 2: ("COMPLETED", 2), 3: ("COMPLETED", 1)})
        self.assertEqual(r.requeued, set())  # pending, then running, then done: fine
        r.check_requeued({1: ("PENDING", 4), 4: ("CONFIGURING", 2), 5: ("RUNNING", 2)})
        self.assertEqual(r.requeued, {1})
        ran = {j: ("RUNNING", 1) for j in range(10, 19)}
        r.check_requeued(ran)
        r.check_requeued({j: ("PENDING", 1) for j in range(10, 18)})
        self.assertEqual(len(r.requeued), 9)  # below the limit: goes on
        with self.assertRaisesRegex(SimError, "10 jobs went back to PENDING .*see /w/log"):
            r.check_requeued({j: ("PENDING", 1) for j in range(10, 19)})


if __name__ == "__main__":
    unittest.main(verbosity=2)
