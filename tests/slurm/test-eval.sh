#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Slurm 24.11: stock select/cons_tres with topology/qft, which then places
# jobs itself in its eval_nodes hook, on the 1944-node
# PGFT(3;18,18,6;1,18,6;1,1,3) with 8 CPUs per node. The jobs of
# test-select's first sequence get the nodes select/rlft gives them there
# (the same placer, on an empty cluster the same choice) and HSD 1.0 when
# aligned; cons_tres still picks CPUs (-n/-c inside the placer's nodes);
# running jobs are known without job_begin (a later job avoids their
# nodes); a job over fragmented free nodes still starts; the decision is
# logged with its time under the locks.
TEST_NAME=test-eval
. "$(dirname "$0")/lib.sh"

[ "$SERIES" != 22.05 ] || skip_test "topology plugins choose nodes (eval_nodes) from Slurm 23.11 on"
T=$ROOT/eval
rm -rf "$T"
mkdir -p "$T/jobs"
plugin_dir "$T/plugins"
tuple="3;18,18,6;1,18,6;1,1,3"
"$QFT" gen pgft "$tuple" -o "$T/fabric.json" 2>/dev/null
printf 'FabricFile=fabric.json\n' >"$T/qft.conf"
tree_names "$T/fabric.json" >"$T/nodes"
W=$T/c
start_cluster "$W" --node-file "$T/nodes" --node-attrs "CPUs=8" -p "$T/plugins" \
	-t topology/qft -s select/cons_tres -c "$T/qft.conf" -c "$T/fabric.json" \
	-e "DebugFlags=SelectType
SlurmctldDebug=verbose" ||
	{ cat "$W.start.out"; bad "cluster with cons_tres + topology/qft did not start"; finish; }
BIN=$W/bin
LOG=$W/log/slurmctld.log
ok "1944-node cluster up with select/cons_tres + topology/qft"
check "topology/qft says it places" grep -q "topology/qft: SelectType=select/cons_tres: topology/qft places jobs in eval_nodes" "$LOG"
cd "$W" || finish

submit() { # submit N [sbatch args...]: prints the job id
	local n=$1
	shift
	"$BIN/sbatch" --parsable -N "$n" -o "$T/jobs/%j.out" "$@" --wrap "sleep 600"
}
running() { "$BIN/squeue" -h -t R -o %i | wc -l; }
wait_running() { # wait_running N
	for _ in $(seq 1 120); do [ "$(running)" -ge "$1" ] && return 0; sleep 0.5; done
	return 1
}
nodes_of() { "$BIN/squeue" -h -j "$1" -o %N; }
hsd() { "$QFT" score --fabric "$T/fabric.json" --json "$@" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.3f %d" % (d["avg_hsd"], d["max_hsd"]))'; }

# --- 1. test-select's sequence: select/rlft's placements ---------------------
ids=()
for n in 18 36 324 7 100 648; do ids+=("$(submit "$n")"); done
wait_running 6 && ok "6 jobs running" || bad "only $(running) of 6 jobs running"
# what select/rlft chose for them (test-select on either version)
want=("n[0001-0018]" "n[0019-0054]" "n[0325-0648]" "n[0055-0061]" "n[0073-0172]" "n[0649-1296]")
for i in "${!ids[@]}"; do
	id=${ids[$i]}
	expect_eq "job $id: the nodes select/rlft gives it" "$(nodes_of "$id")" "${want[$i]}"
done
for i in 0 1 2 5; do
	id=${ids[$i]}
	expect_eq "job $id: aligned, HSD alone" \
		"$(hsd --hosts "$("$BIN/scontrol" show hostnames "$(nodes_of "$id")" | paste -sd,)")" "1.000 1"
done
check "each decision is logged with its time" \
	grep -qE "topology/qft: JobId=${ids[0]} on 18 nodes the placer chose: resources found; placement [0-9]+ us, eval_nodes [0-9]+ us" "$LOG"

# --- 2. sized by tasks: the placer's count, cons_tres's CPUs ------------------
id=$("$BIN/sbatch" --parsable -n 40 -c 2 -o "$T/jobs/%j.out" --wrap "sleep 600")
for _ in $(seq 1 60); do [ "$("$BIN/squeue" -h -j "$id" -o %T)" = RUNNING ] && break; sleep 0.5; done
expect_eq "-n 40 -c 2 runs on 10 nodes of 8 CPUs" "$("$BIN/squeue" -h -j "$id" -o '%T %D')" "RUNNING 10"
check "  placed by the placer" grep -qE "topology/qft: JobId=$id on 10 nodes the placer chose: resources found" "$LOG"
# shellcheck disable=SC2046
check "  on nodes no other job holds" sh -c "[ \$( (for j in ${ids[*]}; do '$BIN/scontrol' show hostnames \$('$BIN/squeue' -h -j \$j -o %N); done; '$BIN/scontrol' show hostnames $(nodes_of "$id")) | sort | uniq -d | wc -l) = 0 ]"

# --- 3. a request the placer cannot count: Slurm's own choice ---------------
id=$("$BIN/sbatch" --parsable -N 2 --sockets-per-node=1 -o "$T/jobs/%j.out" --wrap "sleep 600")
for _ in $(seq 1 60); do [ "$("$BIN/squeue" -h -j "$id" -o %T)" = RUNNING ] && break; sleep 0.5; done
expect_eq "-N 2 --sockets-per-node=1 (the placer passes) runs on 2 nodes" \
	"$("$BIN/squeue" -h -j "$id" -o %T) $("$BIN/scontrol" show hostnames "$(nodes_of "$id")" | wc -l)" "RUNNING 2"
expect_eq "  and every evaluation of it (backfill's too) chose 2 nodes" \
	"$(grep -oE "JobId=$id nhosts:[0-9]+" "$LOG" | sort -u | paste -sd,)" "JobId=$id nhosts:2"
"$BIN/scancel" "$id"
sleep 1

# --- 4. the free nodes in fragments: the job still starts -------------------
# 1944 - 1143 busy = 801 free, in three runs: no 700-node block run
id=$(submit 700)
for _ in $(seq 1 60); do [ "$("$BIN/squeue" -h -j "$id" -o %T)" = RUNNING ] && break; sleep 0.5; done
expect_eq "a 700-node job across the fragments starts" "$("$BIN/squeue" -h -j "$id" -o '%T %D')" "RUNNING 700"
say "$(grep -oE "topology/qft: JobId=$id on .*" "$LOG" | head -1)"
check "slurmctld alive at the end" sh -c "'$BIN/scontrol' ping | grep -q 'is UP'"
if grep -qi "segfault\|Segmentation" "$W/log/"*; then bad "a crash in the logs"; else ok "no crash in the logs"; fi
finish
