# SPDX-License-Identifier: GPL-2.0-or-later
"""Helpers every module of qftsim uses: the error type, logging, figures."""

import importlib
import math
import os
import re
import subprocess
import sys
import time

# The repository: the package sits in contribs/sim/qftsim.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


class SimError(Exception):
    """Bad input or a cluster that does not work: exit status 1."""


def log(msg):
    sys.stderr.write("[qft-sim %s] %s\n" % (time.strftime("%H:%M:%S"), msg))
    sys.stderr.flush()


def fmt_dur(s):
    """Simulated seconds as 1h02m, 12m30s or 45s."""
    if s is None:
        return "-"
    s = int(round(s))
    if s >= 3600:
        return "%dh%02dm" % (s // 3600, (s % 3600) // 60)
    if s >= 60:
        return "%dm%02ds" % (s // 60, s % 60)
    return "%ds" % s


def expand_hostlist(text):
    """The hosts of a Slurm host list such as n[0001-0003,0007],login1."""
    out = []
    for m in re.finditer(r"([^,\[]+)(?:\[([^\]]+)\])?", text):
        pre, ranges = m.group(1), m.group(2)
        if not ranges:
            out.append(pre)
            continue
        for part in ranges.split(","):
            a, _, b = part.partition("-")
            out += ["%s%0*d" % (pre, len(a), i) for i in range(int(a), int(b or a) + 1)]
    return out


def percentile(values, q):
    """Linear interpolation between closest ranks (numpy's default)."""
    if not values:
        return None
    v = sorted(values)
    if len(v) == 1:
        return float(v[0])
    pos = (len(v) - 1) * q / 100.0
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def mean(values):
    return sum(values) / len(values) if values else None


def run(cmd, **kw):
    """subprocess.run with text output; raises SimError on failure."""
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, **kw)
    if r.returncode != 0:
        raise SimError("%s failed (exit %d): %s" % (
            " ".join(cmd[:3]), r.returncode, (r.stderr or r.stdout).strip()[-800:]))
    return r


def require(module, package, what, instead=None):
    """Imports `module` or stops with the Debian package that provides it.
    The simulator installs nothing itself: packages are the set-up
    scripts' job (contribs/scripts/deps.sh, which demo.sh and
    contribs/check.sh call), so a run never surprises with apt-get."""
    try:
        return importlib.import_module(module)
    except ImportError:
        msg = ("no Python module %s in %s, for %s: install the Debian package %s "
               "with contribs/scripts/deps.sh %s (as root)"
               % (module, sys.executable, what, package, package))
        if instead:
            msg += ", or " + instead
        raise SimError(msg)
