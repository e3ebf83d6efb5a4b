#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""--isolate without Slurm or root (make check): which jobs ask isolation
(reproducible from --seed, the share respected, the stream and its
communication shares untouched), the options refused, what each policy
submits (sbatch --qft-isolate and plugstack.conf under select/rlft only,
not under POLICY+Isolate=no), what a job's script keeps (QFT_ISOLATED),
the largest H a job ran at, and the report's figures for the jobs that ask
and for the others. With $QFT (the qft tool) also OUT/workload.json of a
--workload-only preparation."""

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("QFT_SRCDIR") or os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRC, "contribs", "sim"))

from qftsim import cli, report, runtime, workload  # noqa: E402
from qftsim.cluster import env_dump_command, job_env  # noqa: E402
from qftsim.common import SimError  # noqa: E402
from qftsim.metrics import isolate_figures, summarise  # noqa: E402
from qftsim.replay import PolicyRun, policy_conf  # noqa: E402

MIXED = runtime.parse_comm("0.3:0.5,0.7:0.1")


class TestChoice(unittest.TestCase):
    def test_spec(self):
        # the largest f of --comm by default, or the one named
        self.assertEqual(runtime.parse_isolate("0.3", MIXED), (0.3, 0.5))
        self.assertEqual(runtime.parse_isolate("0.1:0.1", MIXED), (0.1, 0.1))
        self.assertEqual(runtime.parse_isolate("1", runtime.parse_comm("mixed")), (1.0, 0.5))
        self.assertEqual(runtime.parse_isolate("0.5", runtime.parse_comm("0.2")), (0.5, 0.2))

    def test_refused(self):
        with self.assertRaisesRegex(SimError, "--isolate 0.3 needs --comm"):
            runtime.parse_isolate("0.3", None)
        for bad, why in (("0", "not in \\(0, 1\\]"), ("1.5", "not in \\(0, 1\\]"),
                         ("-0.1", "not in \\(0, 1\\]"), ("x", "SHARE or SHARE:F"),
                         ("0.3:y", "SHARE or SHARE:F"), ("0.3:0.7", "no job has f = 0.7")):
            with self.assertRaisesRegex(SimError, why, msg=bad):
                runtime.parse_isolate(bad, MIXED)
        # a class of share 0 has no job
        with self.assertRaisesRegex(SimError, "no job has f = 0.9"):
            runtime.parse_isolate("0.5:0.9", [(0.0, 0.9), (1.0, 0.1)])

    def test_share_of_the_class_reproducible(self):
        comm = runtime.comm_shares(MIXED, 1000, 1)
        at = [i for i, f in enumerate(comm) if f == 0.5]
        self.assertEqual(len(at), 300)
        for share, n in ((0.1, 30), (0.3, 90), (1.0, 300), (0.0051, 2), (0.001, 1)):
            got = runtime.isolate_jobs(comm, share, 0.5, 1)
            self.assertEqual(len(got), n, share)
            self.assertEqual(got, sorted(set(got)))
            self.assertTrue(set(got) <= set(at), share)
            self.assertEqual(got, runtime.isolate_jobs(comm, share, 0.5, 1))
        self.assertNotEqual(runtime.isolate_jobs(comm, 0.3, 0.5, 1),
                            runtime.isolate_jobs(comm, 0.3, 0.5, 2))
        # the class named: f = 0.1
        got = runtime.isolate_jobs(comm, 0.1, 0.1, 1)
        self.assertEqual((len(got), {comm[i] for i in got}), (70, {0.1}))
        # 10% of a seed's jobs are among its 30%: runs of one seed compare
        self.assertTrue(set(runtime.isolate_jobs(comm, 0.1, 0.5, 1))
                        <= set(runtime.isolate_jobs(comm, 0.3, 0.5, 1)))
        self.assertEqual(runtime.isolate_jobs([0.1] * 5, 0.5, 0.5, 1), [])

    def test_pinned(self):
        # the choice is a published figure's input: a change of the rule
        # (its generator, its rounding) shows here
        comm = runtime.comm_shares(MIXED, 100, 1)
        self.assertEqual(runtime.isolate_jobs(comm, 0.1, 0.5, 1), [25, 56, 72])
        self.assertEqual(runtime.isolate_jobs(comm, 0.3, 0.5, 1),
                         [11, 14, 25, 39, 46, 48, 56, 72, 77])

    def test_the_stream_is_untouched(self):
        fab = types.SimpleNamespace(hosts=324, leaf=18, pod=324)
        jobs, _ = workload.synthetic("mixed", 200, 5, 0.9, fab)
        before = [j.to_dict() for j in jobs]
        comm = runtime.comm_shares(MIXED, len(jobs), 5)
        # the choice draws from a generator of its own: nothing else moves
        runtime.isolate_jobs(comm, 0.3, 0.5, 5)
        again, _ = workload.synthetic("mixed", 200, 5, 0.9, fab)
        self.assertEqual([j.to_dict() for j in again], before)
        self.assertEqual(runtime.comm_shares(MIXED, len(jobs), 5), comm)

    def test_workload_json_lists_them(self):
        fab = types.SimpleNamespace(hosts=72, leaf=12, pod=72, describe=lambda: "72 hosts")
        jobs, info = workload.synthetic("mixed", 20, 3, 0.9, fab)
        comm = runtime.comm_shares(MIXED, 20, 3)
        iso = runtime.isolate_jobs(comm, 0.5, 0.5, 3)
        with tempfile.TemporaryDirectory() as d:
            workload.save(d, jobs, info, 10.0, fab, comm, iso)
            with open(os.path.join(d, "workload.json")) as f:
                w = json.load(f)
            self.assertEqual((w["isolate"], w["comm"]), (iso, comm))
            workload.save(d, jobs, info, 10.0, fab, comm)
            with open(os.path.join(d, "workload.json")) as f:
                self.assertNotIn("isolate", json.load(f))


class TestOptions(unittest.TestCase):
    def setup(self, *argv):
        with tempfile.TemporaryDirectory() as d:
            return cli.setup(cli.parse_args(["--pgft", "2;12,6;1,12;1,1", "--synthetic", "mixed",
                                             "--out", d] + list(argv)))

    def test_needs_comm(self):
        with self.assertRaisesRegex(SimError, "--isolate 0.3 needs --comm"):
            self.setup("--isolate", "0.3")
        sim = self.setup("--isolate", "0.3", "--comm", "mixed")
        self.assertEqual(sim.isolate_spec, (0.3, 0.5))
        self.assertIsNone(self.setup("--comm", "mixed").isolate_spec)

    def test_policies(self):
        # select/rlft's policies isolate, the stock ones cannot
        for p, iso in (("rlft", True), ("rlft-wait", True), ("cons_tres", False),
                       ("linear", False), ("cons_tres-lid", False),
                       ("rlft+Isolate=no", False), ("rlft-wait+ShapeWait=25+Isolate=no", False),
                       ("cons_tres+Isolate=no", False), ("rlft+Isolate=yes", True)):
            self.assertEqual(policy_conf(p)["isolate"], iso, p)
        self.assertIn("Isolate=no", policy_conf("rlft+Isolate=no")["label"])
        # Isolate= is the simulator's: no qft.conf line
        self.assertEqual(policy_conf("rlft+Isolate=no")["qft_conf"], [])
        with self.assertRaisesRegex(SimError, "only select/rlft isolates jobs"):
            policy_conf("cons_tres+Isolate=yes")
        with self.assertRaisesRegex(SimError, "Isolate=maybe, expected yes or no"):
            policy_conf("rlft+Isolate=maybe")
        with self.assertRaisesRegex(SimError, "\\+Isolate= needs --isolate"):
            self.setup("--policies", "rlft,rlft+Isolate=no", "--comm", "mixed")
        # a report rebuilt from a finished run's jobs.json needs none
        self.setup("--policies", "rlft,rlft+Isolate=no", "--report-only")
        sim = self.setup("--policies", "rlft,rlft+Isolate=no,cons_tres", "--comm", "mixed",
                         "--isolate", "0.1")
        self.assertEqual(sim.policies, ["rlft", "rlft+Isolate=no", "cons_tres"])

    def test_shape_wait_for(self):
        # +ShapeWaitFor=F: select/rlft's jobs below f = F never wait
        conf = policy_conf("rlft+ShapeWait=25+ShapeWaitFor=0.5")
        self.assertEqual(conf["shape_wait_for"], 0.5)
        self.assertIn("ShapeWait=25", conf["qft_conf"])
        self.assertNotIn("ShapeWaitFor=0.5", conf["qft_conf"])  # the simulator's
        self.assertIn("--qft-shape-wait=0 below f=0.5", conf["label"])
        self.assertIsNone(policy_conf("rlft").get("shape_wait_for"))
        for bad, why in (("rlft+ShapeWaitFor=0", "expected a communication share"),
                         ("rlft+ShapeWaitFor=x", "expected a communication share"),
                         ("cons_tres+ShapeWaitFor=0.5", "only select/rlft's jobs wait")):
            with self.assertRaisesRegex(SimError, why):
                policy_conf(bad)
        with self.assertRaisesRegex(SimError, "\\+ShapeWaitFor= needs --comm"):
            self.setup("--policies", "rlft+ShapeWaitFor=0.5")
        sim = self.setup("--policies", "rlft+ShapeWait=25+ShapeWaitFor=0.5,cons_tres",
                         "--comm", "mixed")
        self.assertEqual(len(sim.policies), 2)


class FakeCluster:
    """What PolicyRun.sbatch asks of its cluster: sbatch answers job ids."""

    def __init__(self):
        self.calls = []

    def client(self, name, *args, timeout=30):
        self.calls.append((name, args))
        return subprocess.CompletedProcess([name], 0, "%d\n" % len(self.calls), "")


class TestSubmission(unittest.TestCase):
    def policy_run(self, d, policy, isolate, comm=None):
        sim = types.SimpleNamespace(
            out=d, harness="/bin/true", isolate=isolate, spank="/x/spank_qft_lid.so", comm=comm,
            fabric=types.SimpleNamespace(lmc=0, path=os.path.join(d, "fabric.json")),
            compress=10.0, args=types.SimpleNamespace(min_sleep=1.0, node_range=0.0,
                                                      pattern="shift"))
        pr = PolicyRun(sim, policy, 1)
        pr.cluster = FakeCluster()
        os.makedirs(pr.dir)
        return pr

    def submitted(self, pr):
        jobs = [workload.Job(i, 0.0, 4, 100.0) for i in range(4)]
        for j in jobs:
            pr.sbatch(j)
        return [("--qft-isolate" in args, args[args.index("-J") + 1])
                for name, args in pr.cluster.calls]

    def test_rlft_asks_the_chosen_jobs_only(self):
        with tempfile.TemporaryDirectory() as d:
            pr = self.policy_run(d, "rlft", [1, 3])
            self.assertEqual(self.submitted(pr), [(False, "s00000"), (True, "s00001"),
                                                  (False, "s00002"), (True, "s00003")])
            # before --wrap: an option of sbatch, not of the script
            args = pr.cluster.calls[1][1]
            self.assertLess(args.index("--qft-isolate"), args.index("--wrap"))
            files = pr.write_conf()
            stack = [f for f in files if os.path.basename(f) == "plugstack.conf"]
            self.assertEqual(len(stack), 1)
            with open(stack[0]) as f:
                self.assertIn("optional /x/spank_qft_lid.so\n", f.read())

    def test_others_submit_as_usual(self):
        for policy in ("rlft+Isolate=no", "cons_tres"):
            with tempfile.TemporaryDirectory() as d:
                pr = self.policy_run(d, policy, [1, 3])
                self.assertEqual([a for a, _ in self.submitted(pr)], [False] * 4, policy)
                self.assertEqual(pr.asks, {1, 3})
                if policy == "rlft+Isolate=no":
                    self.assertFalse(any(os.path.basename(f) == "plugstack.conf"
                                         for f in pr.write_conf()))

    def test_without_isolate(self):
        with tempfile.TemporaryDirectory() as d:
            pr = self.policy_run(d, "rlft", None)
            self.assertEqual([a for a, _ in self.submitted(pr)], [False] * 4)
            self.assertFalse(pr.sim_isolates())

    def test_shape_wait_for(self):
        # f of jobs 0-3: 0.1, 0.5, 0.1, 0.5; below 0.5 never waits
        with tempfile.TemporaryDirectory() as d:
            pr = self.policy_run(d, "rlft+ShapeWait=25+ShapeWaitFor=0.5", None,
                                 comm=[0.1, 0.5, 0.1, 0.5])
            self.submitted(pr)
            asked = ["--qft-shape-wait=0" in args for _, args in pr.cluster.calls]
            self.assertEqual(asked, [True, False, True, False])
            args = pr.cluster.calls[0][1]
            self.assertLess(args.index("--qft-shape-wait=0"), args.index("--wrap"))
            self.assertTrue(any(os.path.basename(f) == "plugstack.conf"
                                for f in pr.write_conf()))
        with tempfile.TemporaryDirectory() as d:
            pr = self.policy_run(d, "rlft+ShapeWait=25", None, comm=[0.1, 0.5, 0.1, 0.5])
            self.submitted(pr)
            self.assertFalse(any("--qft-shape-wait=0" in args for _, args in pr.cluster.calls))

    def test_the_script_keeps_qft_isolated(self):
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, SLURM_JOB_ID="7", QFT_ISOLATED="1", QFT_ISOLATE="1",
                       QFT_PLACEMENT_KIND="aligned")
            subprocess.run(["sh", "-c", env_dump_command(tmp) + "true"], env=env, check=True)
            got = job_env(tmp, 7)
            self.assertEqual((got.get("QFT_ISOLATED"), got.get("QFT_PLACEMENT_KIND")),
                             ("1", "aligned"))
            self.assertNotIn("QFT_ISOLATE", got)


# jobs on host sets a, b, c: a and b share links (H 2 together), c is
# alone on its links (H 1)
class Stub:
    def shares(self, x, y):
        return frozenset((x, y)) == frozenset("ab")

    def hsd(self, hosts, before, after=()):
        return 2.0 if before or after else 1.0


class TestHMax(unittest.TestCase):
    def test_largest_h_while_running(self):
        m = runtime.RuntimeModel(Stub())
        m.start(0.0, "A", "a", 4, 0.5, 100.0)
        m.start(0.0, "C", "c", 4, 0.5, 100.0)
        m.start(10.0, "B", "b", 4, 0.5, 10.0)
        b, _ = m.end(30.0, "B")
        a, _ = m.end(120.0, "A")
        c, _ = m.end(100.0, "C")
        self.assertEqual((a.h_max, b.h_max, c.h_max), (2.0, 2.0, 1.0))

    def test_live_records_it(self):
        with tempfile.TemporaryDirectory() as d:
            live = runtime.LiveRates(d, None, {"A": (0.5, 100.0), "B": (0.5, 10.0),
                                               "C": (0.5, 100.0)}, {}, lambda n, s: True)
            live.model = runtime.RuntimeModel(Stub())
            live.apply(live.model, [(0.0, 0, "A", "a", 4), (0.0, 0, "C", "c", 4),
                                    (10.0, 0, "B", "b", 4), (30.0, 1, "B", None, 0),
                                    (100.0, 1, "C", None, 0), (120.0, 1, "A", None, 0)])
            self.assertEqual({k: r["h_max"] for k, r in live.records.items()},
                             {"A": 2.0, "B": 2.0, "C": 1.0})


def job(idx, nodes, wait, run, work, asked, isolated=False, h_mean=1.0, h_max=1.0,
        hsd_alone=1.0):
    return {"idx": idx, "jobid": idx + 1, "state": "COMPLETED", "nodelist": "n%d" % idx,
            "nodes": nodes, "size": nodes, "submit": 0.0, "start": wait, "end": wait + run,
            "wait": wait, "run_model": run, "work": work, "slowdown": run / work, "comm": 0.5,
            "h_mean": h_mean, "h_max": h_max, "hsd_alone": hsd_alone, "hsd_alone_max": 1,
            "hsd_neigh": h_max, "hsd_neigh_max": 2, "shared_links": 0,
            "isolate_asked": asked, "isolate_submitted": asked, "isolated": isolated}


def stream():
    """Two jobs ask: one ran apart (QFT_ISOLATED=1, H 1), one did not get
    it and ran at H 2 a while (its own placement congests: H 2 alone);
    three others."""
    return [job(0, 4, 600.0, 100.0, 100.0, True, isolated=True),
            job(1, 8, 1200.0, 150.0, 100.0, True, h_mean=1.5, h_max=2.0, hsd_alone=2.0),
            job(2, 4, 0.0, 120.0, 100.0, False, h_mean=1.4, h_max=1.8),
            job(3, 1, 60.0, 100.0, 100.0, False),
            job(4, 16, 120.0, 200.0, 100.0, False, h_mean=3.0, h_max=3.0)]


class TestReport(unittest.TestCase):
    def test_groups(self):
        g = isolate_figures(stream())
        a, o = g["asking"], g["others"]
        self.assertEqual((a["jobs"], a["completed"], a["submitted"], a["isolated"]), (2, 2, 2, 1))
        self.assertAlmostEqual(a["wait_mean"], 900.0)
        self.assertAlmostEqual(a["turnaround_mean"], (700.0 + 1350.0) / 2)
        self.assertAlmostEqual(a["slowdown_mean"], 1.25)
        self.assertAlmostEqual(a["h_mean"], 1.25)
        self.assertEqual((a["h_above_1"], a["h_above_1_alone"], a["model_jobs"]), (1, 1, 2))
        self.assertEqual((o["jobs"], o["isolated"]), (3, 0))
        self.assertAlmostEqual(o["wait_mean"], 60.0)
        self.assertAlmostEqual(o["turnaround_mean"], (120.0 + 160.0 + 320.0) / 3)
        self.assertAlmostEqual(o["slowdown_mean"], (1.2 + 1.0 + 2.0) / 3)
        # H of the multi-node jobs only (the 1-node job is left out)
        self.assertAlmostEqual(o["h_mean"], (1.4 + 3.0) / 2)
        self.assertIsNone(isolate_figures([dict(j) for j in stream()
                                           if not j.pop("isolate_asked")]))

    def rep(self, jobs_by_policy, isolate=True):
        pols = {n: summarise(j, 72, {"times": {}}) for n, j in jobs_by_policy.items()}
        w = {"kind": "mixed", "jobs": 5, "comm": {"spec": "0.3:0.5,0.7:0.1", "mean_f": 0.22}}
        if isolate:
            w["isolate"] = {"spec": "0.5", "share": 0.5, "f": 0.5, "jobs": 2, "of": 4,
                            "policies": ["rlft"]}
        return {"fabric": {"describe": "PGFT(2;12,6;1,12;1,1), 72 hosts",
                           "tuple": "2;12,6;1,12;1,1", "hosts": 72, "leaf": 12, "pod": 72,
                           "block": 12, "lmc": 0},
                "workload": w, "compress": 10.0, "policies_order": list(jobs_by_policy),
                "policies": pols}

    def test_text(self):
        plain = stream()
        for j in plain[:2]:
            j.update(isolate_submitted=False, isolated=False)
        jobs = {"rlft": stream(), "cons_tres": plain}
        rep = self.rep(jobs)
        self.assertEqual(rep["policies"]["rlft"]["isolate"]["asking"]["isolated"], 1)
        json.dumps(rep)
        txt = report.report_text(rep, jobs)
        self.assertIn("Isolation --isolate 0.5: 2 of the 4 jobs at f = 0.5 ask (sbatch "
                      "--qft-isolate under rlft;", txt)
        util = "%.1f%%" % (100 * rep["policies"]["rlft"]["utilisation"])
        self.assertRegex(txt, r"\nrlft +asking +2 +15m00s +17m05s +1\.250 +1\.25 +1/2 "
                         r"+1 \(1\) +%s\nrlft +others +3 +1m00s +3m20s +1\.400 +2\.20 +- +-\n"
                         % util.replace(".", "\\."))
        self.assertRegex(txt, r"\ncons_tres +asking +2 .* not asked +1 \(1\) +")
        # the lines a run without --isolate prints are all there, in order
        old = report.report_text(self.rep(jobs, isolate=False), jobs).splitlines()
        new = txt.splitlines()
        start = new.index(next(l for l in new if l.startswith("Isolation --isolate")))
        self.assertEqual(new[:start - 1] + new[start + 3 + 4:], old)


class TestPrepare(unittest.TestCase):
    """OUT/workload.json through cli.prepare_workload, with the qft tool."""

    @unittest.skipUnless(os.environ.get("QFT") and os.access(os.environ["QFT"], os.X_OK),
                         "no $QFT (the qft tool)")
    def test_workload_json(self):
        got = {}
        with tempfile.TemporaryDirectory() as d:
            for name, extra in (("plain", []), ("iso10", ["--isolate", "0.1"]),
                                ("iso30", ["--isolate", "0.3"])):
                out = os.path.join(d, name)
                pols = ["--policies", "rlft,rlft+Isolate=no,cons_tres"] if extra else []
                sim = cli.setup(cli.parse_args(
                    ["--pgft", "2;12,6;1,12;1,1", "--synthetic", "mixed", "--jobs", "60",
                     "--seed", "4", "--comm", "0.3:0.5,0.7:0.1", "--out", out]
                    + pols + extra))
                sim.qft = os.environ["QFT"]
                with contextlib.redirect_stderr(io.StringIO()):
                    winfo = cli.prepare_workload(sim)
                with open(os.path.join(out, "workload.json")) as f:
                    got[name] = (json.load(f), winfo)
        plain, iso10, iso30 = (got[n][0] for n in ("plain", "iso10", "iso30"))
        self.assertEqual(iso30["jobs"], plain["jobs"])
        self.assertEqual(iso30["comm"], plain["comm"])
        self.assertNotIn("isolate", plain)
        at = [i for i, f in enumerate(plain["comm"]) if f == 0.5]
        self.assertEqual((len(at), len(iso10["isolate"]), len(iso30["isolate"])), (18, 2, 5))
        self.assertTrue(set(iso10["isolate"]) <= set(iso30["isolate"]) <= set(at))
        i = got["iso30"][1]["isolate"]
        self.assertEqual((i["jobs"], i["of"], i["f"], i["policies"]), (5, 18, 0.5, ["rlft"]))


if __name__ == "__main__":
    unittest.main()
