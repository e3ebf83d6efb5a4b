#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A Quasi Fat Tree (seed 002, docs/qft.md) in a real slurmctld, front-end
# mode: the 1024-host QFT of PGFT(3;16,8,8;1,8,8;1,2,2) (level 2
# side-linked, parallel top cables), host names shuffled against the tree.
# topology/qft loads it and reads it as a QFT, `scontrol show topology`
# lists the QFT sub-trees (`qft topology-conf`: 64 leaves, 4 level-2
# sub-trees of 256 hosts where the PGFT has 8 of 128, the top), nodes are
# ranked in tree order, and select/rlft jobs of a few sizes run with the
# QFT_HSD_AVG that `qft score` gives for their nodes (the closed-form
# routing of the QFT: the prediction). select/rlft places in QFT sub-trees
# (lib/place/qft_runs.hpp): jobs of 16, 64 and 256 nodes get whole leaves
# of one 256-host QFT sub-tree, HSD 1.000 and QFT_CONGESTION_FREE=yes; the
# 100-node job (not a multiple of a leaf) is not claimed.
TEST_NAME=test-qft
. "$(dirname "$0")/lib.sh"

T=$ROOT/qft
rm -rf "$T"
mkdir -p "$T/jobs"
plugin_dir "$T/plugins"
tuple="3;16,8,8;1,8,8;1,2,2"
"$QFT" gen qft "$tuple" --shuffle-names 5 -o "$T/fabric.json" 2>/dev/null ||
	{ bad "qft gen qft $tuple"; finish; }
"$QFT" topology-conf --fabric "$T/fabric.json" >"$T/subtrees.conf"
printf 'FabricFile=fabric.json\nHostFileDir=%s\n' "$T/hostfiles" >"$T/qft.conf"
tree_names "$T/fabric.json" >"$T/tree.order"
sort "$T/tree.order" >"$T/nodes"
W=$T/c
start_cluster "$W" --node-file "$T/nodes" -p "$T/plugins" -t topology/qft -s select/rlft \
	-c "$T/qft.conf" -c "$T/fabric.json" -e "SlurmctldDebug=verbose" ||
	{ cat "$W.start.out"; bad "cluster with a QFT did not start"; finish; }
BIN=$W/bin
LOG=$W/log/slurmctld.log
ok "1024-node front-end cluster up on a QFT with topology/qft + select/rlft"
check "topology/qft loaded the fabric" grep -q "topology/qft: fabric $W/etc/fabric.json: .*$tuple), 1024 hosts" "$LOG"
# 69 = 64 leaves + 4 QFT level-2 sub-trees + the top: the QFT's reading
# (the PGFT of the tuple has 64 + 8 + 1 = 73)
check "topology/qft read the QFT's 69 sub-trees" grep -q "topology/qft: fabric .*: .*, 1024 hosts, 69 switch groups" "$LOG"
check "topology/qft names it the QFT of PGFT($tuple)" \
	grep -q "topology/qft: fabric .*: QFT of PGFT($tuple), 1024 hosts" "$LOG"
check "select/rlft names it the QFT of PGFT($tuple)" \
	grep -q "select/rlft: fabric .*: QFT of PGFT($tuple), 1024 hosts" "$LOG"
check "switch table of 69 records on 3 levels" grep -q "topology/qft: switch table of 69 records on 3 levels" "$LOG"

# --- the switch table: the QFT sub-trees of `qft topology-conf` -----------
"$BIN/scontrol" show topology >"$T/topology.txt"
expect_eq "switch records (qft topology-conf)" "$(grep -c '^SwitchName=' "$T/topology.txt")" \
	"$(grep -c '^SwitchName=' "$T/subtrees.conf")"
