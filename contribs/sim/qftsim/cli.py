# SPDX-License-Identifier: GPL-2.0-or-later
"""qft-sim: replay one workload through a real slurmctld (front-end mode)
under several placement policies and compare congestion, utilisation and
waiting.

For each policy, on the same fabric and the same arrival stream, it starts a
private front-end cluster (contribs/slurm/harness.sh), submits the jobs with
sbatch at their time-compressed arrival times (`--wrap "sleep X"`, X the
run time divided by the compression factor), polls squeue while they run,
collects every job's allocation, start and end (jobcomp/filetxt), stops the
cluster, and scores each placement with the routing core (`qft score`):
alone, and together with the jobs running beside it when it started.

Policies (--policies, default all four):
  rlft         select/rlft + topology/qft                 (qft.conf: FabricFile)
  rlft-nocong  select/rlft + topology/qft, RankByCongestion=no
  cons_tres    select/cons_tres + topology/tree (topology.conf from
               `qft topology-conf`)
  linear       select/linear + topology/tree (the same topology.conf)
and, on request, cons_tres-lid: cons_tres with the LID choice of the rlft
policies (--lmc > 0, below), rlft-reserve: select/rlft with
Remainder=reserve, and rlft-product: select/rlft with Shapes=products (product shapes first), and
rlft-wait: the same with ShapeWait=100 (a job that would congest now waits
for a congestion-free shape due within its time limit), and rlft-apart:
rlft-wait with RoundUp=5 Remainder=reserve (a size with no product takes
the first nodes of one up to 5% larger and keeps the rest idle: jobs kept
off each other's links).
With --series 24.11 (Slurm 24.11, Debian 13; the default policies are
rlft, cons_tres-qft, cons_tres, block):
  cons_tres-qft  select/cons_tres + topology/qft: Slurm asks the topology
                 plugin to choose the nodes, and topology/qft places as
                 select/rlft does
  block          select/cons_tres + topology/block: a block per leaf switch,
                 BlockSizes from the tree (`qft topology-conf --block`)

Synthetic workloads (--synthetic KIND; N = hosts with a Slurm name,
L = hosts per leaf switch (m_1 of the tuple), P = m_1*m_2 hosts per
level-2 subtree of the PGFT (with --qft too, so that the QFT and the
PGFT of one tuple get the same job stream); every random draw comes from
one generator seeded with --seed, in a fixed order: sizes, run times,
then inter-arrival gaps):
  normal300  sizes round(Normal(300, 20)) clipped to [2, N] (seed 002,
             slide 12: 12 jobs of Normal(300,20) on a 4536-host tree);
             run times LogUniform(600 s, 3600 s); default 12 jobs
  mixed      small (p=0.50): uniform integer in [1, L];
             medium (p=0.35): log-uniform integer in (L, M],
               M = max(2L, min(P, N/8));
             large (p=0.15): log-uniform integer in (M, N/2];
             run times LogUniform(300 s, 3600 s); default 250 jobs
  uniform    sizes uniform integer in [1, N/4]; run times LogUniform(300 s,
             3600 s)
  pow2       sizes 2^k, k uniform integer in [0, log2(N/4)]; run times
             LogUniform(300 s, 3600 s)
Arrivals are Poisson: gaps Exponential with rate
lambda = LOAD * N / mean(size * runtime) over the generated jobs, so the
offered load is LOAD (--load, default 0.9) of the N hosts; the first job
arrives at 0.

SWF (--swf FILE): the Standard Workload Format of the Parallel Workloads
Archive, one job per line, 18 blank-separated fields, ';' comments:
   1 job number          2 submit time (s)      3 wait time (s)
   4 run time (s)        5 allocated processors 6 average CPU time
   7 used memory         8 requested processors 9 requested time (s)
  10 requested memory   11 status (1 completed, 0 failed, 5 cancelled)
  12 user  13 group  14 executable  15 queue  16 partition
  17 preceding job      18 think time;  -1 means unknown.
Used: submit time (2), run time (4), processors (8, or 5 when 8 is -1),
requested time (9, for the time limit). Size in nodes =
ceil(processors / --swf-procs-per-node) (default: MaxProcs/MaxNodes of the
header, else 1). Jobs without a positive run time or size are skipped, jobs
larger than N are dropped (or clipped with --swf-oversize clip); all are
counted. Arrivals are shifted to start at 0; --load rescales the gaps to an
offered load.

Time compression (--compress C, or auto): a job arriving at simulated time
t is submitted t/C seconds after the start, and sleeps runtime/C seconds
(at least --min-sleep). Slurm stamps times in whole seconds, so times are
measured to about C simulated seconds; all reported times are simulated
(real x C). Slurm's time limits are whole minutes: each job gets
ceil((1.5 * sleep + 10) / 60) minutes, so backfill plans with coarse limits.

LID choice (--lmc N; docs/lid-choice.md): the fabric gets LMC N (qft gen
--lmc N; a --fabric or --ibnetdiscover fabric must have base LIDs that are
multiples of 2^N; default its own LMC), every host 2^N LIDs, and (hosts + 1)
x 2^N + switches must fit the 49151 unicast LIDs. Each policy's jobs are
then scored with its LID choice (qft score --lid): the rlft policies choose
per pair (pair), cons_tres, linear, block and cons_tres-qft use one LID
(none, as stock Slurm and MPI), cons_tres-lid chooses per pair;
POLICY+LidChoice=none|job|dest|pair sets it (rlft+LidChoice=dest). Each
job chooses its offsets once, at its start, beside the jobs running then
(with the offsets they kept), and keeps them (OUT/POLICY/lid-kept.txt).

Runtime model (--comm SPEC; qftsim/runtime.py): each job gets a
communication share f (compute: f = 0.1; comm: 0.5; mixed: 30% at 0.5, the
rest at 0.1; F: every job at F; S:F,S:F...: share S of the jobs at F,
shares adding up to 1; drawn from --seed, SWF jobs alike) and progresses at
rate 1 / ((1 - f) + f H(t)), H(t) its --pattern HSD beside the multi-node
jobs running at t that share a link with it (qft score, lock-step set of
the job and those neighbours; alone when there are none; 1-node jobs
H = 1). Its batch script runs qftsim/advance.py instead of sleep: the
work (the sleep above) advances at the rate the simulator publishes in
OUT/POLICY/rates/NAME.rate as jobs start and end. Time limits are raised
(scontrol) when a slowed job's projected run passes them, unless
--kill-slowed.

Isolation (--isolate SHARE[:F], with --comm; docs/isolation.md): SHARE of
the jobs whose communication share is F (default the largest F of --comm),
round(SHARE x their number), at least 1, ask isolation; chosen by a shuffle
from random.Random("isolate:SEED"), so the stream and every f are those of
the run without --isolate, and a smaller SHARE picks a subset of a larger
one's jobs (OUT/workload.json "isolate": their indexes). Under the
select/rlft policies they are submitted with sbatch --qft-isolate (the
cluster gets a plugstack.conf with spank/qft_lid of the build); under the
others (cons_tres, linear, block, cons_tres-lid, ...), which cannot isolate,
and under POLICY+Isolate=no (rlft+Isolate=no: the same stream, nobody
asking) as usual, but counted apart all the same. The report gives, for
the jobs that ask and for the others, the count, mean wait, turnaround,
slowdown and H, and for those that ask how many ran with QFT_ISOLATED=1
and how many at H > 1 at some time.

Report (OUT/report.txt, OUT/report.json, OUT/users.png, OUT/hsd.png,
OUT/util.png): per
policy jobs, utilisation (node-seconds used / (N * makespan)), mean and 95th
percentile wait, makespan (first submission to last end), share of jobs
with HSD 1.0 alone, mean and max HSD alone and with neighbours (the
lock-step score of every multi-node job running at the job's start,
itself included), and links shared between jobs in that set. HSD figures
count multi-node jobs only (a 1-node job sends nothing over the fabric).
A second table: mean and 95th percentile turnaround (end - submit),
throughput (completed jobs per simulated hour of makespan), and with
--comm the mean slowdown (run time / run time alone on a congestion-free
fabric, from the job's own clock) and the share of node-hours lost to
congestion (sum of nodes x (run - alone) / sum of nodes x run);
OUT/slowdown.png plots the mean slowdown per job size class. By job size
class, what users feel: mean turnaround and, with --comm, mean slowdown
and node-hours lost to congestion (a table, and OUT/users.png).
Placements are scored by `qft score --batch`, a few processes per policy.
The plots need python3-matplotlib: contribs/scripts/deps.sh installs it
(demo.sh and contribs/check.sh run it); without it qft-sim stops before
any cluster starts, unless --no-plots. qft-sim itself installs nothing.

Exit status: 0 done; 1 bad input, a missing package or a cluster that
does not start; 3 a
policy lost a job (submitted != completed + failed + cancelled).
"""

