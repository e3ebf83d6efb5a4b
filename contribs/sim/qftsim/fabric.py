# SPDX-License-Identifier: GPL-2.0-or-later
"""The fabric a run uses: generated, copied or imported by the qft tool,
with its named hosts (the Slurm nodes, in tree order), its tuple and its
kind (a PGFT, or the QFT of a PGFT tuple: seed 002, docs/qft.md)."""

import json
import math
import os
import re
import shutil

from .common import SimError, run

# Unicast LIDs 0x0001-0xBFFF: every host's 2^LMC LIDs and a LID per switch
# must fit in them (lib/fabric's check_lid_space).
UNICAST_LIDS = 49151


def lid_space(hosts, switches, lmc):
    """LIDs a fabric of `hosts` hosts and `switches` switches needs at LMC
    `lmc`: 2^LMC per host and one per switch."""
    return hosts * (1 << lmc) + switches


def check_lid_space(hosts, switches, lmc, what, spare=0):
    """SimError unless the LIDs fit, naming the largest LMC that does.
    `spare`: host blocks the LID assignment leaves unused (qft gen: the
    block of LID 0)."""
    need = lid_space(hosts + spare, switches, lmc)
    if need <= UNICAST_LIDS:
        return
    fits = [l for l in range(lmc) if lid_space(hosts + spare, switches, l) <= UNICAST_LIDS]
    raise SimError("--lmc %d: %s needs (%d hosts%s) x %d LIDs + %d switch LIDs = %d LIDs, more "
                   "than the %d unicast LIDs (0x0001-0xBFFF); %s" % (
                       lmc, what, hosts, " + %d unused block of LID 0" % spare if spare else "",
                       1 << lmc, switches, need, UNICAST_LIDS,
                       "the largest LMC that fits is %d" % fits[-1] if fits else "no LMC fits"))


def tuple_counts(tuple_):
    """Hosts and switches of PGFT(h; m..; w..; p..) (the QFT of the tuple
    has as many): prod m_i hosts, and at level l prod_{i>l} m_i x
    prod_{i<=l} w_i switches."""
    try:
        parts = tuple_.split(";")
        h = int(parts[0])
        m = [int(x) for x in parts[1].split(",")]
        w = [int(x) for x in parts[2].split(",")]
    except (IndexError, ValueError):
        return None
    if len(m) != h or len(w) != h:
        return None
    hosts = math.prod(m)
    switches = sum(math.prod(m[l:]) * math.prod(w[:l]) for l in range(1, h + 1))
    return hosts, switches


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
        # LIDs: the file's LMC, every host's base LID, the switches'
        # count; `lmc` is the LMC the run scores at (prepare_fabric)
        self.file_lmc = int(data.get("lmc") or 0)
        self.lmc = self.file_lmc
        self.all_hosts = len(hosts)
        self.switches = len(data.get("switches", []))
        self.host_lids = {h.get("name") or h.get("guid"): h.get("lid") for h in hosts}
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
        return "%s, %d hosts, leaf %d, block %d%s" % (
            t, self.hosts, self.leaf, self.block, ", LMC %d" % self.lmc if self.lmc else "")

    def use_lmc(self, lmc):
        """Scores at LMC `lmc` (the file's when None): its LIDs must fit
        the unicast space and every host's base LID be a multiple of
        2^LMC (as `qft gen --lmc` and OpenSM's -l assign them), else
        SimError."""
        if lmc is None:
            lmc = self.file_lmc
        if lmc:
            check_lid_space(self.all_hosts, self.switches, lmc, self.path)
            bad = sorted(str(n) for n, lid in self.host_lids.items()
                         if not isinstance(lid, int) or lid <= 0 or lid % (1 << lmc))
            if bad:
                raise SimError("--lmc %d: %s: the base LID of %d host(s) (%s%s) is not a "
                               "multiple of 2^%d = %d: generate the fabric with --lmc (qft gen "
                               "--lmc), or discover it under OpenSM -l %d" % (
                                   lmc, self.path, len(bad), ", ".join(bad[:3]),
                                   ", ..." if len(bad) > 3 else "", lmc, 1 << lmc, lmc))
        self.lmc = lmc


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
        cmd = [qft, "gen", kind, tuple_, "-o", path]
        if args.lmc:
            counts = tuple_counts(tuple_)
            if counts:
                # qft gen gives hosts LIDs from 2^LMC up: the block of
                # LID 0 stays unused, one host's worth
                check_lid_space(counts[0], counts[1], args.lmc,
                                "%s(%s)" % (kind.upper(), tuple_), spare=1)
            cmd += ["--lmc", str(args.lmc)]
        run(cmd)
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
    fab.use_lmc(args.lmc)
    with open(os.path.join(out, "nodes"), "w") as f:
        f.write("\n".join(fab.names) + "\n")
    run([qft, "topology-conf", "--fabric", path, "-o", os.path.join(out, "topology.conf")])
    run([qft, "topology-conf", "--block", "--fabric", path,
         "-o", os.path.join(out, "topology-block.conf")])
    return fab
