#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# qft.conf ShapeWait= in a real slurmctld (docs/product-shapes.md section
# 11), on PGFT(2;4,4;1,4;1,1): 4 leaves L0-L3 of 4 hosts, positions p0-p3.
# A 9-node job has a congestion-free shape only as 3 leaves x 3 common
# positions. The wait is counted from the job's eligible time:
#   0. The job (1-minute limit: a wait of 60 s) comes while F holds the 10
#      hosts that Q and R1 leave; 5 s later R1 (limit 1 min) takes L2
#      p0-p2. When F ends, R1's end frees the 3 x 3 shape within 60 s of
#      now, but later than 60 s after the job became eligible: it starts
#      now, not congestion-free.
# Then:
#   R (time limit 2 min) holds L2 p0-p2, Q (60 min) L0 p3, L1 p3, L3 p0;
#   free: L0 p0-p2, L1 p0-p2, L2 p3, L3 p1-p3 (10 hosts, no 3 x 3);
#   when R ends, L0-L2 x p0-p2 is one.
#   1. ShapeWait=100 and a 1-minute limit: R's end (2 min) is beyond the
#      job's wait; it starts now, not congestion-free. With its own
#      --qft-shape-wait=5 (spank/qft_lid) the same job waits for R's end;
#      a 10-minute job with --qft-shape-wait=0 starts now.
#   2. With a 10-minute limit it waits: PENDING, slurmctld says why, and
#      backfill plans it at R's end (squeue --start). A second such job
#      waits too, but with ShapeHolds=1 only the first holds its shape in
#      backfill's plan.
#   3. A slurmctld restart keeps R, Q and the waiting job.
#   4. R ends (scancel): the job starts on the 3 x 3 shape, congestion-free;
#      QFT_SHAPE_WAITED says how long it waited for it, from before the
#      restart (the time is kept in slurmctld's job state).
#   5. ShapeWaitFrom=decline (reconfigure): step 0 again, and now the job
#      waits for R1's shape, since its wait counts from its first declined
#      start, not from its eligible time (the job asks -N 8-9 -n 9).
#      slurmctld is SIGKILLed while it waits: the first decline's time is
#      in the state file already.
#   6. ShapeWaitEnds= (reconfigure): R2 (2 minutes) holds L2 p0-p2 again.
#      By its limit the shape is due past a 1-minute job's wait: it starts
#      now. With ShapeWaitEnds=40 R2 is expected to end after 40% of what
#      is left of its limit, within the wait: the same job waits, and
#      takes the shape when R2 ends. ShapeWaitEnds=0 is refused by name.
TEST_NAME=test-shapewait
. "$(dirname "$0")/lib.sh"

T=$ROOT/shapewait
rm -rf "$T"
mkdir -p "$T/jobs"
plugin_dir "$T/plugins"
"$QFT" gen pgft "2;4,4;1,4;1,1" -o "$T/fabric.json" 2>/dev/null
tree_names "$T/fabric.json" >"$T/nodes"
printf 'FabricFile=%s\nShapes=products\nShapeWait=100\nShapeHolds=1\n' "$T/fabric.json" >"$T/qft.conf"
SPANK=$(cd "$QFT_PLUGIN_BUILD/../../contribs/spank" && pwd)/spank_qft_lid.so
echo "optional $SPANK" >"$T/plugstack.conf"
W=$T/c
start_cluster "$W" --node-file "$T/nodes" -p "$T/plugins" -t topology/qft -s select/rlft \
	-c "$T/qft.conf" -c "$T/plugstack.conf" -e "SlurmctldDebug=verbose" -e "DebugFlags=SelectType" \
	-e "SchedulerParameters=bf_interval=2" ||
	{ cat "$W.start.out"; bad "cluster did not start"; finish; }
BIN=$W/bin
LOG=$W/log/slurmctld.log
check "select/rlft says it waits for shapes" grep -q "select/rlft: fabric .*wait for one 100% of the time limit, nodes held for the first waiting jobs only" "$LOG"

