# SPDX-License-Identifier: GPL-2.0-or-later
"""The report of a run: OUT/report.txt (also on stdout), OUT/report.json,
and the plots OUT/users.png (what users feel per job size: turnaround and,
with the runtime model, slowdown and node-hours lost to congestion),
OUT/hsd.png, OUT/util.png and, with the runtime model, OUT/slowdown.png
(matplotlib). The plots are drawn to be read as they open: 1600 pixels
wide or more, no text under 11 points."""

import json
import os
import sys

from .common import fmt_dur, log, require
from .metrics import class_figures, size_classes, slowdown_by_class, timeline

HSD_BINS = [(1.0, 1.0 + 1e-9, "1.0"), (1.0 + 1e-9, 1.25, "(1,1.25]"), (1.25, 1.5, "(1.25,1.5]"),
            (1.5, 2.0, "(1.5,2]"), (2.0, 3.0, "(2,3]"), (3.0, 1e9, ">3")]
COLOURS = {"rlft": "#1b9e77", "rlft-nocong": "#66a61e", "rlft-reserve": "#e6ab02",
           "rlft-product": "#e7298a", "rlft-wait": "#a6761d", "rlft-apart": "#666666",
           "cons_tres": "#d95f02", "linear": "#7570b3", "cons_tres-lid": "#1f78b4",
           "cons_tres-qft": "#b15928", "block": "#6a3d9a"}
# for the names COLOURS lacks (sweeps such as rlft+LidChoice=dest)
SPARE_COLOURS = ["#e31a1c", "#33a02c", "#fb9a99", "#a6cee3", "#cab2d6", "#fdbf6f", "#b2df8a"]
# sizes of the plots (inches at DPI) and of their text (points)
DPI = 100
WIDTH = 16.0
FONT = {"tick": 12, "label": 13, "title": 14, "legend": 12, "suptitle": 14}
COLUMNS = "%-13s %5s %11s %6s %9s %9s %9s %7s %13s %13s %11s"
TIME_COLUMNS = "%-13s %10s %10s %8s %20s %7s %11s"


def colours(names):
    """A colour per policy name: COLOURS', else a spare one no other name
    of the run has."""
    spare = [c for c in SPARE_COLOURS if c not in [COLOURS.get(n) for n in names]]
    out = {}
    for n in names:
        out[n] = COLOURS.get(n) or (spare.pop(0) if spare else None)
    return out


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
            if m.get("paused") is not None:
                lines[-1] += ", the world stopped %d times for it (%.1f real s" % (
                    m["paused"], m["paused_secs"])
                if m.get("paused_max") is not None:
                    lines[-1] += ", the longest %.1f s" % m["paused_max"]
                lines[-1] += ")"
            if m.get("held"):
                held = rep["policies"][n].get("node_hours_held_share")
                lines[-1] += (", %d jobs held %.1f real s for their first rate (%s of "
                              "the node-hours, outside slowdown and lost)" % (
                                  m["held"], m["held_secs"], _pct(held)))
    return lines


def _lid_notes(rep):
    """The LID choice each policy was scored with, and what it did to
    the jobs alone (their one-LID HSD beside the chosen one)."""
    pol = rep["policies"]
    if not any(pol[n].get("lmc") for n in rep["policies_order"]):
        return []
    parts = []
    for n in rep["policies_order"]:
        s = pol[n]
        part = "%s %s" % (n, s.get("lid") or "none")
        if s.get("hsd_alone_1lid_mean") is not None and s.get("hsd_alone_mean") is not None:
            part += " (HSD alone %.2f on one LID, %.2f chosen)" % (
                s["hsd_alone_1lid_mean"], s["hsd_alone_mean"])
        parts.append(part)
    lmc = max(pol[n].get("lmc") or 0 for n in rep["policies_order"])
    lines = ["LID choice at LMC %d (HSD figures with the offsets chosen; each job chooses once, "
             "at its start, beside the running jobs, and keeps them): %s" % (lmc, "; ".join(parts))]
    for n in rep["policies_order"]:
        ls = pol[n].get("lid_start")
        if not ls:
            continue
        lines.append("%s at the starts, beside the running jobs: %s" % (n, "; ".join(
            _start_part(label, ls[key]) for key, label in (("multi", "multi-node jobs"),
                                                           ("above_256", "above 256 nodes"))
            if key in ls)))
    return lines


