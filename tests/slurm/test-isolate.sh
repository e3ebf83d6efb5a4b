#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Isolation (--qft-isolate, qft.conf IsolatePartitions=; docs/isolation.md)
# in a real slurmctld with spank/qft_lid in plugstack.conf, on
# PGFT(2;4,4;1,4;1,1): 4 leaves L0-L3 of 4 hosts, 4 up-links each.
#   1. A (--qft-isolate, 6 nodes: a leaf and half of another) runs with
#      QFT_ISOLATED=1; B (4 nodes) takes a whole leaf beside it: 0 links
#      shared with A (qft score --jobs). C (6 nodes) fits only with the
#      other half of A's second leaf, whose up-links A uses: it waits, and
#      squeue shows why (QftIsolation: ...), not cons_tres's choice.
#   2. A slurmctld restart and a reconfigure keep A isolated: C still
#      waits, with its reason.
#   3. A ends: C starts. An isolated job D (5 nodes) now fits only beside
#      C's links: it waits with its reason; when C ends it starts,
#      QFT_ISOLATED=1, 0 links shared with B.
#   4. IsolatePartitions=iso: a job of partition iso is isolated, one that
#      says --qft-isolate=no there is not; a 1-node job that asks runs
#      (select/rlft leaves 1-node jobs to cons_tres: on an idle node);
#      --qft-isolate=maybe fails sbatch.
#   5. Jobs the placer cannot size (--cores-per-socket: cons_tres sizes
#      them) beside an isolated leaf J: K (2 nodes) runs inside a leaf
#      apart, 0 links shared with J; L (the same, --qft-isolate) inside a
#      leaf apart from every job, QFT_ISOLATED=1; M (6 nodes) finds no
#      subtree apart and waits with its reason.
TEST_NAME=test-isolate
. "$(dirname "$0")/lib.sh"

T=$ROOT/isolate
rm -rf "$T"
mkdir -p "$T/jobs"
plugin_dir "$T/plugins"
"$QFT" gen pgft "2;4,4;1,4;1,1" -o "$T/fabric.json" 2>/dev/null
tree_names "$T/fabric.json" >"$T/nodes"
printf 'FabricFile=%s\nIsolatePartitions=iso\n' "$T/fabric.json" >"$T/qft.conf"
SPANK=$(cd "$QFT_PLUGIN_BUILD/../../contribs/spank" && pwd)/spank_qft_lid.so
echo "optional $SPANK" >"$T/plugstack.conf"
W=$T/c
start_cluster "$W" --node-file "$T/nodes" -p "$T/plugins" -t topology/qft -s select/rlft \
	-c "$T/qft.conf" -c "$T/plugstack.conf" -e "SlurmctldDebug=verbose" \
	-e "SchedulerParameters=bf_interval=2" \
	-e "PartitionName=iso Nodes=ALL MaxTime=INFINITE State=UP" ||
	{ cat "$W.start.out"; bad "cluster did not start"; finish; }
BIN=$W/bin
LOG=$W/log/slurmctld.log
ok "select/rlft with spank/qft_lid, IsolatePartitions=iso"

env_of() { sed -n "s/^$2=//p" "$T/jobs/$1.env" 2>/dev/null; }
submit() { submit_recording "$W" "$T/jobs" "$@"; }
state() { "$BIN/squeue" -h -j "$1" -o %T 2>/dev/null; }
reason() { "$BIN/squeue" -h -j "$1" -o %r 2>/dev/null; }
nodes_of() { job_nodes "$W" "$1"; }
# shared A B: switch links the jobs on host lists A and B both use
shared() {
	printf '%s\n%s\n' "$1" "$2" >"$T/pair.jobs"
	"$QFT" score --fabric "$T/fabric.json" --jobs "$T/pair.jobs" --json 2>&1 |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["shared_links"])' 2>&1
}
# waits_isolated ID: PENDING with select/rlft's isolation reason (after a
# scheduling pass or two)
waits_isolated() {
	local r
	for _ in $(seq 1 15); do
		r=$(reason "$1")
		case $r in QftIsolation:*) break ;; esac
		sleep 1
	done
	echo "$(state "$1") ${r%%:*}"
}
gone() { for _ in $(seq 1 20); do [ -z "$(state "$1")" ] && break; sleep 0.5; done; }

# --- 1. an isolated job and its neighbours ------------------------------------
A=$(submit 6 --qft-isolate)
wait_running "$W" "$A"
la=$(nodes_of "$A")
expect_eq "A (--qft-isolate) runs" "$(state "$A")" RUNNING
expect_eq "A: QFT_ISOLATED" "$(env_of "$A" QFT_ISOLATED)" 1
check "slurmctld logs A isolated" grep -q "select/rlft: JobId=$A on 6 nodes .*; isolated" "$LOG"
B=$(submit 4)
wait_running "$W" "$B"
lb=$(nodes_of "$B")
expect_eq "B (4 nodes) runs beside A" "$(state "$B")" RUNNING
expect_eq "B: QFT_ISOLATED unset" "$(env_of "$B" QFT_ISOLATED)" ""
expect_eq "A and B: switch links shared (qft score --jobs)" "$(shared "$la" "$lb")" 0
C=$(submit 6)
expect_eq "C (6 nodes, only with A's links) waits, squeue says why" "$(waits_isolated "$C")" \
	"PENDING QftIsolation"
say "C's reason: $(reason "$C")"

