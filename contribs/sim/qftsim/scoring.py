# SPDX-License-Identifier: GPL-2.0-or-later
"""Congestion of the placements a policy made, by the routing core's own
scorer (qft score): every multi-node job alone, and the set of jobs
running at its start in lock-step. Scores are cached per fabric and
pattern (score-cache.json), so a second policy or --report-only reuses
them.

With a LID choice (`lid` job, dest or pair: `qft score --lid MODE --lmc
LMC`), each job chooses its offsets once, at its start, beside the jobs
running then with the offsets they kept, and keeps them (a Keeper, by job
name; `qft score --batch` lines "NAME: HOSTS", --lid-in/--lid-out).
choose() makes those choices, in start order, in one process; a set of
keyed jobs is then scored with the kept offsets, in any number of
processes: its cache key is its members' host lists, each with a digest of
its offsets, sorted. A set of unkeyed host lists under a choice is scored
as before: its jobs choose in the order listed, each beside those before
it, and the key carries that order. One LID (`lid` none) scores the same
whatever the order and the LMC (offset 0 is the base LID's route): its
keys are the sorted host lists, as before LID choice."""

import concurrent.futures
import hashlib
import json
import math
import os
import subprocess
import threading
import time

from .common import SimError, expand_hostlist, log

# Groups per qft score process at most: one process loads the fabric
# once for all of them, and a bound keeps the progress lines coming.
BATCH_MAX = 500


def job_line(name, hosts):
    """A job of a set with its key: its offsets are kept (Keeper)."""
    return "%s: %s" % (name, hosts)


def split_line(member):
    """(name, host list) of a set member; name None for a bare host list."""
    name, sep, hosts = member.partition(": ")
    return (name, hosts) if sep else (None, member)


def set_order(lists, lid="none"):
    """The order a set is scored in, that of job_hsd: sorted for one LID,
    by host list for kept offsets (keyed members: no one chooses, the
    order does not matter), as given for a choice in order."""
    if lid == "none":
        return sorted(lists)
    if lists and all(split_line(m)[0] is not None for m in lists):
        return sorted(lists, key=lambda m: split_line(m)[1])
    return list(lists)


class Keeper:
    """The offsets each job chose at its start (qft score --lid-out lines:
    NAME MODE LMC HOSTS OFFSETS), by job name, with the host list the
    simulator knows the job by and a digest of the offsets for cache keys.
    One per policy run: job names repeat across policies. `start`: what
    the choice met at the job's start (start_figures)."""

    def __init__(self, path=None):
        self.path = path
        self.lines, self.hosts, self.digest, self.start = {}, {}, {}, {}

    def add(self, name, hosts, line, start=None):
        self.lines[name] = line
        self.hosts[name] = hosts
        rest = line.split(" ", 1)[1]
        self.digest[name] = hashlib.sha1(rest.encode()).hexdigest()[:16]
        if start is not None:
            self.start[name] = start

    def forget(self, name):
        for d in (self.lines, self.hosts, self.digest, self.start):
            d.pop(name, None)

    def has(self, member):
        name, hosts = split_line(member)
        return name is not None and self.hosts.get(name) == hosts

    def save(self):
        if not self.path:
            return
        with open(self.path + ".tmp", "w") as f:
            f.write("".join(line + "\n" for line in self.lines.values()))
        os.replace(self.path + ".tmp", self.path)