host() { sed -n "$(($1 + 1))p" "$T/nodes"; } # host TREE-INDEX
hosts() { for i in "$@"; do host "$i"; done | paste -sd,; }
env_of() { sed -n "s/^$2=//p" "$T/jobs/$1.env" 2>/dev/null; }
submit() { submit_recording "$W" "$T/jobs" "$@"; }
state() { "$BIN/squeue" -h -j "$1" -o %T 2>/dev/null; }

gone() { for _ in $(seq 1 20); do [ -z "$(state "$1")" ] || [ "$(state "$1")" = COMPLETED ] && break; sleep 0.5; done; }

# step0 [NODES [SBATCH OPTION...]]: Q runs, F holds the 10 other hosts,
# c (9 nodes, or -N NODES and the options; 1 minute) waits for nodes, R1
# is backfilled 5 s later onto L2 p0-p2; then F ends.
step0() {
	F=$(submit 10 -w "$(hosts 0 1 2 4 5 6 11 13 14 15)" --time=10)
	wait_running "$W" "$F"
	c=$(submit "${1:-9}" "${@:2}" --time=1)
	sleep 5 # R1 comes well after the job became eligible
	R1=$(submit 3 -w "$(hosts 8 9 10)" --time=1)
	wait_running "$W" "$R1"
	expect_eq "the 1-minute job waits for nodes, R1 backfilled" "$(state "$c") $(state "$R1")" "PENDING RUNNING"
	"$BIN/scancel" "$F"
}

# --- 0. the wait is counted from the job's eligible time ----------------------
Q=$(submit 3 -w "$(hosts 3 7 12)" --time=60)
wait_running "$W" "$Q"
step0
wait_running "$W" "$c"
expect_eq "F ended: R1's end is due within 60 s, beyond 60 s since eligible: starts now" \
	"$(state "$c")" RUNNING
expect_eq "it is not congestion-free" "$(env_of "$c" QFT_CONGESTION_FREE)" no
expect_eq "and never waited for a shape: QFT_SHAPE_WAITED" "$(env_of "$c" QFT_SHAPE_WAITED)" ""
"$BIN/scancel" "$c" "$R1"
gone "$c"
gone "$R1"
sleep 2

R=$(submit 3 -w "$(hosts 8 9 10)" --time=2)
wait_running "$W" "$R" "$Q"
expect_eq "R and Q run" "$(state "$R") $(state "$Q")" "RUNNING RUNNING"
want=$(hosts 0 1 2 4 5 6 8 9 10)

# --- 1. the shape is due after the job's wait --------------------------------
a=$(submit 9 --time=1)
wait_running "$W" "$a"
expect_eq "1-minute job (wait 60 s, R ends in 120 s): starts now" "$(state "$a")" RUNNING
expect_eq "1-minute job: QFT_CONGESTION_FREE" "$(env_of "$a" QFT_CONGESTION_FREE)" no
"$BIN/scancel" "$a"
gone "$a"
sleep 2
a=$(submit 9 --time=1 --qft-shape-wait=5)
sleep 4
expect_eq "1-minute job with --qft-shape-wait=5 (300 s): waits for R's end" "$(state "$a")" PENDING
check "slurmctld says its own wait" \
	grep -q "select/rlft: JobId=$a waits for a congestion-free product (3x3, 9 nodes) due in .* within its ShapeWait of 300 s" "$LOG"
"$BIN/scancel" "$a"
gone "$a"
a=$(submit 9 --time=10 --qft-shape-wait=0)
wait_running "$W" "$a"
expect_eq "10-minute job with --qft-shape-wait=0: starts now" "$(state "$a")" RUNNING
expect_eq "10-minute job with --qft-shape-wait=0: QFT_CONGESTION_FREE" "$(env_of "$a" QFT_CONGESTION_FREE)" no
"$BIN/scancel" "$a"
gone "$a"
check "--qft-shape-wait=soon fails sbatch" \
	sh -c "! (cd '$W' && '$BIN/sbatch' -N 1 --qft-shape-wait=soon --wrap true) 2>'$T/bad.err'"
