# SPDX-License-Identifier: GPL-2.0-or-later
"""The report of a run: OUT/report.txt (also on stdout), OUT/report.json,
and the plots OUT/hsd.png, OUT/util.png and, with the runtime model,
OUT/slowdown.png (matplotlib)."""

import json
import os
import sys

from .common import fmt_dur, log, require
from .metrics import size_classes, slowdown_by_class, timeline

HSD_BINS = [(1.0, 1.0 + 1e-9, "1.0"), (1.0 + 1e-9, 1.25, "(1,1.25]"), (1.25, 1.5, "(1.25,1.5]"),
            (1.5, 2.0, "(1.5,2]"), (2.0, 3.0, "(2,3]"), (3.0, 1e9, ">3")]
COLOURS = {"rlft": "#1b9e77", "rlft-nocong": "#66a61e", "rlft-reserve": "#e6ab02",
           "rlft-product": "#e7298a", "rlft-wait": "#a6761d", "rlft-apart": "#666666",
           "cons_tres": "#d95f02", "linear": "#7570b3"}
COLUMNS = "%-13s %5s %11s %6s %9s %9s %9s %7s %13s %13s %11s"
TIME_COLUMNS = "%-13s %10s %10s %8s %20s %7s %11s"


def need_plots(args):
    """Whether the run draws plots; stops before any cluster starts when
    they are wanted and matplotlib is missing, not after the run."""
    if args.no_plots:
        return False
    require("matplotlib", "python3-matplotlib", "the plots (hsd.png, util.png)",
            "give --no-plots")
    return True


def _pct(x):
    return "-" if x is None else "%.1f%%" % (100 * x)


def _mm(a, b, fmt="%.3f"):
    if a is None:
        return "-"
    return (fmt % a) + " / " + (fmt % b)


def _columns(fmt, rep):
    """`fmt` with its policy column as wide as the longest name (a sweep
    such as rlft-wait+ShapeHolds=1 is longer than 13)."""
    wide = max([13] + [len(n) for n in rep["policies_order"]])
    return fmt.replace("%-13s", "%%-%ds" % wide, 1)


def _table(rep):
    COLUMNS = _columns(globals()["COLUMNS"], rep)
    hdr = COLUMNS % ("policy", "jobs", "ok/fail/cn", "util", "wait avg", "wait p95", "makespan",
                     "HSD=1", "HSD alone", "HSD w/ neigh", "shared lnk")
    lines = [hdr, COLUMNS % ("", "", "", "", "", "", "", "alone", "mean / max", "mean / max",
                             "mean / max"), "-" * len(hdr)]
    for name in rep["policies_order"]:
        s = rep["policies"][name]
        lines.append(COLUMNS % (
            name, s["jobs"], "%d/%d/%d" % (s["completed"], s["failed"], s["cancelled"]),
            _pct(s["utilisation"]), fmt_dur(s["wait_mean"]), fmt_dur(s["wait_p95"]),
            fmt_dur(s["makespan"]), _pct(s["hsd1_alone_share"]),
            _mm(s["hsd_alone_mean"], s["hsd_alone_max"], "%.2f"),
            _mm(s["hsd_neigh_mean"], s["hsd_neigh_max"], "%.2f"),
            _mm(s["shared_links_mean"], s["shared_links_max"], "%.0f")
            if s["shared_links_mean"] is not None else "-"))
    return lines


def _time_table(rep):
    """Turnaround, throughput and, with the runtime model, slowdown, the
    mean H the jobs ran at and the node-hours lost to congestion."""
    TIME_COLUMNS = _columns(globals()["TIME_COLUMNS"], rep)
    hdr = TIME_COLUMNS % ("policy", "turnaround", "turnaround", "jobs/h", "slowdown",
                          "H run", "node-hours")
    lines = [hdr, TIME_COLUMNS % ("", "avg", "p95", "", "mean / p95 / max", "mean",
                                  "lost"), "-" * len(hdr)]
    for name in rep["policies_order"]:
        s = rep["policies"][name]
        slow = "-"
        if s.get("slowdown_mean") is not None:
            slow = "%.3f / %.2f / %.2f" % (s["slowdown_mean"], s["slowdown_p95"],
                                           s["slowdown_max"])
        lines.append(TIME_COLUMNS % (
            name, fmt_dur(s.get("turnaround_mean")), fmt_dur(s.get("turnaround_p95")),
            "-" if s.get("throughput") is None else "%.2f" % s["throughput"], slow,
            "-" if s.get("h_mean") is None else "%.2f" % s["h_mean"],
            _pct(s.get("node_hours_lost_share"))))
    return lines


