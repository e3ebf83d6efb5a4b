# SPDX-License-Identifier: GPL-2.0-or-later
"""The job stream: synthetic kinds drawn from one seeded generator, or a
Standard Workload Format trace; and the files that record it.

Every random draw comes from one random.Random(seed) in a fixed order
(sizes, run times, then the inter-arrival gaps): changing that order
changes every published figure made with a seed, so do not."""

import json
import math
import os
import random
import re

from .common import SimError, mean

KINDS = ("normal300", "mixed", "uniform", "pow2")
DEFAULT_JOBS = {"normal300": 12, "mixed": 250, "uniform": 250, "pow2": 250}
SWF_FIELDS = 18


class Job:
    __slots__ = ("idx", "arrival", "size", "runtime", "req_time", "ref")

    def __init__(self, idx, arrival, size, runtime, req_time=None, ref=None):
        self.idx = idx
        self.arrival = arrival      # simulated seconds from the first arrival
        self.size = size            # nodes
        self.runtime = runtime      # simulated seconds
        self.req_time = req_time    # simulated seconds, or None
        self.ref = ref              # SWF job number, or None

    def to_dict(self):
        return {"idx": self.idx, "arrival": round(self.arrival, 3), "size": self.size,
                "runtime": round(self.runtime, 3), "req_time": self.req_time,
                "ref": self.ref}


def _log_uniform(rng, lo, hi):
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def _log_uniform_int(rng, lo, hi):
    """Integer in (lo, hi], log-uniform; lo when the range is empty."""
    if hi <= lo:
        return max(1, lo)
    return max(lo + 1, min(hi, int(math.floor(_log_uniform(rng, lo + 1, hi + 1)))))


def poisson_arrivals(rng, jobs, hosts, load):
    work = mean([j.size * j.runtime for j in jobs])
    rate = load * hosts / work          # jobs per simulated second
    t = 0.0
    for i, j in enumerate(jobs):
        if i:
            t += rng.expovariate(rate)
        j.arrival = t


