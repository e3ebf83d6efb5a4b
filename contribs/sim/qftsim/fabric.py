# SPDX-License-Identifier: GPL-2.0-or-later
"""The fabric a run uses: generated, copied or imported by the qft tool,
with its named hosts (the Slurm nodes, in tree order), its tuple and its
kind (a PGFT, or the QFT of a PGFT tuple: seed 002, docs/qft.md)."""

import json
import os
import re
import shutil

from .common import SimError, run


class Fabric:
    """The fabric JSON, its named hosts in tree order, its tuple and kind.

    leaf, pod and block come from the PGFT tuple (m_1, m_1 m_2, prod w)
    on a QFT too: the synthetic workloads size their jobs by them, so a
    QFT and the PGFT of the same tuple get the same job stream. A QFT's
    own sub-trees are larger (docs/qft.md, "Recognition and sub-trees");
    `qft topology-conf` writes them for the topology/tree and
    topology/block policies."""

    def __init__(self, path):
        self.path = path
        with open(path) as f:
            data = json.load(f)
        hosts = sorted(data.get("hosts", []), key=lambda h: h.get("index", 0))
        self.names = [h["name"] for h in hosts if h.get("name")]
        if not self.names:
            raise SimError("%s: no host has a name" % path)
        self.tuple = data.get("tree") or ""
        self.kind = data.get("tree_kind") or "pgft"
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

    def tree_name(self):
        """"PGFT(t)" or "QFT of PGFT(t)"; "" without a tree."""
        if not self.tuple:
            return ""
        t = "PGFT(%s)" % self.tuple
        return "QFT of " + t if self.kind == "qft" else t

    @property
    def hosts(self):
        return len(self.names)

    def describe(self):
        t = self.tree_name() or "fabric without a tree"
        return "%s, %d hosts, leaf %d, block %d" % (t, self.hosts, self.leaf, self.block)


def prepare_fabric(args, out, qft):
    """OUT/fabric.json, OUT/nodes (the Slurm node names),
    OUT/topology.conf (for the topology/tree policies) and
    OUT/topology-block.conf (topology/block, Slurm 24.11)."""
    path = os.path.join(out, "fabric.json")
    gen = [(k, v) for k, v in (("pgft", args.pgft), ("qft", args.qft)) if v]
    if len(gen) > 1:
        raise SimError("give one of --pgft and --qft")
    if gen:
        kind, tuple_ = gen[0][0], gen[0][1].strip()
        # "PGFT(t)", "QFT(t)", "QFT of PGFT(t)" or the bare tuple t
        m = re.match(r"^(?:QFT of )?(?:PGFT|QFT)?\((.*)\)$", tuple_)
        if m:
            tuple_ = m.group(1)
        run([qft, "gen", kind, tuple_, "-o", path])
    elif args.fabric:
        if os.path.abspath(args.fabric) != os.path.abspath(path):
            shutil.copyfile(args.fabric, path)
    elif args.ibnetdiscover:
        cmd = [qft, "import", "ibnetdiscover", args.ibnetdiscover, "-o", path]
        if args.names:
            cmd += ["--names", args.names]
        run(cmd)
    else:
        raise SimError("give a fabric: --pgft TUPLE, --qft TUPLE, --fabric FILE or "
                       "--ibnetdiscover FILE")
    fab = Fabric(path)
    with open(os.path.join(out, "nodes"), "w") as f:
        f.write("\n".join(fab.names) + "\n")
    run([qft, "topology-conf", "--fabric", path, "-o", os.path.join(out, "topology.conf")])
    run([qft, "topology-conf", "--block", "--fabric", path,
         "-o", os.path.join(out, "topology-block.conf")])
    return fab
