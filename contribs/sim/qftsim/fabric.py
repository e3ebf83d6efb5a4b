# SPDX-License-Identifier: GPL-2.0-or-later
"""The fabric a run uses: generated, copied or imported by the qft tool,
with its named hosts (the Slurm nodes, in tree order) and its tuple."""

import json
import os
import re
import shutil

from .common import SimError, run


class Fabric:
    """The fabric JSON, its named hosts in tree order and its tuple."""

    def __init__(self, path):
        self.path = path
        with open(path) as f:
            data = json.load(f)
        hosts = sorted(data.get("hosts", []), key=lambda h: h.get("index", 0))
        self.names = [h["name"] for h in hosts if h.get("name")]
        if not self.names:
            raise SimError("%s: no host has a name" % path)
        self.tuple = data.get("tree") or ""
        self.m = self.w = []
        if self.tuple:
            parts = self.tuple.split(";")
            try:
                self.m = [int(x) for x in parts[1].split(",")]
                self.w = [int(x) for x in parts[2].split(",")]
            except (IndexError, ValueError):
                self.m = self.w = []
        n = len(self.names)
        self.leaf = self.m[0] if self.m else min(18, n)
        self.pod = self.m[0] * self.m[1] if len(self.m) > 1 else n
        self.block = 1
        for x in self.w:
            self.block *= x

    @property
    def hosts(self):
        return len(self.names)

    def describe(self):
        t = "PGFT(%s)" % self.tuple if self.tuple else "fabric without a tree"
        return "%s, %d hosts, leaf %d, block %d" % (t, self.hosts, self.leaf, self.block)


def prepare_fabric(args, out, qft):
    """OUT/fabric.json, OUT/nodes (the Slurm node names),
    OUT/topology.conf (for the topology/tree policies) and
    OUT/topology-block.conf (topology/block, Slurm 24.11)."""
    path = os.path.join(out, "fabric.json")
    if args.pgft:
        tuple_ = args.pgft.strip()
        m = re.match(r"^(?:PGFT)?\((.*)\)$", tuple_)
        if m:
            tuple_ = m.group(1)
        run([qft, "gen", "pgft", tuple_, "-o", path])
    elif args.fabric:
        if os.path.abspath(args.fabric) != os.path.abspath(path):
            shutil.copyfile(args.fabric, path)
    elif args.ibnetdiscover:
        cmd = [qft, "import", "ibnetdiscover", args.ibnetdiscover, "-o", path]
        if args.names:
            cmd += ["--names", args.names]
        run(cmd)
    else:
        raise SimError("give a fabric: --pgft TUPLE, --fabric FILE or --ibnetdiscover FILE")
    fab = Fabric(path)
    with open(os.path.join(out, "nodes"), "w") as f:
        f.write("\n".join(fab.names) + "\n")
    run([qft, "topology-conf", "--fabric", path, "-o", os.path.join(out, "topology.conf")])
    run([qft, "topology-conf", "--block", "--fabric", path,
         "-o", os.path.join(out, "topology-block.conf")])
    return fab