check "naming the option and what it expects" grep -q "qft-shape-wait=soon: expected minutes" "$T/bad.err"
sleep 2

# --- 2. the shape is due within the job's wait ------------------------------
b_submitted=$(date +%s)
b=$(submit 9 --time=10)
b2=$(submit 9 --time=10)
sleep 6 # two backfill cycles
expect_eq "10-minute job (wait 600 s): waits for the shape" "$(state "$b")" PENDING
expect_eq "so does the next one" "$(state "$b2")" PENDING
check "backfill holds the first one's shape" grep -q "select/rlft: JobId=$b will run on a congestion-free product 3x3" "$LOG"
check "the second waits without holding (ShapeHolds=1)" \
	grep -q "select/rlft: JobId=$b2 waits for a product free in .* without holding it" "$LOG"
check "and is not planned on a shape" sh -c "! grep -q 'select/rlft: JobId=$b2 will run on' '$LOG'"
check "slurmctld says why" grep -q "select/rlft: JobId=$b waits for a congestion-free product (3x3, 9 nodes) due in .* within its ShapeWait of 600 s (.* s left)" "$LOG"
r_end=$("$BIN/scontrol" -o show job "$R" | sed -n 's/.* EndTime=\([^ ]*\).*/\1/p')
b_start=$("$BIN/squeue" -h --start -j "$b" -o %S)
say "R ends $r_end, the waiting job is planned for $b_start"
expect_eq "backfill plans it at R's end" "$b_start" "$r_end"

# --- 3. restart ----------------------------------------------------------------
"$BIN/squeue" -h -o '%i %T %N' | sort >"$T/before"
restart_ctld "$W" "slurmctld restarted"
sleep 5
"$BIN/squeue" -h -o '%i %T %N' | sort >"$T/after"
check "R, Q and the waiting job survive the restart" cmp -s "$T/before" "$T/after"
sleep 4
expect_eq "after the restart it still waits" "$(state "$b")" PENDING

# --- 4. R ends -----------------------------------------------------------------
r_cancelled=$(date +%s)
"$BIN/scancel" "$R"
wait_running "$W" "$b"
expect_eq "R ended: the job runs" "$(state "$b")" RUNNING
expect_eq "on the 3 x 3 shape" "$(job_nodes "$W" "$b")" "$want"
expect_eq "QFT_SHAPE" "$(env_of "$b" QFT_SHAPE)" 3x3
expect_eq "QFT_CONGESTION_FREE" "$(env_of "$b" QFT_CONGESTION_FREE)" yes
waited=$(env_of "$b" QFT_SHAPE_WAITED)
say "it waited ${waited:-?} s for its shape, $((r_cancelled - b_submitted)) s from its submission to R's end"
check "QFT_SHAPE_WAITED counts from before the restart" \
	test "${waited:-0}" -ge $((r_cancelled - b_submitted - 3))

# --- 5. ShapeWaitFrom=decline ---------------------------------------------------
"$BIN/scancel" "$b" "$b2"
gone "$b"
gone "$b2"
printf 'ShapeWaitFrom=decline\n' >>"$W/etc/qft.conf" # the harness copied it there
"$BIN/scontrol" reconfigure
sleep 2
check "select/rlft counts the wait from the first declined start" \
	grep -q "wait for one 100% of the time limit from the first declined start" "$LOG"
step0 8-9 -n 9 # sized as users do: a node range and a task count
sleep 4 # two scheduling cycles after F ended
expect_eq "F ended: R1's end is due within 60 s of the first decline: it waits" \
	"$(state "$c")" PENDING
