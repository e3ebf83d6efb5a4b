# SPDX-License-Identifier: GPL-2.0-or-later
"""The runtime model (--comm): congestion that costs time.

Each job has a communication share f in [0, 1], the part of its run time
spent communicating when alone on a congestion-free fabric. It progresses
at rate

    rate(t) = 1 / ((1 - f) + f * H(t))

where H(t) is its hot-spot degree (the average over the pattern's stages
of the busiest link, seed 000 section VII; --pattern, Shift by default)
beside the multi-node jobs running at time t. A job's work is its trace
run time: it ends when the integral of its rate reaches it. A 1-node job
sends nothing over the fabric: H = 1, rate 1.

H from the routing core (`qft score --per-job`): for job j,

    H_j = j's job_hsd in the lock-step set {j} + S_j, S_j = the running
          multi-node jobs that share a directed link with j
          (shared_links > 0 in `qft score` of the pair): over j's own
          stages, the busiest link j's flows cross, every job's flows
          counted on it;
    H_j = avg_hsd of j alone when S_j is empty.

Exact: only jobs that share a link with j put load on j's links, so the
other running jobs cannot change H_j.

With a LID choice (the policy's `lid`, job, dest or pair on a fabric of
LMC > 0; qft score --lid), H_j is computed with the offsets: each
multi-node job chooses its offsets once, at its start, beside the
multi-node jobs running then (with the offsets they kept), and keeps them
until it ends, as a real job's table does not change while it runs
(LiveRates.prefetch asks qft score for the round's starts, in their
order, in one process; the Scorer's Keeper holds the offsets by job
name). Sharing and H_j are then scored with the kept offsets: a job
stands in a set as "NAME: HOSTS".

Incremental: a start of job k scores k against each running multi-node
job (pairs, cached), and recomputes H of k and of the jobs sharing links
with k; an end of k recomputes H of the jobs that shared links with k.
Nothing else changes. Scores are cached by host-set keys (the Scorer's
score-cache.json).

Communication shares (--comm SPEC):
  compute   every job f = 0.1
  comm      every job f = 0.5
  mixed     30% of the jobs f = 0.5, the others f = 0.1
  F         a number in [0, 1]: every job f = F
  S:F,...   share S of the jobs at f = F (the shares add up to 1), e.g.
            0.3:0.5,0.7:0.1 (= mixed)
Each class gets round(S * jobs) jobs (largest remainders), placed by a
shuffle from random.Random("comm:SEED") (--seed): the job stream's own
draws are untouched. SWF traces carry no communication figure: their jobs
get their f by the same rule, in the order of the trace.

Isolation (--isolate SHARE[:F]): SHARE of the jobs whose f is F (default
the largest f of --comm) ask `--qft-isolate` (docs/isolation.md), chosen
by a shuffle from random.Random("isolate:SEED") (isolate_jobs), so the
stream and the f of every job are those of the run without it. A job's
largest H while it ran (h_max) tells whether it was ever congested.
"""

import math
import os
import random
import threading
import time

from .common import SimError, expand_hostlist, log
from .scoring import job_line, set_order

COMM_CLASSES = {"compute": [(1.0, 0.1)], "comm": [(1.0, 0.5)],
                "mixed": [(0.3, 0.5), (0.7, 0.1)]}


def parse_comm(text):
    """--comm as [(share, f), ...], shares adding up to 1."""
    t = text.strip()
    if t in COMM_CLASSES:
        return list(COMM_CLASSES[t])
    classes = []
    try:
        if ":" not in t:
            classes = [(1.0, float(t))]
        else:
            for part in t.split(","):
                s, f = part.split(":")
                classes.append((float(s), float(f)))
    except ValueError:
        raise SimError("--comm: %s, %s, F or S:F,S:F..., not %s"
                       % (", ".join(COMM_CLASSES), "a number", text))
    for s, f in classes:
        if not 0.0 <= f <= 1.0:
            raise SimError("--comm %s: f = %g is not in [0, 1]" % (text, f))
        if not 0.0 <= s <= 1.0:
            raise SimError("--comm %s: share %g is not in [0, 1]" % (text, s))
    if abs(sum(s for s, _ in classes) - 1.0) > 1e-6:
        raise SimError("--comm %s: the shares add up to %g, not 1"
                       % (text, sum(s for s, _ in classes)))
    return classes


