#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The runtime model without Slurm or root (make check): communication
shares from --comm, the rate arithmetic on a small schedule whose rates and
ends are computed by hand below (H from a stub scorer), the live thread's
rate files, a job's loop (advance.py) and the report's time figures. And
the LID choice it counts (--lmc): the scorer's command line and cache
keys (a stand-in qft), a real `qft score --lid` when $QFT is there, the
order of a lock-step set, the policies' choices (cons_tres-lid,
+LidChoice=), the LID space check, and the report's per-size figures and
users.png."""

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("QFT_SRCDIR") or os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRC, "contribs", "sim"))

from qftsim import clock, metrics, report, runtime  # noqa: E402
from qftsim.common import SimError, expand_hostlist  # noqa: E402
from qftsim.fabric import Fabric, check_lid_space, tuple_counts  # noqa: E402
from qftsim.metrics import class_figures, size_classes, slowdown_by_class, summarise  # noqa: E402
from qftsim.replay import policy_conf, policy_lid  # noqa: E402
from qftsim.scoring import Scorer, kept_members, neighbour_sets  # noqa: E402

ADVANCE = os.path.join(SRC, "contribs", "sim", "qftsim", "advance.py")

# The stub fabric: jobs on host sets a, b, c; a and b share links, b and c
# share links, a and c do not. H of a lock-step set, by its members.
SHARE = {frozenset("ab"), frozenset("bc")}
SET_HSD = {frozenset("a"): 1.0, frozenset("b"): 1.5, frozenset("c"): 1.0,
           frozenset("ab"): 2.0, frozenset("bc"): 3.0, frozenset("abc"): 4.0}


class StubScorer:
    def __init__(self):
        self.asked = []

    def shares(self, x, y):
        return frozenset((x, y)) in SHARE

    def hsd(self, hosts, before, after=()):
        self.asked.append((hosts, tuple(before) + tuple(after)))
        return SET_HSD[frozenset([hosts] + list(before) + list(after))]


class FakeScorer:
    """What CacheScorer reads of qftsim.scoring.Scorer: set_score and
    score_all, from the tables above (shared_links 7 for a pair that
    shares; each job's job_hsd the set's figure)."""

    def __init__(self):
        self.calls = []

    def score_all(self, alone, sets, progress=None, save=True, lid="none"):
        self.calls.append((sorted(alone), sorted(sorted(s) for s in sets), save))

    def set_score(self, lists, lid="none"):
        key = frozenset(lists)
        shared = 7 if len(lists) == 2 and key in SHARE else 0
        h = SET_HSD.get(key, 9.0)
        # every job of a set meets the set's figure here (job_hsd)
        return [h, 1, shared, [h] * len(lists) if len(lists) > 1 else None]


class TestComm(unittest.TestCase):
    def test_named_classes(self):
        self.assertEqual(runtime.parse_comm("mixed"), [(0.3, 0.5), (0.7, 0.1)])
        self.assertEqual(runtime.parse_comm("compute"), [(1.0, 0.1)])
        self.assertEqual(runtime.parse_comm("comm"), [(1.0, 0.5)])
        self.assertEqual(runtime.parse_comm("0.25"), [(1.0, 0.25)])
        self.assertEqual(runtime.parse_comm("0.3:0.5,0.7:0.1"), [(0.3, 0.5), (0.7, 0.1)])

    def test_refused(self):
        for bad in ("0.3:0.5,0.6:0.1", "1.5", "x", "0.5:2,0.5:0.1", "0.3:0.5:1"):
            with self.assertRaises(SimError, msg=bad):
                runtime.parse_comm(bad)

    def test_exact_counts_seeded(self):
        fs = runtime.comm_shares(runtime.parse_comm("mixed"), 1000, 1)
        self.assertEqual((fs.count(0.5), fs.count(0.1)), (300, 700))
        self.assertEqual(fs, runtime.comm_shares(runtime.parse_comm("mixed"), 1000, 1))
        self.assertNotEqual(fs, runtime.comm_shares(runtime.parse_comm("mixed"), 1000, 2))
        # largest remainders: 7 jobs at 0.3/0.7 -> 2.1 and 4.9 -> 2 and 5
        fs = runtime.comm_shares(runtime.parse_comm("mixed"), 7, 3)
        self.assertEqual((fs.count(0.5), fs.count(0.1)), (2, 5))

    def test_rate(self):
        self.assertAlmostEqual(runtime.rate(0.5, 2.0), 2.0 / 3.0)
        self.assertEqual(runtime.rate(0.0, 5.0), 1.0)
        self.assertEqual(runtime.rate(1.0, 4.0), 0.25)
        self.assertEqual(runtime.rate(0.3, 1.0), 1.0)


class TestSchedule(unittest.TestCase):
    """A (4 nodes, f 0.5, work 100) at 0; D (1 node, f 1, work 50) at 0;
    B (4, f 0.5, work 40) at 10; C (4, f 0.25, work 30) at 20.
      0: A alone H 1, rate 1.                     D: rate 1, ends at 50.
     10: B shares with A: H(A) = H(B) = H{a,b} = 2, rates 1/1.5 = 2/3.
     20: C shares with B only: H(C) = H{b,c} = 3, rate 1/(0.75+0.75) = 2/3;
         H(B) = H{a,b,c} = 4, rate 1/(0.5+2) = 0.4; A untouched.
         done: A 10 + 10*2/3 = 16.67, B 6.67.
     65: C ends (30 / (2/3) = 45 s). B: 6.67 + 45*0.4 = 24.67, H{a,b} = 2,
         rate 2/3: 15.33 left, 23 s.
     88: B ends. A: 16.67 + 68*2/3 = 62 done, alone H 1, rate 1: ends at 126.
    Mean H: A (10*1 + 78*2 + 38*1)/126; B (10*2 + 45*4 + 23*2)/78; C 3."""

    SCHEDULE = [("A", 0.0, "a", 4, 0.5, 100.0), ("D", 0.0, "d", 1, 1.0, 50.0),
                ("B", 10.0, "b", 4, 0.5, 40.0), ("C", 20.0, "c", 4, 0.25, 30.0)]

    def test_ends_and_mean_h(self):
        out = runtime.replay(self.SCHEDULE, StubScorer())
        want = {"A": (0.0, 126.0, 204.0 / 126.0), "B": (10.0, 88.0, 246.0 / 78.0),
                "C": (20.0, 65.0, 3.0), "D": (0.0, 50.0, 1.0)}
        self.assertEqual(sorted(out), sorted(want))
        for k, (st, en, h) in want.items():
            self.assertAlmostEqual(out[k][0], st, places=9, msg=k)
            self.assertAlmostEqual(out[k][1], en, places=9, msg=k)
            self.assertAlmostEqual(out[k][2], h, places=9, msg=k)

    def test_only_touched_jobs_are_rescored(self):
        sc = StubScorer()
        m = runtime.RuntimeModel(sc)
        self.assertEqual([j.key for j in m.start(0.0, "A", "a", 4, 0.5, 100.0)], ["A"])
        self.assertEqual([j.key for j in m.start(0.0, "D", "d", 1, 1.0, 50.0)], ["D"])
        self.assertEqual(sorted(j.key for j in m.start(10.0, "B", "b", 4, 0.5, 40.0)), ["A", "B"])
        # C shares with B only: A's H is not asked again
        sc.asked = []
        self.assertEqual(sorted(j.key for j in m.start(20.0, "C", "c", 4, 0.25, 30.0)),
                         ["B", "C"])
        self.assertEqual(sorted(h for h, _ in sc.asked), ["b", "c"])
        self.assertAlmostEqual(m.running["B"].rate, 0.4)
        job, touched = m.end(65.0, "C")
        self.assertEqual((job.key, [j.key for j in touched]), ("C", ["B"]))
        self.assertAlmostEqual(m.running["B"].done(65.0), 40.0 / 6.0 + 18.0)
        self.assertEqual(m.end(65.0, "nosuch"), (None, []))

    def test_one_node_jobs_never_score(self):
        sc = StubScorer()
        out = runtime.replay([("x", 0.0, "x", 1, 0.9, 10.0), ("y", 1.0, "y", 1, 0.9, 10.0)], sc)
        self.assertEqual((out["x"][1], out["y"][1], sc.asked), (10.0, 11.0, []))


class TestCacheScorer(unittest.TestCase):
    def test_each_job_gets_its_own_figure(self):
        class Sets:
            def set_score(self, lists, lid="none"):
                # scored in sorted order: "a" 1.5, "b" 2.25
                return {("a",): [1.25, 2, 0, None],
                        ("a", "b"): [2.0, 3, 4, [1.5, 2.25]]}.get(tuple(sorted(lists)))
        cs = runtime.CacheScorer(Sets())
        self.assertEqual(cs.hsd("b", ["a"]), 2.25)
        self.assertEqual(cs.hsd("a", ["b"]), 1.5)
        self.assertEqual(cs.hsd("a", []), 1.25)


class TestLive(unittest.TestCase):
    def write(self, d, name, text):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)

    def rate(self, d, name):
        with open(os.path.join(d, name + ".rate")) as f:
            r, t = f.read().split()
        return float(r), float(t)

    def test_rate_files_follow_the_schedule(self):
        with tempfile.TemporaryDirectory() as d:
            sc = FakeScorer()
            raised = []
            live = runtime.LiveRates(d, sc, {"A": (0.5, 100.0), "B": (0.5, 40.0),
                                             "C": (0.25, 30.0)},
                                     {"A": 60.0, "B": 600.0, "C": 600.0},
                                     lambda n, s: raised.append((n, s)) or True)
            self.write(d, "A.start", "1000.0 a 4\n")
            self.write(d, "B.start", "1010.0 b 4\n")
            live.step()
            self.assertEqual(self.rate(d, "A"), (round(2 / 3, 6), 1010.0))
            self.assertEqual(self.rate(d, "B"), (round(2 / 3, 6), 1010.0))
            # one pair scored, then the sets: two qft score rounds, not saved
            self.assertEqual([c[2] for c in sc.calls], [False, False])
            self.assertEqual(sc.calls[0][1], [["a", "b"]])
            # A's projected run, 10 + 90 / (2/3) = 145 s, passes its 60 s
            # limit: raised to 1.5 x 145 + 10 s (4 minutes)
            self.assertEqual([n for n, _ in raised], ["A"])
            self.assertAlmostEqual(raised[0][1], 1.5 * 145.0 + 10.0)
            self.assertEqual(live.limits["A"], 240.0)
            self.write(d, "C.start", "1020.0 c 4\n")
            live.step()
            self.assertEqual(self.rate(d, "B"), (0.4, 1020.0))
            self.assertEqual(self.rate(d, "C"), (round(2 / 3, 6), 1020.0))
            self.assertEqual(self.rate(d, "A")[1], 1010.0)
            self.assertEqual(len(raised), 1)
            self.write(d, "C.done", "1020.0 1065.0\n")
            live.step()
            self.assertEqual(self.rate(d, "B"), (round(2 / 3, 6), 1065.0))
            self.assertEqual(live.records["C"]["h_mean"], 3.0)
            live.step()   # nothing new: no scoring
            self.assertEqual(live.rounds, 3)


class TestImplicitEnds(unittest.TestCase):
    def test_hostlist(self):
        self.assertEqual(expand_hostlist("n[0001-0003,0007],login1"),
                         ["n0001", "n0002", "n0003", "n0007", "login1"])

    def test_a_start_on_held_hosts_ends_their_job(self):
        with tempfile.TemporaryDirectory() as d:
            live = runtime.LiveRates(d, FakeScorer(), {}, {}, lambda n, s: True)
            ev = live.implicit_ends([(1.0, 0, "x", "n[0001-0004]", 4),
                                     (2.0, 0, "y", "n[0003-0005]", 3),
                                     (3.0, 1, "y", None, 0), (4.0, 0, "z", "n0005", 1)])
            self.assertEqual([(t, k, n) for t, k, n, _, _ in ev],
                             [(1.0, 0, "x"), (2.0, 1, "x"), (2.0, 0, "y"), (3.0, 1, "y"),
                              (4.0, 0, "z")])
            self.assertIn("x", live.ended)


class TestAdvance(unittest.TestCase):
    def test_rate_slows_the_work(self):
        with tempfile.TemporaryDirectory() as d:
            # rate 0.5 from before the start: 0.3 s of work take 0.6 s
            self.write_rate(d, "s00001", 0.5, time.time() - 10)
            env = dict(os.environ, SLURM_JOB_NODELIST="n[0001-0004]", SLURM_JOB_NUM_NODES="4")
            subprocess.run([sys.executable, ADVANCE, d, "s00001", "0.3"], check=True, env=env)
            with open(os.path.join(d, "s00001.start")) as f:
                st, hosts, nodes = f.read().split()
            with open(os.path.join(d, "s00001.done")) as f:
                st2, en, held = (float(x) for x in f.read().split())
            self.assertEqual((hosts, nodes, float(st)), ("n[0001-0004]", "4", st2))
            self.assertGreater(en - st2, 0.58)
            # upper bounds loose (a loaded CI machine): a rate taken twice gives 1.2
            self.assertLess(en - st2, 1.0)
            self.assertLess(held, 0.3)

    def test_holds_until_its_first_rate(self):
        """A model that lags: the job's 0.2 s of work are done at rate 1
        before any rate comes; it ends only when the rate (0.5, dated back
        to its start) is read, then at once (its work was due at 0.4 s),
        and says how long it held its nodes past that."""
        with tempfile.TemporaryDirectory() as d:
            p = subprocess.Popen([sys.executable, ADVANCE, d, "s00002", "0.2"])
            start_path = os.path.join(d, "s00002.start")
            for _ in range(100):
                if os.path.exists(start_path):
                    break
                time.sleep(0.05)
            with open(start_path) as f:
                st = float(f.read().split()[0])
            time.sleep(max(0.0, st + 1.0 - time.time()))
            self.assertIsNone(p.poll(), "ended before any rate was published")
            self.write_rate(d, "s00002", 0.5, st)
            p.wait(10)
            with open(os.path.join(d, "s00002.done")) as f:
                st2, en, held = (float(x) for x in f.read().split())
            self.assertEqual(st2, st)
            self.assertGreater(en - st, 1.0)
            # held is read in the loop, en just after it: a loaded machine
            # may stall between the two
            self.assertAlmostEqual(held, en - (st + 0.4), delta=0.15)
            live = runtime.LiveRates(d, None, {}, {}, lambda n, s: True)
            live.started.add("s00002")
            live.read_events()
            self.assertEqual((live.held, round(live.held_secs, 3)), (1, round(held, 3)))

    def write_rate(self, d, name, r, t):
        with open(os.path.join(d, name + ".rate"), "w") as f:
            f.write("%.6f %.6f\n" % (r, t))


class TestClock(unittest.TestCase):
    """The world's clock (qftsim/clock.py): pauses taken out of time, the
    process named by the pid file really stopped while paused, and a job's
    loop that does not advance while the world is stopped."""

    def proc_state(self, pid):
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]

    def test_pauses_are_taken_out_and_the_daemon_stops(self):
        with tempfile.TemporaryDirectory() as d:
            daemon = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
            try:
                with open(os.path.join(d, "ctld.pid"), "w") as f:
                    f.write("%d\n" % daemon.pid)
                c = clock.Clock(os.path.join(d, "clock"), os.path.join(d, "ctld.pid"))
                # Every bound below is bracketed by times read around the
                # call, not by sleeps' lengths: CI machines are loaded, and
                # a sleep(0.1) has taken 0.165 s there.
                w0 = time.time()
                time.sleep(0.1)
                p0 = time.time()
                c.pause()
                p1 = time.time()
                time.sleep(0.1)
                self.assertEqual(self.proc_state(daemon.pid), "T")
                self.assertFalse(c.running.is_set())
                time.sleep(0.3)
                w1 = time.time()
                # what the poller holds against the timeout when a round hangs
                held = c.paused_for()
                self.assertGreaterEqual(held, w1 - p1)
                self.assertLessEqual(held, time.time() - p0)
                r0 = time.time()
                c.resume()
                r1 = time.time()
                self.assertEqual(c.paused_for(), 0.0)
                self.assertNotEqual(self.proc_state(daemon.pid), "T")
                time.sleep(0.1)
                w2 = time.time()
                # the stop's length, w0 to w2 real less it on the world's clock
                self.assertAlmostEqual(c.virtual(w2) - c.virtual(w0), (w2 - w0) - c.total, places=6)
                self.assertGreaterEqual(c.total, r0 - p1)
                self.assertLessEqual(c.total, r1 - p0)
                self.assertGreater(c.total, 0.35)
                # a time inside the pause is the pause's start
                inside = c.virtual(w1) - c.virtual(w0)
                self.assertGreaterEqual(inside, p0 - w0)
                self.assertLessEqual(inside, p1 - w0)
                self.assertAlmostEqual(c.virtual(w1), c.virtual((p1 + w1) / 2), places=6)
                self.assertAlmostEqual(c.paused_since(c.virtual(w0)), c.total, places=6)
                self.assertEqual(c.paused_since(c.now()), 0.0)
                self.assertEqual(c.count, 1)
            finally:
                daemon.kill()
                daemon.wait()

    def test_a_job_does_not_advance_while_the_world_is_stopped(self):
        with tempfile.TemporaryDirectory() as d:
            c = clock.Clock(os.path.join(d, "clock"))
            with open(os.path.join(d, "s00003.rate"), "w") as f:
                f.write("1.0 %.6f\n" % (c.now() - 10))
            t0 = time.time()
            p = subprocess.Popen([sys.executable, ADVANCE, d, "s00003", "0.5"])
            time.sleep(0.2)
            c.pause()
            time.sleep(1.0)
            self.assertIsNone(p.poll(), "its work went on while the world was stopped")
            c.resume()
            p.wait(10)
            real = time.time() - t0
            with open(os.path.join(d, "s00003.done")) as f:
                st, en, held = (float(x) for x in f.read().split())
            self.assertGreater(real, 1.4)
            # on the world's clock it ran its 0.5 s of work, no more
            # with the stop counted as work it would be 1.5 s
            self.assertGreaterEqual(en - st, 0.49)
            self.assertLess(en - st, 0.8)
            self.assertLess(held, 0.3)

    def test_the_model_stops_the_world_in_each_round(self):
        with tempfile.TemporaryDirectory() as d:
            c = clock.Clock(os.path.join(d, "clock"))
            live = runtime.LiveRates(d, FakeScorer(), {"A": (0.5, 100.0), "B": (0.5, 40.0)},
                                     {"A": 600.0, "B": 600.0}, lambda n, s: True, clock=c)
            with open(os.path.join(d, "A.start"), "w") as f:
                f.write("%.6f a 4\n" % c.now())
            live.step()
            live.step()   # nothing new: no round, no stop
            self.assertEqual((live.rounds, c.count), (1, 1))
            self.assertTrue(c.running.is_set())


class TestModelRecord(unittest.TestCase):
    def test_held_is_apart_from_the_run(self):
        """A job's .done "start end held": its run is what its rates gave
        (end - start - held), its hold kept apart, both simulated."""
        from qftsim import replay
        from types import SimpleNamespace as NS
        with tempfile.TemporaryDirectory() as d:
            run = replay.PolicyRun.__new__(replay.PolicyRun)
            run.rates_dir = d
            run.live = NS(records={})
            run.sim = NS(compress=10.0, comm={3: 0.5}, args=NS(min_sleep=1.0))
            job = NS(idx=3, runtime=200.0)
            with open(os.path.join(d, "s00003.done"), "w") as f:
                f.write("100.0 130.0 5.0\n")
            rec = {}
            run.model_record(job, rec)
            self.assertEqual((rec["work"], rec["run_model"], rec["held"]), (200.0, 250.0, 50.0))
            self.assertAlmostEqual(rec["slowdown"], 1.25)
            with open(os.path.join(d, "s00003.done"), "w") as f:
                f.write("100.0 130.0\n")
            run.model_record(job, rec)
            self.assertEqual((rec["run_model"], rec["held"]), (300.0, 0.0))


class TestFigures(unittest.TestCase):
    def job(self, idx, nodes, submit, start, run, work, f=0.5):
        return {"idx": idx, "jobid": idx + 1, "state": "COMPLETED", "nodelist": "n%d" % idx,
                "nodes": nodes, "size": nodes, "submit": submit, "start": start,
                "end": start + run, "wait": start - submit, "run_model": run, "work": work,
                "slowdown": run / work, "comm": f, "h_mean": 2.0}

    def test_turnaround_slowdown_lost(self):
        jobs = [self.job(0, 4, 0.0, 0.0, 150.0, 100.0),
                self.job(1, 1, 0.0, 100.0, 50.0, 50.0),
                self.job(2, 20, 50.0, 150.0, 3450.0, 3000.0)]
        s = summarise(jobs, 100, {})
        self.assertAlmostEqual(s["turnaround_mean"], (150.0 + 150.0 + 3550.0) / 3)
        self.assertAlmostEqual(s["slowdown_mean"], (1.5 + 1.0 + 1.15) / 3)
        self.assertAlmostEqual(s["slowdown_max"], 1.5)
        # node-seconds: used 600 + 50 + 69000, lost 200 + 0 + 9000
        self.assertAlmostEqual(s["node_hours_lost_share"], 9200.0 / 69650.0)
        self.assertEqual(s["node_hours_held_share"], 0.0)
        # a job that held its 4 nodes 50 s for its first rate: apart from
        # its run, its slowdown and the node-hours lost
        jobs[0]["held"] = 50.0
        held = summarise(jobs, 100, {})
        self.assertAlmostEqual(held["node_hours_held_share"], 200.0 / 69850.0)
        self.assertAlmostEqual(held["node_hours_lost_share"], s["node_hours_lost_share"])
        # 3 jobs over a makespan of 3600 s
        self.assertAlmostEqual(s["throughput"], 3.0)
        self.assertEqual(s["h_mean"], 2.0)
        classes = size_classes(18, 324, 1944)
        self.assertEqual([c[0] for c in classes], ["1", "2-18", "19-324", ">324"])
        self.assertEqual(slowdown_by_class(jobs, classes),
                         [("1", 1.0, 1), ("2-18", 1.5, 1), ("19-324", 1.15, 1), (">324", None, 0)])

    def test_without_the_model(self):
        j = self.job(0, 4, 0.0, 0.0, 150.0, 100.0)
        for k in ("run_model", "work", "slowdown", "h_mean", "comm"):
            del j[k]
        s = summarise([j], 10, {})
        self.assertEqual((s["slowdown_mean"], s["node_hours_lost_share"], s["model_jobs"]),
                         (None, None, 0))
        self.assertEqual(s["turnaround_mean"], 150.0)
        json.dumps(s)


# A stand-in for `qft score --batch`: logs its arguments, the batch file
# and the --lid-in file, and answers every group with avg_hsd = its number
# of jobs and job_hsd = 1, 2, ... in the order the file lists them. A
# keyed job ("KEY: HOSTS") without kept offsets "chooses": its --lid-out
# line's offsets name the jobs before it in its group ("-" alone). With
# --lid pair, lid_floor: job i (0-based) proved i of 10 stages, 1 open.
FAKE_QFT = r"""#!/usr/bin/env python3
import json, sys
args = sys.argv[1:]
path = args[args.index("--batch") + 1]
groups = [g.splitlines() for g in open(path).read().split("\n\n") if g.strip()]
kept_in = []
if "--lid-in" in args:
    kept_in = open(args[args.index("--lid-in") + 1]).read().splitlines()
