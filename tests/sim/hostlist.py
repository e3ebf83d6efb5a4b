# SPDX-License-Identifier: GPL-2.0-or-later
"""Slurm host lists expanded for the checks of test-sim.sh, by a character
scan rather than the simulator's regular expression
(contribs/sim/qftsim/common.py), so that a fault in one is not the other's."""


def _items(text):
    """Split at the commas outside brackets."""
    item, depth = "", 0
    for c in text:
        if c == "," and depth == 0:
            yield item
            item = ""
            continue
        depth += (c == "[") - (c == "]")
        item += c
    if item:
        yield item


def _numbers(ranges):
    """0001-0003,0007 -> 0001 0002 0003 0007, each as wide as written."""
    for part in ranges.split(","):
        bounds = part.split("-")
        lo, hi = bounds[0], bounds[-1]
        for i in range(int(lo), int(hi) + 1):
            yield str(i).zfill(len(lo))


def expand(text):
    """n[0001-0003,0007],login1 -> n0001 n0002 n0003 n0007 login1."""
    out = []
    for item in _items(text):
        if "[" not in item:
            out.append(item)
            continue
        head, rest = item.split("[", 1)
        ranges, tail = rest.split("]", 1)
        out += [head + n + tail for n in _numbers(ranges)]
    return out
