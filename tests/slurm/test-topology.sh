#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# topology/qft in a real slurmctld (front-end mode): the fabric's tree as
# Slurm's switch table, node order = tree order even when names are
# shuffled against the tree, jobs run, and every kind of bad input gives
# the admin a message naming what to fix; slurmctld never crashes.
TEST_NAME=test-topology
. "$(dirname "$0")/lib.sh"

T=$ROOT/topology
rm -rf "$T"
mkdir -p "$T"
plugin_dir "$T/plugins"
tuple="2;18,18;1,18;1,1"
"$QFT" gen pgft "$tuple" --shuffle-names 7 -o "$T/fabric.json" 2>/dev/null
echo "FabricFile=fabric.json" >"$T/qft.conf"
tree_names "$T/fabric.json" | sort >"$T/nodes.byname"

# --- 1. a 324-node cluster whose names do not follow the tree -------------
W=$T/c1
start_cluster "$W" --node-file "$T/nodes.byname" -p "$T/plugins" -t topology/qft \
	-s select/cons_tres -c "$T/qft.conf" -c "$T/fabric.json" ||
	{ cat "$W.start.out"; bad "cluster with topology/qft did not start"; finish; }
BIN=$W/bin
LOG=$W/log/slurmctld.log
ok "324-node front-end cluster up with topology/qft"
check "slurmctld logs the recognised tuple" \
	grep -q "topology/qft: fabric $W/etc/fabric.json: PGFT($tuple), 324 hosts, 19 switch groups" "$LOG"
check "slurmctld logs the switch table" grep -q "topology/qft: switch table of 19 records on 2 levels" "$LOG"
check "slurmd loaded the plugin too" grep -q "topology/qft" "$W"/log/slurmd.*.log

"$BIN/scontrol" show topology >"$T/topology.txt"
expect_eq "switches in scontrol show topology" "$(grep -c '^SwitchName=' "$T/topology.txt")" 19
leaf0=$(tree_names "$T/fabric.json" 0 18 | sort | paste -sd,)
got=$("$BIN/scontrol" show hostnames "$(sed -n 's/^SwitchName=L1-0 .*Nodes=\([^ ]*\).*/\1/p' "$T/topology.txt")" | sort | paste -sd,)
expect_eq "L1-0 holds tree hosts 0..17" "$got" "$leaf0"
check "the top switch L2-0 has the 18 leaves" grep -q '^SwitchName=L2-0 Level=1 LinkSpeed=200 Nodes=.* Switches=L1-\[0-17\]' "$T/topology.txt"
check "leaf link speed is 200 (4x HDR)" grep -q '^SwitchName=L1-5 Level=0 LinkSpeed=200 ' "$T/topology.txt"

# slurmctld's node table (scontrol show nodes lists it in table order).
"$BIN/scontrol" -o show nodes | sed -n 's/^NodeName=\([^ ]*\) .*/\1/p' >"$T/table.order"
tree_names "$T/fabric.json" >"$T/tree.order"
check "node table order is tree order" cmp -s "$T/table.order" "$T/tree.order"
check "and not name order" sh -c "! cmp -s '$T/table.order' '$T/nodes.byname'"

# cons_tres takes the lowest node indexes: an 18-node job gets leaf 0.
cd "$W" || finish
id=$("$BIN/sbatch" --parsable -N18 -o "$W/job-%j.out" --wrap 'echo $SLURM_JOB_NODELIST')
expect_eq "18-node batch job" "$(wait_job "$BIN" "$id")" COMPLETED
expect_eq "its nodes are leaf 0 in tree order" \
	"$("$BIN/scontrol" show hostnames "$(cat "$W/job-$id.out")" | sort | paste -sd,)" "$leaf0"
check "sbatch --switches=1 runs" sh -c "'$BIN/srun' -N18 --switches=1 true"
check "slurmctld alive after the jobs" sh -c "'$BIN/scontrol' ping | grep -q 'is UP'"

# reconfigure with a broken fabric keeps the tree; a fixed one is re-read
cp "$W/etc/fabric.json" "$T/fabric.good"
echo '{"format": "slurm-qft-fabric", "version": 1,' >"$W/etc/fabric.json"
"$BIN/scontrol" reconfigure
sleep 2
check "a broken fabric on reconfigure is logged" \
	grep -q "topology/qft: $W/etc/fabric.json:2:.*; keeping the fabric loaded from $W/etc/fabric.json" "$LOG"