def comm_shares(classes, njobs, seed):
    """f of each of `njobs` jobs: round(S * njobs) jobs per class (largest
    remainders), shuffled by random.Random("comm:SEED")."""
    exact = [s * njobs for s, _ in classes]
    counts = [int(math.floor(x)) for x in exact]
    left = njobs - sum(counts)
    for i in sorted(range(len(classes)), key=lambda i: (counts[i] - exact[i], i))[:left]:
        counts[i] += 1
    fs = []
    for (_, f), n in zip(classes, counts):
        fs += [f] * n
    random.Random("comm:%d" % seed).shuffle(fs)
    return fs


def parse_isolate(text, classes):
    """--isolate SHARE[:F] as (share, f): SHARE in (0, 1] of the jobs whose
    communication share is F (default the largest F of the --comm
    classes `classes`, [(share, f), ...]) ask isolation."""
    if not classes:
        raise SimError("--isolate %s needs --comm: it picks jobs by their communication "
                       "share (for example --comm 0.3:0.5,0.7:0.1 --isolate 0.3)" % text)
    share, sep, f = text.strip().partition(":")
    try:
        share = float(share)
        f = float(f) if sep else max(x for _, x in classes)
    except ValueError:
        raise SimError("--isolate: SHARE or SHARE:F (numbers), not %s" % text)
    if not 0.0 < share <= 1.0:
        raise SimError("--isolate %s: the share %g is not in (0, 1]" % (text, share))
    if not any(abs(f - x) < 1e-9 and s > 0 for s, x in classes):
        raise SimError("--isolate %s: no job has f = %g under --comm (its shares: %s)" % (
            text, f, ", ".join("%g" % x for s, x in classes if s > 0)))
    return share, f


def isolate_jobs(comm, share, f, seed):
    """The indexes (sorted) of the jobs that ask isolation: of the jobs whose
    communication share (`comm`, one f per job) is f, round(share x their
    number) (half up; at least 1), the first of a shuffle from
    random.Random("isolate:SEED"). The stream's draws and the communication
    shares are untouched, and for one seed a smaller share picks a subset
    of a larger one's jobs."""
    cands = [i for i, x in enumerate(comm) if abs(x - f) < 1e-9]
    if not cands:
        return []
    random.Random("isolate:%d" % seed).shuffle(cands)
    n = max(1, min(len(cands), int(math.floor(share * len(cands) + 0.5))))
    return sorted(cands[:n])


def rate(f, h):
    """Progress per second of a job of communication share f at HSD h."""
    return 1.0 / ((1.0 - f) + f * h)


class RunningJob:
    """A job the model runs: its hosts, f, work, and the piecewise-linear
    progress since its last rate change (t_change, done_change, rate)."""

    __slots__ = ("key", "hosts", "nodes", "f", "work", "start", "t_change",
                 "done_change", "rate", "h", "sharers", "h_area", "h_max")

    def __init__(self, key, hosts, nodes, f, work, t):
        self.key = key
        self.hosts = hosts
        self.nodes = nodes
        self.f = f
        self.work = work
        self.start = t
        self.t_change = t
        self.done_change = 0.0
        self.rate = 1.0
        self.h = 1.0
        self.sharers = set()
        self.h_area = 0.0          # integral of H over the run
        self.h_max = 1.0           # the largest H it ran at for a while

    def done(self, t):
        return self.done_change + (t - self.t_change) * self.rate

    def end_time(self):
        """When the work is done at the current rate."""
        return self.t_change + max(0.0, self.work - self.done_change) / self.rate

    def set_rate(self, t, h):
        self.done_change = self.done(t)
        self.h_area += (t - self.t_change) * self.h
        if t > self.t_change:
            self.h_max = max(self.h_max, self.h)
        self.t_change = t
        self.h = h
        self.rate = rate(self.f, h)


