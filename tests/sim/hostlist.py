# SPDX-License-Identifier: GPL-2.0-or-later
"""Slurm host lists expanded independently of the simulator's own code
(contribs/sim/qftsim/common.py), for the checks of test-sim.sh."""
import re


def expand(text):
    """n[0001-0003,0007],login1 -> n0001 n0002 n0003 n0007 login1."""
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