def _start_part(label, s):
    """One class of lid_start_figures as the report says it."""
    part = "%s (%d) HSD %.2f, %s at 1.0" % (label, s["jobs"], s["h_mean"], _pct(s["h1_share"]))
    if s.get("floor_mean") is not None:
        part += (", proven floor %.2f (stages proven congested %s, undecided %s; "
                 "jobs that any offsets could start at 1.0 at most %s)") % (
            s["floor_mean"], _pct(s["proven_share"]), _pct(s["undecided_share"]),
            _pct(s["floor1_share"]))
    if s.get("lost_share") is not None:
        part += ", node-hours lost %s (at the start's HSD all along %s, at the floor %s)" % (
            _pct(s["lost_share"]), _pct(s["lost_at_start_share"]),
            _pct(s["lost_at_floor_share"]))
    return part


def _class_table(rep, jobs_by_policy):
    """What users feel per job size class: jobs, mean turnaround, mean
    slowdown and node-hours lost to congestion (the runtime model's)."""
    if not jobs_by_policy:
        return []
    f = rep["fabric"]
    classes = size_classes(f["leaf"], f.get("pod") or f["hosts"], f["hosts"])
    wide = max([13] + [len(n) for n in rep["policies_order"]])
    fmt = "%-9s %-" + str(wide) + "s %5s %11s %9s %19s"
    hdr = fmt % ("nodes", "policy", "jobs", "turnaround", "slowdown", "node-hours lost")
    lines = ["By job size (what users feel): mean turnaround; with the runtime model mean "
             "slowdown and node-hours lost to congestion (share of the class's node-hours)",
             hdr, "-" * len(hdr)]
    by = {n: class_figures(jobs_by_policy[n], classes) for n in rep["policies_order"]
          if n in jobs_by_policy}
    for i, (label, _, _) in enumerate(classes):
        for n in rep["policies_order"]:
            if n not in by:
                continue
            c = by[n][i]
            lost = "-"
            if c["node_hours_lost"] is not None:
                lost = "%.*f (%s)" % (1 if c["node_hours_lost"] < 10 else 0, c["node_hours_lost"],
                                      _pct(c["node_hours_lost_share"]))
            lines.append(fmt % (label, n, c["jobs"], fmt_dur(c["turnaround_mean"]),
                                "-" if c["slowdown_mean"] is None else "%.3f" % c["slowdown_mean"],
                                lost))
    return lines


def _isolate_table(rep):
    """With --isolate: per policy the jobs that ask isolation and the
    others apart (count, mean wait, turnaround, slowdown, mean H of the
    multi-node ones), how many of those that ask ran with QFT_ISOLATED=1
    and at H > 1 at some time (of which H > 1 alone, by their own
    placement), and the whole stream's utilisation."""
    iso = rep["workload"].get("isolate")
    if not iso:
        return []
    order, pol = rep["policies_order"], rep["policies"]
    wide = max([13] + [len(n) for n in order])
    fmt = "%-" + str(wide) + "s %-6s %5s %9s %11s %9s %6s %13s %11s %6s"
    hdr = fmt % ("policy", "group", "jobs", "wait avg", "turnaround", "slowdown", "H run",
                 "QFT_ISOLATED", "H>1 (alone)", "util")
    lines = ["Isolation --isolate %s: %d of the %d jobs at f = %g ask (sbatch --qft-isolate under "
             "%s; as usual under the others, counted apart all the same); H run: mean H of "
             "the multi-node jobs; H>1: jobs that ran at H > 1 at some time (alone: of them, "
             "H > 1 by their own placement); util: the whole stream" % (
                 iso["spec"], iso["jobs"], iso["of"], iso["f"],
                 ", ".join(p for p in order if p in iso.get("policies", ())) or "no policy"),
             hdr, "-" * len(hdr)]

    def num(x, f):
        return "-" if x is None else f % x
    for n in order:
        g = pol[n].get("isolate")
        if not g:
            continue
        for group in ("asking", "others"):
            e = g[group]
            if group == "asking":
                isol = ("%d/%d" % (e["isolated"], e["jobs"]) if e["submitted"]
                        else "not asked")
                hot = ("-" if not e["model_jobs"] else "%d (%d)" % (e["h_above_1"],
                                                                  e["h_above_1_alone"]))
            else:
                isol = "%d" % e["isolated"] if e["isolated"] else "-"
                hot = "-"
            lines.append((fmt % (
                n, group, e["jobs"], fmt_dur(e["wait_mean"]),
                fmt_dur(e["turnaround_mean"]), num(e["slowdown_mean"], "%.3f"),
                num(e["h_mean"], "%.2f"), isol, hot,
                _pct(pol[n]["utilisation"]) if group == "asking" else "")).rstrip())
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
            w = r.get("shape_waited") or {}
            if w.get("jobs"):
                lines.append("  waited for a shape (ShapeWait=): %d jobs; %d declined a start, "
                             "waiting %s on average from the first decline"
                             % (w["jobs"], w["declined"],
                                fmt_dur(w["mean_s"]) if w["mean_s"] is not None else "-"))
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
    if s.get("requeued"):
        extra += ("; %d jobs requeued by slurmctld after a failed start (NODE_FAIL: a batch "
                  "launch timed out; the run after it is kept, the wait from the first "
                  "submission)" % s["requeued"])
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
    table = _class_table(rep, jobs_by_policy or {})
    if table:
        lines += [""] + table
    table = _isolate_table(rep)
    if table:
        lines += [""] + table
    lines.append("")
    lines += _lid_notes(rep)
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
    """PNG at DPI, quantised to a palette when Pillow is there (the plots
    are committed: small files)."""
    fig.savefig(path, dpi=DPI)
    try:
        from PIL import Image
        im = Image.open(path)
        im.convert("RGB").quantize(colors=64).save(path, optimize=True)
    except Exception:  # Pillow missing or old: keep matplotlib's PNG
        pass