class RuntimeModel:
    """The running jobs and their rates, driven by start and end events.

    `scorer` answers shares(hosts_a, hosts_b) -> bool (the two jobs cross
    a common directed link) and hsd(hosts_j, [hosts of S_j]) -> H_j. An
    update returns the jobs whose rate it set, so that only those are
    published."""

    def __init__(self, scorer):
        self.scorer = scorer
        self.running = {}

    def multi(self):
        return [j for j in self.running.values() if j.nodes > 1]

    def _refresh(self, t, jobs):
        for j in jobs:
            if j.nodes <= 1:
                h = 1.0
            else:
                # the lock-step set in the order its jobs started: the
                # sharers that started before j, then j, then the others
                order = sorted((self.running[k] for k in j.sharers),
                               key=lambda o: (o.start, str(o.key)))
                before = [o.hosts for o in order if (o.start, str(o.key)) < (j.start, str(j.key))]
                after = [o.hosts for o in order if (o.start, str(o.key)) > (j.start, str(j.key))]
                h = self.scorer.hsd(j.hosts, before, after)
            j.set_rate(t, h)

    def start(self, t, key, hosts, nodes, f, work):
        """Job `key` starts at t on `hosts` (a host list of `nodes`):
        returns the jobs whose rate was set (itself first)."""
        if key in self.running:
            return []
        job = RunningJob(key, hosts, nodes, f, work, t)
        touched = [job]
        if nodes > 1:
            for other in self.multi():
                # the older job first: with a LID choice the new one
                # chooses beside it
                if self.scorer.shares(other.hosts, hosts):
                    job.sharers.add(other.key)
                    other.sharers.add(key)
                    touched.append(other)
        self.running[key] = job
        self._refresh(t, touched)
        return touched

    def end(self, t, key):
        """Job `key` ended at t: returns it (None if unknown) and the jobs
        whose rate was set."""
        job = self.running.pop(key, None)
        if job is None:
            return None, []
        job.set_rate(t, job.h)     # closes its H integral
        touched = []
        for k in sorted(job.sharers):
            other = self.running.get(k)
            if other is not None:
                other.sharers.discard(key)
                touched.append(other)
        self._refresh(t, touched)
        return job, touched


def replay(schedule, scorer):
    """The model alone on a schedule: `schedule` lists (key, start, hosts,
    nodes, f, work), started at the given times whatever the fabric holds
    (no queue). Returns key -> (start, end, mean H). The unit tests check
    the rate arithmetic with it."""
    model = RuntimeModel(scorer)
    todo = sorted(schedule, key=lambda s: (s[1], str(s[0])))
    out = {}
    i = 0
    while i < len(todo) or model.running:
        t_start = todo[i][1] if i < len(todo) else math.inf
        first = min(model.running.values(), key=lambda j: (j.end_time(), str(j.key)),
                    default=None)
        if first is not None and first.end_time() <= t_start:
            t = first.end_time()
            job, _ = model.end(t, first.key)
            out[job.key] = (job.start, t, job.h_area / (t - job.start) if t > job.start else job.h)
            continue
        key, t, hosts, nodes, f, work = todo[i]
        model.start(t, key, hosts, nodes, f, work)
        i += 1
    return out


class CacheScorer:
    """shares() and hsd() from a qftsim.scoring.Scorer's cache, scored
    ahead in batches (prefetch_pairs, prefetch_sets): the live model calls
    `qft score` at most twice per round of events. `lid`: the policy's
    LID choice (none: one LID)."""

    def __init__(self, scorer, lid="none"):
        self.scorer = scorer
        self.lid = lid

    def shares(self, a, b):
        """Whether jobs a (started first) and b cross a common link."""
        s = self.scorer.set_score([a, b], self.lid)
        return bool(s and s[2])

    def hsd(self, hosts, before, after=()):
        """H of the job on `hosts` in lock-step with the jobs that started
        before it and after it (host lists, in the order they started)."""
        group = list(before) + [hosts] + list(after)
        s = self.scorer.set_score(group, self.lid)
        n = len(group) - 1
        if s is None or s[0] is None:
            raise SimError("no score for %s beside %d jobs" % (hosts, n))
        if len(group) == 1:
            return float(s[0])
        if len(s) < 4 or not s[3]:
            raise SimError("no per-job score for %s beside %d jobs" % (hosts, n))
        order = set_order(group, self.lid)
        return float(s[3][order.index(hosts)])

    def prefetch(self, alone, sets):
        self.scorer.score_all(alone, sets, save=False, lid=self.lid)

    def choose(self, groups):
        """New jobs choose their offsets beside the running ones (each
        group: the running jobs, then the new one), in the order given."""
        self.scorer.choose(groups, self.lid)


