# SPDX-License-Identifier: GPL-2.0-or-later
"""A policy's figures from its jobs: accounting (no job lost), utilisation,
waits, makespan, turnaround and throughput, HSD alone and with neighbours,
the runtime model's slowdown and node-hours lost (--comm), select/rlft's
placements by kind, and what the plots draw (busy-node timeline, slowdown
per size class)."""

from .cluster import FINAL_CANCELLED, FINAL_FAILED, FINAL_OK
from .common import mean, percentile
from .runtime import rate

# What summarise() copies from a run's record besides the jobs (kept in
# jobs.json, so --report-only can rebuild the report).
RUN_KEYS = ("times", "kill", "timed_out", "duplicate_records", "requeued", "sbatch_retries",
            "label", "jobcomp_truncated", "model", "lid", "lmc")

# select/rlft's QFT_PLACEMENT_KIND -> the report's category: a best fit
# and free hosts in tree order both mean no aligned block was free.
KIND_CATEGORY = {"product": "product", "two_leaves": "two_leaves",
                 "near_product": "near_product", "aligned": "aligned",
                 "unaligned": "unaligned", "best_fit": "fallback",
                 "tree_order": "fallback", "cons_tres": "cons_tres"}


def placement_kind(kind):
    """select/rlft's placement kind (QFT_PLACEMENT_KIND) as one of: product
    (a product shape, Shapes=products), two_leaves (no product: two leaves),
    near_product (the first nodes of a larger product, RoundUp=), aligned
    (whole blocks), unaligned (a size that is not a multiple of the block),
    fallback (no aligned block free: a best fit down the tree, or free hosts
    in tree order around required nodes), cons_tres; other when the job's
    environment did not say."""
    return KIND_CATEGORY.get(kind, "other")


def _share(values, test):
    return (sum(1 for x in values if test(x)) / len(values)) if values else None


def _at_one(h):
    """An HSD of 1.0 (congestion-free), up to the figures' rounding."""
    return h <= 1.0 + 1e-9


def _rlft_figures(jobs, scored):
    rl = [j["rlft"] for j in jobs if "rlft" in j]
    if not rl:
        return None
    agree = [j for j in scored if "rlft" in j]
    # a prediction played every stage, or a sample of them (the flow
    # budget): only the former must equal the score of every stage
    whole = [j for j in agree
             if j["rlft"].get("stages_played") == j["rlft"].get("stages_total")]

    def one_lid(j):
        # select/rlft predicts the placement on one LID: scored with a
        # LID choice, the job's one-LID score is the one to compare
        return j.get("hsd_alone_1lid", j["hsd_alone"])
    kinds = {}
    for j in agree:
        k = placement_kind(j["rlft"].get("kind"))
        e = kinds.setdefault(k, {"jobs": 0, "hsd1": 0, "hsd_sum": 0.0})
        e["jobs"] += 1
        e["hsd1"] += _at_one(one_lid(j))
        e["hsd_sum"] += one_lid(j)
    for e in kinds.values():
        e["hsd_mean"] = e.pop("hsd_sum") / e["jobs"]
    declined = [r["shape_waited"] for r in rl if "shape_waited" in r]
    return {
        "kinds": kinds,
        # jobs that ShapeWait= made wait (a declined start or backfill's
        # plan on a shape); those declined at least once, their mean wait
        "shape_waited": {"jobs": sum(1 for r in rl if "shape_wait" in r or "shape_waited" in r),
                         "declined": len(declined), "mean_s": mean(declined)},
        "logged": len(rl),
        "aligned": sum(1 for r in rl if r.get("kind") == "aligned"),
        "by_cons_tres": sum(1 for r in rl if r.get("kind") == "cons_tres"),
        "place_us_mean": mean([r["place_us"] for r in rl]),
        "predicted_equals_scored": sum(
            1 for j in whole if abs(j["rlft"]["predicted_avg"] - one_lid(j)) < 0.0015),
        "compared": len(whole),
        "sampled": len(agree) - len(whole),
    }