class Scorer:
    """qft score, alone and in lock-step with neighbours, cached."""

    def __init__(self, qft, fabric, pattern, workers, cache_path, tmpdir, lmc=0, lid_threads=1):
        self.qft = qft
        self.lid_threads = max(1, lid_threads)  # a choice's (select/rlft's LidThreads=)
        self.fabric = fabric
        self.pattern = pattern
        self.lmc = lmc
        self.workers = max(1, workers)
        self.cache_path = cache_path
        self.tmpdir = tmpdir
        self.cache = {"alone": {}, "sets": {}}
        if os.path.exists(cache_path):
            try:
                with open(cache_path) as f:
                    c = json.load(f)
                if c.get("fabric") == self.fabric_key() and c.get("pattern") == pattern:
                    self.cache = {"alone": c.get("alone", {}), "sets": c.get("sets", {})}
            except (OSError, ValueError):
                pass
        os.makedirs(tmpdir, exist_ok=True)
        self.calls = 0
        self.keeper = Keeper()         # the policy's kept offsets (per run)

    def fabric_key(self):
        h = hashlib.sha1()
        with open(self.fabric, "rb") as f:
            h.update(f.read())
        return h.hexdigest()

    def save(self):
        with open(self.cache_path + ".tmp", "w") as f:
            json.dump({"fabric": self.fabric_key(), "pattern": self.pattern,
                       "alone": self.cache["alone"], "sets": self.cache["sets"]}, f)
        os.replace(self.cache_path + ".tmp", self.cache_path)

    def kept_id(self, member):
        """A keyed member's host list and the digest of its kept offsets."""
        name, hosts = split_line(member)
        if not self.keeper.has(member):
            raise SimError("no kept LID offsets for job %s on %s" % (name, hosts))
        return "%s#%s" % (hosts, self.keeper.digest[name])

    def key(self, hosts, lid="none"):
        """The cache key of a host list (alone) or of a set (a list of
        host lists): one LID sorted, a LID choice in the set's order and
        prefixed by the mode and the LMC; keyed members (kept offsets) by
        host list and offsets, sorted."""
        if isinstance(hosts, str):
            if lid == "none":
                return hosts
            if split_line(hosts)[0] is not None:
                return "%s/lmc%d/kept:%s" % (lid, self.lmc, self.kept_id(hosts))
            return "%s/lmc%d:%s" % (lid, self.lmc, hosts)
        if lid == "none":
            return "|".join(sorted(hosts))
        keyed = [split_line(m)[0] is not None for m in hosts]
        if all(keyed):
            return "%s/lmc%d/kept:%s" % (lid, self.lmc, "|".join(
                self.kept_id(m) for m in set_order(hosts, lid)))
        if any(keyed):
            raise SimError("a set of kept and unkept jobs: %s" % hosts)
        return "%s/lmc%d:%s" % (lid, self.lmc, "|".join(hosts))

    @staticmethod
    def order(lists, lid="none"):
        """The order a set is scored in (set_order)."""
        return set_order(lists, lid)

    def command(self, path, lid="none", lid_in=None, lid_out=None):
        """The qft score command line of a batch file."""
        cmd = [self.qft, "score", "--fabric", self.fabric, "--json", "--worst", "0",
               "--pattern", self.pattern, "--per-job", "--batch", path]
        if lid != "none":
            cmd += ["--lid", lid, "--lmc", str(self.lmc)]
        if lid_in:
            cmd += ["--lid-in", lid_in]
        if lid_out:
            cmd += ["--lid-out", lid_out]
            if self.lid_threads > 1:
                cmd += ["--lid-threads", str(self.lid_threads)]
        return cmd

    def _batch(self, groups, lid="none", choose=False):
        """[avg_hsd, max_hsd, shared_links, job_hsd] of each group (a list
        of host lists) from one `qft score --batch --per-job` process: one
        group per paragraph, one job per line, one JSON object per line
        back. job_hsd: each job's HSD beside the others, in the group's
        order (None for a group of one). Keyed members get their kept
        offsets (--lid-in); with `choose`, returns also the lines of the
        offsets chosen (--lid-out)."""
        base = os.path.join(self.tmpdir, "batch-%d-%d" % (os.getpid(), threading.get_ident()))
        path = base + ".jobs"
        with open(path, "w") as f:
            f.write("\n".join("\n".join(g) + "\n" for g in groups))
        lid_in = lid_out = None
        if lid != "none":
            names = {split_line(m)[0] for g in groups for m in g if self.keeper.has(m)}
            if names:
                lid_in = base + ".kept"
                with open(lid_in, "w") as f:
                    f.write("".join(self.keeper.lines[n] + "\n" for n in sorted(names)))
            if choose:
                lid_out = base + ".chosen"
        cmd = self.command(path, lid, lid_in, lid_out)
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines = r.stdout.splitlines()
        if r.returncode != 0 or len(lines) != len(groups):
            # the file stays for a look: the error names its lines
            raise SimError("qft score --batch %s%s (%d groups, %d answers): %s" % (
                path, "" if lid == "none" else " --lid %s --lmc %d" % (lid, self.lmc),
                len(groups), len(lines), r.stderr.strip()[-500:]))
        os.unlink(path)
        if lid_in:
            os.unlink(lid_in)
        out = []
        for line in lines:
            d = json.loads(line)
            out.append([d.get("avg_hsd"), d.get("max_hsd"), d.get("shared_links"),
                        d.get("job_hsd")])
            if choose:
                out[-1].append(d.get("lid_floor"))
        if not choose:
            return out
        with open(lid_out) as f:
            chosen = f.read().splitlines()
        os.unlink(lid_out)
        return out, chosen

    def choose(self, groups, lid, progress=None):
        """Each group: the running jobs, keyed and in the keeper (or chosen
        in an earlier group of the call), then a new keyed job, which
        chooses its offsets beside them, once: groups whose new job has
        kept offsets are skipped. One qft process at a time, in the order
        given (start order), so that the choice does not depend on how the
        scoring is split. The groups' scores are cached (their sets with
        the kept offsets)."""
        todo, seen = [], set()
        for g in groups:
            new = g[-1]
            if self.keeper.has(new) or new in seen:
                continue
            seen.add(new)
            todo.append(list(g))
        t0 = time.time()
        done = 0
        for i in range(0, len(todo), BATCH_MAX):
            part = todo[i:i + BATCH_MAX]
            scores, chosen = self._batch(part, lid, choose=True)
            hosts = {split_line(g[-1])[0]: split_line(g[-1])[1] for g in part}
            start = {split_line(g[-1])[0]: start_figures(sc) for g, sc in zip(part, scores)}
            for line in chosen:
                name = line.split(" ", 1)[0]
                if name in hosts:
                    self.keeper.add(name, hosts[name], line, start[name])
            for g, sc in zip(part, scores):
                order = set_order(g, lid)
                sc = sc[:4]  # the floor is the keeper's, not the cache's
                if sc[3] is not None:
                    sc = sc[:3] + [[sc[3][g.index(m)] for m in order]]
                if len(g) == 1:
                    self.cache["alone"][self.key(g[0], lid)] = sc
                    # nobody ran at its start: its choice is its choice
                    # alone (hsd_alone), scored already
                    self.cache["alone"].setdefault(self.key(split_line(g[0])[1], lid), sc)
                else:
                    self.cache["sets"][self.key(g, lid)] = sc
            done += len(part)
            self.calls += 1
            if progress:
                progress(done, len(todo), time.time() - t0)

    def score_all(self, alone_lists, sets, progress=None, save=True, lid="none"):
        """alone_lists: host lists; sets: lists of host lists (in the
        order their jobs choose, with a LID choice `lid`). Fills the
        cache, and writes it unless `save` is false (the runtime model's
        rounds: save() at the end)."""
        todo = []
        for hl in sorted(set(alone_lists)):
            key = self.key(hl, lid)
            if key not in self.cache["alone"]:
                todo.append(("alone", key, [hl]))
        seen = set()
        for s in sets:
            key = self.key(s, lid)
            # (a cache from before job_hsd has 3 figures: scored again)
            if len(self.cache["sets"].get(key, ())) < 4 and len(s) > 1 and key not in seen:
                seen.add(key)
                todo.append(("sets", key, self.order(s, lid)))
        if not todo:
            return
        nbatch = min(len(todo), max(self.workers, math.ceil(len(todo) / BATCH_MAX)))
        # dealt round-robin: the costly ones (choices alone, large sets)
        # spread over the processes rather than falling to one of them
        batches = [todo[i::nbatch] for i in range(nbatch)]
        done = 0
        t0 = time.time()
        with concurrent.futures.ThreadPoolExecutor(self.workers) as ex:
            futs = {ex.submit(self._batch, [g for _, _, g in b], lid): b for b in batches}
            for fut in concurrent.futures.as_completed(futs):
                for (kind, key, _), score in zip(futs[fut], fut.result()):
                    self.cache[kind][key] = score
                done += len(futs[fut])
                self.calls += 1
                if progress:
                    progress(done, len(todo), time.time() - t0)
        if save:
            self.save()

    def alone(self, hl, lid="none"):
        return self.cache["alone"].get(self.key(hl, lid))

    def set_score(self, lists, lid="none"):
        if len(lists) == 1:
            a = self.cache["alone"].get(self.key(lists[0], lid))
            return [a[0], a[1], 0] if a else None
        return self.cache["sets"].get(self.key(lists, lid))


