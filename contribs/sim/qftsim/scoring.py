# SPDX-License-Identifier: GPL-2.0-or-later
"""Congestion of the placements a policy made, by the routing core's own
scorer (qft score): every multi-node job alone, and the set of jobs
running at its start in lock-step. Scores are cached per fabric and
pattern (score-cache.json), so a second policy or --report-only reuses
them."""

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

    def __init__(self, qft, fabric, pattern, workers, cache_path, tmpdir):
        self.qft = qft
        self.fabric = fabric
        self.pattern = pattern
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

    def _batch(self, groups):
        """[avg_hsd, max_hsd, shared_links, job_hsd] of each group (a list
        of host lists) from one `qft score --batch --per-job` process: one
        group per paragraph, one job per line, one JSON object per line
        back. job_hsd: each job's HSD beside the others, in the group's
        order (None for a group of one)."""
        path = os.path.join(self.tmpdir, "batch-%d-%d.jobs" % (os.getpid(), threading.get_ident()))
        with open(path, "w") as f:
            f.write("\n".join("\n".join(g) + "\n" for g in groups))
        cmd = [self.qft, "score", "--fabric", self.fabric, "--json", "--worst", "0",
               "--pattern", self.pattern, "--per-job", "--batch", path]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines = r.stdout.splitlines()
        if r.returncode != 0 or len(lines) != len(groups):
            # the file stays for a look: the error names its lines
            raise SimError("qft score --batch %s (%d groups, %d answers): %s" % (
                path, len(groups), len(lines), r.stderr.strip()[-500:]))
        os.unlink(path)
        out = []
        for line in lines:
            d = json.loads(line)
            out.append([d.get("avg_hsd"), d.get("max_hsd"), d.get("shared_links"),
                        d.get("job_hsd")])
        return out

    def score_all(self, alone_lists, sets, progress=None, save=True):
        """alone_lists: host lists; sets: lists of host lists. Fills the
        cache, and writes it unless `save` is false (the runtime model's
        rounds: save() at the end)."""
        todo = []
        for hl in sorted(set(alone_lists)):
            if hl not in self.cache["alone"]:
                todo.append(("alone", hl, [hl]))
        seen = set()
        for s in sets:
            key = "|".join(sorted(s))
            # (a cache from before job_hsd has 3 figures: scored again)
            if len(self.cache["sets"].get(key, ())) < 4 and len(s) > 1 and key not in seen:
                seen.add(key)
                todo.append(("sets", key, sorted(s)))
        if not todo:
            return
        nbatch = min(len(todo), max(self.workers, math.ceil(len(todo) / BATCH_MAX)))
        size = math.ceil(len(todo) / nbatch)
        batches = [todo[i:i + size] for i in range(0, len(todo), size)]
        done = 0
        t0 = time.time()
        with concurrent.futures.ThreadPoolExecutor(self.workers) as ex:
            futs = {ex.submit(self._batch, [g for _, _, g in b]): b for b in batches}
            for fut in concurrent.futures.as_completed(futs):
                for (kind, key, _), score in zip(futs[fut], fut.result()):
                    self.cache[kind][key] = score
                done += len(futs[fut])
                self.calls += 1
                if progress:
                    progress(done, len(todo), time.time() - t0)
        if save:
            self.save()

    def alone(self, hl):
        return self.cache["alone"].get(hl)

    def set_score(self, lists):
        if len(lists) == 1:
            a = self.cache["alone"].get(lists[0])
            return [a[0], a[1], 0] if a else None
        return self.cache["sets"].get("|".join(sorted(lists)))


def neighbour_sets(jobs):
    """For each multi-node job that ran: the host lists of the multi-node
    jobs running at its start (start <= t < end), itself included."""
    ran = [j for j in jobs if j.get("nodelist") and j.get("start_wall") is not None
           and j.get("end_wall") is not None and j.get("nodes", 0) > 1]
    sets = {}
    for j in ran:
        t = j["start_wall"]
        s = [k["nodelist"] for k in ran
             if k is j or (k["start_wall"] <= t < k["end_wall"])]
        sets[j["idx"]] = s
    return sets


def score_policy(scorer, jobs, policy):
    """Adds hsd_alone(_max), neighbours, hsd_neigh(_max) and shared_links
    to every multi-node job that ran."""
    sets = neighbour_sets(jobs)
    alone = [j["nodelist"] for j in jobs if j["idx"] in sets]

    def prog(done, total, secs):
        log("%s: scored %d/%d placements and sets (%.0f s)" % (policy, done, total, secs))
    scorer.score_all(alone, list(sets.values()), prog)
    for j in jobs:
        if j["idx"] not in sets:
            continue
        a = scorer.alone(j["nodelist"])
        s = scorer.set_score(sets[j["idx"]])
        j["hsd_alone"] = a[0]
        j["hsd_alone_max"] = a[1]
        j["neighbours"] = len(sets[j["idx"]]) - 1
        j["hsd_neigh"] = s[0]
        j["hsd_neigh_max"] = s[1]
        j["shared_links"] = s[2]
