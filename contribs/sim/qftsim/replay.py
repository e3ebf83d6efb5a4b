# SPDX-License-Identifier: GPL-2.0-or-later
"""One policy's run: its cluster, the job stream submitted at its
time-compressed arrival times (optionally with slurmctld SIGKILLed
half-way), polling until every job ended, and every job's final record."""

import math
import os
import re
import shlex
import shutil
import sys
import threading
import time

from .cluster import (FINAL, Cluster, JobComp, choose_record, env_dump_command,
                      first_submit, job_env, parse_slurm_time, repeat_kind, rlft_log)
from .clock import Clock
from .common import SimError, fmt_dur, log
from .runtime import LiveRates

# Minutes a job may run past its limit while the world's clock stops for
# the model (slurm.conf OverTimeLimit=): 5 real minutes, longer than any
# stop seen (a choice of 10-30 s).
OVER_TIME_MINUTES = 5
# Seconds slurmctld and its clients wait for an answer: longer than the
# world's longest stop (see start_cluster)
MESSAGE_TIMEOUT = 100


def time_limit_minutes(sleep):
    """The --time a job that sleeps `sleep` real seconds gets: 1.5 times
    that and 10 s, in whole minutes, at least one (Slurm's unit)."""
    return max(1, int(math.ceil((1.5 * sleep + 10.0) / 60.0)))


# The job's loop under the runtime model (--comm), run by the batch script.
ADVANCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "advance.py")

POLICIES = {
    "rlft": {"select": "select/rlft", "topology": "topology/qft",
             "qft_conf": [], "label": "select/rlft + topology/qft"},
    "rlft-nocong": {"select": "select/rlft", "topology": "topology/qft",
                    "qft_conf": ["RankByCongestion=no"],
                    "label": "select/rlft (RankByCongestion=no) + topology/qft"},
    "rlft-product": {"select": "select/rlft", "topology": "topology/qft",
                     "qft_conf": ["Shapes=products"],
                     "label": "select/rlft (Shapes=products) + topology/qft"},
    # products, and a job that would congest now waits for a shape due
    # within its time limit (ShapeWait=100; docs/product-shapes.md 11)
    "rlft-wait": {"select": "select/rlft", "topology": "topology/qft",
                  "qft_conf": ["Shapes=products", "ShapeWait=100"],
                  "label": "select/rlft (Shapes=products ShapeWait=100) + topology/qft"},
    # rlft-wait, and a size with no product takes the first nodes of one
    # up to 5% larger and keeps the rest idle: jobs kept off each other's
    # links (RoundUp=5 Remainder=reserve; qft.conf(5))
    "rlft-apart": {"select": "select/rlft", "topology": "topology/qft",
                   "qft_conf": ["Shapes=products", "ShapeWait=100", "RoundUp=5",
                                "Remainder=reserve"],
                   "label": "select/rlft (Shapes=products ShapeWait=100 RoundUp=5 Remainder=reserve) + topology/qft"},
    "rlft-reserve": {"select": "select/rlft", "topology": "topology/qft",
                     "qft_conf": ["Remainder=reserve"],
                     "label": "select/rlft (Remainder=reserve) + topology/qft"},
    "cons_tres": {"select": "select/cons_tres", "topology": "topology/tree",
                  "qft_conf": None, "label": "select/cons_tres + topology/tree"},
    # stock placement, with the LID choice (pair) the rlft policies get:
    # what paths add without our placement (needs --lmc > 0)
    "cons_tres-lid": {"select": "select/cons_tres", "topology": "topology/tree",
                      "qft_conf": None, "lid": "pair", "lid_needs_lmc": True,
                      "label": "select/cons_tres + topology/tree, LID choice"},
    "linear": {"select": "select/linear", "topology": "topology/tree",
               "qft_conf": None, "label": "select/linear + topology/tree"},
    # Slurm 24.11 only: stock cons_tres asks the topology plugin to choose
    # the nodes (eval_nodes), so topology/qft places by itself ...
    "cons_tres-qft": {"select": "select/cons_tres", "topology": "topology/qft",
                      "qft_conf": [], "series": "24.11",
                      "label": "select/cons_tres + topology/qft (eval_nodes)"},
    # ... and topology/block: one block per leaf switch, BlockSizes from
    # the tree (`qft topology-conf --block`)
    "block": {"select": "select/cons_tres", "topology": "topology/block",
              "qft_conf": None, "series": "24.11",
              "label": "select/cons_tres + topology/block"},
}
DEFAULT_POLICIES = "rlft,rlft-nocong,cons_tres,linear"
DEFAULT_POLICIES_2411 = "rlft,cons_tres-qft,cons_tres,block"