import argparse
import json
import math
import os
import shutil
import signal
import sys
import time

from . import report, workload
from .cluster import HARNESS
from .common import REPO, SimError, fmt_dur, log, mean
from .fabric import prepare_fabric
from .metrics import RUN_KEYS, summarise
from .replay import (DEFAULT_POLICIES, DEFAULT_POLICIES_2411, POLICIES, PolicyRun, policy_conf,
                     policy_lid)
from .runtime import comm_shares, isolate_jobs, parse_comm, parse_isolate
from .scoring import Keeper, Scorer, score_policy


SERIES = ("22.05", "24.11")


class Sim:
    """What the modules share about one run: args, out, policies, fabric,
    jobs, compress, qft, harness, plugin_dir."""


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="qft-sim", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n")[0],
        epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    g = p.add_argument_group("fabric (one of)")
    g.add_argument("--pgft", metavar="TUPLE", help="generate PGFT(h;m..;w..;p..) with qft gen")
    g.add_argument("--qft", metavar="TUPLE",
                   help="generate the QFT of PGFT(h;m..;w..;p..) with qft gen qft (seed 002)")
    g.add_argument("--fabric", metavar="FILE", help="a slurm-qft fabric JSON file")
    g.add_argument("--ibnetdiscover", metavar="FILE", help="ibnetdiscover output (qft import)")
    g.add_argument("--names", metavar="REGEX", help="host names from node descriptions (import)")
    g.add_argument("--lmc", type=int, metavar="N",
                   help="the fabric's LMC, 0..7: 2^N LIDs per host, and each policy's LID "
                   "choice counted (generated fabrics: qft gen --lmc N; default the fabric's "
                   "own, 0 for --pgft and --qft)")
    g = p.add_argument_group("workload (one of)")
    g.add_argument("--synthetic", metavar="KIND", help="one of: " + ", ".join(workload.KINDS))
    g.add_argument("--swf", metavar="FILE", help="Standard Workload Format trace")
    g.add_argument("--jobs", type=int, help="number of jobs (synthetic: default per kind; "
                   "SWF: the first N after --swf-skip)")
    g.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    g.add_argument("--load", type=float, help="offered load (synthetic default 0.9; SWF: "
                   "rescale the arrival gaps to it)")
    g.add_argument("--swf-skip", type=int, default=0, help="skip the first N SWF jobs")
    g.add_argument("--swf-procs-per-node", type=int, help="processors per node (default "
                   "from the header's MaxProcs/MaxNodes, else 1)")
    g.add_argument("--swf-oversize", choices=("drop", "clip"), default="drop",
                   help="jobs larger than the fabric (default drop)")
    g = p.add_argument_group("runtime model")
    g.add_argument("--comm", metavar="SPEC",
                   help="jobs slowed by congestion: compute, mixed, comm, F or S:F,S:F,... "
                   "(communication shares; default: off, jobs sleep their run time)")
    g.add_argument("--isolate", metavar="SHARE[:F]",
                   help="SHARE in (0,1] of the jobs of communication share F (default the "
                   "largest F of --comm) ask isolation: sbatch --qft-isolate under the "
                   "select/rlft policies (spank/qft_lid in plugstack.conf), as usual under "
                   "the others and under POLICY+Isolate=no; the report shows them and the "
                   "other jobs apart (needs --comm)")
    g.add_argument("--kill-slowed", action="store_true",
                   help="keep the time limits of the trace run times: slowed jobs may time out")
    g.add_argument("--model-lags", action="store_true",
                   help="do not stop the world while the model computes (slurmctld "
                   "SIGSTOPped, the jobs' loops and the stream waiting): the jobs whose "
                   "rate is late hold their nodes, as before stop 45 (docs/sim.md); implied by "
                   "--kill-slowed")
    g.add_argument("--rate-tick", type=float, default=0.2,
                   help="seconds between the model's looks at job starts and ends (default 0.2)")
    g = p.add_argument_group("time")
    g.add_argument("--compress", default="auto", help="time compression factor C, or auto "
                   "(default): the arrivals plus a median run time span --real-span seconds")
    g.add_argument("--real-span", type=float, default=120.0,
                   help="auto compression target, real seconds (default 120)")
    g.add_argument("--min-sleep", type=float, default=1.0,
                   help="shortest real sleep of a job (default 1.0 s)")
    g = p.add_argument_group("run")
    g.add_argument("--policies",
                   help="comma-separated, from %s (default %s; on 24.11 %s); "
                   "POLICY+KEY=VALUE[+KEY=VALUE] sets qft.conf lines of an rlft policy "
                   "(rlft-wait+ShapeWait=25), +LidChoice=none|job|dest|pair the LID "
                   "choice any policy is scored with at --lmc > 0, +Isolate=no "
                   "submits the jobs --isolate chose as usual (rlft+Isolate=no), and "
                   "+ShapeWaitFor=F submits the jobs of communication share below F with "
                   "--qft-shape-wait=0 (rlft+ShapeWait=25+ShapeWaitFor=0.5)" % (
                       ", ".join(POLICIES), DEFAULT_POLICIES, DEFAULT_POLICIES_2411))
    g.add_argument("--series", choices=SERIES,
                   default=os.environ.get("QFT_SLURM_SERIES") or "22.05",
                   help="Slurm the clusters run: 22.05 (Debian 12) or 24.11 (Debian 13; "
                   "built by contribs/slurm for the harness); default $QFT_SLURM_SERIES, "
                   "else 22.05")
    g.add_argument("--out", "-o", default=os.path.join(REPO, "build", "sim"),
                   help="output directory (default build/sim)")
    g.add_argument("--build", help="slurm-qft build dir for the series (default "
                   "build/release, else build/dev; on 24.11 build/release-24.11)")
    g.add_argument("--harness", default=HARNESS,
                   help="the cluster harness (default contribs/slurm/harness.sh)")
    g.add_argument("--kill-ctld-at", type=float, metavar="FRACTION",
                   help="SIGKILL slurmctld once the stream reaches FRACTION of its jobs "
                   "(submissions pause --kill-quiet s first), restart it, go on")
    g.add_argument("--kill-quiet", type=float, default=6.0,
                   help="seconds without a submission before the kill (default 6; "
                   "slurmctld saves job state at most every 5 s)")
    g.add_argument("--poll", type=float, default=1.0, help="squeue polling interval (s)")
    g.add_argument("--progress-every", type=float, default=10.0,
                   help="seconds between progress lines when stderr is not a terminal")
    g.add_argument("--timeout", type=float, help="real seconds per policy before the rest "
                   "is cancelled (default 3 x the stream + 20 x the longest job + 300)")
    g.add_argument("--sched-params", default="batch_sched_delay=0,bf_interval=2",
                   help="SchedulerParameters (default batch_sched_delay=0,bf_interval=2: "
                   "schedule at most ~1 s after a submission or an end)")
    g.add_argument("--min-job-age", type=int, default=86400,
                   help="MinJobAge (default 86400: every job stays in squeue until the "
                   "end, for the final snapshot of node lists)")
    g.add_argument("--node-range", type=float, default=0.0, metavar="PCT",
                   help="submit each job of N nodes as -N lo-N, lo = N - PCT%% (default 0: -N N)")
    g.add_argument("--extra-conf", action="append", default=[], metavar="LINE",
                   help="extra slurm.conf line (repeatable)")
    g = p.add_argument_group("scoring and report")
    g.add_argument("--pattern", default="shift", help="collective scored (default shift)")
    g.add_argument("--score-workers", type=int, default=2,
                   help="parallel qft score processes, each scoring a batch (default 2)")
    g.add_argument("--lid-threads", type=int, default=1, metavar="N",
                   help="threads of each per-pair LID choice (qft score --lid-threads, "
                   "select/rlft's LidThreads=; default 1): fewer real seconds per choice, so "
                   "the runtime model lags less at a high compression")
    g.add_argument("--no-plots", action="store_true", help="no PNGs")
    g.add_argument("--no-install", action="store_true",
                   help="kept for old command lines: qft-sim never installs packages "
                   "(contribs/scripts/deps.sh python3-matplotlib does)")
    g.add_argument("--title", help="plot title (default: fabric and workload)")
    g.add_argument("--workload-only", action="store_true",
                   help="write the fabric and workload (workload.json, workload.swf), print "
                   "the stream's figures and exit")
    g.add_argument("--report-only", action="store_true",
                   help="rebuild the report from OUT/*/jobs.json (no cluster)")
    return p.parse_args(argv)


