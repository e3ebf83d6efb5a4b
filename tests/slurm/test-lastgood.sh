#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The last fabric that loaded, kept in StateSaveLocation: every load keeps
# a copy; a reconfigure with a broken fabric keeps the fabric in memory and
# leaves the copy alone; a slurmctld restarted while the fabric file is
# broken starts on the copy with a loud error naming the file and line, and
# places jobs on the tree; with no copy (or a broken one) the start is still
# fatal and says why. select/rlft's own load (another TopologyPlugin) does
# the same.
TEST_NAME=test-lastgood
. "$(dirname "$0")/lib.sh"

T=$ROOT/lastgood
rm -rf "$T"
mkdir -p "$T/conf"
plugin_dir "$T/plugins"
tuple="2;8,4;1,8;1,1"
"$QFT" gen pgft "$tuple" -o "$T/fabric.json" 2>/dev/null
echo "FabricFile=fabric.json" >"$T/conf/qft.conf"
"$QFT" topology-conf --fabric "$T/fabric.json" >"$T/subtrees.conf"
# a fabric cut off in the middle of its hosts: the loader names the line
head -c 1500 "$T/fabric.json" >"$T/broken.json"

# leaves: one line per leaf switch, its nodes comma-separated
sed -n 's/^SwitchName=L1-[0-9]* Nodes=\([^ ]*\).*/\1/p' "$T/subtrees.conf" | python3 -c '
import re, sys
for leaf in sys.stdin.read().split():
    m = re.match(r"^([^\[]*)\[(\d+)-(\d+)\]$", leaf)
    print(",".join("%s%0*d" % (m.group(1), len(m.group(2)), i)
                   for i in range(int(m.group(2)), int(m.group(3)) + 1)) if m else leaf)
' >"$T/leaves"

# job_on_one_leaf W WHAT: an 8-node batch job completes on one whole leaf
job_on_one_leaf() {
	local w=$1 id nodes
	id=$(cd "$w" && "$w/bin/sbatch" --parsable -N8 -o "$w/leaf-%j.out" --wrap 'echo $SLURM_JOB_NODELIST')
	expect_eq "$2: an 8-node batch job" "$(wait_job "$w/bin" "$id")" COMPLETED
	nodes=$("$w/bin/scontrol" show hostnames "$(cat "$w/leaf-$id.out" 2>/dev/null)" | sort | paste -sd,)
	check "  on one whole leaf ($nodes)" grep -qx -- "$nodes" "$T/leaves"
}

# --- 1. topology/qft and select/rlft --------------------------------------
W=$T/c1
LOG=$W/log/slurmctld.log
KEPT=$W/state/qft_fabric.last_good
start_cluster "$W" -n 32 -p "$T/plugins" -t topology/qft -s select/rlft \
	-c "$T/conf/qft.conf" -c "$T/fabric.json" ||
	{ cat "$W.start.out"; bad "cluster with topology/qft did not start"; finish; }
BIN=$W/bin
ok "32-node cluster up with topology/qft and select/rlft"
check "the fabric that loaded is kept in StateSaveLocation" cmp -s "$KEPT" "$W/etc/fabric.json"
expect_eq "  mode of the copy" "$(stat -c %a "$KEPT")" 600
check "  no temporary file left" test ! -e "$KEPT.tmp"

cp "$T/broken.json" "$W/etc/fabric.json"
"$BIN/scontrol" reconfigure
sleep 2
check "reconfigure with a broken fabric: refused, the fabric in memory stays" \
	reconfigure_rejected "$LOG" "topology/qft: $W/etc/fabric.json:[0-9]*:"
check "  slurmctld up" sh -c "'$BIN/scontrol' ping | grep -q 'is UP'"
check "  the copy is still the good fabric" cmp -s "$KEPT" "$T/fabric.json"
expect_eq "  switch records" "$("$BIN/scontrol" show topology | grep -c '^SwitchName=')" 5

# stop and start again with the fabric file still broken
QFT_START_TIMEOUT=60 "$HARNESS" restart -w "$W" >"$T/restart1.out" 2>&1
check "restart with a broken fabric file: slurmctld runs" sh -c "'$BIN/scontrol' ping | grep -q 'is UP'"
# the log since this start
awk '/slurmctld version .* started/ {n = NR} {l[NR] = $0} END {for (i = n; i <= NR; i++) print l[i]}' \
	"$LOG" >"$T/start2.log"
check "  a loud error naming the file and its line" \
	grep -q "error: topology/qft: FABRIC FILE UNUSABLE AT START: $W/etc/fabric.json:[0-9]*:" "$T/start2.log"
