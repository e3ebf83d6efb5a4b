# SPDX-License-Identifier: GPL-2.0-or-later
"""A private front-end Slurm cluster through the shared harness
(contribs/slurm/harness.sh, which tests/slurm uses too), its client
commands, and the records Slurm leaves: jobcomp/filetxt lines,
select/rlft's log line per job and the job's QFT_ environment."""

import os
import re
import shlex
import subprocess
import sys
import time

from .common import REPO, SimError

HARNESS = os.path.join(REPO, "contribs", "slurm", "harness.sh")

FINAL_OK = {"COMPLETED"}
FINAL_FAILED = {"FAILED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY",
                "BOOT_FAIL", "DEADLINE", "PREEMPTED"}
FINAL_CANCELLED = {"CANCELLED"}
FINAL = FINAL_OK | FINAL_FAILED | FINAL_CANCELLED


class Cluster:
    """One cluster of the harness, known by its work dir; `log_path`
    collects what the harness prints."""

    def __init__(self, harness, work, log_path, name, cwd=None):
        self.harness = harness
        self.cwd = cwd              # where the clients run
        self.work = work
        self.bin = os.path.join(work, "bin")
        self.log_path = log_path
        self.name = name

    def start(self, node_file, plugin_dir, topology, select, conf_files, extra, timeout=300):
        cmd = [self.harness, "start", "-w", self.work, "--node-file", node_file,
               "-p", plugin_dir, "-t", topology, "-s", select, "--timeout", str(timeout)]
        for c in conf_files:
            cmd += ["-c", c]
        cmd += ["-e", "\n".join(extra)]
        for attempt in (1, 2):
            with open(self.log_path, "a" if attempt == 2 else "w") as hl:
                r = subprocess.run(cmd, stdout=hl, stderr=subprocess.STDOUT)
            if r.returncode == 0:
                return
            with open(self.log_path) as hl:
                tail = hl.read()[-2000:]
            # A start that ends with no word of why (seen in CI beside
            # other clusters' stops, docs/testing.md): once more, said.
            if attempt == 1 and "ERROR:" not in tail:
                print("qft-sim: policy %s: the harness ended silently (exit %d); starting once more"
                      % (self.name, r.returncode), file=sys.stderr)
                self.stop_leftover()
                continue
            raise SimError("policy %s: the cluster did not start (harness exit %d):\n%s"
                           % (self.name, r.returncode, tail))

    def stop(self):
        with open(self.log_path, "a") as hl:
            subprocess.run([self.harness, "stop", "-w", self.work], stdout=hl,
                           stderr=subprocess.STDOUT)

    def stop_leftover(self):
        """A cluster a previous run left in this work dir, if any."""
        subprocess.run([self.harness, "stop", "-w", self.work],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def restart(self, kill):
        """slurmctld alone, SIGKILLed (kill) or stopped, then started on its
        saved state; the harness prints RESTART_SECS=."""
        cmd = [self.harness, "restart", "-w", self.work] + (["--kill"] if kill else [])
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def client(self, name, *args, timeout=30):
        """A client command through the harness's wrapper; None on timeout."""
        try:
            return subprocess.run([os.path.join(self.bin, name)] + list(args),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, timeout=timeout, cwd=self.cwd)
        except subprocess.TimeoutExpired:
            return None

    def queue(self):
        """job id -> (state, nodes) of every job slurmctld knows; None when
        squeue does not answer."""
        r = self.client("squeue", "-h", "-t", "all", "-o", "%i|%T|%D", timeout=20)
        if r is None or r.returncode != 0:
            return None
        jobs = {}
        for line in r.stdout.splitlines():
            p = line.split("|")
            if len(p) == 3 and p[0].isdigit():
                jobs[int(p[0])] = (p[1], int(p[2]) if p[2].isdigit() else 0)
        return jobs

    def snapshot(self):
        """job id -> state, nodes, submit, start, end and the full node list
        (jobcomp's NodeList can be cut, see parse_jobcomp_line); None when
        squeue fails."""
        r = self.client("squeue", "-h", "-t", "all", "-o", "%i|%T|%D|%V|%S|%e|%N", timeout=60)
        if r is None or r.returncode != 0:
            return None
        out = {}
        for line in r.stdout.splitlines():
            p = line.split("|")
            if len(p) == 7 and p[0].isdigit():
                out[int(p[0])] = {
                    "state": p[1], "nodes": int(p[2]) if p[2].isdigit() else 0,
                    "submit": parse_slurm_time(p[3]), "start": parse_slurm_time(p[4]),
                    "end": parse_slurm_time(p[5]), "nodelist": p[6].strip()}
        return out

    def ctld_log(self):
        return os.path.join(self.work, "log", "slurmctld.log")


def parse_slurm_time(s):
    if not s or s in ("Unknown", "None", "N/A", "(null)"):
        return None
    try:
        return time.mktime(time.strptime(s, "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        return None


def parse_jobcomp_line(line):
    """Records of one jobcomp/filetxt line. Slurm 22.05 writes each record
    through a fixed-size buffer: a long record (a scattered NodeList) is cut
    and loses its newline, so the next record follows on the same line. Split
    at every "JobId=N UserId=" and mark records that lack their last field
    (ExitCode) as truncated."""
    out = []
    for part in re.split(r"(?=JobId=\d+ UserId=)", line):
        rec = dict(re.findall(r"(\w+)=(\S*)", part))
        if "JobId" not in rec or not rec["JobId"].isdigit():
            continue
        if "ExitCode" not in rec:
            rec["_truncated"] = "1"
        out.append(rec)
    return out


def choose_record(recs):
    """A job id can get two jobcomp records around a SIGKILLed slurmctld: the
    real end, and a second one when the restarted slurmctld, whose saved
    state was older, ends the job again. The first COMPLETED record is the
    real end; without one, the last record."""
    for r in recs:
        if r.get("JobState") == "COMPLETED":
            return r
    return recs[-1]


def repeat_kind(recs):
    """Why a job has more than one jobcomp record: "requeued" when failed
    starts (NODE_FAIL: slurmctld took a launch as lost and requeued the
    job) come before the record that counts, "ended_again" when an end
    follows it (choose_record); None for one record."""
    if len(recs) < 2:
        return None
    before = recs[:recs.index(choose_record(recs))]
    if before and all(r.get("JobState") in ("NODE_FAIL", "REQUEUED") for r in before):
        return "requeued"
    return "ended_again"


def first_submit(recs, submit):
    """The job's first submission: a requeue stamps a new SubmitTime, in
    the later records and in squeue (`submit`), but the wait runs from the
    first."""
    first = parse_slurm_time(recs[0].get("SubmitTime")) if recs else None
    if first is not None and (submit is None or first < submit):
        return first
    return submit


class JobComp:
    """jobcomp/filetxt's file, read as it grows: job id -> its records."""

    def __init__(self, path):
        self.path = path
        self.records = {}
        self.offset = 0
        self.rest = ""

    def _add(self, line):
        for rec in parse_jobcomp_line(line):
            self.records.setdefault(int(rec["JobId"]), []).append(rec)

    def read(self):
        try:
            with open(self.path) as f:
                f.seek(self.offset)
                data = f.read()
                self.offset = f.tell()
        except FileNotFoundError:
            return
        lines = (self.rest + data).split("\n")
        # a record slurmctld is still writing waits for its newline
        self.rest = lines.pop()
        for line in lines:
            self._add(line)

    def flush(self):
        """The last record too, if slurmctld left it without a newline."""
        self.read()
        if self.rest.strip():
            self._add(self.rest)
            self.rest = ""


RLFT_LINE = re.compile(r"select/rlft: JobId=(\d+) on (\d+) nodes (\S+): (.*); (\S+) HSD "
                       r"([\d.]+) avg, (\d+) worst over (\d+) of (\d+) stages; "
                       r"placed in (\d+) us over (\d+) candidates")


# ShapeWait=: said once per job that waited for a shape
RLFT_WAIT_LINE = re.compile(r"select/rlft: JobId=(\d+) waits for a (\S+) (\S+) \(")


def rlft_log(path):
    """select/rlft's line per job start in slurmctld's log: job id ->
    placement label, predicted HSD, placement time and candidates; and
    "shape_wait" (what it waited for: "whole-leaf unaligned") for a job
    that ShapeWait= made wait (only jobs that started)."""
    out, waits = {}, {}
    if not os.path.exists(path):
        return out
    with open(path, errors="replace") as f:
        for line in f:
            w = RLFT_WAIT_LINE.search(line)
            if w:
                waits[int(w.group(1))] = "%s %s" % (w.group(2), w.group(3))
                continue
            m = RLFT_LINE.search(line)
            if m:
                out[int(m.group(1))] = {
                    "nodes": m.group(3), "placement": m.group(4),
                    "predicted_avg": float(m.group(6)), "predicted_max": int(m.group(7)),
                    "stages_played": int(m.group(8)), "stages_total": int(m.group(9)),
                    "place_us": int(m.group(10)), "candidates": int(m.group(11))}
    for jid, what in waits.items():
        if jid in out:
            out[jid]["shape_wait"] = what
    return out


# What a job's script keeps of the environment select/rlft gave it: the
# placement and its kind, the predicted HSD, QFT_ISOLATED (placed apart,
# --qft-isolate) and QFT_SHAPE_WAITED (seconds it waited for a shape,
# ShapeWait=) (QFT_HOSTS is left out, it can be long).
ENV_KEEP = "^QFT_(PLACEMENT|HSD|ISOLATED=|SHAPE_WAITED=)"


def env_dump_command(env_dir):
    """Shell that writes the job's kept QFT_ variables to
    ENV_DIR/$SLURM_JOB_ID.env (the job's script runs it first)."""
    return "env | grep -E '%s' > %s/$SLURM_JOB_ID.env; " % (ENV_KEEP, shlex.quote(env_dir))


def job_env(env_dir, jobid):
    """NAME -> value from the file env_dump_command wrote; {} without one."""
    try:
        with open(os.path.join(env_dir, "%d.env" % jobid), errors="replace") as f:
            return dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)
    except FileNotFoundError:
        return {}
