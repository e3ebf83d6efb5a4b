#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# select/rlft (stacked on cons_tres) with topology/qft in a real slurmctld,
# front-end mode, on the 1944-node PGFT(3;18,18,6;1,18,6;1,1,3): jobs of
# 18, 36, 324, 7, 100 and 648 nodes and a burst of 50 mixed jobs; every
# job whose size is a multiple of its block is congestion-free alone and
# with the others; the job environment; a slurmctld restart keeps every job
# and allocation; bad requests give Slurm's usual answers.
TEST_NAME=test-select
. "$(dirname "$0")/lib.sh"

T=$ROOT/select
rm -rf "$T"
mkdir -p "$T/jobs"
plugin_dir "$T/plugins"
tuple="3;18,18,6;1,18,6;1,1,3"
"$QFT" gen pgft "$tuple" -o "$T/fabric.json" 2>/dev/null
printf 'FabricFile=fabric.json\nHostFileDir=%s\n' "$T/hostfiles" >"$T/qft.conf"
tree_names "$T/fabric.json" >"$T/nodes"
echo x001 >>"$T/nodes" # a node the fabric lacks
W=$T/c
start_cluster "$W" --node-file "$T/nodes" -p "$T/plugins" -t topology/qft -s select/rlft \
	-c "$T/qft.conf" -c "$T/fabric.json" -e "DebugFlags=SelectType
SlurmctldDebug=verbose" ||
	{ cat "$W.start.out"; bad "cluster with select/rlft did not start"; finish; }
BIN=$W/bin
LOG=$W/log/slurmctld.log
ok "1945-node cluster up with select/rlft + topology/qft"
check "select/rlft loaded on cons_tres" grep -q "select/rlft: loaded (stacked on select/cons_tres)" "$LOG"
check "select/rlft took topology/qft's fabric" grep -q "select/rlft: fabric $W/etc/fabric.json (loaded by topology/qft): PGFT($tuple), 1944 hosts" "$LOG"
# topology/qft at 1944 nodes: 108 leaves, 6 pods, 1 top
expect_eq "switch records at 1944 nodes" "$("$BIN/scontrol" show topology | grep -c '^SwitchName=')" 115
check "the top record holds the 6 pods" sh -c "'$BIN/scontrol' show topology | grep -q '^SwitchName=L3-0 Level=2 LinkSpeed=200 Nodes=n\[0001-1944\] Switches=L2-\[0-5\]'"
cd "$W" || finish

