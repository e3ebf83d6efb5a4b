# SPDX-License-Identifier: GPL-2.0-or-later
"""What lid-beside.py and place-beside.py share: a qft-sim run's kept
offsets (OUT/POLICY/lid-kept.txt, qftsim.scoring.Keeper's lines), the
kept file of a job's neighbours, and `qft score --lid pair` beside them."""
import json
import os
import subprocess
import sys


def kept_lines(out, policy):
    """The kept offsets' lines of a policy's run, by job name."""
    lines = {}
    with open(os.path.join(out, policy, "lid-kept.txt")) as f:
        for line in f:
            if line.strip():
                lines[line.split()[0]] = line
    return lines


def write_kept(path, neighbours, lines, who):
    """The neighbours' kept lines in `path`; stops naming any without."""
    missing = [k["name"] for k in neighbours if k["name"] not in lines]
    if missing:
        sys.exit("%s: no kept offsets for %s" % (who, ", ".join(missing)))
    with open(path, "w") as f:
        f.write("".join(lines[k["name"]] for k in neighbours))


def run(cmd, who):
    """A command's standard output; stops with its error otherwise."""
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit("%s: %s: %s" % (who, " ".join(cmd), r.stderr.strip()[-500:]))
    return r.stdout


def score_pair(qft, fabric, lmc, kept, batch, who, extra=()):
    """`qft score --lid pair` of a batch beside kept offsets: one JSON
    record per group. `extra`: more arguments (the search's budgets)."""
    cmd = [qft, "score", "--fabric", fabric, "--json", "--worst", "0", "--per-job",
           "--lid", "pair", "--lmc", str(lmc), "--lid-in", kept, "--batch", batch] + list(extra)
    return [json.loads(line) for line in run(cmd, who).splitlines() if line.strip()]