sleep 3 # slurmctld writes its state file at most 5 s after it is asked to
killed=$(date +%s)
restart_ctld "$W" "slurmctld killed (SIGKILL) and started again" --kill
sleep 3
expect_eq "after the crash it still waits" "$(state "$c")" PENDING
r1_cancelled=$(date +%s)
"$BIN/scancel" "$R1"
wait_running "$W" "$c"
expect_eq "R1 ended: it runs on the 3 x 3 shape" "$(job_nodes "$W" "$c")" "$want"
expect_eq "congestion-free" "$(env_of "$c" QFT_CONGESTION_FREE)" yes
waited=$(env_of "$c" QFT_SHAPE_WAITED)
say "it waited ${waited:-?} s for its shape; slurmctld was killed $((r1_cancelled - killed)) s before R1's end"
check "QFT_SHAPE_WAITED counts from the first decline, before the crash" \
	test "${waited:-0}" -ge $((r1_cancelled - killed + 3))

# --- 6. ShapeWaitEnds= -------------------------------------------------------
"$BIN/scancel" "$c"
gone "$c"
R2=$(submit 3 -w "$(hosts 8 9 10)" --time=2)
wait_running "$W" "$R2"
a=$(submit 9 --time=1)
wait_running "$W" "$a"
expect_eq "R2's limit ends past the 1-minute job's wait: it starts now" "$(state "$a")" RUNNING
expect_eq "not congestion-free" "$(env_of "$a" QFT_CONGESTION_FREE)" no
"$BIN/scancel" "$a"
gone "$a"
printf 'ShapeWaitEnds=0\n' >>"$W/etc/qft.conf"
n=$(wc -l <"$W/etc/qft.conf")
"$BIN/scontrol" reconfigure >/dev/null 2>&1
sleep 2
check "ShapeWaitEnds=0 is refused, by name, file and line ($n)" \
	grep -q "qft.conf:$n: ShapeWaitEnds=0, expected the percentage of what is left of a running job's time limit it is expected to run, 1 to 100" "$LOG"
# a value Slurm's parser refuses, which names neither file nor line
sed -i 's/^ShapeWaitEnds=0$/ShapeWaitEnds=ten/' "$W/etc/qft.conf"
"$BIN/scontrol" reconfigure >/dev/null 2>&1
sleep 2
check "ShapeWaitEnds=ten is refused, by file and line" \
	grep -q "qft.conf:$n: ShapeWaitEnds=ten, expected a whole number" "$LOG"
sed -i 's/^ShapeWaitEnds=ten$/ShapeWaitEnds=40/' "$W/etc/qft.conf"
"$BIN/scontrol" reconfigure
sleep 2
check "select/rlft expects the running jobs' ends at 40%" \
	grep -q "wait for one 100% of the time limit from the first declined start, the running jobs expected to end after 40% of what is left of their limits" "$LOG"
a=$(submit 9 --time=1)
sleep 4
expect_eq "ShapeWaitEnds=40: the same job waits for R2's expected end" "$(state "$a")" PENDING
check "slurmctld says when it expects the shape" \
	grep -q "select/rlft: JobId=$a waits for a congestion-free product (3x3, 9 nodes) due in .* s (ShapeWaitEnds=40), within its ShapeWait of 60 s" "$LOG"
"$BIN/scancel" "$R2"
wait_running "$W" "$a"
expect_eq "R2 ended: it runs on the 3 x 3 shape" "$(job_nodes "$W" "$a")" "$want"
expect_eq "congestion-free, after its wait" \
	"$(env_of "$a" QFT_CONGESTION_FREE) $([ -n "$(env_of "$a" QFT_SHAPE_WAITED)" ] && echo waited)" "yes waited"
check "slurmctld alive at the end" sh -c "'$BIN/scontrol' ping | grep -q 'is UP'"
"$HARNESS" stop -w "$W" >/dev/null 2>&1
finish
