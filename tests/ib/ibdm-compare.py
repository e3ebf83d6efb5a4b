#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Helpers of test-ibdm.sh: qft's per-link flow counts against ibdm's.

  ibdm-compare.py check FABRIC.json DUMPDIR
      Checks that OpenSM kept the LIDs of FABRIC.json (DUMPDIR/guid2lid) and
      that DUMPDIR/opensm.fdbs and DUMPDIR/opensm-lfts.dump hold the same
      tables.
  ibdm-compare.py traces FABRIC.json FLOWS TRACES ROOTS
      Writes TRACES ("STAGE SRC_LID DST_LID", from qft's --flows file FLOWS)
      and ROOTS (the top switches' node GUIDs).
  ibdm-compare.py compare FABRIC.json FLOWS QFT_LOADS IBDM_LOADS [REPORT]
      Per stage: ibdm's count equals qft's on every link ibdm counts (every
      link but switch -> host: ibdm stops tracing when it reaches the
      destination port); qft's switch -> host counts equal the number of
      flows to that host.

Prints "PASS msg", "FAIL msg" and "INFO msg" lines; exit 0 unless the
input cannot be read.
"""
import json
import re
import sys
from collections import Counter, defaultdict

MAX_DETAIL = 20


def load_fabric(path):
    f = json.load(open(path))
    desc = {}
    for n in f["switches"] + f["hosts"]:
        desc[int(n["guid"], 16)] = n["desc"]
    return f, desc


def link_text(desc, key):
    a, pa, b, pb = key
    return '"%s" port %d -> "%s" port %d' % (desc.get(a, "0x%016x" % a), pa,
                                             desc.get(b, "0x%016x" % b), pb)


def read_loads(path):
    """STAGE FROM_GUID FROM_PORT TO_GUID TO_PORT COUNT -> {stage: {link: count}}"""
    out = defaultdict(dict)
    for ln, line in enumerate(open(path), 1):
        w = line.split()
        if not w:
            continue
        if len(w) != 6:
            raise SystemExit("%s:%d: bad line %r" % (path, ln, line))
        key = (int(w[1], 16), int(w[2]), int(w[3], 16), int(w[4]))
        st = int(w[0])
        if key in out[st]:
            raise SystemExit("%s:%d: link listed twice in stage %d" % (path, ln, st))
        out[st][key] = int(w[5])
    return out


def read_flows(path):
    """STAGE SRC DST DST_LID -> {stage: [(src, dst, dlid)]}"""
    out = defaultdict(list)
    for line in open(path):
        w = line.split()
        if len(w) == 4:
            out[int(w[0])].append((w[1], w[2], int(w[3])))
    return out


def lft_dump(path):
    """opensm-lfts.dump -> {(switch guid, lid): port}"""
    t, g = {}, None
    for line in open(path):
        m = re.match(r"Unicast lids .* guid (0x[0-9a-fA-F]+)", line)
        if m:
            g = int(m.group(1), 16)
            continue
        m = re.match(r"\s*0x([0-9a-fA-F]+)\s+(\d+)", line)
        if m and g is not None:
            t[(g, int(m.group(1), 16))] = int(m.group(2))
    return t


def fdbs(path):
    """opensm.fdbs -> {(switch guid, lid): port}, leaving out port 255"""
    t, g = {}, None
    for line in open(path):
        m = re.match(r"dump_ucast_routes: Switch 0x([0-9a-fA-F]+)", line)
        if m:
            g = int(m.group(1), 16)
            continue
        m = re.match(r"0x([0-9a-fA-F]+) : (\d+)", line)
        if m and g is not None and int(m.group(2)) != 255:
            t[(g, int(m.group(1), 16))] = int(m.group(2))
    return t


def check(fabric, dump):
    f, desc = load_fabric(fabric)
    hosts = {h["name"]: h for h in f["hosts"]}
    # guid2lid: PORT_GUID BASE_LID TOP_LID; a host's port GUID = node GUID + 1
    g2l = {}
    for line in open(dump + "/guid2lid"):
        w = line.split()
        if len(w) == 3:
            g2l[int(w[0], 16)] = int(w[1], 16)
    bad = [h["name"] for h in f["hosts"]
           if g2l.get(int(h["guid"], 16) + 1) != h["lid"]]
    if bad:
        print("FAIL OpenSM changed the LIDs of %d hosts (e.g. %s): qft's --lft scoring "
              "and ibdm would not route the same LIDs" % (len(bad), bad[0]))
    else:
        print("PASS guid2lid: OpenSM kept the LIDs of the JSON for all %d hosts" % len(hosts))
    a, b = lft_dump(dump + "/opensm-lfts.dump"), fdbs(dump + "/opensm.fdbs")
    if a == b:
        print("PASS opensm.fdbs (ibdm's input) and opensm-lfts.dump (qft's) hold the "
              "same %d LFT entries" % len(a))
    else:
        diff = sorted(set(a.items()) ^ set(b.items()))
        print("FAIL opensm.fdbs and opensm-lfts.dump differ in %d entries, e.g. %s"
              % (len(diff), diff[:3]))


def traces(fabric, flows_path, traces_path, roots_path):
    f, desc = load_fabric(fabric)
    hosts = {h["name"]: h for h in f["hosts"]}
    nflows = 0
    with open(traces_path, "w") as out:
        for st, fl in sorted(read_flows(flows_path).items()):
            for s, d, dlid in fl:
                if dlid != hosts[d]["lid"]:
                    print("FAIL stage %d: flow %s -> %s has DST_LID %d, the JSON says %d"
                          % (st, s, d, dlid, hosts[d]["lid"]))
                out.write("%d %d %d\n" % (st, hosts[s]["lid"], dlid))
                nflows += 1
    top = max(s["level"] for s in f["switches"])
    roots = [s["guid"] for s in f["switches"] if s["level"] == top]
    with open(roots_path, "w") as out:
        out.write(" ".join(roots) + "\n")
    print("INFO %d flows to trace; %d root switches (level %d)" % (nflows, len(roots), top))


def compare(fabric, flows_path, qft_path, ibdm_path, report=None):
    f, desc = load_fabric(fabric)
    host_guids = {int(h["guid"], 16) for h in f["hosts"]}
    name_guid = {h["name"]: int(h["guid"], 16) for h in f["hosts"]}
    flows, q, m = read_flows(flows_path), read_loads(qft_path), read_loads(ibdm_path)
    stages = sorted(set(flows) | set(q) | set(m))
    hsd_q, hsd_m = [], []
    for st in stages:
        qs, ms = q.get(st, {}), m.get(st, {})
        q_last = {k: v for k, v in qs.items() if k[2] in host_guids and k[0] not in host_guids}
        q_rest = {k: v for k, v in qs.items() if k not in q_last}
        m_last = [k for k in ms if k[2] in host_guids and k[0] not in host_guids]
        problems = []
        for k in m_last:
            problems.append("ibdm counts the last hop %s (%d)" % (link_text(desc, k), ms[k]))
        for k in sorted(set(q_rest) | set(ms)):
            if k in m_last:
                continue
            a, b = q_rest.get(k, 0), ms.get(k, 0)
            if a != b:
                problems.append("%s: qft %d, ibdm %d" % (link_text(desc, k), a, b))
        # the last hop, which ibdm does not record: qft must count the flows
        # that arrive at each host
        arrive = Counter(name_guid[d] for _, d, _ in flows.get(st, []))
        got = Counter()
        for k, v in q_last.items():
            got[k[2]] += v
        for g in sorted(set(arrive) | set(got)):
            if arrive[g] != got[g]:
                problems.append('switch -> "%s": qft counts %d flows, %d arrive'
                                % (desc.get(g, hex(g)), got[g], arrive[g]))
        tag = "stage %d (%d flows)" % (st, len(flows.get(st, [])))
        if problems:
            print("FAIL %s: %d link(s) differ:" % (tag, len(problems)))
            for p in problems[:MAX_DETAIL]:
                print("INFO     %s" % p)
            if len(problems) > MAX_DETAIL:
                print("INFO     ... and %d more" % (len(problems) - MAX_DETAIL))
        else:
            print("PASS %s: all %d links ibdm counts carry qft's count (max %d); "
                  "%d switch->host links = flows per destination"
                  % (tag, len(ms), max(ms.values(), default=0), len(q_last)))
        hsd_q.append(max(qs.values(), default=0))
        hsd_m.append(max(ms.values(), default=0))
    print("INFO HSD per stage, qft: %s; ibdm raw (max of its dump): %s" % (hsd_q, hsd_m))
    if report:
        # ibdmCongReport's stage histogram: CongClear's "fractional" worst case
        txt = open(report, errors="replace").read()
        m2 = re.search(r"WORST-CONG NUM-STAGES\n((?:\s*\d+\s+\d+\n)*)", txt)
        hist = {}
        if m2:
            for line in m2.group(1).splitlines():
                a, b = line.split()
                hist[int(a)] = int(b)
        total = re.search(r"Traced total:(\d+) paths", txt)
        nfl = sum(len(v) for v in flows.values())
        if total and int(total.group(1)) == nfl:
            print("PASS ibdmCongReport: traced total %s paths = qft's %d flows" % (total.group(1), nfl))
        else:
            print("FAIL ibdmCongReport traced %s paths, qft has %d flows"
                  % (total.group(1) if total else "?", nfl))
        print("INFO ibdmCongReport stage worst-case histogram %s vs qft HSD histogram %s "
              "(ibdm's is its fractional, first-contention-only measure)"
              % (dict(sorted(hist.items())), dict(sorted(Counter(hsd_q).items()))))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "check":
        check(*sys.argv[2:])
    elif len(sys.argv) == 6 and sys.argv[1] == "traces":
        traces(*sys.argv[2:])
    elif len(sys.argv) in (6, 7) and sys.argv[1] == "compare":
        compare(*sys.argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