check "slurmctld alive after reconfigure with a broken fabric" sh -c "'$BIN/scontrol' ping | grep -q 'is UP'"
expect_eq "switch table kept" "$("$BIN/scontrol" show topology | grep -c '^SwitchName=')" 19
cp "$T/fabric.good" "$W/etc/fabric.json"
"$BIN/scontrol" reconfigure
sleep 2
expect_eq "fabric re-read after the fix" \
	"$(grep -c "topology/qft: fabric $W/etc/fabric.json: PGFT" "$LOG")" 2
"$HARNESS" stop -w "$W" >/dev/null 2>&1

# --- 2. nodes missing on either side: warnings, the cluster runs ---------
tree_names "$T/fabric.json" 0 300 >"$T/nodes.part"
printf 'x001\nx002\n' >>"$T/nodes.part"
W=$T/c2
if start_cluster "$W" --node-file "$T/nodes.part" -p "$T/plugins" -t topology/qft \
	-c "$T/qft.conf" -c "$T/fabric.json"; then
	ok "cluster with mismatched nodes starts"
	check "slurm.conf nodes missing from the fabric are named" \
		grep -q "topology/qft: WARNING: 2 nodes of slurm.conf are not in fabric $W/etc/fabric.json, they join no switch and rank last: x\[001-002\]" "$W/log/slurmctld.log"
	check "fabric hosts missing from slurm.conf are named" \
		grep -q "topology/qft: 24 hosts of fabric $W/etc/fabric.json are not nodes of slurm.conf and are ignored" "$W/log/slurmctld.log"
	expect_eq "extra nodes rank last" "$("$W/bin/scontrol" -o show nodes | sed -n 's/^NodeName=\([^ ]*\) .*/\1/p' | tail -2 | paste -sd,)" "x001,x002"
else
	cat "$W.start.out"
	bad "cluster with mismatched nodes did not start"
fi
"$HARNESS" stop -w "$W" >/dev/null 2>&1

# --- 3. SLURM_TOPOLOGY_ADDR: real (not front-end) slurmd, one per node --
"$QFT" gen pgft "2;2,2;1,2;1,1" -o "$T/fabric4.json" 2>/dev/null
printf 'n0004\nn0002\nn0001\nn0003\n' >"$T/nodes4"
mkdir -p "$T/c3conf" && echo "FabricFile=fabric4.json" >"$T/c3conf/qft.conf"
W=$T/c3
if start_cluster "$W" --real-nodes --node-file "$T/nodes4" -p "$T/plugins" -t topology/qft \
	-c "$T/c3conf/qft.conf" -c "$T/fabric4.json"; then
	out=$(cd "$W" && timeout 60 "$W/bin/srun" -N4 -l sh -c 'echo $SLURMD_NODENAME $SLURM_TOPOLOGY_ADDR $SLURM_TOPOLOGY_ADDR_PATTERN' 2>&1 | sed 's/^[0-9]*: //' | sort)
	expect_eq "topology addresses seen by the tasks" "$(echo "$out" | paste -sd,)" \
		"n0001 L2-0.L1-0.n0001 switch.switch.node,n0002 L2-0.L1-0.n0002 switch.switch.node,n0003 L2-0.L1-1.n0003 switch.switch.node,n0004 L2-0.L1-1.n0004 switch.switch.node"
else
	cat "$W.start.out"
	bad "real-node cluster did not start"
fi
"$HARNESS" stop -w "$W" >/dev/null 2>&1

# --- 4. ibnetdiscover output as the fabric, one cable missing -----------
# (the fixture is real ibnetdiscover output from ibsim, tests/data/ib)
python3 - "$REPO/tests/data/ib/pgft-2-4/ibnetdiscover.txt" "$T/ibnet.txt" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
out, node = [], None
for l in lines:
    m = re.match(r'(Switch|Ca)\s+\d+ "([^"]+)"', l)
    if m:
        node = m.group(2)
    # the cable "qft L1 3.0" port 8 <-> "qft L2 3.0" port 4, from both ends
    if (node == "S-0002c90401000003" and l.startswith("[8]")) or \
       (node == "S-0002c90402000003" and l.startswith("[4]")):
        continue
    out.append(l)