def _model_notes(rep, jobs_by_policy):
    """The runtime model's definition and the slowdown per size class."""
    c = rep["workload"].get("comm")
    if not c:
        return []
    f = rep["fabric"]
    classes = size_classes(f["leaf"], f.get("pod") or f["hosts"], f["hosts"])
    lines = ["Runtime model --comm %s (mean f %.3f): rate 1/((1-f) + f H), H = HSD beside the "
             "jobs sharing links; slowdown = run / run alone on a congestion-free fabric"
             % (c["spec"], c["mean_f"])]
    for n in rep["policies_order"]:
        if n not in jobs_by_policy:
            continue
        by = slowdown_by_class(jobs_by_policy[n], classes)
        lines.append("%s slowdown by size: " % n + "; ".join(
            "%s %s (%d)" % (lab, "-" if m is None else "%.3f" % m, k) for lab, m, k in by))
        m = rep["policies"][n].get("model")
        if m:
            lines[-1] += "; model %d rounds, %.1f s scoring, %d limits raised" % (
                m["rounds"], m["score_secs"], m["limits_raised"])
    return lines


def _hsd_notes(rep):
    order, pol = rep["policies_order"], rep["policies"]
    lines = ["HSD: Shift, tree rank order, average over stages of the busiest link "
             "(1.00 = congestion-free); multi-node jobs only.",
             "Worst single stage (max_hsd), alone / with neighbours: " + "; ".join(
                 "%s %s/%s" % (n, pol[n]["hsd_alone_worst"], pol[n]["hsd_neigh_worst"])
                 for n in order),
             "Jobs whose start set shares links with another job: " + "; ".join(
                 "%s %s" % (n, _pct(pol[n]["shared_links_share"])) for n in order)]
    for n in order:
        r = pol[n].get("rlft")
        if r:
            lines.append("%s: %d placements logged, %.0f us mean; predicted HSD = scored for %d of %d "
                         "predictions of every stage (%d sampled)"
                         % (n, r["logged"], r["place_us_mean"] or 0,
                            r["predicted_equals_scored"], r["compared"], r.get("sampled", 0)))
            lines.append("  by kind (multi-node jobs): " + "; ".join(
                "%s %d (HSD=1 %d, mean %.2f)" % (k, e["jobs"], e["hsd1"], e["hsd_mean"])
                for k, e in sorted(r.get("kinds", {}).items(), key=lambda x: -x[1]["jobs"])))
    return lines


def _accounting(name, s):
    k = s.get("kill")
    extra = ""
    if k:
        extra = ("; slurmctld killed before job %s, %.1f s after the last submission, "
                 "back in %s s" % (k["before_job"] + 1 if k["before_job"] is not None else "?",
                                   k["quiet_s"], k["restart_s"]))
    if s.get("duplicate_records"):
        extra += ("; %d jobs with two jobcomp records (ended before the kill, unsaved, "
                  "ended again by the restarted slurmctld; the first end is kept)"
                  % s["duplicate_records"])
    if s.get("jobcomp_truncated"):
        extra += ("; %d jobcomp records cut short by slurmctld (node lists taken from squeue)"
                  % s["jobcomp_truncated"])
    if s.get("timed_out"):
        extra += "; TIMED OUT, the rest cancelled"
    return ("%-13s submitted %d = completed %d + failed %d + cancelled %d: %s "
            "(rejected by sbatch %d)%s; real %ss (start %ss, run %ss, scoring %ss)" % (
                name, s["submitted"], s["completed"], s["failed"], s["cancelled"],
                "ok" if s["no_job_lost"] else "LOST %d" % s["lost"], s["rejected"],
                extra, s["times"].get("total", "-"), s["times"].get("cluster_start", "-"),
                s["times"].get("run", "-"), s["times"].get("scoring", "-")))