def summarise(jobs, hosts, run):
    st = {}
    for j in jobs:
        st[j["state"]] = st.get(j["state"], 0) + 1
    submitted = sum(1 for j in jobs if "jobid" in j)
    completed = sum(v for k, v in st.items() if k in FINAL_OK)
    failed = sum(v for k, v in st.items() if k in FINAL_FAILED)
    cancelled = sum(v for k, v in st.items() if k in FINAL_CANCELLED)
    ran = [j for j in jobs if j.get("start") is not None and j.get("end") is not None
           and j.get("nodelist")]
    subs = [j["submit"] for j in jobs if j.get("submit") is not None]
    ends = [j["end"] for j in ran]
    makespan = (max(ends) - min(subs)) if ran and subs else None
    used = sum(j["nodes"] * (j["end"] - j["start"]) for j in ran)
    util = used / (hosts * makespan) if makespan else None
    waits = [j["wait"] for j in jobs if j.get("wait") is not None]
    scored = [j for j in jobs if j.get("hsd_alone") is not None]
    alone = [j["hsd_alone"] for j in scored]
    neigh = [j["hsd_neigh"] for j in scored if j.get("hsd_neigh") is not None]
    shared = [j["shared_links"] for j in scored if j.get("shared_links") is not None]
    s = {
        "jobs": len(jobs), "submitted": submitted, "completed": completed,
        "failed": failed, "cancelled": cancelled,
        "rejected": st.get("REJECTED", 0), "lost": submitted - completed - failed - cancelled,
        "states": st,
        "no_job_lost": submitted == completed + failed + cancelled,
        "utilisation": util, "makespan": makespan,
        "node_seconds_used": used,
        "wait_mean": mean(waits), "wait_p95": percentile(waits, 95),
        "wait_max": max(waits) if waits else None,
        "scored_jobs": len(scored),
        "hsd1_alone_share": _share(alone, _at_one),
        "hsd1_neigh_share": _share(neigh, _at_one),
        "hsd_alone_mean": mean(alone), "hsd_alone_max": max(alone) if alone else None,
        # with a LID choice: the same jobs on one LID
        "hsd_alone_1lid_mean": mean([j["hsd_alone_1lid"] for j in scored
                                     if j.get("hsd_alone_1lid") is not None]),
        "hsd_alone_worst": max((j["hsd_alone_max"] for j in scored), default=None),
        "hsd_neigh_mean": mean(neigh), "hsd_neigh_max": max(neigh) if neigh else None,
        "hsd_neigh_worst": max((j["hsd_neigh_max"] for j in scored
                                if j.get("hsd_neigh_max") is not None), default=None),
        "shared_links_mean": mean(shared), "shared_links_max": max(shared) if shared else None,
        "shared_links_share": _share(shared, lambda x: x > 0),
    }
    s.update(_time_figures(jobs, ran, completed, makespan))
    rl = _rlft_figures(jobs, scored)
    if rl:
        s["rlft"] = rl
    iso = isolate_figures(jobs)
    if iso:
        s["isolate"] = iso
    ls = lid_start_figures(jobs)
    if ls:
        s["lid_start"] = ls
    s.update(run)
    return s


def _group_figures(jobs):
    """Count, mean wait, turnaround, slowdown and H of a group of jobs (the
    jobs that ran; slowdown and H with the runtime model, H of the
    multi-node jobs, time-weighted per job)."""
    ran = [j for j in jobs if j.get("start") is not None and j.get("end") is not None
           and j.get("nodelist")]
    model = [j for j in ran if j.get("run_model") is not None and j.get("work")]
    multi = [j for j in model if j.get("h_mean") is not None and j["nodes"] > 1]
    slow = [j["slowdown"] for j in model]
    return {
        "jobs": len(jobs), "ran": len(ran),
        "completed": sum(1 for j in jobs if j.get("state") in FINAL_OK),
        "wait_mean": mean([j["wait"] for j in ran if j.get("wait") is not None]),
        "turnaround_mean": mean([j["end"] - j["submit"] for j in ran
                                 if j.get("submit") is not None]),
        "slowdown_mean": mean(slow), "slowdown_max": max(slow) if slow else None,
        "h_mean": mean([j["h_mean"] for j in multi]),
    }