open(sys.argv[2], "w").write("\n".join(out))
PY
mkdir -p "$T/c4conf"
printf 'FabricFile=ibnet.txt\nFabricFormat=ibnetdiscover\n' >"$T/c4conf/qft.conf"
W=$T/c4
if start_cluster "$W" -n 16 -p "$T/plugins" -t topology/qft -c "$T/c4conf/qft.conf" -c "$T/ibnet.txt"; then
	check "ibnetdiscover fabric recognised in slurmctld" \
		grep -q "topology/qft: fabric $W/etc/ibnet.txt: PGFT(2;4,4;1,4;1,1), 16 hosts" "$W/log/slurmctld.log"
	check "the missing cable is named with both switches" \
		grep -q "topology/qft: WARNING: $W/etc/ibnet.txt: missing cable L1 3.0 \"qft L1 3.0\" 0x0002c90401000003 up-port 3 -> L2 3.0 \"qft L2 3.0\" 0x0002c90402000003" "$W/log/slurmctld.log"
	expect_eq "switches from ibnetdiscover" "$("$W/bin/scontrol" show topology | grep -c '^SwitchName=')" 5
else
	cat "$W.start.out"
	bad "cluster on an ibnetdiscover fabric did not start"
fi
"$HARNESS" stop -w "$W" >/dev/null 2>&1

# --- 5. start-up errors: slurmctld refuses to start and says why ---------
startup_error() { # startup_error NAME NEEDLE QFT.CONF [FILES...]
	local name=$1 needle=$2 conf=$3
	shift 3
	local w=$T/$name args=()
	for f in "$@"; do args+=(-c "$f"); done
	[ -n "$conf" ] && args+=(-c "$conf")
	if QFT_START_TIMEOUT=15 start_cluster "$w" -n 4 -p "$T/plugins" -t topology/qft "${args[@]}"; then
		bad "$name: slurmctld started"
	elif grep -qF -- "$needle" "$w/log/slurmctld.log"; then
		ok "$name: slurmctld refused to start: $needle"
	else
		tail -5 "$w/log/slurmctld.log"
		bad "$name: log lacks: $needle"
	fi
	if grep -qi "segfault\|Segmentation\|core dumped" "$w/log/slurmctld.log" "$w/log/"*.out 2>/dev/null; then
		bad "$name: a crash"
	fi
	"$HARNESS" stop -w "$w" >/dev/null 2>&1
}
mkdir -p "$T/bad"
echo "FabricFile=nonexistent.json" >"$T/bad/qft.conf"
startup_error missing-fabric "fatal: topology/qft: $T/missing-fabric/etc/nonexistent.json: cannot open: No such file or directory" "$T/bad/qft.conf"
startup_error missing-conf "fatal: topology/qft: cannot read $T/missing-conf/etc/qft.conf: No such file or directory" ""
mkdir -p "$T/bad2"
printf 'FabricFile=fabric.json\nFabric=x\n' >"$T/bad2/qft.conf"
startup_error unknown-key "fatal: topology/qft: $T/unknown-key/etc/qft.conf: not a valid qft.conf" "$T/bad2/qft.conf" "$T/fabric.json"
head -c 3000 "$T/fabric.json" >"$T/bad/fabric.json"
echo "FabricFile=fabric.json" >"$T/bad/qft2.conf"
mkdir -p "$T/bad3" && cp "$T/bad/qft2.conf" "$T/bad3/qft.conf"
startup_error truncated-fabric "fatal: topology/qft: $T/truncated-fabric/etc/fabric.json:" "$T/bad3/qft.conf" "$T/bad/fabric.json"
mkdir -p "$T/bad4"
printf 'FabricFile=fabric.json\nFabricFormat=xml\n' >"$T/bad4/qft.conf"
startup_error bad-format "fatal: topology/qft: $T/bad-format/etc/qft.conf: FabricFormat=xml, expected json or ibnetdiscover" "$T/bad4/qft.conf" "$T/fabric.json"
finish