def report_text(rep, jobs_by_policy=None):
    f = rep["fabric"]
    w = rep["workload"]
    wdesc = ", ".join("%s %s" % (k, w[k]) for k in
                      ("kind", "jobs", "seed", "load", "runtime", "file", "offered_load")
                      if w.get(k) is not None)
    lines = ["qft-sim report: %s" % f["describe"],
             "workload: %s; time compressed %gx (times below are simulated)"
             % (wdesc, rep["compress"])]
    if rep.get("kill_ctld_at") is not None:
        lines.append("slurmctld SIGKILLed and restarted at %.0f%% of the stream in every policy"
                     % (100 * rep["kill_ctld_at"]))
    lines.append("")
    lines += _table(rep)
    lines.append("")
    lines += _time_table(rep)
    notes = _model_notes(rep, jobs_by_policy or {})
    if notes:
        lines += [""] + notes
    lines.append("")
    lines += _hsd_notes(rep)
    lines.append("")
    lines += [_accounting(n, rep["policies"][n]) for n in rep["policies_order"]]
    return "\n".join(lines) + "\n"


def hsd_hist(values):
    out = []
    for lo, hi, _ in HSD_BINS:
        if lo == 1.0 and hi < 1.01:
            out.append(sum(1 for v in values if v <= hi))
        else:
            out.append(sum(1 for v in values if lo < v <= hi))
    n = len(values) or 1
    return [x / n for x in out]


def save_small_png(fig, path):
    """PNG at 80 dpi, quantised to a palette when Pillow is there (the plots
    are committed: small files)."""
    fig.savefig(path, dpi=80)
    try:
        from PIL import Image
        im = Image.open(path)
        im.convert("RGB").quantize(colors=64).save(path, optimize=True)
    except Exception:  # Pillow missing or old: keep matplotlib's PNG
        pass


def plots(rep, jobs_by_policy, out, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = rep["policies_order"]
    fig, axes = plt.subplots(1, 2, figsize=(8.0, 2.9), sharey=True)
    width = 0.8 / max(1, len(names))
    for ax, key, lab in ((axes[0], "hsd_alone", "alone"), (axes[1], "hsd_neigh", "with neighbours")):
        for i, n in enumerate(names):
            vals = [j[key] for j in jobs_by_policy[n] if j.get(key) is not None]
            h = hsd_hist(vals)
            xs = [b + (i - (len(names) - 1) / 2.0) * width for b in range(len(HSD_BINS))]
            ax.bar(xs, h, width, label=n, color=COLOURS.get(n))
        ax.set_xticks(range(len(HSD_BINS)))
        ax.set_xticklabels([b[2] for b in HSD_BINS], fontsize=7)
        ax.set_title("Shift HSD, %s" % lab, fontsize=9)
        ax.set_xlabel("average hot-spot degree", fontsize=8)
        ax.tick_params(labelsize=7)
    axes[0].set_ylabel("share of jobs", fontsize=8)
    axes[0].legend(fontsize=7)
    fig.suptitle(title, fontsize=8)
    fig.tight_layout()
    save_small_png(fig, os.path.join(out, "hsd.png"))
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(8.0, 3.0))
    for n in names:
        xs, ys = timeline(jobs_by_policy[n], rep["fabric"]["hosts"])
        if xs:
            ax.plot(xs, [100 * y for y in ys], label="%s (%.0f%%)" % (
                n, 100 * (rep["policies"][n]["utilisation"] or 0)), color=COLOURS.get(n),
                linewidth=0.8)
    ax.set_xlabel("simulated time (h)", fontsize=8)
    ax.set_ylabel("busy nodes (%)", fontsize=8)
    ax.set_ylim(0, 105)
    ax.tick_params(labelsize=7)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=len(names),
              frameon=False)
    ax.set_title("busy nodes (mean over 1/120 of the makespan); " + title, fontsize=8)
    fig.tight_layout()
    save_small_png(fig, os.path.join(out, "util.png"))
    plt.close(fig)
    if rep["workload"].get("comm"):
        slowdown_plot(plt, rep, jobs_by_policy, out, title)