# --- 2. restart and reconfigure -----------------------------------------------
"$BIN/squeue" -h -o '%i %T %N' | sort >"$T/before"
restart_ctld "$W" "slurmctld restarted"
sleep 3
"$BIN/squeue" -h -o '%i %T %N' | sort >"$T/after"
check "A, B and C survive the restart" cmp -s "$T/before" "$T/after"
expect_eq "after the restart C still waits for isolation" "$(waits_isolated "$C")" \
	"PENDING QftIsolation"
"$BIN/scontrol" reconfigure
sleep 2
expect_eq "after a reconfigure C still waits for isolation" "$(waits_isolated "$C")" \
	"PENDING QftIsolation"

# --- 3. A ends; an isolated job waits for links -------------------------------
"$BIN/scancel" "$A"
wait_running "$W" "$C"
lc=$(nodes_of "$C")
expect_eq "A ended: C runs" "$(state "$C")" RUNNING
D=$(submit 5 --qft-isolate)
expect_eq "D (--qft-isolate, 5 nodes, only beside C's links) waits, squeue says why" \
	"$(waits_isolated "$D")" "PENDING QftIsolation"
say "D's reason: $(reason "$D")"
"$BIN/scancel" "$C"
wait_running "$W" "$D"
ld=$(nodes_of "$D")
expect_eq "C ended: D runs" "$(state "$D")" RUNNING
expect_eq "D: QFT_ISOLATED" "$(env_of "$D" QFT_ISOLATED)" 1
expect_eq "D and B: switch links shared" "$(shared "$ld" "$lb")" 0
"$BIN/scancel" "$B" "$D"
gone "$B"
gone "$D"

# --- 4. IsolatePartitions= ---------------------------------------------------------
E=$(submit 2 -p iso)
F=$(submit 2 -p iso --qft-isolate=no)
wait_running "$W" "$E" "$F"
expect_eq "a job of partition iso: QFT_ISOLATED" "$(env_of "$E" QFT_ISOLATED)" 1
expect_eq "one with --qft-isolate=no there: QFT_ISOLATED" "$(env_of "$F" QFT_ISOLATED)" ""
G=$(submit 1 --qft-isolate)
wait_running "$W" "$G"
expect_eq "a 1-node job asking isolation runs" "$(state "$G")" RUNNING
expect_eq "a 1-node job asking isolation: QFT_ISOLATED" "$(env_of "$G" QFT_ISOLATED)" 1
# sized by tasks alone (one CPU a node: -n 2 is two nodes)
H=$(cd "$W" && "$BIN/sbatch" --parsable -n 2 --qft-isolate -o /dev/null \
	--wrap "env | grep ^QFT_ | sort > $T/jobs/\$SLURM_JOB_ID.env; sleep 600")
wait_running "$W" "$H"
expect_eq "-n 2 asking isolation runs on 2 nodes" "$(state "$H") $("$BIN/squeue" -h -j "$H" -o %D)" "RUNNING 2"
expect_eq "-n 2 asking isolation: QFT_ISOLATED" "$(env_of "$H" QFT_ISOLATED)" 1
"$BIN/scancel" "$E" "$F" "$G" "$H"
for j in "$E" "$F" "$G" "$H"; do gone "$j"; done

# --- 5. jobs the placer cannot size (sockets, cores, GRES) -----------------------
J=$(submit 4 --qft-isolate)
wait_running "$W" "$J"
lj=$(nodes_of "$J")
expect_eq "J (--qft-isolate, a leaf): QFT_ISOLATED" "$(env_of "$J" QFT_ISOLATED)" 1
K=$(submit 2 --cores-per-socket=1)
wait_running "$W" "$K"
lk=$(nodes_of "$K")
expect_eq "K (2 nodes, --cores-per-socket: cons_tres sizes it) runs beside isolated J" \
	"$(state "$K")" RUNNING
expect_eq "J and K: switch links shared" "$(shared "$lj" "$lk")" 0
check "slurmctld logs K inside a subtree apart" \
	grep -q "select/rlft: JobId=$K on 2 nodes .*chosen by cons_tres inside a level-1 subtree" "$LOG"
L=$(submit 2 --cores-per-socket=1 --qft-isolate)
wait_running "$W" "$L"
ll=$(nodes_of "$L")
expect_eq "L (the same, asking isolation) runs" "$(state "$L")" RUNNING
expect_eq "L: QFT_ISOLATED" "$(env_of "$L" QFT_ISOLATED)" 1
expect_eq "L and J, L and K: switch links shared" \
	"$(shared "$ll" "$lj") $(shared "$ll" "$lk")" "0 0"
M=$(submit 6 --cores-per-socket=1)
expect_eq "M (6 nodes, no subtree apart has room) waits, squeue says why" \
	"$(waits_isolated "$M")" "PENDING QftIsolation"
say "M's reason: $(reason "$M")"
"$BIN/scancel" "$J" "$K" "$L" "$M"

check "--qft-isolate=maybe fails sbatch" \
	sh -c "! (cd '$W' && '$BIN/sbatch' -N 1 --qft-isolate=maybe --wrap true) 2>'$T/bad.err'"
check "naming the option and what it expects" grep -q "qft-isolate=maybe: expected yes or no" "$T/bad.err"
check "slurmctld alive at the end" sh -c "'$BIN/scontrol' ping | grep -q 'is UP'"
finish