# The LID choice a policy's jobs are scored with when the fabric has LMC
# > 0 (`qft score --lid`): select/rlft's policies choose per pair (what
# qft.conf(5) LidChoice= exports through the verbs interposer), the stock
# ones use one LID (stock Slurm and MPI), unless POLICY+LidChoice=MODE.
LID_MODES = ("none", "job", "dest", "pair")


def default_lid(conf):
    if "lid" in conf:
        return conf["lid"]
    return "pair" if conf["select"] == "select/rlft" else "none"


def policy_conf(name):
    """The policy `name`: one of POLICIES, or POLICY+KEY=VALUE[+KEY=VALUE...],
    that policy with qft.conf lines set (a KEY it has is replaced), for a
    sweep such as rlft-wait+ShapeWait=25. +LidChoice=MODE (none, job, dest
    or pair; any policy) sets the LID choice its jobs are scored with
    instead (conf["lid"]): it is the simulator's, not a qft.conf line.
    +Isolate=no (any policy) submits the jobs --isolate chose as usual,
    nobody asking: the same stream beside the run where they ask
    (conf["isolate"]: whether the chosen jobs are submitted with
    --qft-isolate; by default under select/rlft only, which alone can
    isolate; the simulator's too). +ShapeWaitFor=F (select/rlft, with
    --comm): the jobs whose communication share is below F submit
    --qft-shape-wait=0, never waiting for a shape, and only the others
    wait as qft.conf's ShapeWait= says (conf["shape_wait_for"])."""
    base, *lines = name.split("+")
    if base not in POLICIES:
        raise SimError("unknown policy %s (one of %s, optionally +KEY=VALUE)" % (
            base, ", ".join(POLICIES)))
    conf = dict(POLICIES[base], lid=default_lid(POLICIES[base]),
                isolate=POLICIES[base]["select"] == "select/rlft")
    if not lines:
        return conf
    qft_conf = None if conf["qft_conf"] is None else list(conf["qft_conf"])
    conf_lines, lid, isolate, wait_for = [], None, None, None
    for line in lines:
        key, eq, value = line.partition("=")
        if not key or not eq or not value or not key.isalnum():
            raise SimError("policy %s: expected +KEY=VALUE (a qft.conf line), got +%s" % (
                name, line))
        if key.lower() == "isolate":
            if value.lower() not in ("yes", "no"):
                raise SimError("policy %s: Isolate=%s, expected yes or no" % (name, value))
            isolate = value.lower() == "yes"
            if isolate and conf["select"] != "select/rlft":
                raise SimError("policy %s: only select/rlft isolates jobs (%s is %s)" % (
                    name, base, conf["select"]))
            continue
        if key.lower() == "shapewaitfor":
            try:
                wait_for = float(value)
            except ValueError:
                wait_for = -1.0
            if not 0 < wait_for <= 1:
                raise SimError("policy %s: ShapeWaitFor=%s, expected a communication share "
                               "in (0, 1]" % (name, value))
            if conf["select"] != "select/rlft":
                raise SimError("policy %s: only select/rlft's jobs wait for shapes (%s is %s)"
                               % (name, base, conf["select"]))
            continue
        if key.lower() == "lidchoice":
            lid = "none" if value.lower() in ("none", "off") else value.lower()
            if lid not in LID_MODES:
                raise SimError("policy %s: LidChoice=%s, expected one of %s (stripe is not "
                               "scored beside other jobs)" % (name, value, ", ".join(LID_MODES)))
            continue
        if qft_conf is None:
            raise SimError("policy %s: %s has no qft.conf to set %s in" % (name, base, line))
        qft_conf = [l for l in qft_conf if l.partition("=")[0].lower() != key.lower()]
        qft_conf.append(line)
        conf_lines.append(line)
    label = conf["label"]
    if conf_lines:
        # the label lists the qft.conf lines in brackets: the swept ones there
        was = "(%s)" % " ".join(conf["qft_conf"])
        if conf["qft_conf"] and was in label:
            label = label.replace(was, "(%s)" % " ".join(qft_conf))
        else:
            label = "%s, %s" % (label, " ".join(conf_lines))
    if lid is not None:
        label += ", LidChoice=%s" % lid
        conf.update(lid=lid, lid_set=True)
    if isolate is not None:
        label += ", Isolate=%s" % ("yes" if isolate else "no")
        conf.update(isolate=isolate, isolate_set=True)
    if wait_for is not None:
        label += ", --qft-shape-wait=0 below f=%g" % wait_for
        conf.update(shape_wait_for=wait_for)
    return dict(conf, qft_conf=qft_conf, label=label)