def find_build(args):
    if args.build:
        cands = [args.build]
    elif os.environ.get("QFT_BUILD"):
        cands = [os.environ["QFT_BUILD"]]
    elif args.series == "24.11":
        cands = [os.path.join(REPO, "build", "release-24.11")]
    else:
        cands = [os.path.join(REPO, "build", "release"), os.path.join(REPO, "build", "dev")]
    for b in cands:
        qft = os.path.join(b, "contribs", "qft", "qft")
        plugs = [os.path.join(b, "src", "plugins", "select", "rlft", "select_rlft.so"),
                 os.path.join(b, "src", "plugins", "topology", "qft", "topology_qft.so")]
        if os.access(qft, os.X_OK) and all(os.path.exists(p) for p in plugs):
            built = build_series(b)
            if built != args.series:
                raise SimError("%s: its plugins are built for Slurm %s, the run is for %s "
                               "(--series, or QFT_SLURM_SERIES=%s contribs/scripts/build.sh)"
                               % (b, built, args.series, args.series))
            return os.path.abspath(b), qft, plugs
    raise SimError("no build with the qft tool and both plugins in %s (%scontribs/scripts/"
                   "build.sh %s, or --build DIR)" % (
                       ", ".join(cands), "QFT_SLURM_SERIES=24.11 " if args.series == "24.11"
                       else "", os.path.basename(cands[0])))


