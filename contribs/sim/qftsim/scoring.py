# SPDX-License-Identifier: GPL-2.0-or-later
"""Congestion of the placements a policy made, by the routing core's own
scorer (qft score): every multi-node job alone, and the set of jobs
running at its start in lock-step. Scores are cached per fabric and
pattern (score-cache.json), so a second policy or --report-only reuses
them.

With a LID choice (`lid` job, dest or pair: `qft score --lid MODE --lmc
LMC`), the jobs of a set choose their offsets in the order the set lists
them, each beside those before it (the simulator lists them in the order
they started): the order is part of the set's score, and the cache keys
carry the mode, the LMC and the order. One LID (`lid` none) scores the
same whatever the order and the LMC (offset 0 is the base LID's route):
its keys are the sorted host lists, as before LID choice."""

import concurrent.futures
import hashlib
import json
import math
import os
import subprocess
import threading
import time

from .common import SimError, log

# Groups per qft score process at most: one process loads the fabric
# once for all of them, and a bound keeps the progress lines coming.
BATCH_MAX = 500


class Scorer:
    """qft score, alone and in lock-step with neighbours, cached."""

    def __init__(self, qft, fabric, pattern, workers, cache_path, tmpdir, lmc=0):
        self.qft = qft
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

    def key(self, hosts, lid="none"):
        """The cache key of a host list (alone) or of a set (a list of
        host lists): one LID sorted, a LID choice in the set's order and
        prefixed by the mode and the LMC."""
        if isinstance(hosts, str):
            return hosts if lid == "none" else "%s/lmc%d:%s" % (lid, self.lmc, hosts)
        if lid == "none":
            return "|".join(sorted(hosts))
        return "%s/lmc%d:%s" % (lid, self.lmc, "|".join(hosts))

    @staticmethod
    def order(lists, lid="none"):
        """The order a set is scored in, that of job_hsd: sorted for one
        LID, as given for a choice (each job beside those before it)."""
        return sorted(lists) if lid == "none" else list(lists)

    def command(self, path, lid="none"):
        """The qft score command line of a batch file."""
        cmd = [self.qft, "score", "--fabric", self.fabric, "--json", "--worst", "0",
               "--pattern", self.pattern, "--per-job", "--batch", path]
        if lid != "none":
            cmd += ["--lid", lid, "--lmc", str(self.lmc)]
        return cmd

    def _batch(self, groups, lid="none"):
        """[avg_hsd, max_hsd, shared_links, job_hsd] of each group (a list
        of host lists) from one `qft score --batch --per-job` process: one
        group per paragraph, one job per line, one JSON object per line
        back. job_hsd: each job's HSD beside the others, in the group's
        order (None for a group of one)."""
        path = os.path.join(self.tmpdir, "batch-%d-%d.jobs" % (os.getpid(), threading.get_ident()))
        with open(path, "w") as f:
            f.write("\n".join("\n".join(g) + "\n" for g in groups))
        cmd = self.command(path, lid)
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines = r.stdout.splitlines()
        if r.returncode != 0 or len(lines) != len(groups):
            # the file stays for a look: the error names its lines
            raise SimError("qft score --batch %s%s (%d groups, %d answers): %s" % (
                path, "" if lid == "none" else " --lid %s --lmc %d" % (lid, self.lmc),
                len(groups), len(lines), r.stderr.strip()[-500:]))
        os.unlink(path)
        out = []
        for line in lines:
            d = json.loads(line)
            out.append([d.get("avg_hsd"), d.get("max_hsd"), d.get("shared_links"),
                        d.get("job_hsd")])
        return out

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
        size = math.ceil(len(todo) / nbatch)
        batches = [todo[i:i + size] for i in range(0, len(todo), size)]
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


def neighbour_sets(jobs):
    """For each multi-node job that ran: the host lists of the multi-node
    jobs running at its start (start <= t < end), in the order they
    started, itself last (with a LID choice each chooses beside those
    before it)."""
    ran = [j for j in jobs if j.get("nodelist") and j.get("start_wall") is not None
           and j.get("end_wall") is not None and j.get("nodes", 0) > 1]
    sets = {}
    for j in ran:
        t = j["start_wall"]
        before = sorted((k for k in ran if k is not j and k["start_wall"] <= t < k["end_wall"]),
                        key=lambda k: (k["start_wall"], k["idx"]))
        sets[j["idx"]] = [k["nodelist"] for k in before] + [j["nodelist"]]
    return sets


def score_policy(scorer, jobs, policy, lid="none"):
    """Adds hsd_alone(_max), neighbours, hsd_neigh(_max) and shared_links
    to every multi-node job that ran, with the policy's LID choice `lid`;
    with a choice also hsd_alone_1lid (one LID: what select/rlft
    predicts)."""
    sets = neighbour_sets(jobs)
    alone = [j["nodelist"] for j in jobs if j["idx"] in sets]

    def progress(what):
        def prog(done, total, secs):
            log("%s: scored %d/%d placements and sets%s (%.0f s)" % (
                policy, done, total, what, secs))
        return prog
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
        j["neighbours"] = len(sets[j["idx"]]) - 1
        j["hsd_neigh"] = s[0]
        j["hsd_neigh_max"] = s[1]
        j["shared_links"] = s[2]