def _size(kind, rng, n, fab):
    if kind == "normal300":
        return min(max(int(round(rng.gauss(300.0, 20.0))), 2), n)
    if kind == "mixed":
        L = min(fab.leaf, n)
        M = max(2 * L, min(fab.pod, n // 8))
        big = max(M, n // 2)
        u = rng.random()
        if u < 0.50:
            return rng.randint(1, L)
        if u < 0.85:
            return _log_uniform_int(rng, L, min(M, n))
        return _log_uniform_int(rng, min(M, n), min(big, n))
    if kind == "uniform":
        return rng.randint(1, max(1, n // 4))
    k = rng.randint(0, max(0, int(math.floor(math.log2(max(1, n // 4))))))  # pow2
    return 2 ** k


def synthetic(kind, njobs, seed, load, fab):
    """`fab` needs hosts, leaf (hosts per leaf switch) and pod (hosts per
    level-2 subtree)."""
    if kind not in KINDS:
        raise SimError("unknown --synthetic %s (one of %s)" % (kind, ", ".join(KINDS)))
    if load <= 0:
        raise SimError("--load must be > 0, not %g" % load)
    rng = random.Random(seed)
    n = fab.hosts
    sizes = [min(max(1, _size(kind, rng, n, fab)), n) for _ in range(njobs)]
    lo, hi = (600.0, 3600.0) if kind == "normal300" else (300.0, 3600.0)
    jobs = [Job(i, 0.0, sizes[i], _log_uniform(rng, lo, hi)) for i in range(njobs)]
    poisson_arrivals(rng, jobs, n, load)
    return jobs, {"kind": kind, "jobs": njobs, "seed": seed, "load": load,
                  "runtime": "LogUniform(%g s, %g s)" % (lo, hi)}


def parse_swf(path):
    """The header (';Name: value' comments) and the job lines of an SWF
    file, as 18 floats each; -1 (unknown) stays -1 for the caller."""
    header = {}
    rows = []
    with open(path) as f:
        for ln, line in enumerate(f, 1):
            s = line.strip()
            if not s:
                continue
            if s.startswith(";"):
                m = re.match(r";\s*(\w+)\s*:\s*(\S+)", s)
                if m:
                    header[m.group(1)] = m.group(2)
                continue
            fields = s.split()
            if len(fields) < SWF_FIELDS:
                raise SimError("%s:%d: %d fields, an SWF line has %d"
                               % (path, ln, len(fields), SWF_FIELDS))
            try:
                rows.append([float(x) for x in fields[:SWF_FIELDS]])
            except ValueError:
                raise SimError("%s:%d: a field is not a number: %s" % (path, ln, s[:80]))
    return header, rows


def swf_procs_per_node(header, ppn):
    if ppn is not None:
        return ppn
    try:
        return max(1, int(round(float(header["MaxProcs"]) / float(header["MaxNodes"]))))
    except (KeyError, ValueError, ZeroDivisionError):
        return 1


def read_swf(path, fab, njobs, skip, ppn, oversize, load):
    header, rows = parse_swf(path)
    ppn = swf_procs_per_node(header, ppn)
    counts = {"lines": len(rows), "no_runtime": 0, "no_size": 0, "oversize": 0, "clipped": 0}
    jobs = []
    for r in sorted(rows, key=lambda r: (r[1], r[0])):
        submit, runtime, alloc, req, req_time = r[1], r[3], r[4], r[7], r[8]
        procs = req if req > 0 else alloc
        if runtime <= 0:
            counts["no_runtime"] += 1
            continue
        if procs <= 0 or submit < 0:
            counts["no_size"] += 1
            continue
        size = int(math.ceil(procs / ppn))
        if size > fab.hosts:
            if oversize == "clip":
                counts["clipped"] += 1
                size = fab.hosts
            else:
                counts["oversize"] += 1
                continue
        jobs.append(Job(0, submit, size, runtime, req_time if req_time > 0 else None,
                        int(r[0])))
    jobs = jobs[skip:]
    if njobs:
        jobs = jobs[:njobs]
    if not jobs:
        raise SimError("%s: no usable job (%s)" % (path, counts))
    t0 = jobs[0].arrival
    for i, j in enumerate(jobs):
        j.idx = i
        j.arrival -= t0
    span = jobs[-1].arrival
    offered = None
    if span > 0:
        offered = sum(j.size * j.runtime for j in jobs) / (fab.hosts * span)
    if load and span > 0:
        k = offered / load
        for j in jobs:
            j.arrival *= k
        offered = load
    return jobs, {"kind": "swf", "file": os.path.abspath(path), "jobs": len(jobs),
                  "skip": skip, "procs_per_node": ppn, "counts": counts,
                  "offered_load": offered, "header": header}


def build_workload(a, fab):
    """The stream the options ask for: (jobs, info)."""
    if bool(a.synthetic) == bool(a.swf):
        raise SimError("give one workload: --synthetic KIND or --swf FILE")
    if a.synthetic:
        n = a.jobs if a.jobs else DEFAULT_JOBS.get(a.synthetic, 250)
        if n < 1:
            raise SimError("--jobs must be >= 1")
        return synthetic(a.synthetic, n, a.seed, a.load if a.load else 0.9, fab)
    return read_swf(a.swf, fab, a.jobs, a.swf_skip, a.swf_procs_per_node, a.swf_oversize, a.load)


def describe(jobs, info):
    """Adds the stream's sizes, run times and arrival span to `info`."""
    info["sizes"] = {"min": min(j.size for j in jobs), "mean": round(mean([j.size for j in jobs]), 1),
                     "max": max(j.size for j in jobs)}
    info["runtimes"] = {"min": round(min(j.runtime for j in jobs)), "mean":
                        round(mean([j.runtime for j in jobs])), "max": round(max(j.runtime for j in jobs))}
    info["arrival_span"] = round(jobs[-1].arrival, 1)
    return info


def write_swf(path, jobs, fab, info):
    with open(path, "w") as f:
        f.write("; Version: 2.2\n; Computer: slurm-qft front-end simulation, %s\n" % fab.describe())
        f.write("; MaxNodes: %d\n; MaxProcs: %d\n" % (fab.hosts, fab.hosts))
        f.write("; Note: the job stream qft-sim replayed: %s\n" % json.dumps(info, sort_keys=True))
        for j in jobs:
            req = int(math.ceil(j.req_time)) if j.req_time else -1
            f.write("%d %d -1 %d %d -1 -1 %d %d -1 1 1 1 -1 1 1 -1 -1\n" % (
                j.idx + 1, int(round(j.arrival)), int(math.ceil(j.runtime)),
                j.size, j.size, req))


def save(out, jobs, info, compress, fab, comm=None, isolate=None):
    """OUT/workload.json (the stream as run; with the runtime model, each
    job's communication share in "comm"; with --isolate, the indexes of
    the jobs that ask isolation in "isolate") and OUT/workload.swf (the
    same as SWF, to replay it elsewhere)."""
    d = {"info": info, "compress": compress, "jobs": [j.to_dict() for j in jobs]}
    if comm is not None:
        d["comm"] = comm
    if isolate is not None:
        d["isolate"] = list(isolate)
    with open(os.path.join(out, "workload.json"), "w") as f:
        json.dump(d, f, indent=1)
    write_swf(os.path.join(out, "workload.swf"), jobs, fab, info)