with open(sys.argv[0] + ".log", "a") as f:
    f.write(json.dumps({"args": args, "groups": groups, "kept": kept_in}) + "\n")
kept = {l.split()[0] for l in kept_in}
out = []
for g in groups:
    for i, m in enumerate(g):
        key, sep, hosts = m.partition(": ")
        if sep and key not in kept:
            kept.add(key)
            out.append("%s pair 2 %s %s" % (key, hosts,
                       "".join(b.partition(": ")[0] for b in g[:i]) or "-"))
if "--lid-out" in args:
    open(args[args.index("--lid-out") + 1], "w").write("".join(l + "\n" for l in out))
pair = "--lid" in args and args[args.index("--lid") + 1] == "pair"
for g in groups:
    d = {"avg_hsd": float(len(g)), "max_hsd": len(g), "shared_links": 3,
         "job_hsd": [float(i + 1) for i in range(len(g))]}
    if pair:
        d["lid_floor"] = [{"hsd": 1.0 + i / 10.0, "stages": 10, "congested": i,
                           "undecided": 1} for i in range(len(g))]
    print(json.dumps(d))
"""


def fake_qft(case):
    """A stand-in qft (FAKE_QFT) and an empty fabric file in a new
    temporary directory, kept on the test case."""
    case.tmp = tempfile.TemporaryDirectory()
    d = case.tmp.name
    case.qft = os.path.join(d, "qft")
    with open(case.qft, "w") as f:
        f.write(FAKE_QFT)
    os.chmod(case.qft, 0o755)
    case.fabric = os.path.join(d, "fabric.json")
    with open(case.fabric, "w") as f:
        f.write("{}")
    return d


class TestScorerLid(unittest.TestCase):
    def setUp(self):
        d = fake_qft(self)
        self.cache = os.path.join(d, "cache.json")

    def tearDown(self):
        self.tmp.cleanup()

    def scorer(self, lmc):
        return Scorer(self.qft, self.fabric, "shift", 1, self.cache,
                      os.path.join(self.tmp.name, "t"), lmc=lmc)

    def calls(self):
        try:
            with open(self.qft + ".log") as f:
                return [json.loads(line) for line in f]
        except OSError:
            return []

    def test_lid_and_lmc_on_the_command_line(self):
        sc = self.scorer(2)
        sc.score_all(["n1"], [["n3", "n2"]], lid="pair")
        sc.score_all(["n1"], [["n3", "n2"]])
        args = [c["args"] for c in self.calls()]
        self.assertEqual(len(args), 2)
        self.assertEqual(args[0][args[0].index("--lid"):][:4], ["--lid", "pair", "--lmc", "2"])
        self.assertNotIn("--lid", args[1])
        self.assertNotIn("--lmc", args[1])
        for a in args:
            self.assertIn("--per-job", a)

    def test_a_choice_keeps_the_order_one_lid_sorts(self):
        sc = self.scorer(2)
        sc.score_all([], [["n3", "n2"]], lid="pair")
        sc.score_all([], [["n3", "n2"]])
        groups = [c["groups"] for c in self.calls()]
        # the new job last, as listed; one LID in sorted order
        self.assertEqual(groups, [[["n3", "n2"]], [["n2", "n3"]]])
        # job_hsd follows the order scored: n2 is 2nd under pair, 1st alone
        cs = runtime.CacheScorer(sc, "pair")
        self.assertEqual(cs.hsd("n2", ["n3"]), 2.0)
        self.assertEqual(runtime.CacheScorer(sc).hsd("n2", ["n3"]), 1.0)
        # another order is another set under a choice, the same under one LID
        sc.score_all([], [["n2", "n3"]], lid="pair")
        sc.score_all([], [["n2", "n3"]])
        self.assertEqual(len(self.calls()), 3)

    def test_cache_keys_carry_mode_and_lmc(self):
        sc = self.scorer(2)
        self.assertEqual(sc.key("n1"), "n1")
        self.assertEqual(sc.key("n1", "pair"), "pair/lmc2:n1")
        self.assertEqual(sc.key(["b", "a"]), "a|b")
        self.assertEqual(sc.key(["b", "a"], "dest"), "dest/lmc2:b|a")
        sc.score_all(["n1"], [], lid="pair")
        sc.score_all(["n1"], [], lid="dest")
        sc.score_all(["n1"], [])
        self.assertEqual(len(self.calls()), 3)
        self.assertEqual(sorted(sc.cache["alone"]), ["dest/lmc2:n1", "n1", "pair/lmc2:n1"])
        # the saved cache: found again at LMC 2, not at LMC 3
        self.scorer(2).score_all(["n1"], [], lid="pair")
        self.assertEqual(len(self.calls()), 3)
        self.scorer(3).score_all(["n1"], [], lid="pair")
        self.assertEqual(len(self.calls()), 4)

    def test_neighbour_sets_in_start_order_the_job_last(self):
        jobs = [{"idx": i, "nodelist": h, "nodes": 2, "start_wall": st, "end_wall": en}
                for i, (h, st, en) in enumerate([("c", 5, 50), ("a", 0, 40), ("b", 10, 30),
                                                 ("d", 10, 60)])]
        sets = neighbour_sets(jobs)
        self.assertEqual(sets[0], ["a", "c"])
        self.assertEqual(sets[1], ["a"])
        # b and d start together: each is last in its own set
        self.assertEqual(sets[2], ["a", "c", "d", "b"])
        self.assertEqual(sets[3], ["a", "c", "b", "d"])


class TestKeptOffsets(unittest.TestCase):
    """Each job chooses its offsets once, at its start, beside the running
    jobs, and keeps them (Keeper, qft score --lid-in/--lid-out)."""

    def setUp(self):
        fake_qft(self)

    def tearDown(self):
        self.tmp.cleanup()

    def scorer(self, workers=1):
        return Scorer(self.qft, self.fabric, "shift", workers,
                      os.path.join(self.tmp.name, "cache.json"),
                      os.path.join(self.tmp.name, "t"), lmc=2)

    def calls(self):
        try:
            with open(self.qft + ".log") as f:
                return [json.loads(line) for line in f]
        except OSError:
            return []

    def chosen(self, sc):
        """name -> the jobs it chose beside (the stand-in's offsets)."""
        return {n: line.split()[4] for n, line in sc.keeper.lines.items()}

    def test_choose_once_in_order_then_score_with_kept(self):
        sc = self.scorer()
        groups = [["a: n1"], ["a: n1", "b: n2"], ["a: n1", "b: n2", "c: n3"]]
        sc.choose(groups, "pair")
        self.assertEqual(self.chosen(sc), {"a": "-", "b": "a", "c": "ab"})
        c = self.calls()
        self.assertEqual(len(c), 1)
        self.assertIn("--lid-out", c[0]["args"])
        self.assertNotIn("--lid-in", c[0]["args"])
        self.assertNotIn("--lid-threads", c[0]["args"])
        # chosen already: no second choice, and the choice groups' scores
        # are the sets' (cached with the kept offsets)
        sc.choose(groups, "pair")
        sc.score_all([], [["b: n2", "a: n1"]], lid="pair")
        self.assertEqual(len(self.calls()), 1)
        # another set of kept jobs: their offsets given, nobody chooses
        sc.score_all(["n3"], [["c: n3", "b: n2"]], lid="pair")
        c = self.calls()[-1]
        self.assertEqual(c["groups"], [["n3"], ["b: n2", "c: n3"]])
        self.assertEqual([l.split()[0] for l in c["kept"]], ["b", "c"])
        self.assertNotIn("--lid-out", c["args"])
        self.assertEqual(self.chosen(sc), {"a": "-", "b": "a", "c": "ab"})
        # the order a set is listed in does not matter with kept offsets
        cs = runtime.CacheScorer(sc, "pair")
        self.assertEqual(cs.hsd("c: n3", ["b: n2"]), 2.0)
        self.assertEqual(cs.hsd("b: n2", [], ["c: n3"]), 1.0)
        self.assertEqual(sc.key(["c: n3", "b: n2"], "pair"), sc.key(["b: n2", "c: n3"], "pair"))
        # a new job chooses beside the kept ones, given by --lid-in
        sc.choose([["a: n1", "c: n3", "d: n4"]], "pair")
        self.assertEqual(self.chosen(sc)["d"], "ac")
        self.assertEqual([l.split()[0] for l in self.calls()[-1]["kept"]], ["a", "c"])
        with self.assertRaises(SimError):
            sc.key(["e: n5", "a: n1"], "pair")

    def test_what_the_choice_met_at_the_start(self):
        """The keeper holds each job's HSD at its start beside the jobs
        before it and what its search proved there (lid_floor), as the
        new job, last in its group; the cache keeps only the scores."""
        sc = self.scorer()
        sc.choose([["a: n1"], ["a: n1", "b: n2"], ["a: n1", "b: n2", "c: n3"]], "pair")
        self.assertEqual(sc.keeper.start["a"], {"h": 1.0, "floor": 1.0, "stages": 10,
                                                "proven": 0, "undecided": 1})
        self.assertEqual(sc.keeper.start["c"], {"h": 3.0, "floor": 1.2, "stages": 10,
                                                "proven": 2, "undecided": 1})
        self.assertTrue(all(len(v) == 4 for v in sc.cache["sets"].values()))
        self.assertTrue(all(len(v) == 4 for v in sc.cache["alone"].values()))
        # dest proves nothing: its HSD alone
        sc.choose([["a: n1", "d: n4"]], "dest")
        self.assertEqual(sc.keeper.start["d"], {"h": 2.0})
        sc.keeper.forget("c")
        self.assertNotIn("c", sc.keeper.start)
        jobs = [{"nodes": n, "lid_start": st} for n, st in
                ((2, {"h": 1.0, "floor": 1.0, "stages": 10, "proven": 0, "undecided": 0}),
                 (300, {"h": 1.5, "floor": 1.2, "stages": 299, "proven": 60, "undecided": 90}),
                 (4, {"h": 1.25}), (1, None))]
        f = metrics.lid_start_figures(jobs)
        self.assertEqual(f["multi"]["jobs"], 3)
        self.assertAlmostEqual(f["multi"]["h_mean"], 1.25)
        self.assertAlmostEqual(f["multi"]["h1_share"], 1 / 3)
        self.assertAlmostEqual(f["multi"]["floor_mean"], 1.1)
        self.assertAlmostEqual(f["multi"]["floor1_share"], 1 / 2)  # of the two with a floor
        self.assertAlmostEqual(f["multi"]["undecided_share"], 90 / 309)
        self.assertEqual(f["above_256"]["jobs"], 1)
        self.assertAlmostEqual(f["above_256"]["proven_share"], 60 / 299)
        self.assertNotIn("lost_share", f["multi"])  # no runtime model
        self.assertIsNone(metrics.lid_start_figures([{"nodes": 2}]))
        # with the runtime model: the node-hours lost at the start's HSD
        # and at the floor, f (h - 1) of the work alone, over the node-hours
        # the jobs used (run_model)
        model = [{"nodes": 2, "work": 100.0, "comm": 0.5, "run_model": 125.0,
                  "lid_start": {"h": 1.5, "floor": 1.25, "stages": 1, "proven": 0,
                                "undecided": 1}},
                 {"nodes": 300, "work": 10.0, "comm": 0.1, "run_model": 10.0,
                  "lid_start": {"h": 1.0, "floor": 1.0, "stages": 299, "proven": 0,
                                "undecided": 0}}]
        f = metrics.lid_start_figures(model)
        used = 2 * 125.0 + 300 * 10.0
        self.assertAlmostEqual(f["multi"]["lost_share"], 2 * 25.0 / used)
        self.assertAlmostEqual(f["multi"]["lost_at_start_share"], 2 * 100 * 0.5 * 0.5 / used)
        self.assertAlmostEqual(f["multi"]["lost_at_floor_share"], 2 * 100 * 0.5 * 0.25 / used)
        self.assertEqual(f["above_256"]["lost_at_floor_share"], 0.0)

    def test_lid_threads_for_choices_only(self):
        """--lid-threads N reaches the choices (qft score --lid-threads),
        not the scoring of kept offsets."""
        sc = Scorer(self.qft, self.fabric, "shift", 1, os.path.join(self.tmp.name, "cache.json"),
                    os.path.join(self.tmp.name, "t"), lmc=2, lid_threads=3)
        sc.choose([["a: n1"], ["a: n1", "b: n2"]], "pair")
        sc.score_all(["n3"], [], lid="pair")
        args = [c["args"] for c in self.calls()]
        self.assertEqual(args[0][args[0].index("--lid-threads"):][:2], ["--lid-threads", "3"])
        self.assertTrue(all("--lid-threads" not in a for a in args[1:]) and len(args) > 1)

    def test_kept_members_start_order_and_the_models_choice(self):
        jobs = [{"idx": i, "name": "s%05d" % i, "nodelist": h, "nodes": 2, "start_wall": st,
                 "end_wall": en} for i, (h, st, en) in enumerate(
                     [("c", 5, 50), ("a", 0, 40), ("b", 10, 30), ("d", 10, 60), ("e", 45, 70)])]
        sc = self.scorer()
        # s00003 kept by the runtime model: not chosen again
        sc.keeper.add("s00003", "d", "s00003 pair 2 d model")
        member = kept_members(sc, jobs, "pair")
        self.assertEqual(member[2], "s00002: b")
        ch = self.chosen(sc)
        # a alone; c beside a; b (tied with d, lower idx) beside a and c;
        # e beside the ones still running at 45: c and d
        self.assertEqual((ch["s00001"], ch["s00000"], ch["s00002"], ch["s00003"], ch["s00004"]),
                         ("-", "s00001", "s00001s00000", "model", "s00000s00003"))
        self.assertEqual(len(self.calls()), 1)
        sets = neighbour_sets(jobs, member)
        self.assertEqual(sets[3], ["s00001: a", "s00000: c", "s00002: b", "s00003: d"])
        # the figures are the same however the sets are split over workers
        s1 = self.scorer(1)
        s1.keeper = sc.keeper
        s2 = self.scorer(2)
        s2.keeper = sc.keeper
        s2.cache = {"alone": {}, "sets": {}}
        s1.score_all([], list(sets.values()), lid="pair", save=False)
        s2.score_all([], list(sets.values()), lid="pair", save=False)
        for s in sets.values():
            self.assertEqual(s1.set_score(s, "pair"), s2.set_score(s, "pair"))

    def test_live_model_chooses_at_each_start(self):
        with tempfile.TemporaryDirectory() as d:
            sc = self.scorer()
            live = runtime.LiveRates(d, sc, {"A": (0.5, 100.0), "B": (0.5, 40.0),
                                             "C": (0.25, 30.0)},
                                     {}, lambda n, s: True, lid="pair")
            for name, text in (("A.start", "1000.0 a 4\n"), ("B.start", "1010.0 b 4\n")):
                with open(os.path.join(d, name), "w") as f:
                    f.write(text)
            live.step()
            first = self.calls()[0]
            self.assertIn("--lid-out", first["args"])
            self.assertEqual(first["groups"], [["A: a"], ["A: a", "B: b"]])
            self.assertEqual(self.chosen(sc), {"A": "-", "B": "A"})
            with open(os.path.join(d, "A.done"), "w") as f:
                f.write("1000.0 1020.0\n")
            with open(os.path.join(d, "C.start"), "w") as f:
                f.write("1030.0 c 4\n")
            n = len(self.calls())
            live.step()
            # C beside B only (A ended); B keeps its offsets
            self.assertEqual(self.calls()[n]["groups"], [["B: b", "C: c"]])
            self.assertEqual(self.chosen(sc), {"A": "-", "B": "A", "C": "B"})
            self.assertEqual(live.model.running["C"].hosts, "C: c")


def real_qft():
    q = os.environ.get("QFT")
    return q if q and os.access(q, os.X_OK) else None


@unittest.skipUnless(real_qft(), "no $QFT (the qft tool): run by make check")
class TestRealScoreLid(unittest.TestCase):
    def test_pair_lowers_a_congested_job(self):
        """16 hosts over three leaves congest on one LID (1.333); at LMC 2
        the pair choice reaches 1.0, and two such jobs on other leaves
        stay at 1.0 side by side."""
        with tempfile.TemporaryDirectory() as d:
            fab = os.path.join(d, "f.json")
            subprocess.run([real_qft(), "gen", "pgft", "2;18,18;1,18;1,1", "--lmc", "2",
                            "-o", fab], check=True, stderr=subprocess.DEVNULL)
            sc = Scorer(real_qft(), fab, "shift", 1, os.path.join(d, "c.json"),
                        os.path.join(d, "t"), lmc=2)
            a, b = "n[0019-0023,0037-0041,0055-0060]", "n[0091-0095,0109-0113,0127-0132]"
            sc.score_all([a], [[a, b]])
            sc.score_all([a], [[a, b]], lid="pair")
            self.assertAlmostEqual(sc.alone(a)[0], 4 / 3, places=4)
            self.assertEqual(sc.alone(a, "pair")[0], 1.0)
            self.assertAlmostEqual(runtime.CacheScorer(sc).hsd(b, [a]), 4 / 3, places=4)
            self.assertEqual(runtime.CacheScorer(sc, "pair").hsd(b, [a]), 1.0)
            # kept: a chooses alone, b beside a's kept offsets
            sc.choose([["a: " + a], ["a: " + a, "b: " + b]], "pair")
            self.assertEqual(sorted(sc.keeper.lines), ["a", "b"])
            self.assertEqual(len(sc.keeper.lines["b"].split()[4]), 16 * 16)
            self.assertEqual(runtime.CacheScorer(sc, "pair").hsd("b: " + b, ["a: " + a]), 1.0)


class OrderStub:
    """Records the lock-step sets the model asks for, in their order."""

    def __init__(self):
        self.sets = []

    def shares(self, a, b):
        return True

    def hsd(self, hosts, before, after=()):
        self.sets.append((hosts, list(before) + [hosts] + list(after)))
        return 1.0


class TestStartOrder(unittest.TestCase):
    def test_sets_list_jobs_in_start_order(self):
        st = OrderStub()
        m = runtime.RuntimeModel(st)
        m.start(0.0, "A", "a", 2, 0.5, 100.0)
        m.start(10.0, "B", "b", 2, 0.5, 100.0)
        st.sets = []
        m.start(20.0, "C", "c", 2, 0.5, 100.0)
        # the new job last; an older one in its place among them
        self.assertEqual(dict(st.sets), {"c": ["a", "b", "c"], "a": ["a", "b", "c"],
                                         "b": ["a", "b", "c"]})
        st.sets = []
        m.end(30.0, "A")
        self.assertEqual(dict(st.sets), {"b": ["b", "c"], "c": ["b", "c"]})


class TestPolicyLid(unittest.TestCase):
    def test_cons_tres_lid(self):
        c = policy_conf("cons_tres-lid")
        self.assertEqual((c["select"], c["topology"], c["qft_conf"], c["lid"]),
                         ("select/cons_tres", "topology/tree", None, "pair"))
        self.assertEqual(policy_lid("cons_tres-lid", 2), "pair")
        with self.assertRaisesRegex(SimError, "needs a fabric with LMC > 0"):
            policy_lid("cons_tres-lid", 0)

    def test_defaults(self):
        for name, at2 in (("rlft", "pair"), ("rlft-wait", "pair"), ("cons_tres", "none"),
                          ("linear", "none"), ("block", "none"), ("cons_tres-qft", "none")):
            self.assertEqual((policy_lid(name, 2), policy_lid(name, 0)), (at2, "none"), name)

    def test_lidchoice_is_the_simulators(self):
        c = policy_conf("rlft+LidChoice=dest")
        self.assertEqual((c["lid"], c["qft_conf"]), ("dest", []))
        self.assertIn("LidChoice=dest", c["label"])
        c = policy_conf("rlft-wait+ShapeWait=25+LidChoice=job")
        self.assertEqual((c["lid"], c["qft_conf"]), ("job", ["Shapes=products", "ShapeWait=25"]))
        self.assertEqual(policy_lid("cons_tres+LidChoice=pair", 1), "pair")
        self.assertEqual(policy_lid("rlft+LidChoice=off", 2), "none")
        with self.assertRaisesRegex(SimError, "expected one of none, job, dest, pair"):
            policy_conf("rlft+LidChoice=stripe")
        with self.assertRaisesRegex(SimError, "no qft.conf"):
            policy_conf("cons_tres+LidChoice=pair+ShapeWait=5")
        with self.assertRaisesRegex(SimError, "needs a fabric with LMC > 0"):
            policy_lid("rlft+LidChoice=pair", 0)


class TestLidSpace(unittest.TestCase):
    def test_counts_and_check(self):
        self.assertEqual(tuple_counts("3;18,18,6;1,18,6;1,1,3"), (1944, 324))
        self.assertEqual(tuple_counts("3;18,18,14;1,18,9;1,1,2"), (4536, 666))
        check_lid_space(4536, 666, 3, "x", spare=1)    # 36954 LIDs
        with self.assertRaisesRegex(SimError, "62564 LIDs, .* the largest LMC that fits is 4"):
            check_lid_space(1944, 324, 5, "PGFT(3;18,18,6;1,18,6;1,1,3)", spare=1)

    def test_unaligned_lids(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "f.json")
            with open(path, "w") as f:
                json.dump({"lmc": 0, "hosts": [{"name": "n1", "lid": 1, "index": 0},
                                               {"name": "n2", "lid": 2, "index": 1}],
                           "switches": [{}]}, f)
            fab = Fabric(path)
            fab.use_lmc(None)
            self.assertEqual(fab.lmc, 0)
            with self.assertRaisesRegex(SimError, "base LID of 1 host.s. .n1. is not a multiple "
                                        "of 2\\^1 = 2"):
                fab.use_lmc(1)


def report_jobs(slow):
    """Jobs of sizes 1, 4 and 40 on a 72-host tree (leaf 12, pod 72)."""
    out = []
    for i, (n, run, work) in enumerate([(1, 100.0, 100.0), (4, 100.0 * slow, 100.0),
                                        (40, 3600.0 * slow, 3600.0)]):
        out.append({"idx": i, "jobid": i + 1, "state": "COMPLETED", "nodelist": "n%d" % i,
                    "nodes": n, "size": n, "submit": 0.0, "start": 60.0, "end": 60.0 + run,
                    "wait": 60.0, "run_model": run, "work": work, "slowdown": run / work,
                    "comm": 0.5, "h_mean": 1.0 + 2 * (slow - 1), "hsd_alone": 1.0,
                    "hsd_alone_max": 1, "hsd_neigh": slow, "hsd_neigh_max": 2,
                    "shared_links": 3, "hsd_alone_1lid": 1.5})
    return out


class TestReportUsers(unittest.TestCase):
    def rep(self, jobs_by_policy):
        pols = {n: summarise(j, 72, {"lid": "pair" if "lid" in n else "none", "lmc": 2,
                                     "times": {}})
                for n, j in jobs_by_policy.items()}
        return {"fabric": {"describe": "PGFT(2;12,6;1,12;1,1), 72 hosts", "tuple": "2;12,6;1,12;1,1",
                           "hosts": 72, "leaf": 12, "pod": 72, "block": 12, "lmc": 2},
                "workload": {"kind": "mixed", "jobs": 3, "comm": {"spec": "comm", "mean_f": 0.5}},
                "compress": 10.0, "policies_order": list(jobs_by_policy), "policies": pols}

    def test_class_figures(self):
        c = class_figures(report_jobs(1.5), size_classes(12, 72, 72))
        self.assertEqual([x["label"] for x in c], ["1", "2-12", "13-72"])
        self.assertEqual([x["jobs"] for x in c], [1, 1, 1])
        self.assertAlmostEqual(c[2]["turnaround_mean"], 60.0 + 5400.0)
        self.assertAlmostEqual(c[2]["slowdown_mean"], 1.5)
        self.assertAlmostEqual(c[2]["node_hours_lost"], 40 * 1800.0 / 3600.0)
        self.assertAlmostEqual(c[2]["node_hours_lost_share"], 1 / 3)
        self.assertEqual(c[0]["node_hours_lost"], 0.0)

    def test_text(self):
        jobs = {"cons_tres": report_jobs(1.5), "cons_tres-lid": report_jobs(1.2)}
        txt = report.report_text(self.rep(jobs), jobs)
        self.assertIn("By job size (what users feel)", txt)
        self.assertRegex(txt, r"\n13-72 +cons_tres-lid +1 +1h13m +1.200 +8.0 \(16.7%\)\n")
        self.assertIn("LID choice at LMC 2", txt)
        self.assertIn("cons_tres-lid pair (HSD alone 1.50 on one LID, 1.00 chosen)", txt)
        self.assertNotIn("at the starts", txt)
        # what the choice met at the starts, by policy
        lid = report_jobs(1.2)
        lid[1]["lid_start"] = {"h": 1.0, "floor": 1.0, "stages": 3, "proven": 0, "undecided": 0}
        lid[2]["lid_start"] = {"h": 1.5, "floor": 1.25, "stages": 39, "proven": 10,
                               "undecided": 9}
        jobs["cons_tres-lid"] = lid
        txt = report.report_text(self.rep(jobs), jobs)
        self.assertIn("cons_tres-lid at the starts, beside the running jobs: multi-node jobs (2) "
                      "HSD 1.25, 50.0% at 1.0, proven floor 1.12 (stages proven congested "
                      "23.8%, undecided 21.4%; jobs that any offsets could start at 1.0 at most "
                      "50.0%), node-hours lost 16.7% (at the start's HSD all "
                      "along 20.8%, at the floor 10.4%)", txt)

    @unittest.skipUnless(importlib.util.find_spec("matplotlib"),
                         "no python3-matplotlib")
    def test_users_png_is_wide(self):
        jobs = {"rlft": report_jobs(1.1), "cons_tres": report_jobs(1.5),
                "cons_tres-lid": report_jobs(1.2)}
        with tempfile.TemporaryDirectory() as d:
            report.plots(self.rep(jobs), jobs, d, "test")
            for name in ("users.png", "hsd.png", "util.png", "slowdown.png"):
                with open(os.path.join(d, name), "rb") as f:
                    head = f.read(24)
                self.assertEqual(head[:8], b"\x89PNG\r\n\x1a\n", name)
                width = int.from_bytes(head[16:20], "big")
                self.assertGreaterEqual(width, 1600, name)


if __name__ == "__main__":
    unittest.main()