def start_figures(sc):
    """What a job met at its start, from its choice group's score (the
    job last, with choose: its lid_floor appended): its HSD beside the
    running jobs with the offsets it chose (h), and with a pair choice
    what the search proved (qft score's lid_floor: floor, the least HSD
    any offsets give there; stages, proven to congest, left undecided)."""
    h = sc[3][-1] if sc[3] else sc[0]
    fl = sc[4][-1] if len(sc) > 4 and sc[4] else None
    out = {"h": h}
    if fl:
        out.update(floor=fl["hsd"], stages=fl["stages"], proven=fl["congested"],
                   undecided=fl["undecided"])
    return out


def ran_multi(jobs):
    """The multi-node jobs that ran."""
    return [j for j in jobs if j.get("nodelist") and j.get("start_wall") is not None
            and j.get("end_wall") is not None and j.get("nodes", 0) > 1]


def neighbour_sets(jobs, member=None):
    """For each multi-node job that ran: the host lists of the multi-node
    jobs running at its start (start <= t < end), in the order they
    started, itself last. `member`: idx -> what stands for the job in the
    set (a keyed line for kept offsets), its node list otherwise."""
    ran = ran_multi(jobs)
    m = member or {j["idx"]: j["nodelist"] for j in ran}
    sets = {}
    for j in ran:
        t = j["start_wall"]
        before = sorted((k for k in ran if k is not j and k["start_wall"] <= t < k["end_wall"]),
                        key=lambda k: (k["start_wall"], k["idx"]))
        sets[j["idx"]] = [m[k["idx"]] for k in before] + [m[j["idx"]]]
    return sets