def find_spank(build):
    """The SPANK plugin that gives sbatch --qft-isolate and --qft-shape-wait
    (spank/qft_lid)."""
    path = os.path.join(build, "contribs", "spank", "spank_qft_lid.so")
    if not os.path.exists(path):
        raise SimError("no %s in the build (jobs ask --qft-isolate or --qft-shape-wait, "
                       "options of spank/qft_lid): build it (make in %s), or run only "
                       "policies without them (POLICY+Isolate=no, cons_tres, ...)" % (
                           path, build))
    return path


def build_series(build):
    """The Slurm series a build's plugins are for (SLURM_SERIES in its
    Makefile, which configure sets from the Slurm source it found)."""
    try:
        with open(os.path.join(build, "Makefile")) as f:
            for line in f:
                if line.startswith("SLURM_SERIES ="):
                    return line.split("=", 1)[1].strip() or "22.05"
    except OSError:
        pass
    return "22.05"


def choose_compress(a, jobs):
    if a.compress != "auto":
        try:
            c = float(a.compress)
        except ValueError:
            raise SimError("--compress: a number or auto, not %s" % a.compress)
        if c <= 0:
            raise SimError("--compress must be > 0")
        return c
    rts = sorted(j.runtime for j in jobs)
    span = jobs[-1].arrival + rts[len(rts) // 2]
    c = max(1.0, span / a.real_span)
    # two significant digits
    e = 10 ** max(0, int(math.floor(math.log10(c))) - 1)
    return float(max(1, int(round(c / e))) * e)


def setup(a):
    """The run's options checked, before anything is written but OUT."""
    sim = Sim()
    sim.args = a
    sim.out = os.path.abspath(a.out)
    os.makedirs(sim.out, exist_ok=True)
    sim.comm = None
    sim.comm_classes = parse_comm(a.comm) if a.comm else None
    # --isolate: (share, f), the jobs chosen once the stream is known
    sim.isolate_spec = parse_isolate(a.isolate, sim.comm_classes) if a.isolate else None
    sim.isolate = None
    policies = a.policies or (DEFAULT_POLICIES_2411 if a.series == "24.11" else DEFAULT_POLICIES)
    sim.policies = [p.strip() for p in policies.split(",") if p.strip()]
    for p in sim.policies:
        conf = policy_conf(p)
        if conf.get("series", a.series) != a.series:
            raise SimError("policy %s needs Slurm %s (--series %s), this run is for %s" % (
                p, conf["series"], conf["series"], a.series))
    # the harness (and every client it wraps) runs this series
    os.environ["QFT_SLURM_SERIES"] = a.series
    if len(set(sim.policies)) != len(sim.policies):
        raise SimError("a policy is listed twice in --policies")
    if not a.isolate and not a.report_only:
        # (a report rebuilt from jobs.json needs no --isolate)
        for p in sim.policies:
            if policy_conf(p).get("isolate_set"):
                raise SimError("policy %s: +Isolate= needs --isolate SHARE[:F]" % p)
    if not a.comm and not a.report_only:
        for p in sim.policies:
            if policy_conf(p).get("shape_wait_for") is not None:
                raise SimError("policy %s: +ShapeWaitFor= needs --comm (the jobs' "
                               "communication shares)" % p)
    if a.lmc is not None and not 0 <= a.lmc <= 7:
        raise SimError("--lmc takes 0..7, not %d" % a.lmc)
    if a.kill_ctld_at is not None and not 0 < a.kill_ctld_at < 1:
        raise SimError("--kill-ctld-at takes a fraction in (0, 1), not %g" % a.kill_ctld_at)
    return sim


def prepare_workload(sim):
    """Fabric and job stream, written to OUT and described on stderr."""
    a = sim.args
    sim.fabric = prepare_fabric(a, sim.out, sim.qft)
    # every policy's LID choice at the fabric's LMC, before any cluster
    sim.lids = {p: policy_lid(p, sim.fabric.lmc) for p in sim.policies}
    jobs, winfo = workload.build_workload(a, sim.fabric)
    sim.jobs = jobs
    if sim.comm_classes:
        sim.comm = comm_shares(sim.comm_classes, len(jobs), a.seed)
        winfo["comm"] = {"spec": a.comm, "classes": sim.comm_classes,
                         "mean_f": round(mean(sim.comm), 4)}
    if sim.isolate_spec:
        share, f = sim.isolate_spec
        sim.isolate = isolate_jobs(sim.comm, share, f, a.seed)
        winfo["isolate"] = {
            "spec": a.isolate, "share": share, "f": f, "jobs": len(sim.isolate),
            "of": sum(1 for x in sim.comm if abs(x - f) < 1e-9),
            "policies": [p for p in sim.policies if policy_conf(p)["isolate"]]}
    sim.compress = choose_compress(a, jobs)
    offered = sum(j.size * j.runtime for j in jobs) / (
        sim.fabric.hosts * max(1e-9, jobs[-1].arrival + mean([j.runtime for j in jobs])))
    workload.describe(jobs, winfo)
    workload.save(sim.out, jobs, winfo, sim.compress, sim.fabric, sim.comm, sim.isolate)
    floored = sum(1 for j in jobs if j.runtime / sim.compress < a.min_sleep)
    if winfo.get("kind") == "swf":
        log("SWF %s: %d lines, %s; %d processors per node" % (
            a.swf, winfo["counts"]["lines"], ", ".join(
                "%s %d" % (k, v) for k, v in winfo["counts"].items() if k != "lines"),
            winfo["procs_per_node"]))
    log("fabric %s" % sim.fabric.describe())
    if sim.fabric.lmc:
        log("LID choice at LMC %d: %s" % (sim.fabric.lmc, ", ".join(
            "%s %s" % (p, sim.lids[p]) for p in sim.policies)))
    log("workload %s: %d jobs, sizes %d..%d (mean %.1f), run times %s..%s (mean %s), "
        "arrivals over %s, work/(hosts x (span + mean run)) %.2f" % (
            winfo.get("kind"), len(jobs), winfo["sizes"]["min"], winfo["sizes"]["max"],
            winfo["sizes"]["mean"], fmt_dur(winfo["runtimes"]["min"]),
            fmt_dur(winfo["runtimes"]["max"]), fmt_dur(winfo["runtimes"]["mean"]),
            fmt_dur(jobs[-1].arrival), offered))
    if sim.isolate is not None:
        i = winfo["isolate"]
        log("isolation: %d of the %d jobs at f = %g ask (--isolate %s): --qft-isolate under %s; "
            "the others submit them as usual" % (
                i["jobs"], i["of"], i["f"], i["spec"], ", ".join(i["policies"]) or "no policy"))
    log("time compressed %gx: arrivals over %.0f real s, sleeps %.2f..%.2f s (%d jobs raised "
        "to --min-sleep %.1f s)" % (sim.compress, jobs[-1].arrival / sim.compress,
                                    max(a.min_sleep, min(j.runtime for j in jobs) / sim.compress),
                                    max(j.runtime for j in jobs) / sim.compress, floored, a.min_sleep))
    return winfo


def run_policy(sim, scorer, pol, number):
    """One policy from cluster start to scored jobs: (summary, jobs)."""
    t_pol = time.time()
    pr = PolicyRun(sim, pol, number)
    # the offsets each job keeps from its start, by job name (LID choice)
    scorer.keeper = Keeper(os.path.join(pr.dir, "lid-kept.txt"))
    log("policy %d/%d %s (%s): starting %d-node cluster" % (
        number, len(sim.policies), pol, policy_conf(pol)["label"], sim.fabric.hosts))
    try:
        pr.start_cluster()
        pr.simulate()
        pr.snapshot()
    finally:
        pr.stop_cluster()
    jobs_out = pr.collect()
    t_sc = time.time()
    score_policy(scorer, jobs_out, pol, pr.lid)
    pr.times["scoring"] = round(time.time() - t_sc, 1)
    pr.times["total"] = round(time.time() - t_pol, 1)
    summary = summarise(jobs_out, sim.fabric.hosts, pr.run_info())
    with open(os.path.join(pr.dir, "jobs.json"), "w") as f:
        json.dump({"policy": pol, "summary": summary, "t0": pr.t0, "jobs": jobs_out}, f, indent=1)
    log("%s: %d/%d completed, util %.1f%%, wait mean %s, HSD 1.0 alone %.1f%%; "
        "%.0f s (run %.0f s, scoring %.0f s)" % (
            pol, summary["completed"], summary["jobs"], 100 * (summary["utilisation"] or 0),
            fmt_dur(summary["wait_mean"]), 100 * (summary["hsd1_alone_share"] or 0),
            pr.times["total"], pr.times["run"], pr.times["scoring"]))
    return summary, jobs_out


def main(argv):
    a = parse_args(argv)
    sim = setup(a)
    if a.report_only:
        return report_only(sim)
    plots_ok = not a.workload_only and report.need_plots(a)
    build, sim.qft, plugs = find_build(a)
    sim.harness = os.path.abspath(a.harness)
    t_all = time.time()
    log("build %s" % build)
    winfo = prepare_workload(sim)
    if a.workload_only:
        return 0
    if os.geteuid() != 0:
        raise SimError("the cluster needs root (slurmd runs as root)")
    sim.plugin_dir = os.path.join(sim.out, "plugins")
    os.makedirs(sim.plugin_dir, exist_ok=True)
    for pl in plugs:
        shutil.copy2(pl, sim.plugin_dir)
    sim.spank = None
    if (sim.isolate and any(policy_conf(p)["isolate"] for p in sim.policies)) or \
            any(policy_conf(p).get("shape_wait_for") is not None for p in sim.policies):
        sim.spank = find_spank(build)
        shutil.copy2(sim.spank, sim.plugin_dir)
        sim.spank = os.path.join(sim.plugin_dir, os.path.basename(sim.spank))
        log("--qft-isolate, --qft-shape-wait from %s (plugstack.conf)" % sim.spank)
    if any(policy_conf(p)["select"] == "select/rlft" for p in sim.policies):
        log("plugins from %s" % build)
    scorer = Scorer(sim.qft, sim.fabric.path, a.pattern, a.score_workers,
                    os.path.join(sim.out, "score-cache.json"), os.path.join(sim.out, "tmp"),
                    lmc=sim.fabric.lmc, lid_threads=a.lid_threads)
    sim.scorer = scorer

    def on_signal(signum, frame):
        raise KeyboardInterrupt()
    signal.signal(signal.SIGTERM, on_signal)
    results, jobs_by_policy = {}, {}
    for i, pol in enumerate(sim.policies, 1):
        results[pol], jobs_by_policy[pol] = run_policy(sim, scorer, pol, i)
    rep = report.make_report(sim, winfo, results)
    rep["times"] = {"total": round(time.time() - t_all, 1)}
    return report.write_report(sim, rep, jobs_by_policy, plots_ok)


def report_only(sim):
    results, jobs_by_policy = {}, {}
    order = []
    for p in sim.policies:
        path = os.path.join(sim.out, p, "jobs.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            d = json.load(f)
        with open(os.path.join(sim.out, "report.json")) as f:
            hosts = json.load(f)["fabric"]["hosts"]
        results[p] = summarise(d["jobs"], hosts, {k: d["summary"].get(k) for k in RUN_KEYS})
        jobs_by_policy[p] = d["jobs"]
        order.append(p)
    if not results:
        raise SimError("no %s/*/jobs.json" % sim.out)
    with open(os.path.join(sim.out, "report.json")) as f:
        old = json.load(f)
    sim.policies = order
    old["policies"] = results
    old["policies_order"] = order
    plots_ok = report.need_plots(sim.args)
    return report.write_report(sim, old, jobs_by_policy, plots_ok)


def run(argv):
    """main() with the exit status of every ending: 1 for a SimError, 130
    when interrupted."""
    try:
        return main(argv)
    except SimError as e:
        sys.stderr.write("qft-sim: error: %s\n" % e)
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("\nqft-sim: interrupted\n")
        return 130