submit() { # submit N [sbatch args...]: prints the job id
	local n=$1
	shift
	"$BIN/sbatch" --parsable -N "$n" -o "$T/jobs/%j.out" "$@" \
		--wrap "env | grep ^QFT_ | sort > $T/jobs/\$SLURM_JOB_ID.env; srun -N1 -n1 env | grep ^QFT_HSD_AVG > $T/jobs/\$SLURM_JOB_ID.step; sleep 600"
}
running() { "$BIN/squeue" -h -t R -o %i | wc -l; }
wait_running() { # wait_running N
	for _ in $(seq 1 120); do [ "$(running)" -ge "$1" ] && return 0; sleep 0.5; done
	return 1
}
nodes_of() { "$BIN/scontrol" show hostnames "$("$BIN/squeue" -h -j "$1" -o %N)" | paste -sd,; }
hsd() { "$QFT" score --fabric "$T/fabric.json" --json "$@" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.3f %d" % (d["avg_hsd"], d["max_hsd"]))'; }

# --- 1. the sequence of the issue ------------------------------------------
ids=()
for n in 18 36 324 7 100 648; do ids+=("$(submit $n)"); done
wait_running 6 && ok "6 jobs running" || bad "only $(running) of 6 jobs running"
sleep 2
: >"$T/aligned.jobs"
for i in "${!ids[@]}"; do
	id=${ids[$i]}
	n=$("$BIN/squeue" -h -j "$id" -o %D)
	list=$(nodes_of "$id")
	alone=$(hsd --hosts "$list")
	env_hsd=$(sed -n 's/^QFT_HSD_AVG=//p' "$T/jobs/$id.env" 2>/dev/null)
	placement=$(sed -n 's/^QFT_PLACEMENT=//p' "$T/jobs/$id.env" 2>/dev/null)
	say "job $id: $n nodes $("$BIN/squeue" -h -j "$id" -o %N): $placement; Shift HSD alone $alone (env $env_hsd)"
	# block: 1 in a leaf (n <= 18), 18 in a pod (n <= 324), 108 above
	block=1
	[ "$n" -gt 18 ] && block=18
	[ "$n" -gt 324 ] && block=108
	if [ $((n % block)) = 0 ]; then
		expect_eq "job $id ($n nodes, block $block) HSD alone" "$alone" "1.000 1"
		echo "$list" >>"$T/aligned.jobs"
	fi
	expect_eq "job $id: QFT_HSD_AVG = qft score" "$env_hsd" "${alone% *}"
done
expect_eq "aligned jobs together (lock-step)" "$(hsd --jobs "$T/aligned.jobs")" "1.000 1"
first=${ids[0]}
check "QFT_HOSTS lists the 18 nodes in tree order" grep -q "^QFT_HOSTS=$(tree_names "$T/fabric.json" 0 18 | paste -sd,)$" "$T/jobs/$first.env"
hostfile=$(sed -n 's/^QFT_HOSTFILE=//p' "$T/jobs/$first.env")
expect_eq "QFT_HOSTFILE lists the job's nodes" "$(paste -sd, "$hostfile")" "$(nodes_of "$first")"
check "QFT_LID_OFFSETS has one offset per node" sh -c "[ \$(sed -n 's/^QFT_LID_OFFSETS=//p' $T/jobs/$first.env | tr , '\\n' | wc -l) = 18 ]"
check "an srun step sees QFT_HSD_AVG" sh -c "grep -q '^QFT_HSD_AVG=1.000' $T/jobs/$first.step"
check "slurmctld explains placements (DebugFlags=SelectType)" grep -q "select/rlft: JobId=$first 18 nodes (18-18), [0-9]* candidates:" "$LOG"

# --- 2. a burst of 50 mixed jobs --------------------------------------------
sizes=(1 2 3 4 6 9 12 18 18 18 36 36 54 72 90 108 108 144 216 324 5 7 11 13 17 20 25 30 40 50)
burst=()
for i in $(seq 0 49); do burst+=("$(submit "${sizes[$((i % ${#sizes[@]}))]}")"); done
sleep 8
echo "${ids[@]} ${burst[@]}" | tr ' ' '\n' >"$T/all.ids"
nrun=$(running)
say "burst: $nrun jobs running, $("$BIN/squeue" -h -t PD | wc -l) pending"
: >"$T/running.jobs"
: >"$T/aligned2.jobs"
bad_aligned=0
n_aligned=0
for id in $("$BIN/squeue" -h -t R -o %i); do
	n=$("$BIN/squeue" -h -j "$id" -o %D)
	list=$(nodes_of "$id")
	echo "$list" >>"$T/running.jobs"
	# seed 000 V-B's multiples of prod(w_k) = 108, and every job the placer
	# put on a product shape or whole blocks of its level
	# (QFT_PLACEMENT_KIND=product or aligned: products of whole leaves);
	# all of them pairwise link-disjoint (a 1-node job has no traffic)
	if [ "$n" -gt 1 ] && { [ $((n % 108)) = 0 ] || grep -qxE "QFT_PLACEMENT_KIND=(product|aligned)" "$T/jobs/$id.env" 2>/dev/null; }; then
		echo "$list" >>"$T/aligned2.jobs"
		n_aligned=$((n_aligned + 1))
		[ "$(hsd --hosts "$list")" = "1.000 1" ] || { bad_aligned=$((bad_aligned + 1)); say "job $id: $(hsd --hosts "$list")"; }
	fi
done
say "$n_aligned running jobs are multiples of 108, products or placed on whole blocks"
expect_eq "of those, jobs not congestion-free" "$bad_aligned" 0
expect_eq "those jobs together" "$(hsd --jobs "$T/aligned2.jobs")" "1.000 1"
say "all running jobs together: $(hsd --jobs "$T/running.jobs")"
# No "no node in two jobs" here: on one-CPU nodes Slurm's bitmap holds no
# busy node, so it could not fail. test-shared.sh checks the placer's
# choice where nodes are shared (and a wrong one shows).

# --- 3. restart slurmctld in the middle of it -------------------------------
"$BIN/squeue" -h -o '%i %T %N' | sort >"$T/before"
restart_ctld "$W" "slurmctld restarted"
sleep 5
"$BIN/squeue" -h -o '%i %T %N' | sort >"$T/after"
check "every job and allocation survives the restart" cmp -s "$T/before" "$T/after"
# the jobs running at the restart: the scheduler may have started more of
# the burst since running.jobs was taken
nrec=$(grep -c ' RUNNING ' "$T/before")
if [ "$SERIES" = 22.05 ]; then
	# per job, as _sync_jobs_to_conf rebuilds their node bitmaps
	check "select/rlft tracks the $nrec recovered jobs" grep -q "select/rlft: JobId=[0-9]* tracked, $nrec running jobs" "$LOG"
else
	# all at once, in job_init: the first count after the last start
	expect_eq "select/rlft tracks the recovered jobs" "$(recovered_jobs "$LOG")" "$nrec"
fi
# the pending burst would be ahead of it: only the running jobs stay
"$BIN/scancel" -t PD -u root
sleep 2
idle=$("$BIN/sinfo" -h -t idle -o %D | awk '{s += $1} END {print s + 0}')
id=$(submit 18)
sleep 4
st=$("$BIN/squeue" -h -j "$id" -o '%T %r')
say "after the restart: $idle idle nodes; an 18-node job is $st"
if [ "${idle:-0}" -ge 18 ]; then
	expect_eq "a job after the restart runs on the idle nodes" "$st" "RUNNING None"
	check "a job after the restart avoids the running ones" sh -c "[ \$( (tr , '\\n' < $T/running.jobs; \"$BIN/scontrol\" show hostnames \$(\"$BIN/squeue\" -h -j $id -o %N)) | sort | uniq -d | wc -l) = 0 ]"
else
	expect_eq "a job after the restart waits for nodes" "$st" "PENDING Resources"
fi

# --- 4. bad requests: Slurm's own answers ------------------------------------
big=$("$BIN/sbatch" --parsable -N 2000 --wrap true 2>&1)
sleep 2
if [ "$SERIES" = 22.05 ]; then
	expect_eq "a job larger than the partition pends as with cons_tres" \
		"$("$BIN/squeue" -h -j "$big" -o '%T %r')" "PENDING PartitionConfig"
else
	# 24.11's cons_tres refuses it at submission
	check "a job larger than the partition is refused as by cons_tres" \
		sh -c "echo '$big' | grep -q 'Requested node configuration is not available'"
fi
"$BIN/scancel" -u root
sleep 3
# a node outside the fabric is in no switch record: Slurm itself refuses a
# job that needs it beside a fabric node, as with topology/tree
out=$("$BIN/sbatch" --parsable -N 2 -w x001,n0001 --wrap true 2>&1)
say "sbatch -w x001,n0001: $out"
check "a job on a node outside the fabric and one inside is refused" sh -c "echo '$out' | grep -q 'Requested node configuration is not available'"
"$BIN/scontrol" update nodename=n[0001-1944],x001 state=drain reason=test
id=$("$BIN/sbatch" --parsable -N 4 --wrap true)
sleep 3
expect_eq "all nodes drained: the job pends" "$("$BIN/squeue" -h -j "$id" -o %T)" PENDING
say "its reason: $("$BIN/squeue" -h -j "$id" -o %r)"
"$BIN/scontrol" update nodename=n[0001-1944],x001 state=resume
sleep 4
expect_eq "after resume it runs" "$(wait_job "$BIN" "$id")" COMPLETED
check "slurmctld alive at the end" sh -c "'$BIN/scontrol' ping | grep -q 'is UP'"
if grep -qi "segfault\|Segmentation" "$W/log/"*; then bad "a crash in the logs"; else ok "no crash in the logs"; fi
finish