def kept_members(scorer, jobs, lid, progress=None):
    """Every multi-node job that ran as a keyed member ("NAME: HOSTS"),
    with the offsets it chose at its start: kept by the runtime model
    (--comm) when it ran, else chosen here, in start order (start, idx),
    beside the jobs running at its start that started before it."""
    keeper = scorer.keeper
    ran = sorted(ran_multi(jobs), key=lambda k: (k["start_wall"], k["idx"]))
    member = {}
    for j in ran:
        name = j.get("name") or "s%05d" % j["idx"]
        hosts = keeper.hosts.get(name)
        if hosts is not None and hosts != j["nodelist"]:
            if sorted(expand_hostlist(hosts)) != sorted(expand_hostlist(j["nodelist"])):
                keeper.forget(name)      # another job of that name: chosen again
                hosts = None
        member[j["idx"]] = job_line(name, hosts or j["nodelist"])
    groups = []
    for i, j in enumerate(ran):
        t = j["start_wall"]
        before = [member[k["idx"]] for k in ran[:i] if t < k["end_wall"]]
        groups.append(before + [member[j["idx"]]])
    scorer.choose(groups, lid, progress)
    return member


def score_policy(scorer, jobs, policy, lid="none"):
    """Adds hsd_alone(_max), neighbours, hsd_neigh(_max) and shared_links
    to every multi-node job that ran, with the policy's LID choice `lid`;
    with a choice also hsd_alone_1lid (one LID: what select/rlft
    predicts). With a choice every job keeps the offsets it chose at its
    start (kept_members): hsd_neigh and shared_links are with them;
    hsd_alone is the job choosing alone; lid_start what the choice met
    at the start (start_figures)."""
    def progress(what):
        def prog(done, total, secs):
            log("%s: scored %d/%d placements and sets%s (%.0f s)" % (
                policy, done, total, what, secs))
        return prog
    member = None
    if lid != "none":
        member = kept_members(scorer, jobs, lid, progress(", LID choice %s at the jobs' "
                                                          "starts" % lid))
        scorer.keeper.save()
    sets = neighbour_sets(jobs, member)
    alone = [j["nodelist"] for j in jobs if j["idx"] in sets]
    scorer.score_all(alone, list(sets.values()),
                     progress("" if lid == "none" else ", LID choice " + lid), lid=lid)
    if lid != "none":
        scorer.score_all(alone, [], progress(", alone on one LID"))
    for j in jobs:
        if j["idx"] not in sets:
            continue
        a = scorer.alone(j["nodelist"], lid)
        s = scorer.set_score(sets[j["idx"]], lid)
        j["hsd_alone"] = a[0]
        j["hsd_alone_max"] = a[1]
        if lid != "none":
            j["hsd_alone_1lid"] = scorer.alone(j["nodelist"])[0]
        if member is not None:
            st = scorer.keeper.start.get(split_line(member[j["idx"]])[0])
            if st:
                j["lid_start"] = st
        j["neighbours"] = len(sets[j["idx"]]) - 1
        j["hsd_neigh"] = s[0]
        j["hsd_neigh_max"] = s[1]
        j["shared_links"] = s[2]