class Recorder:
    """A scorer for a dry run: pairs from the cache, every set asked for
    recorded (and answered 1.0)."""

    def __init__(self, cache):
        self.cache = cache
        self.sets = []
        self.alone = []

    def shares(self, a, b):
        return self.cache.shares(a, b)

    def hsd(self, hosts, before, after=()):
        if before or after:
            self.sets.append(list(before) + [hosts] + list(after))
        else:
            self.alone.append(hosts)
        return 1.0


def _dry_copy(model, scorer):
    """The model's running set and sharers, for a dry run."""
    m = RuntimeModel(scorer)
    for k, j in model.running.items():
        c = RunningJob(j.key, j.hosts, j.nodes, j.f, j.work, j.start)
        c.sharers = set(j.sharers)
        m.running[k] = c
    return m


class LiveRates(threading.Thread):
    """The model beside a front-end run. Each job's script (advance.py)
    writes DIR/NAME.start (its real start time, SLURM_JOB_NODELIST and
    SLURM_JOB_NUM_NODES) and
    DIR/NAME.done (start and end); this thread reads them every `tick` seconds, runs the
    model on them at the times they give, and writes DIR/NAME.rate ("rate
    t": the job's rate from real time t on, written atomically) for every
    job whose rate changed. `jobs` maps a job name to (f, work in real
    seconds); `extend(name, seconds)` is called when a job's projected run
    passes its time limit (not with kill_slowed)."""

    def __init__(self, directory, scorer, jobs, limits, extend, tick=0.2,
                 kill_slowed=False, lid="none", clock=None):
        super().__init__(daemon=True)
        self.dir = directory
        # the world's clock (qftsim/clock.py): stopped while a round
        # computes; None: real time, and a lagging model holds the jobs
        self.clock = clock
        self.cache = CacheScorer(scorer, lid)
        self.model = RuntimeModel(self.cache)
        self.jobs = jobs
        self.limits = limits           # name -> time limit, real seconds
        self.extend = extend
        self.tick = tick
        self.kill_slowed = kill_slowed
        self.started, self.ended = set(), set()
        self.slurm_ended = []          # names Slurm ended without a .done
        self.lock = threading.Lock()
        self.host_of = {}              # host -> running job name
        self.records = {}              # name -> start, end, mean H, f, work
        self.stop = threading.Event()
        self.error = None
        self.rounds = self.score_secs = 0.0
        self.extended = 0
        self.held = 0                  # jobs that ended late, waiting for their first rate
        self.held_secs = 0.0           # real seconds past their due ends, summed
        os.makedirs(directory, exist_ok=True)

    def run(self):
        try:
            while not self.stop.wait(self.tick):
                self.step()
            self.step()
        except Exception as e:  # reported by the poller
            self.error = e

    def read_events(self):
        """New (time, kind, name, hosts, nodes) events from the jobs'
        files: kind 0 a start, 1 an end."""
        events = []
        for entry in os.scandir(self.dir):
            name, _, ext = entry.name.partition(".")
            if ext == "start" and name not in self.started:
                with open(entry.path) as f:
                    parts = f.read().split()
                if len(parts) >= 3:
                    self.started.add(name)
                    events.append((float(parts[0]), 0, name, parts[1], int(parts[2])))
            elif ext == "done" and name not in self.ended:
                with open(entry.path) as f:
                    parts = f.read().split()
                if len(parts) >= 2:
                    self.ended.add(name)
                    events.append((float(parts[1]), 1, name, None, 0))
                    if len(parts) >= 3 and float(parts[2]) > 0:
                        self.held += 1
                        self.held_secs += float(parts[2])
        with self.lock:
            late, self.slurm_ended = self.slurm_ended, []
        now = self.clock.now() if self.clock else time.time()
        for name in late:
            if name not in self.ended and name in self.started:
                self.ended.add(name)
                events.append((now, 1, name, None, 0))
        # an end seen with its start in the same round follows it
        return self.implicit_ends(sorted(events, key=lambda e: (e[0], e[1], e[2])))

    def implicit_ends(self, events):
        """Ends the jobs whose hosts a start takes, at that start: Slurm
        gives whole nodes, so they ended, and their .done (written before
        their nodes were freed) was missed by this round's directory scan,
        or never came (a time limit, a cancel)."""
        out = []
        for ev in events:
            t, kind, name, hosts, _ = ev
            if kind == 1:
                for h in [h for h, n in self.host_of.items() if n == name]:
                    del self.host_of[h]
                out.append(ev)
                continue
            mine = expand_hostlist(hosts)
            for old in sorted({self.host_of[h] for h in mine if h in self.host_of}):
                for h in [h for h, n in self.host_of.items() if n == old]:
                    del self.host_of[h]
                self.ended.add(old)
                out.append((t, 1, old, None, 0))
            for h in mine:
                self.host_of[h] = name
            out.append(ev)
        return out

    def slurm_end(self, names):
        """Jobs Slurm lists as ended (the poller): an end now for those
        whose loop wrote no .done (time limit, cancel)."""
        with self.lock:
            self.slurm_ended += list(names)

    def member(self, name, hosts, nodes):
        """What stands for a job in the model's sets: with a LID choice a
        multi-node job is keyed by its name (its kept offsets)."""
        if self.cache.lid == "none" or nodes <= 1:
            return hosts
        return job_line(name, hosts)

    def prefetch(self, events):
        """Everything the round will ask `qft score`: with a LID choice
        first the offsets of each starting job, beside the jobs running at
        its start (in one process, in the order of the events); then the
        pairs of each starting job with every job running in the round,
        then (dry run) the sets."""
        running = {j.key: j.hosts for j in self.model.multi()}
        pairs, choices = [], []
        for _, kind, name, hosts, nodes in events:
            if kind == 1:
                running.pop(name, None)
            elif nodes > 1:
                hosts = self.member(name, hosts, nodes)
                choices.append(list(running.values()) + [hosts])
                # the older job first, as RuntimeModel.start asks
                pairs += [[b, hosts] for b in running.values()]
                running[name] = hosts
        if choices and self.cache.lid != "none":
            self.cache.choose(choices)
        if pairs:
            self.cache.prefetch([], pairs)
        rec = Recorder(self.cache)
        dry = _dry_copy(self.model, rec)
        self.apply(dry, events)
        if rec.sets or rec.alone:
            self.cache.prefetch(rec.alone, rec.sets)

    def apply(self, model, events):
        """The events through `model`: the names whose rate it set."""
        touched = {}
        for t, kind, name, hosts, nodes in events:
            if kind == 0:
                f, work = self.jobs.get(name, (0.0, 0.0))
                hosts = self.member(name, hosts, nodes)
                for j in model.start(t, name, hosts, nodes, f, work):
                    touched[j.key] = j
            else:
                job, others = model.end(t, name)
                touched.pop(name, None)
                for j in others:
                    touched[j.key] = j
                if job is not None and model is self.model:
                    self.records[name] = {"start": job.start, "end": t, "f": job.f,
                                          "h_mean": job.h_area / (t - job.start)
                                          if t > job.start else job.h,
                                          "h_max": job.h_max if t > job.start
                                          else max(job.h_max, job.h)}
        return touched

    def step(self):
        events = self.read_events()
        if not events:
            return
        t0 = time.time()
        if self.clock:
            self.clock.pause()
        try:
            self.prefetch(events)
            self.score_secs += time.time() - t0
            self.rounds += 1
            for name, j in self.apply(self.model, events).items():
                self.publish(name, j)
        finally:
            if self.clock:
                self.clock.resume()
        if not self.kill_slowed:
            self.check_limits()

    def publish(self, name, job):
        path = os.path.join(self.dir, name + ".rate")
        with open(path + ".tmp", "w") as f:
            f.write("%.6f %.6f\n" % (job.rate, job.t_change))
        os.replace(path + ".tmp", path)

    def check_limits(self):
        """Raise the limit of a job whose projected run passes it (with 15 s
        to spare): 1.5 x the projection + 10 s, as the first limit."""
        for name, j in self.model.running.items():
            limit = self.limits.get(name)
            # Slurm counts the pauses in the job's run (its clock is real)
            run = j.end_time() - j.start + (self.clock.paused_since(j.start) if self.clock else 0.0)
            if limit is not None and run + 15.0 > limit:
                new = 1.5 * run + 10.0
                if self.extend(name, new):
                    self.limits[name] = 60.0 * math.ceil(new / 60.0)
                    self.extended += 1
                else:
                    log("could not raise the time limit of %s" % name)
                    self.limits[name] = None