def policy_lid(name, lmc):
    """The LID choice policy `name` is scored with on a fabric of LMC
    `lmc`: none (one LID) at LMC 0; SimError for a policy that asks for a
    choice there (cons_tres-lid, +LidChoice=)."""
    conf = policy_conf(name)
    if lmc:
        return conf["lid"]
    if conf["lid"] != "none" and (conf.get("lid_set") or conf.get("lid_needs_lmc")):
        raise SimError("policy %s: a LID choice (%s) needs a fabric with LMC > 0: give --lmc N"
                       % (name, conf["lid"]))
    return "none"


def node_range(size, pct):
    """sbatch -N for a job of `size` nodes: the size, or with --node-range
    PCT the range [size - PCT%, size] (at least 1), from which select/rlft
    takes the largest count that has a product shape free."""
    if not pct:
        return str(size)
    lo = max(1, int(math.floor(size * (1.0 - pct / 100.0))))
    return str(size) if lo >= size else "%d-%d" % (lo, size)


# sbatch answers that retrying will not change
PERMANENT_SBATCH = ("Requested node configuration is not available",
                    "Node count specification invalid",
                    "invalid", "Invalid")


class PolicyRun:
    """One policy: cluster, submissions, polling, collection. `sim` holds
    the options (args), out, fabric, jobs, compress, policies, harness and
    plugin_dir."""

    def __init__(self, sim, policy, number):
        self.sim = sim
        self.policy = policy
        self.number = number
        self.conf = policy_conf(policy)
        self.lid = policy_lid(policy, sim.fabric.lmc)
        self.rlft = self.conf["select"] == "select/rlft"
        # the jobs --isolate chose (every policy counts them apart), and
        # those this policy submits with --qft-isolate (select/rlft's)
        self.asks = set(getattr(sim, "isolate", None) or ())
        self.isolate_ids = self.asks if self.conf.get("isolate") else set()
        # +ShapeWaitFor=F: the jobs that never wait for a shape
        self.no_wait_ids = set()
        if self.conf.get("shape_wait_for") is not None:
            f_min = self.conf["shape_wait_for"] - 1e-9
            self.no_wait_ids = {i for i, f in enumerate(getattr(sim, "comm", None) or ())
                                if f < f_min}
        self.dir = os.path.join(sim.out, policy)
        self.env_dir = os.path.join(self.dir, "jobenv")
        self.rates_dir = os.path.join(self.dir, "rates")
        self.live = None           # the runtime model's thread (--comm)
        self.clock = None          # the world's clock, stopped while the model computes
        self.limits = {}           # job name -> time limit, real seconds
        self.cluster = Cluster(sim.harness, os.path.join(self.dir, "cluster"),
                               os.path.join(self.dir, "harness.log"), policy, cwd=self.dir)
        self.jobcomp = JobComp(os.path.join(self.dir, "jobcomp.txt"))
        self.lock = threading.Lock()
        self.jobid = {}            # idx -> Slurm job id
        self.rejected = {}         # idx -> sbatch message
        self.submit_wall = {}      # idx -> wall time of the sbatch return
        self.sbatch_retries = 0
        self.submit_done = False
        self.submit_error = None
        self.stop = threading.Event()
        self.last_submit = 0.0
        self.kill = None           # what the slurmctld kill did
        self.final = {}            # job id -> squeue's view at the end
        self.lost = {}             # job id -> reason
        self.missing_since = {}
        self.timed_out = False
        self.times = {}

    # -- cluster ----------------------------------------------------------
    def write_conf(self):
        """The files beside slurm.conf: qft.conf and the fabric for the
        rlft policies, topology.conf for the others; and plugstack.conf
        with spank/qft_lid when jobs ask --qft-isolate or --qft-shape-wait
        (sbatch learns the options from it)."""
        files = self.policy_files()
        if self.isolate_ids or self.no_wait_ids:
            sdir = os.path.join(self.dir, "spank")
            os.makedirs(sdir)
            with open(os.path.join(sdir, "plugstack.conf"), "w") as f:
                f.write("# qft-sim policy %s: --qft-isolate, --qft-shape-wait (docs/isolation.md)\n"
                        "optional %s\n" % (self.policy, self.sim.spank))
            files.append(os.path.join(sdir, "plugstack.conf"))
        return files

    def policy_files(self):
        sim = self.sim
        if self.conf["topology"] == "topology/block":
            # the harness copies files by name: topology.conf beside slurm.conf
            cdir = os.path.join(self.dir, "conf")
            os.makedirs(cdir)
            shutil.copyfile(os.path.join(sim.out, "topology-block.conf"),
                            os.path.join(cdir, "topology.conf"))
            return [os.path.join(cdir, "topology.conf")]
        if self.conf["qft_conf"] is None:
            return [os.path.join(sim.out, "topology.conf")]
        cdir = os.path.join(self.dir, "conf")
        os.makedirs(cdir)
        with open(os.path.join(cdir, "qft.conf"), "w") as f:
            f.write("# qft-sim policy %s\nFabricFile=fabric.json\n" % self.policy)
            if sim.args.pattern != "shift":
                f.write("Pattern=%s\n" % sim.args.pattern)
            for line in self.conf["qft_conf"]:
                f.write(line + "\n")
        return [os.path.join(cdir, "qft.conf"), sim.fabric.path]

    def start_cluster(self):
        sim = self.sim
        if os.path.isdir(self.dir):
            self.cluster.stop_leftover()
            shutil.rmtree(self.dir)
        os.makedirs(self.dir)
        if self.rlft:
            os.makedirs(self.env_dir)
        conf_files = self.write_conf()
        extra = ["JobCompType=jobcomp/filetxt", "JobCompLoc=%s" % self.jobcomp.path,
                 "MinJobAge=%d" % sim.args.min_job_age,
                 "MaxJobCount=%d" % max(10000, 2 * len(sim.jobs) + 100)]
        if sim.args.sched_params:
            extra.append("SchedulerParameters=%s" % sim.args.sched_params)
        if sim.comm and not sim.args.model_lags and not sim.args.kill_slowed:
            # Slurm's clock runs on while the world is stopped (qftsim/clock.py):
            # a job whose limit passes during a stop would be killed before
            # the model raises it, the stop counted (seen: 2 of 1000 jobs in
            # docs/sim.md run 29's first try). Only the kill waits; backfill
            # still plans with the limits the model keeps raising.
            extra.append("OverTimeLimit=%d" % OVER_TIME_MINUTES)
        if sim.comm and not sim.args.model_lags:
            # slurmctld's RPCs time out on real time too: a stop that outlasts
            # MessageTimeout (10 s) under a batch launch made slurmctld take
            # the launch as lost and requeue the job (NODE_FAIL; docs/sim.md
            # run 42, job 209, a 38 s launch). A 900-node choice stops the
            # world 10-60 s.
            extra.append("MessageTimeout=%d" % MESSAGE_TIMEOUT)
        extra += sim.args.extra_conf
        t0 = time.time()
        try:
            self.cluster.start(os.path.join(sim.out, "nodes"), sim.plugin_dir,
                               self.conf["topology"], self.conf["select"], conf_files, extra)
        finally:
            self.times["cluster_start"] = round(time.time() - t0, 2)

    def stop_cluster(self):
        self.cluster.stop()

    # -- submission -------------------------------------------------------
    def job_name(self, job):
        return "s%05d" % job.idx

    def work(self, job):
        """The job's run time alone on a congestion-free fabric, real
        seconds: what it sleeps without --comm."""
        return max(self.sim.args.min_sleep, job.runtime / self.sim.compress)

    def sbatch(self, job):
        sleep = self.work(job)
        limit = time_limit_minutes(sleep)
        name = self.job_name(job)
        self.limits[name] = 60.0 * limit
        # rlft jobs keep their QFT_ environment: the placement's kind
        script = env_dump_command(self.env_dir) if self.rlft else ""
        if self.live:
            # the work advances at the rate the model publishes
            script += "exec %s %.2f" % (" ".join(shlex.quote(x) for x in (
                sys.executable, ADVANCE, self.rates_dir, name)), sleep)
        else:
            script += "sleep %.2f" % sleep
        args = ["--parsable", "-N", node_range(job.size, self.sim.args.node_range),
                "-J", name, "-t", str(limit), "-o", "/dev/null"]
        if job.idx in self.isolate_ids:
            args.append("--qft-isolate")
        if job.idx in self.no_wait_ids:
            args.append("--qft-shape-wait=0")
        args += ["--wrap", script]
        deadline = self.now() + 180
        delay = 0.5
        while True:
            if self.clock:
                self.clock.running.wait(600)
            r = self.cluster.client("sbatch", *args)
            if r is not None and r.returncode == 0:
                jid = r.stdout.strip().split(";")[0]
                if jid.isdigit():
                    return int(jid), None
            msg = ((r.stderr or r.stdout).strip() if r is not None else "sbatch timed out")
            if r is not None and any(p in msg for p in PERMANENT_SBATCH):
                return None, msg
            # transient (slurmctld restarting, timeout): the job may exist
            q = self.cluster.client("squeue", "-h", "-n", name, "-o", "%i")
            if q is not None and q.returncode == 0 and q.stdout.strip():
                return int(q.stdout.split()[0]), None
            if self.now() > deadline:
                return None, "sbatch kept failing: " + msg
            self.sbatch_retries += 1
            time.sleep(delay)
            delay = min(5.0, delay * 2)

    def do_kill(self):
        """Pause the stream, wait > 5 s after the last submission (state save),
        SIGKILL slurmctld and start it again on its state."""
        t0 = time.time()
        wait = self.sim.args.kill_quiet - (t0 - self.last_submit)
        if wait > 0:
            self.stop.wait(wait)
        t1 = time.time()
        r = self.cluster.restart(kill=True)
        with open(os.path.join(self.dir, "restart.log"), "w") as f:
            f.write(r.stderr + r.stdout)
        m = re.search(r"RESTART_SECS=([\d.]+)", r.stdout)
        t2 = time.time()
        self.kill = {"before_job": None, "quiet_s": round(t1 - self.last_submit, 2),
                     "restart_s": float(m.group(1)) if m else None,
                     "pause_s": round(t2 - t0, 2), "ok": r.returncode == 0,
                     "wall": t1}
        if r.returncode != 0:
            raise SimError("policy %s: slurmctld did not come back after the kill:\n%s"
                           % (self.policy, r.stderr[-1500:]))
        return t2 - t0

    def submit_loop(self):
        try:
            sim = self.sim
            C = sim.compress
            shift = 0.0
            kill_idx = None
            if sim.args.kill_ctld_at is not None:
                kill_idx = min(len(sim.jobs) - 1,
                               max(1, int(math.ceil(sim.args.kill_ctld_at * len(sim.jobs)))))
            for job in sim.jobs:
                target = self.t_start + shift + job.arrival / C
                if self.clock:
                    if not self.clock.wait_until(target, self.stop):
                        return
                else:
                    now = time.time()
                    if target > now and self.stop.wait(target - now):
                        return
                if job.idx == kill_idx and self.kill is None:
                    log("%s: killing slurmctld before job %d of %d (SIGKILL, harness restart --kill)"
                        % (self.policy, job.idx + 1, len(sim.jobs)))
                    pause = self.do_kill()
                    self.kill["before_job"] = job.idx
                    shift += pause
                    log("%s: slurmctld back after %.1f s (quiet %.1f s before the kill); "
                        "the rest of the stream is shifted by %.1f s"
                        % (self.policy, self.kill["restart_s"] or -1,
                           self.kill["quiet_s"], pause))
                jid, err = self.sbatch(job)
                with self.lock:
                    if jid is None:
                        self.rejected[job.idx] = err
                    else:
                        self.jobid[job.idx] = jid
                        self.submit_wall[job.idx] = time.time()
                    self.last_submit = time.time()
        except Exception as e:  # reported by the poller
            self.submit_error = e
        finally:
            self.submit_done = True

    # -- polling ----------------------------------------------------------
    def snapshot(self):
        """Every job slurmctld still knows (MinJobAge keeps them all), with
        its full node list."""
        snap = self.cluster.snapshot()
        if snap is None:
            log("%s: squeue for the final snapshot failed" % self.policy)
            return
        self.final.update(snap)

    def now(self):
        """Now on the world's clock (real time without --comm)."""
        return self.clock.now() if self.clock else time.time()

    def virtual(self, wall):
        return self.clock.virtual(wall) if self.clock else wall

    def check_lost(self, queue):
        """A submitted job that neither squeue nor jobcomp knows for 20 s and
        that scontrol calls invalid is lost."""
        now = self.now()
        with self.lock:
            ids = list(self.jobid.values())
        for jid in ids:
            if jid in self.jobcomp.records or jid in queue or jid in self.lost:
                self.missing_since.pop(jid, None)
                continue
            first = self.missing_since.setdefault(jid, now)
            if now - first < 20:
                continue
            r = self.cluster.client("scontrol", "-o", "show", "job", str(jid))
            if r is not None and "Invalid job id" in (r.stderr + r.stdout):
                self.lost[jid] = "unknown to slurmctld and not in jobcomp"
                log("%s: job %d is LOST (unknown to slurmctld, no jobcomp record)"
                    % (self.policy, jid))

    # Jobs back in PENDING after they ran: slurmctld requeues a job whose
    # launch failed (no policy here preempts or requeues); a launch cut by
    # --kill-ctld-at may be one, ten mean none can run (see the cluster's
    # slurmd log).
    REQUEUED_MAX = 10

    def check_requeued(self, queue):
        for jid, (state, _) in queue.items():
            if state == "PENDING":
                if jid in self.ran:
                    self.requeued.add(jid)
            elif state not in FINAL:
                self.ran.add(jid)
        if len(self.requeued) >= self.REQUEUED_MAX:
            raise SimError("policy %s: %d jobs went back to PENDING after they started: "
                           "their launch failed (see %s)"
                           % (self.policy, len(self.requeued),
                              os.path.join(self.cluster.work, "log")))

    def progress(self, queue, force=False):
        now = self.now()
        tty = sys.stderr.isatty()
        every = 2.0 if tty else self.sim.args.progress_every
        if not force and now - self.last_progress < every:
            return
        self.last_progress = now
        sim = self.sim
        with self.lock:
            nsub = len(self.jobid) + len(self.rejected)
        pend = sum(1 for s, _ in queue.values() if s == "PENDING")
        runq = [(s, n) for s, n in queue.values() if s in ("RUNNING", "COMPLETING", "CONFIGURING")]
        busy = sum(n for _, n in runq)
        done = sum(1 for s, _ in queue.values() if s in FINAL)
        line = ("[%s %d/%d] %s real, sim %s: submitted %d/%d, pending %d, running %d, "
                "done %d, busy %d/%d nodes (%.0f%%)" % (
                    self.policy, self.number, len(sim.policies),
                    fmt_dur(now - self.t_start), fmt_dur((now - self.t_start) * sim.compress),
                    nsub, len(sim.jobs), pend, len(runq), done, busy, sim.fabric.hosts,
                    100.0 * busy / sim.fabric.hosts))
        if tty:
            sys.stderr.write("\r\033[K" + line)
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def finished(self, queue):
        if not self.submit_done:
            return False
        with self.lock:
            ids = list(self.jobid.values())
        if any(j not in self.jobcomp.records and j not in self.lost and
               queue.get(j, ("", 0))[0] not in FINAL for j in ids):
            return False
        return not any(s not in FINAL for s, _ in queue.values())

    def cancel_rest(self, queue, timeout, submitter):
        self.timed_out = True
        log("%s: not done after %.0f s: cancelling what is left" % (self.policy, timeout))
        self.stop.set()
        submitter.join(60)
        left = [str(j) for j, (s, _) in queue.items() if s not in FINAL]
        if left:
            self.cluster.client("scancel", *left)
        end = time.time() + 60
        while time.time() < end:
            time.sleep(1)
            self.jobcomp.read()
            q = self.cluster.queue()
            if q is not None and not any(s not in FINAL for s, _ in q.values()):
                break
        self.jobcomp.read()

    def extend_limit(self, name, seconds):
        """scontrol raises job `name`'s time limit to `seconds` (whole
        minutes); false when it cannot."""
        with self.lock:
            jid = {self.job_name(j): self.jobid.get(j.idx) for j in self.sim.jobs}.get(name)
        if jid is None:
            return False
        r = self.cluster.client("scontrol", "update", "JobId=%d" % jid,
                                "TimeLimit=%d" % max(1, int(math.ceil(seconds / 60.0))))
        return r is not None and r.returncode == 0

    def start_model(self):
        """The runtime model's thread (--comm), before the first job."""
        sim = self.sim
        jobs = {self.job_name(j): (sim.comm[j.idx], self.work(j)) for j in sim.jobs}
        os.makedirs(self.rates_dir, exist_ok=True)
        # with --kill-slowed the stops would eat the jobs' limits: no clock
        if not sim.args.model_lags and not sim.args.kill_slowed:
            self.clock = Clock(os.path.join(self.rates_dir, "clock"),
                               os.path.join(self.cluster.work, "run", "slurmctld.slurmpid"))
        self.live = LiveRates(self.rates_dir, sim.scorer, jobs, self.limits,
                              self.extend_limit, tick=sim.args.rate_tick,
                              kill_slowed=sim.args.kill_slowed, lid=self.lid,
                              clock=self.clock)
        self.live.start()

    def stop_model(self):
        if self.live is None:
            return
        self.live.stop.set()
        self.live.join(60)
        if self.clock:
            self.clock.close()
        self.sim.scorer.save()
        if self.live.error:
            raise SimError("policy %s: the runtime model failed: %s"
                           % (self.policy, self.live.error))
        self.times["model_scoring"] = round(self.live.score_secs, 1)
        log("%s: runtime model: %d rounds, %.1f s scoring, %d limits raised, %d jobs held "
            "%.1f real s past their ends for their first rate"
            % (self.policy, self.live.rounds, self.live.score_secs, self.live.extended,
               self.live.held, self.live.held_secs))

    def ended_early(self, queue):
        """Names of the jobs Slurm ended other than by their loop's end
        (time limit, cancel, failure): they write no .done."""
        with self.lock:
            name = {jid: "s%05d" % idx for idx, jid in self.jobid.items()}
        return [name[j] for j, (st, _) in queue.items()
                if st in FINAL and st != "COMPLETED" and j in name]

    def simulate(self):
        sim = self.sim
        if sim.comm:
            self.start_model()
        self.t_start = time.time()
        self.t0 = math.floor(self.t_start)
        self.last_progress = 0.0
        self.ran, self.requeued = set(), set()
        self.last_submit = self.t_start
        planned = sim.jobs[-1].arrival / sim.compress
        longest = max(max(sim.args.min_sleep, j.runtime / sim.compress) for j in sim.jobs)
        timeout = sim.args.timeout or (3 * planned + 20 * longest + 300)
        deadline = self.t_start + timeout  # on the world's clock
        th = threading.Thread(target=self.submit_loop, daemon=True)
        th.start()
        queue = {}
        try:
            while True:
                time.sleep(sim.args.poll)
                if self.clock and not self.clock.running.is_set():
                    # slurmctld is stopped: nothing to see, unless the
                    # model's round hangs (the world's deadline never comes)
                    hung = self.clock.paused_for()
                    if hung > timeout:
                        self.clock.close()  # slurmctld continues, to be torn down
                        raise SimError("policy %s: one round of the runtime model has run "
                                       "%.0f real s, more than the policy's timeout (%.0f s, "
                                       "--timeout); the world was stopped for it"
                                       % (self.policy, hung, timeout))
                    continue
                if self.submit_error:
                    raise self.submit_error
                if self.live and self.live.error:
                    raise SimError("policy %s: the runtime model failed: %s"
                                   % (self.policy, self.live.error))
                q = self.cluster.queue()
                self.jobcomp.read()
                if q is not None:
                    queue = q
                    self.check_lost(queue)
                    self.check_requeued(queue)
                    if self.live:
                        self.live.slurm_end(self.ended_early(queue))
                self.progress(queue)
                if q is not None and self.finished(queue):
                    break
                if self.now() > deadline:
                    self.cancel_rest(queue, timeout, th)
                    break
        finally:
            self.stop.set()
            if self.live:
                self.live.stop.set()
            th.join(5)
            self.progress(queue, force=True)
            if sys.stderr.isatty():
                sys.stderr.write("\n")
        self.times["run"] = round(time.time() - self.t_start, 1)
        self.stop_model()

    # -- collection -------------------------------------------------------
    def rlft_record(self, jid, logged):
        """select/rlft's log line for the job, with the kind of placement
        its environment names (QFT_PLACEMENT_KIND) and how long it waited
        for a shape (QFT_SHAPE_WAITED, ShapeWait=; simulated seconds)."""
        rec = dict(logged)
        env = job_env(self.env_dir, jid)
        if env.get("QFT_PLACEMENT_KIND"):
            rec["kind"] = env["QFT_PLACEMENT_KIND"]
        try:
            rec["shape_waited"] = float(env["QFT_SHAPE_WAITED"]) * self.sim.compress
        except (KeyError, ValueError):
            pass
        return rec

    def collect(self):
        """Every job of the stream with its final record (see choose_record)."""
        C = self.sim.compress
        rl = rlft_log(self.cluster.ctld_log()) if self.rlft else {}
        jobs = []
        dup = requeued = truncated = 0
        self.jobcomp.flush()
        for job in self.sim.jobs:
            d = {"idx": job.idx, "name": self.job_name(job), "size": job.size,
                 "arrival": round(job.arrival, 1), "runtime": round(job.runtime, 1)}
            if self.sim_isolates():
                # asked: chosen by --isolate, whether this policy submits
                # it with --qft-isolate (submitted) or as usual
                d["isolate_asked"] = job.idx in self.asks
                d["isolate_submitted"] = job.idx in self.isolate_ids
            if job.idx in self.rejected:
                d.update(state="REJECTED", reason=self.rejected[job.idx])
                jobs.append(d)
                continue
            jid = self.jobid.get(job.idx)
            if jid is None:
                d.update(state="NOT_SUBMITTED")
                jobs.append(d)
                continue
            d["jobid"] = jid
            recs = self.jobcomp.records.get(jid, [])
            snap = self.final.get(jid)
            kind = repeat_kind(recs)
            if kind:
                requeued += kind == "requeued"
                dup += kind == "ended_again"
                d["all_records"] = ["%s %s-%s" % (r.get("JobState"), r.get("StartTime"),
                                                  r.get("EndTime")) for r in recs]
            if recs:
                # the jobcomp record decides state, start and end; squeue's
                # snapshot gives the full node list and the submit time
                rec = choose_record(recs)
                if rec.get("_truncated"):
                    d["jobcomp_truncated"] = True
                    truncated += 1
                state = rec.get("JobState") or (snap or {}).get("state", "UNKNOWN")
                st, en = parse_slurm_time(rec.get("StartTime")), parse_slurm_time(rec.get("EndTime"))
                sub = first_submit(recs, snap["submit"] if snap else None)
                if snap:
                    nodelist, nodes = snap["nodelist"], snap["nodes"]
                else:
                    nodelist = "" if rec.get("_truncated") else rec.get("NodeList") or ""
                    nodes = int(rec["NodeCnt"]) if rec.get("NodeCnt", "").isdigit() else 0
            elif snap and snap["state"] in FINAL:
                d["no_jobcomp_record"] = True
                state, sub, st, en = snap["state"], snap["submit"], snap["start"], snap["end"]
                nodelist, nodes = snap["nodelist"], snap["nodes"]
            else:
                d["state"] = "LOST" if jid in self.lost else "UNKNOWN"
                jobs.append(d)
                continue
            if nodelist in ("(null)", "None"):
                nodelist = ""
            d["state"], d["nodelist"], d["nodes"] = state, nodelist, nodes
            for key, v in (("submit", sub), ("start", st), ("end", en)):
                d[key + "_wall"] = v
                # simulated time: the world's clock, from the first second
                d[key] = None if v is None else round((self.virtual(v) - self.t0) * C, 1)
            if not d["nodelist"]:
                # never started (cancelled while pending): no run, no wait
                d["start"] = d["end"] = d["start_wall"] = d["end_wall"] = None
            elif sub is not None and st is not None:
                d["wait"] = round(max(0.0, self.virtual(st) - self.virtual(sub)) * C, 1)
            if jid in rl:
                d["rlft"] = self.rlft_record(jid, rl[jid])
            if self.sim_isolates():
                # select/rlft put it apart: QFT_ISOLATED=1 in its environment
                d["isolated"] = self.rlft and bool(d["nodelist"]) and \
                    job_env(self.env_dir, jid).get("QFT_ISOLATED") == "1"
            if self.live:
                self.model_record(job, d)
            jobs.append(d)
        self.duplicates = dup
        self.requeued = requeued
        self.truncated = truncated
        return jobs

    def model_record(self, job, d):
        """The runtime model's figures of a job: f, its work (run time
        alone on a congestion-free fabric), and from its loop's own clock
        (sub-second, unlike Slurm's stamps) its run time, slowdown and
        mean H. A job that held its nodes past its due end for its first
        rate (advance.py: the model lagged) runs what its rates give: the
        hold is kept apart (held), as the model's lag, not congestion."""
        C = self.sim.compress
        name = self.job_name(job)
        d["comm"] = self.sim.comm[job.idx]
        d["work"] = round(self.work(job) * C, 1)
        try:
            with open(os.path.join(self.rates_dir, name + ".done")) as f:
                parts = [float(x) for x in f.read().split()[:3]]
            st, en = parts[:2]
        except (OSError, ValueError):
            return
        held = min(parts[2], en - st) if len(parts) > 2 else 0.0
        d["held"] = round(held * C, 1)
        d["run_model"] = round((en - st - held) * C, 1)
        d["slowdown"] = round((en - st - held) / self.work(job), 4)
        rec = self.live.records.get(name)
        if rec:
            d["h_mean"] = round(rec["h_mean"], 4)
            d["h_max"] = round(rec["h_max"], 4)

    def sim_isolates(self):
        """Whether the run has --isolate (its jobs carry the isolation
        fields, in every policy)."""
        return getattr(self.sim, "isolate", None) is not None

    def run_info(self):
        """What the report keeps of the run besides the jobs."""
        return {"times": self.times, "kill": self.kill, "timed_out": self.timed_out,
                "duplicate_records": self.duplicates, "requeued": self.requeued,
                "sbatch_retries": self.sbatch_retries,
                "jobcomp_truncated": self.truncated, "label": self.conf["label"],
                "lid": self.lid, "lmc": self.sim.fabric.lmc,
                "model": None if self.live is None else {
                    "rounds": self.live.rounds, "score_secs": round(self.live.score_secs, 1),
                    "limits_raised": self.live.extended, "held": self.live.held,
                    "held_secs": round(self.live.held_secs, 1),
                    "paused": self.clock.count if self.clock else None,
                    "paused_secs": round(self.clock.total, 1) if self.clock else None,
                    "paused_max": self.clock.longest() if self.clock else None}}