def lid_start_figures(jobs):
    """With a LID choice (jobs carry lid_start): over the multi-node jobs
    and over those above 256 nodes, their HSD at the start beside the
    running jobs with the offsets they chose (mean, share at 1.0), and
    with a pair choice what its search proved there: the mean floor
    (the least HSD any offsets give), the share of the jobs whose floor is
    1.0 (no stage proven congested: the most that any offsets could start
    at 1.0, a bound on the share at H = 1 all along) and the shares of the
    jobs' stages proven to congest and left undecided. With the runtime
    model too, the node-hours they would lose (share of their node-hours)
    running at their start's HSD all along, and at the floor: what these
    placements lose whatever the offsets (forced) against what the search
    left (start - floor) and what later neighbours added (lost - start).
    None without a choice."""
    out = {}
    for label, lo in (("multi", 1), ("above_256", 256)):
        with_st = [j for j in jobs if j.get("lid_start") and j["nodes"] > lo]
        st = [j["lid_start"] for j in with_st]
        if not st:
            continue
        pair = [s for s in st if "floor" in s]
        stages = sum(s["stages"] for s in pair)
        out[label] = {
            "jobs": len(st), "h_mean": mean([s["h"] for s in st]),
            "h1_share": _share([s["h"] for s in st], _at_one),
            "floor_mean": mean([s["floor"] for s in pair]),
            "floor1_share": _share([s["floor"] for s in pair], _at_one),
            "proven_share": sum(s["proven"] for s in pair) / stages if stages else None,
            "undecided_share": sum(s["undecided"] for s in pair) / stages if stages else None,
        }
        model = [j for j in with_st if j.get("run_model") is not None and j.get("work")
                 and j.get("comm") is not None]
        used = sum(j["nodes"] * j["run_model"] for j in model)
        if used and len(pair) == len(st):
            out[label]["lost_share"] = sum(
                j["nodes"] * max(0.0, j["run_model"] - j["work"]) for j in model) / used
            for key, fig in (("lost_at_start_share", "h"), ("lost_at_floor_share", "floor")):
                out[label][key] = sum(_lost_at(j, j["lid_start"][fig]) for j in model) / used
    return out or None


def _lost_at(job, h):
    """Node-seconds a job loses running at HSD h all along, at the runtime
    model's rate."""
    return job["nodes"] * max(0.0, job["work"] / rate(job["comm"], h) - job["work"])


def isolate_figures(jobs):
    """With --isolate (jobs carry isolate_asked): the jobs that ask
    isolation and the others apart (_group_figures), and for those that
    ask how many were submitted with --qft-isolate, got QFT_ISOLATED=1,
    ran at H > 1 at some time (h_max, the runtime model's) and, of those,
    how many had H > 1 alone (their own placement, qft score); None
    without --isolate."""
    if not any("isolate_asked" in j for j in jobs):
        return None
    asking = [j for j in jobs if j.get("isolate_asked")]
    others = [j for j in jobs if not j.get("isolate_asked")]
    a = _group_figures(asking)
    hot = [j for j in asking if j.get("h_max") is not None and j["h_max"] > 1.0 + 1e-9]
    a.update(submitted=sum(1 for j in asking if j.get("isolate_submitted")),
             isolated=sum(1 for j in asking if j.get("isolated")),
             model_jobs=sum(1 for j in asking if j.get("h_max") is not None),
             h_above_1=len(hot),
             h_above_1_alone=sum(1 for j in hot if (j.get("hsd_alone") or 1.0) > 1.0 + 1e-9))
    o = _group_figures(others)
    o["isolated"] = sum(1 for j in others if j.get("isolated"))
    return {"asking": a, "others": o}


