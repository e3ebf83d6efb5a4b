#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# qft.conf PlanBusyFirst= (issue 33: the cause of select/rlft's longer
# waits) in a real slurmctld, 4 nodes n0001-n0004: A holds n0002-n0004 for
# 10 minutes, n0001 is idle. B (3 nodes) waits for A's end; backfill plans
# it then. C (1 node, 30 minutes) fits the idle node now, but only if B's
# plan does not hold it.
#   PlanBusyFirst=yes (default): B is planned on A's nodes (slurmctld says
#     so), n0001 stays free, and C starts at once;
#   PlanBusyFirst=no (reconfigure): cons_tres plans B on n0001-n0003, the
#     idle node included, and the same C waits (backfill may not delay B).
TEST_NAME=test-plan
. "$(dirname "$0")/lib.sh"

T=$ROOT/plan
rm -rf "$T"
mkdir -p "$T/jobs"
plugin_dir "$T/plugins"
"$QFT" gen pgft "2;2,2;1,2;1,1" -o "$T/fabric.json" 2>/dev/null
tree_names "$T/fabric.json" >"$T/nodes"
printf 'FabricFile=%s\n' "$T/fabric.json" >"$T/qft.conf"
W=$T/c
start_cluster "$W" --node-file "$T/nodes" -p "$T/plugins" -t topology/qft -s select/rlft \
	-c "$T/qft.conf" -e "SlurmctldDebug=verbose" -e "DebugFlags=SelectType" \
	-e "SchedulerParameters=bf_interval=2" ||
	{ cat "$W.start.out"; bad "cluster did not start"; finish; }
BIN=$W/bin
LOG=$W/log/slurmctld.log
state() { "$BIN/squeue" -h -j "$1" -o %T 2>/dev/null; }
submit() { submit_recording "$W" "$T/jobs" "$@"; }

# scenario LABEL: A, B, C as above; prints C's state after 8 s
scenario() {
	A=$(submit 3 -w n0002,n0003,n0004 --time=10)
	wait_running "$W" "$A"
	B=$(submit 3 --time=10)
	sleep 4 # backfill plans B
	C=$(submit 1 --time=30)
	for _ in $(seq 1 8); do
		[ "$(state "$C")" = RUNNING ] && break
		sleep 1
	done
	say "$1: A $(state "$A"), B $(state "$B") planned $("$BIN/squeue" -h --start -j "$B" -o '%S %Y'), C $(state "$C")"
}

scenario "PlanBusyFirst=yes"
expect_eq "PlanBusyFirst=yes: B waits for A" "$(state "$B")" PENDING
expect_eq "PlanBusyFirst=yes: C starts on the idle node at once" "$(state "$C")" RUNNING
check "slurmctld says B is planned on nodes busy now" \
	grep -q "select/rlft: JobId=$B planned at .* on nodes busy now, not idle ones" "$LOG"
"$BIN/scancel" "$A" "$B" "$C"
for _ in $(seq 1 20); do [ -z "$("$BIN/squeue" -h)" ] && break; sleep 0.5; done

printf 'PlanBusyFirst=no\n' >>"$W/etc/qft.conf" # the harness copied it there
"$BIN/scontrol" reconfigure
sleep 2
scenario "PlanBusyFirst=no"
expect_eq "PlanBusyFirst=no: B waits for A" "$(state "$B")" PENDING
expect_eq "PlanBusyFirst=no: the same C waits (B's plan holds the idle node)" "$(state "$C")" PENDING
"$BIN/scancel" "$A" "$B" "$C"
check "slurmctld alive at the end" sh -c "'$BIN/scontrol' ping | grep -q 'is UP'"
finish