grep "FABRIC FILE UNUSABLE" "$T/start2.log" | head -1 | cut -c1-300 | sed 's/^/    /'
check "  and the copy it starts on" \
	grep -q "error: topology/qft: STARTING ON THE LAST FABRIC THAT LOADED, kept in $KEPT (written " "$T/start2.log"
check "  topology/qft loaded the copy" \
	grep -q "topology/qft: fabric $KEPT: PGFT($tuple), 32 hosts" "$T/start2.log"
check "  select/rlft places on it" \
	grep -q "select/rlft: fabric $KEPT (loaded by topology/qft): PGFT($tuple), 32 hosts" "$T/start2.log"
check "  no fatal" sh -c "! grep -q 'fatal' '$T/start2.log'"
"$BIN/scontrol" show topology >"$T/topology.kept"
expect_eq "  scontrol show topology: switch records" "$(grep -c '^SwitchName=' "$T/topology.kept")" 5
check "  L2-0 holds the 4 leaves" grep -q '^SwitchName=L2-0 Level=1 .*Switches=L1-\[0-3\]' "$T/topology.kept"
job_on_one_leaf "$W" "started on the copy"
"$QFT" status --file "$W/state/qft-status.json" >"$T/status.kept" 2>&1
check "  qft status: the copy is in use" grep -q "^fabric in use: $KEPT " "$T/status.kept"
check "  qft status: FabricFile= was refused, with its line" grep -q "^  $W/etc/fabric.json:[0-9]*:" "$T/status.kept"

cp "$T/fabric.json" "$W/etc/fabric.json"
"$BIN/scontrol" reconfigure
sleep 2
check "fixed and reconfigured: the fabric file is loaded again" \
	grep -q "topology/qft: fabric $W/etc/fabric.json: PGFT($tuple)" "$W/log/slurmctld.log"
job_on_one_leaf "$W" "after the fix"

# both the fabric file and the copy broken: fatal, saying both
cp "$T/broken.json" "$W/etc/fabric.json"
cp "$T/broken.json" "$KEPT"
if QFT_START_TIMEOUT=15 "$HARNESS" restart -w "$W" >"$T/restart2.out" 2>&1; then
	bad "fabric file and copy broken: slurmctld started"
else
	check "fabric file and copy broken: fatal, naming both" \
		grep -q "fatal: topology/qft: $W/etc/fabric.json:[0-9]*:.*; the fabric kept by an earlier start does not load either: $KEPT:" "$LOG"
fi
"$HARNESS" stop -w "$W" >/dev/null 2>&1

# --- 2. no kept copy: the start is fatal, as before ------------------------
W=$T/c2
mkdir -p "$T/bad" && cp "$T/broken.json" "$T/bad/fabric.json"
if QFT_START_TIMEOUT=15 start_cluster "$W" -n 32 -p "$T/plugins" -t topology/qft \
	-c "$T/conf/qft.conf" -c "$T/bad/fabric.json"; then
	bad "no copy, broken fabric: slurmctld started"
else
	check "no copy, broken fabric: fatal, with the file, its line and no copy to fall back on" \
		grep -q "fatal: topology/qft: $W/etc/fabric.json:[0-9]*:.*; no fabric kept by an earlier start to fall back on ($W/state/qft_fabric.last_good: No such file or directory)" \
		"$W/log/slurmctld.log"
	grep "fatal:" "$W/log/slurmctld.log" | head -1 | cut -c1-300 | sed 's/^/    /'
fi
"$HARNESS" stop -w "$W" >/dev/null 2>&1

# --- 3. select/rlft's own load (TopologyPlugin=topology/none) -------------
W=$T/c3
KEPT=$W/state/qft_fabric.last_good
if start_cluster "$W" -n 32 -p "$T/plugins" -t topology/none -s select/rlft \
	-c "$T/conf/qft.conf" -c "$T/fabric.json"; then
	check "select/rlft alone: the fabric is kept" cmp -s "$KEPT" "$T/fabric.json"
	cp "$T/broken.json" "$W/etc/fabric.json"
	QFT_START_TIMEOUT=60 "$HARNESS" restart -w "$W" >"$T/restart3.out" 2>&1
	check "select/rlft alone, restart with a broken fabric file: slurmctld runs" \
		sh -c "'$W/bin/scontrol' ping | grep -q 'is UP'"
	check "  the loud error" grep -q "error: select/rlft: STARTING ON THE LAST FABRIC THAT LOADED, kept in $KEPT" \
		"$W/log/slurmctld.log"
	job_on_one_leaf "$W" "select/rlft alone on the copy"
else
	cat "$W.start.out"
	bad "cluster with select/rlft and topology/none did not start"
fi
"$HARNESS" stop -w "$W" >/dev/null 2>&1
finish