def _time_figures(jobs, ran, completed, makespan):
    """Turnaround (end - submit, Slurm's stamps) and throughput (completed
    jobs per simulated hour of makespan); with the runtime model, slowdown
    (run / run alone on a congestion-free fabric, the job's own clock) and
    the share of node-hours lost to congestion; and the share the jobs
    held their nodes past their due ends while the model lagged (held,
    apart from run_model)."""
    turn = [j["end"] - j["submit"] for j in ran if j.get("submit") is not None]
    model = [j for j in jobs if j.get("run_model") is not None and j.get("work")]
    slow = [j["slowdown"] for j in model]
    used = sum(j["nodes"] * j["run_model"] for j in model)
    lost = sum(j["nodes"] * max(0.0, j["run_model"] - j["work"]) for j in model)
    held = sum(j["nodes"] * j.get("held", 0.0) for j in model)
    return {
        "node_hours_held_share": held / (used + held) if used + held else None,
        "turnaround_mean": mean(turn), "turnaround_p95": percentile(turn, 95),
        "throughput": completed / (makespan / 3600.0) if makespan else None,
        "model_jobs": len(model),
        "slowdown_mean": mean(slow), "slowdown_p95": percentile(slow, 95),
        "slowdown_max": max(slow) if slow else None,
        "h_mean": mean([j["h_mean"] for j in model if j.get("h_mean") is not None
                        and j["nodes"] > 1]),
        "node_hours_lost_share": lost / used if used else None,
    }


def size_classes(leaf, pod, hosts):
    """Job size classes for the slowdown plot: (label, lo, hi) by the
    fabric's leaf (m_1 hosts) and level-2 subtree (m_1 m_2 hosts)."""
    out = [("1", 1, 1)]
    if leaf > 1:
        out.append(("2-%d" % leaf, 2, leaf))
    if pod > leaf:
        out.append(("%d-%d" % (leaf + 1, pod), leaf + 1, pod))
    if hosts > pod:
        out.append((">%d" % pod, pod + 1, hosts))
    return out


def slowdown_by_class(jobs, classes):
    """Mean slowdown and job count per size class (None without jobs)."""
    out = []
    for label, lo, hi in classes:
        v = [j["slowdown"] for j in jobs if j.get("slowdown") is not None
             and lo <= j["nodes"] <= hi]
        out.append((label, mean(v), len(v)))
    return out


def class_figures(jobs, classes):
    """What users feel, per size class (label, lo, hi): for the jobs that
    ran, their count, mean turnaround (end - submit), and with the runtime
    model the mean slowdown, the node-hours lost to congestion (nodes x
    (run - run alone)) and their share of the class's node-hours. A dict
    per class; None where a class has no such job."""
    out = []
    for label, lo, hi in classes:
        ran = [j for j in jobs if j.get("start") is not None and j.get("end") is not None
               and j.get("nodelist") and lo <= j.get("nodes", 0) <= hi]
        turn = [j["end"] - j["submit"] for j in ran if j.get("submit") is not None]
        model = [j for j in ran if j.get("run_model") is not None and j.get("work")]
        used = sum(j["nodes"] * j["run_model"] for j in model)
        lost = sum(j["nodes"] * max(0.0, j["run_model"] - j["work"]) for j in model)
        out.append({"label": label, "jobs": len(ran), "turnaround_mean": mean(turn),
                    "slowdown_mean": mean([j["slowdown"] for j in model]),
                    "node_hours_lost": lost / 3600.0 if model else None,
                    "node_hours_lost_share": lost / used if used else None})
    return out


def timeline(jobs, hosts, bins=120):
    """Busy-node fraction over simulated time: the time-weighted mean over
    each of `bins` equal slices from the first submission to the last end.
    Returns slice mid-points (hours) and fractions."""
    ran = [j for j in jobs if j.get("start") is not None and j.get("end") is not None
           and j.get("nodelist")]
    subs = [j["submit"] for j in jobs if j.get("submit") is not None]
    if not ran or not subs:
        return [], []
    t_a, t_b = min(subs), max(j["end"] for j in ran)
    if t_b <= t_a:
        return [], []
    width = (t_b - t_a) / bins
    area = [0.0] * bins
    for j in ran:
        a, b = j["start"], j["end"]
        if b <= a:
            continue
        i = max(0, int((a - t_a) / width))
        while i < bins:
            lo = t_a + i * width
            hi = lo + width
            ov = min(b, hi) - max(a, lo)
            if ov > 0:
                area[i] += ov * j["nodes"]
            if hi >= b:
                break
            i += 1
    xs = [(t_a + (i + 0.5) * width) / 3600.0 for i in range(bins)]
    ys = [area[i] / (width * hosts) for i in range(bins)]
    return xs, ys