def _bars(ax, names, col, values, nclasses):
    """Grouped bars: one group per class, one bar per policy; `values`
    maps a policy to its figure per class (None: no bar)."""
    width = 0.8 / max(1, len(names))
    for i, n in enumerate(names):
        xs = [b + (i - (len(names) - 1) / 2.0) * width for b in range(nclasses)]
        ys = values[n]
        ax.bar([x for x, y in zip(xs, ys) if y is not None], [y for y in ys if y is not None],
               width, label=n, color=col[n])


def _style(ax, title, xlabel, ylabel):
    ax.set_title(title, fontsize=FONT["title"])
    ax.set_xlabel(xlabel, fontsize=FONT["label"])
    ax.set_ylabel(ylabel, fontsize=FONT["label"])
    ax.tick_params(labelsize=FONT["tick"])
    ax.grid(axis="y", alpha=0.3)


def users_plot(plt, rep, jobs_by_policy, out, title):
    """OUT/users.png: per job size class and policy, the mean turnaround
    and, with the runtime model, the mean slowdown and the node-hours
    lost to congestion."""
    names = [n for n in rep["policies_order"] if n in jobs_by_policy]
    col = colours(names)
    f = rep["fabric"]
    classes = size_classes(f["leaf"], f.get("pod") or f["hosts"], f["hosts"])
    by = {n: class_figures(jobs_by_policy[n], classes) for n in names}
    model = bool(rep["workload"].get("comm"))
    panels = [("mean turnaround (submit to end)", "hours", "turnaround_mean", 1 / 3600.0)]
    if model:
        panels += [("mean slowdown", "run / run alone, congestion-free", "slowdown_mean", 1.0),
                   ("node-hours lost to congestion", "node-hours (nodes x (run - run alone))",
                    "node_hours_lost", 1.0)]
    fig, axes = plt.subplots(1, len(panels), figsize=(max(WIDTH, 6.2 * len(panels)), 6.0),
                             squeeze=False)
    labels = ["%s node%s" % (c[0], "" if c[0] == "1" else "s") for c in classes]
    for ax, (what, unit, key, scale) in zip(axes[0], panels):
        vals = {n: [None if c[key] is None else c[key] * scale for c in by[n]] for n in names}
        _bars(ax, names, col, vals, len(classes))
        if key == "slowdown_mean":
            lo = min([v for n in names for v in vals[n] if v is not None] or [1.0])
            ax.set_ylim(min(1.0, lo) - 0.005, None)
        ax.set_xticks(range(len(classes)))
        ax.set_xticklabels(labels, fontsize=FONT["tick"])
        _style(ax, what, "job size", unit)
    # the legend names each policy's whole-run figures
    handles, _ = axes[0][0].get_legend_handles_labels()
    legend = []
    for n in names:
        s = rep["policies"][n]
        text = "%s: turnaround %s" % (n, fmt_dur(s.get("turnaround_mean")))
        if model and s.get("slowdown_mean") is not None:
            text += ", slowdown %.3f, node-hours lost %s" % (
                s["slowdown_mean"], _pct(s.get("node_hours_lost_share")))
        if s.get("lmc"):
            text += ", LID choice %s" % (s.get("lid") or "none")
        legend.append(text)
    fig.legend(handles, legend, loc="lower center", ncol=min(2, len(names)),
               fontsize=FONT["legend"], frameon=False)
    fig.suptitle("What users feel, by job size; " + title, fontsize=FONT["suptitle"])
    fig.tight_layout(rect=(0, 0.06 + 0.045 * ((len(names) + 1) // 2), 1, 1))
    save_small_png(fig, os.path.join(out, "users.png"))
    plt.close(fig)


def plots(rep, jobs_by_policy, out, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = rep["policies_order"]
    col = colours(names)
    users_plot(plt, rep, jobs_by_policy, out, title)

    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 6.0), sharey=True)
    width = 0.8 / max(1, len(names))
    for ax, key, lab in ((axes[0], "hsd_alone", "alone"), (axes[1], "hsd_neigh", "with neighbours")):
        for i, n in enumerate(names):
            vals = [j[key] for j in jobs_by_policy[n] if j.get(key) is not None]
            h = hsd_hist(vals)
            xs = [b + (i - (len(names) - 1) / 2.0) * width for b in range(len(HSD_BINS))]
            ax.bar(xs, h, width, label=n, color=col[n])
        ax.set_xticks(range(len(HSD_BINS)))
        ax.set_xticklabels([b[2] for b in HSD_BINS], fontsize=FONT["tick"])
        _style(ax, "Shift HSD, %s" % lab, "average hot-spot degree", "")
    axes[0].set_ylabel("share of jobs", fontsize=FONT["label"])
    axes[0].legend(fontsize=FONT["legend"])
    fig.suptitle(title, fontsize=FONT["suptitle"])
    fig.tight_layout()
    save_small_png(fig, os.path.join(out, "hsd.png"))
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(WIDTH, 6.0))
    for n in names:
        xs, ys = timeline(jobs_by_policy[n], rep["fabric"]["hosts"])
        if xs:
            ax.plot(xs, [100 * y for y in ys], label="%s (%.0f%%)" % (
                n, 100 * (rep["policies"][n]["utilisation"] or 0)), color=col[n],
                linewidth=1.5)
    _style(ax, "busy nodes (mean over 1/120 of the makespan); " + title,
           "simulated time (h)", "busy nodes (%)")
    ax.set_ylim(0, 105)
    ax.legend(fontsize=FONT["legend"], loc="upper center", bbox_to_anchor=(0.5, -0.12),
              ncol=len(names), frameon=False)
    fig.tight_layout()
    save_small_png(fig, os.path.join(out, "util.png"))
    plt.close(fig)
    if rep["workload"].get("comm"):
        slowdown_plot(plt, rep, jobs_by_policy, out, title)


def slowdown_plot(plt, rep, jobs_by_policy, out, title):
    """OUT/slowdown.png: mean slowdown per job size class and policy."""
    names = rep["policies_order"]
    col = colours(names)
    f = rep["fabric"]
    classes = size_classes(f["leaf"], f.get("pod") or f["hosts"], f["hosts"])
    fig, ax = plt.subplots(figsize=(WIDTH, 6.0))
    width = 0.8 / max(1, len(names))
    for i, n in enumerate(names):
        by = slowdown_by_class(jobs_by_policy[n], classes)
        xs = [b + (i - (len(names) - 1) / 2.0) * width for b in range(len(classes))]
        ax.bar(xs, [(m or 1.0) - 1.0 for _, m, _ in by], width, bottom=1.0,
               label="%s (%.3f)" % (n, rep["policies"][n].get("slowdown_mean") or 1.0),
               color=col[n])
    ax.set_xticks(range(len(classes)))
    ax.set_xticklabels(["%s node%s" % (c[0], "" if c[0] == "1" else "s") for c in classes],
                       fontsize=FONT["tick"])
    _style(ax, "mean slowdown per job size (run / run alone, congestion-free), --comm %s\n%s"
           % (rep["workload"]["comm"]["spec"], title), "job size", "mean slowdown")
    ax.legend(fontsize=FONT["legend"])
    fig.tight_layout()
    save_small_png(fig, os.path.join(out, "slowdown.png"))
    plt.close(fig)


def make_report(sim, winfo, results):
    return {"fabric": {"file": sim.fabric.path, "tuple": sim.fabric.tuple,
                       "kind": sim.fabric.kind,
                       "hosts": sim.fabric.hosts, "block": sim.fabric.block,
                       "leaf": sim.fabric.leaf, "pod": sim.fabric.pod,
                       "lmc": sim.fabric.lmc,
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
        sim.out, (" users.png hsd.png util.png" + (
            " slowdown.png" if rep["workload"].get("comm") else "")) if plots_ok else ""))
    bad = [p for p in rep["policies_order"] if not rep["policies"][p]["no_job_lost"]]
    if bad:
        log("JOBS LOST in %s: submitted != completed + failed + cancelled" % ", ".join(bad))
        return 3
    return 0