expect_eq "of them QFT level-2 sub-trees" "$(grep -c '^SwitchName=L2-' "$T/topology.txt")" 4
# every record lists, by name, the hosts below its sub-tree in the fabric
records_match() {
	python3 - "$T/subtrees.conf" "$T/topology.txt" <<'PY'
import re, sys
def expand(expr):  # a Slurm host list: n[0001-0016,0020],n0030,L1-[0-15]
    out = []
    for pre, body, plain in re.findall(r"([^,\[\]]+)\[([^\]]*)\]|([^,\[\]]+)", expr):
        if plain:
            out.append(plain)
            continue
        for part in body.split(","):
            lo, _, hi = part.partition("-")
            out += ["%s%0*d" % (pre, len(lo), i) for i in range(int(lo), int(hi or lo) + 1)]
    return out
def records(path):
    return {kv["SwitchName"]: kv for kv in
            (dict(re.findall(r"(\w+)=(\S+)", line)) for line in open(path)) if "SwitchName" in kv}
want, got = records(sys.argv[1]), records(sys.argv[2])
def below(name):
    r = want[name]
    hosts = set(expand(r.get("Nodes", "")))
    for child in expand(r.get("Switches", "")):
        hosts |= below(child)
    return hosts
bad = sorted(set(want) ^ set(got))
bad += [n for n in want if n in got and set(expand(got[n].get("Nodes", ""))) != below(n)]
if bad:
    print("records that do not list their QFT sub-tree:", " ".join(bad[:10]), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}
check "every switch record names the hosts of its QFT sub-tree (qft topology-conf)" records_match
l20=$(tree_names "$T/fabric.json" 0 256 | sort | paste -sd,)
got=$("$BIN/scontrol" show hostnames "$(sed -n 's/^SwitchName=L2-0 .*Nodes=\([^ ]*\).*/\1/p' "$T/topology.txt")" | sort | paste -sd,)
check "L2-0 holds tree hosts 0..255 (two PGFT level-2 sub-trees of 128)" [ "$got" = "$l20" ]
check "L2-0 has the 16 leaves L1-[0-15]" grep -q '^SwitchName=L2-0 Level=1 .*Switches=L1-\[0-15\]' "$T/topology.txt"
check "the top L3-0 has the 4 level-2 sub-trees" grep -q '^SwitchName=L3-0 Level=2 .*Switches=L2-\[0-3\]' "$T/topology.txt"

# --- tree order ------------------------------------------------------------
"$BIN/scontrol" -o show nodes | sed -n 's/^NodeName=\([^ ]*\) .*/\1/p' >"$T/table.order"
check "node table order is tree order" cmp -s "$T/table.order" "$T/tree.order"
check "and not name order" sh -c "! cmp -s '$T/table.order' '$T/nodes'"

# --- select/rlft jobs: QFT_HSD_AVG = qft score (the closed form) ---------
hsd() { "$QFT" score --fabric "$T/fabric.json" --json --hosts "$1" |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.3f" % d["avg_hsd"])'; }
# spans NODES: the QFT level-2 sub-trees (256 hosts) and the PGFT ones
# (128) the nodes lie in, by tree position
spans() {
	python3 - "$T/fabric.json" "$1" <<'PY'
import json, sys
pos = {h["name"]: h["index"] for h in json.load(open(sys.argv[1]))["hosts"]}
idx = [pos[n] for n in sys.argv[2].split(",")]
print("%d QFT / %d PGFT level-2 sub-trees" % (len({i // 256 for i in idx}), len({i // 128 for i in idx})))
PY
}
ids=()
for n in 16 64 100 256; do ids+=("$(submit_recording "$W" "$T/jobs" "$n")"); done
wait_running "$W" "${ids[@]}"
: >"$T/placed"
for id in "${ids[@]}"; do
	list=$(job_nodes "$W" "$id")
	n=$(tr , '\n' <<<"$list" | grep -c .)
	env_hsd=$(sed -n 's/^QFT_HSD_AVG=//p' "$T/jobs/$id.env" 2>/dev/null)
	kind=$(sed -n 's/^QFT_PLACEMENT_KIND=//p' "$T/jobs/$id.env" 2>/dev/null)
	want=$(hsd "$list")
	span=$(spans "$list")
	say "job $id: $n nodes, placement ${kind:-?}, $span: QFT_HSD_AVG ${env_hsd:-none}, qft score $want"
	echo "$n ${kind:-?} $span ${env_hsd:-none} $want" >>"$T/placed"
	expect_eq "job $id ($n nodes): QFT_HSD_AVG = qft score" "$env_hsd" "$want"
	claim=$(sed -n 's/^QFT_CONGESTION_FREE=//p' "$T/jobs/$id.env" 2>/dev/null)
	if [ $((n % 16)) = 0 ]; then
		expect_eq "job $id ($n nodes): in one QFT level-2 sub-tree" "${span%% *}" 1
		expect_eq "job $id ($n nodes): qft score, whole leaves of a QFT sub-tree" "$want" 1.000
		expect_eq "job $id ($n nodes): QFT_CONGESTION_FREE" "$claim" yes
	else
		expect_eq "job $id ($n nodes): QFT_CONGESTION_FREE (not whole leaves)" "$claim" no
	fi
	hosts=$(sed -n 's/^QFT_HOSTS=//p' "$T/jobs/$id.env" 2>/dev/null)
	check "job $id: QFT_HOSTS are its nodes" [ "$(tr , '\n' <<<"$hosts" | sort | paste -sd,)" = \
		"$(tr , '\n' <<<"$list" | sort | paste -sd,)" ]
done
# No "no node in two jobs" here: on one-CPU nodes Slurm's bitmap holds no
# busy node, so it could not fail. test-shared.sh checks the placer's
# choice where nodes are shared (and a wrong one shows).
"$BIN/scancel" -u root
check "slurmctld alive at the end" sh -c "'$BIN/scontrol' ping | grep -q 'is UP'"
if grep -qi "segfault\|Segmentation" "$W/log/"*; then bad "a crash in the logs"; else ok "no crash in the logs"; fi
finish