def slowdown_plot(plt, rep, jobs_by_policy, out, title):
    """OUT/slowdown.png: mean slowdown per job size class and policy."""
    names = rep["policies_order"]
    f = rep["fabric"]
    classes = size_classes(f["leaf"], f.get("pod") or f["hosts"], f["hosts"])
    fig, ax = plt.subplots(figsize=(8.0, 2.9))
    width = 0.8 / max(1, len(names))
    for i, n in enumerate(names):
        by = slowdown_by_class(jobs_by_policy[n], classes)
        xs = [b + (i - (len(names) - 1) / 2.0) * width for b in range(len(classes))]
        ax.bar(xs, [(m or 1.0) - 1.0 for _, m, _ in by], width, bottom=1.0,
               label="%s (%.3f)" % (n, rep["policies"][n].get("slowdown_mean") or 1.0),
               color=COLOURS.get(n))
    ax.set_xticks(range(len(classes)))
    ax.set_xticklabels(["%s node%s" % (c[0], "" if c[0] == "1" else "s") for c in classes],
                       fontsize=7)
    ax.set_ylabel("mean slowdown", fontsize=8)
    ax.tick_params(labelsize=7)
    ax.legend(fontsize=7)
    ax.set_title("mean slowdown per job size (run / run alone, congestion-free), --comm %s\n%s"
                 % (rep["workload"]["comm"]["spec"], title), fontsize=8)
    fig.tight_layout()
    save_small_png(fig, os.path.join(out, "slowdown.png"))
    plt.close(fig)


def make_report(sim, winfo, results):
    return {"fabric": {"file": sim.fabric.path, "tuple": sim.fabric.tuple,
                       "kind": sim.fabric.kind,
                       "hosts": sim.fabric.hosts, "block": sim.fabric.block,
                       "leaf": sim.fabric.leaf, "pod": sim.fabric.pod,
                       "describe": sim.fabric.describe()},
            "workload": winfo, "compress": sim.compress, "pattern": sim.args.pattern,
            "kill_ctld_at": sim.args.kill_ctld_at,
            "policies_order": [p for p in sim.policies if p in results],
            "policies": results}


def write_report(sim, rep, jobs_by_policy, plots_ok):
    """Writes and prints the report; the exit status: 3 when a policy
    lost a job, else 0."""
    txt = report_text(rep, jobs_by_policy)
    with open(os.path.join(sim.out, "report.txt"), "w") as f:
        f.write(txt)
    with open(os.path.join(sim.out, "report.json"), "w") as f:
        json.dump(rep, f, indent=1, sort_keys=True)
    if plots_ok:
        w = rep["workload"]
        t = rep["fabric"]["tuple"]
        # the tree's name from the report itself: --report-only has no fabric
        tree = ("QFT of PGFT(%s)" if rep["fabric"].get("kind") == "qft" else "PGFT(%s)") % t
        title = sim.args.title or "%s%d hosts; %s, %s jobs, %gx" % (
            tree + ", " if t else "", rep["fabric"]["hosts"],
            w.get("kind"), w.get("jobs"), rep["compress"])
        plots(rep, jobs_by_policy, sim.out, title)
    sys.stdout.write(txt)
    sys.stdout.write("files: %s/report.txt report.json%s, per policy */jobs.json\n" % (
        sim.out, (" hsd.png util.png" + (" slowdown.png" if rep["workload"].get("comm") else ""))
        if plots_ok else ""))
    bad = [p for p in rep["policies_order"] if not rep["policies"][p]["no_job_lost"]]
    if bad:
        log("JOBS LOST in %s: submitted != completed + failed + cancelled" % ", ".join(bad))
        return 3
    return 0
