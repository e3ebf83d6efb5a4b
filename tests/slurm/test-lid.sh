#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# select/rlft's LID choice (qft.conf LidChoice=, docs/lid-table.md) in a
# real slurmctld, front-end mode, on PGFT(2;18,18;1,18;1,1) with LMC 2:
#   1. LidChoice=auto (the default): a job whose nodes are a congestion-free
#      shape keeps one LID; one on 16 scattered nodes (-w, by -N and by -n
#      in a node range), Shift HSD 1.333 on one LID, gets a per-pair table
#      in HostFileDir=, whose HSD the job is told and `qft score --lid pair`
#      confirms (1.000).
#   2. Reconfigure to LidPairMaxNodes=10: the same job gets per-destination
#      offsets (QFT_LID_OFFSETS, a dest table); LidChoice=job: a job-wide
#      offset (QFT_LID_PATH_BITS), no table; LidChoice=off: none.
#   3. A bad LidChoice= at reconfigure is named and the settings kept; a
#      job's table goes when the job ends.
#   4. End to end with Debian's real slurmd (--real-nodes, 4 nodes): seed
#      001's example (N3, N5, N6, N9 of 18 hosts, 3 roots, LMC 2) with the
#      SPANK plugin in plugstack.conf: sbatch --qft-lid=dest reaches
#      select/rlft, which chooses dest (auto would give pair) and predicts
#      HSD 1.0; the batch step and an srun step get the interposer
#      (libqft-lid.so of this build) and its table; --qft-lid=off: none.
TEST_NAME=test-lid
. "$(dirname "$0")/lib.sh"

T=$ROOT/lid
rm -rf "$T"
mkdir -p "$T/jobs"
plugin_dir "$T/plugins"
tuple="2;18,18;1,18;1,1"
"$QFT" gen pgft "$tuple" --lmc 2 -o "$T/fabric.json" 2>/dev/null
conf() { printf 'FabricFile=fabric.json\nHostFileDir=%s\n%s' "$T/hostfiles" "$1" >"$W/etc/qft.conf"; }
printf 'FabricFile=fabric.json\nHostFileDir=%s\n' "$T/hostfiles" >"$T/qft.conf"
tree_names "$T/fabric.json" >"$T/nodes"
W=$T/c
start_cluster "$W" --node-file "$T/nodes" -p "$T/plugins" -t topology/qft -s select/rlft \
	-c "$T/qft.conf" -c "$T/fabric.json" -e "SlurmctldDebug=debug" ||
	{ cat "$W.start.out"; bad "cluster with select/rlft did not start"; finish; }
BIN=$W/bin
LOG=$W/log/slurmctld.log
ok "324-node cluster up with select/rlft, fabric LMC 2"
cd "$W" || finish

envof() { sed -n "s/^$2=//p" "$T/jobs/$1.env"; }
lid_score() { # lid_score MODE HOSTS: qft's HSD of the choice, in rank order
	"$QFT" score --fabric "$T/fabric.json" --hosts "$2" --order given --lid "$1" --json |
		python3 -c 'import json,sys; print("%.3f" % json.load(sys.stdin)["avg_hsd"])'
}
run_one() { # run_one SBATCH-ARGS...: a recording job, running; prints its id
	local id
	id=$(submit_recording "$W" "$T/jobs" "$@")
	wait_running "$W" "$id"
	echo "$id"
}

# --- 1. auto ---------------------------------------------------------------
a=$(run_one 18)
expect_eq "18 nodes (a leaf): QFT_LID_CHOICE" "$(envof "$a" QFT_LID_CHOICE)" none
check "18 nodes: no table" sh -c "! grep -q '^QFT_LID_TABLE=' $T/jobs/$a.env"
check "18 nodes: the log says why" grep -q "JobId=$a: no LID choice (LidChoice= auto: congestion-free by shape)" "$LOG"
scattered="n[0019-0023,0037-0041,0055-0060]"
b=$(run_one 16 -w "$scattered")
hosts=$(envof "$b" QFT_HOSTS)
one=$(envof "$b" QFT_HSD_AVG)
expect_eq "16 nodes: QFT_LID_CHOICE" "$(envof "$b" QFT_LID_CHOICE)" pair
table=$(envof "$b" QFT_LID_TABLE)
check "16 nodes: the table is in HostFileDir" test -f "$T/hostfiles/job_$b.lid"
expect_eq "16 nodes: QFT_LID_TABLE" "$table" "$T/hostfiles/job_$b.lid"
expect_eq "16 nodes: table head" "$(sed -n '1,4p' "$table" | paste -sd' ')" "qft-lid 1 lmc 2 choice pair hosts 16"
expect_eq "16 nodes: table hosts in QFT_HOSTS order" "$(sed -n 's/^host \([^ ]*\) .*/\1/p' "$table" | paste -sd,)" "$hosts"
expect_eq "16 nodes: 16 rows of 16 offsets" "$(sed -n '/^pairs$/,/^end$/p' "$table" | grep -c '^[0-3]\{16\}$')" 16
pair_hsd=$(envof "$b" QFT_LID_HSD_AVG)
expect_eq "16 nodes: QFT_LID_HSD_AVG = qft score --lid pair" "$pair_hsd" "$(lid_score pair "$hosts")"
check "16 nodes: pair ($pair_hsd) below one LID ($one)" python3 -c "import sys; sys.exit(not $pair_hsd < $one)"
check "16 nodes: the log names choice, HSD and time" \
	grep -Eq "JobId=$b LID choice pair \(LidChoice= auto, LMC 2\): HSD $pair_hsd avg, .* one LID $one; table written; [0-9]+ us" "$LOG"
"$BIN/scancel" "$a" "$b"
sleep 2
check "the ended job's table is removed" test ! -e "$table"
# One CPU per node: -n 16 takes 16 nodes, in a node range.
c=$(run_one 1-30 -n 16 -w "$scattered")
expect_eq "-N 1-30 -n 16: QFT_LID_CHOICE" "$(envof "$c" QFT_LID_CHOICE)" pair
expect_eq "-N 1-30 -n 16: 16 hosts in the table" "$(sed -n 's/^hosts //p' "$(envof "$c" QFT_LID_TABLE)")" 16
"$BIN/scancel" "$c"

# --- 2. reconfigure: dest, job, off ----------------------------------------
conf $'LidPairMaxNodes=10\n'
"$BIN/scontrol" reconfigure
sleep 2
d=$(run_one 16 -w "$scattered")
expect_eq "LidPairMaxNodes=10, 16 nodes: QFT_LID_CHOICE" "$(envof "$d" QFT_LID_CHOICE)" dest
offsets=$(envof "$d" QFT_LID_OFFSETS)
check "dest: QFT_LID_OFFSETS has 16 offsets, not all 0 ($offsets)" \
	sh -c "[ \$(echo $offsets | tr , '\\n' | wc -l) = 16 ] && echo $offsets | grep -q '[1-3]'"
expect_eq "dest: the table's offsets are QFT_LID_OFFSETS" \
	"$(sed -n 's/^host [^ ]* [^ ]* \([0-9]*\)$/\1/p' "$(envof "$d" QFT_LID_TABLE)" | paste -sd,)" "$offsets"
expect_eq "dest: QFT_LID_HSD_AVG = qft score --lid dest" "$(envof "$d" QFT_LID_HSD_AVG)" "$(lid_score dest "$(envof "$d" QFT_HOSTS)")"
check "dest: the log says why not pair" grep -q "JobId=$d LID choice dest (LidChoice= auto: more nodes than LidPairMaxNodes=" "$LOG"
"$BIN/scancel" "$d"
conf $'LidChoice=job\n'
"$BIN/scontrol" reconfigure
sleep 2
e=$(run_one 16 -w "$scattered")
expect_eq "LidChoice=job: QFT_LID_CHOICE" "$(envof "$e" QFT_LID_CHOICE)" job
check "job: QFT_LID_PATH_BITS is an offset" sh -c "grep -Eq '^QFT_LID_PATH_BITS=[0-3]$' $T/jobs/$e.env"
check "job: no table" sh -c "! grep -q '^QFT_LID_TABLE=' $T/jobs/$e.env"
"$BIN/scancel" "$e"
conf $'LidChoice=off\n'
"$BIN/scontrol" reconfigure
sleep 2
f=$(run_one 16 -w "$scattered")
expect_eq "LidChoice=off: QFT_LID_CHOICE" "$(envof "$f" QFT_LID_CHOICE)" none
expect_eq "LidChoice=off: offsets all 0" "$(envof "$f" QFT_LID_OFFSETS | tr -d ',0')" ""
"$BIN/scancel" "$f"

# --- 3. a bad value at reconfigure -----------------------------------------
conf $'LidChoice=best\n'
"$BIN/scontrol" reconfigure
sleep 2
check "LidChoice=best is named with the words it takes" \
	grep -q "LidChoice=best, expected off, auto, job, dest or pair" "$LOG"
g=$(run_one 16 -w "$scattered")
expect_eq "after the bad reconfigure the last settings hold (off)" "$(envof "$g" QFT_LID_CHOICE)" none
"$BIN/scancel" "$g"
"$HARNESS" stop -w "$W" >/dev/null 2>&1

# --- 4. real slurmd, the SPANK plugin, the interposer ----------------------
BUILD=$QFT_PLUGIN_BUILD/../..
SPANK=$(cd "$BUILD/contribs/spank" 2>/dev/null && pwd)/spank_qft_lid.so
LIB=$(cd "$BUILD/contribs/verbs/.libs" 2>/dev/null && pwd)/libqft-lid.so
if [ ! -f "$SPANK" ] || [ ! -f "$LIB" ]; then
	bad "no $SPANK or $LIB in this build"
	finish
fi
R=$T/real
mkdir -p "$R/conf" "$R/out"
"$QFT" gen pgft "2;3,6;1,3;1,1" --lmc 2 -o "$R/conf/fabric.json" 2>/dev/null
printf 'n0004\nn0006\nn0007\nn0010\n' >"$R/nodes"
printf 'FabricFile=fabric.json\nHostFileDir=%s\n' "$R/hostfiles" >"$R/conf/qft.conf"
echo "optional $SPANK interposer=$LIB" >"$R/conf/plugstack.conf"
cat >"$R/job.sh" <<'JOB'
#!/bin/sh
env | sort >"$QFT_OUT/$SLURM_JOB_ID.batch.env"
[ -n "$QFT_LID_TABLE" ] && cp "$QFT_LID_TABLE" "$QFT_OUT/$SLURM_JOB_ID.lid"
srun -N1 -n1 sh -c 'env | sort >"$QFT_OUT/$SLURM_JOB_ID.step.env"'
JOB
chmod +x "$R/job.sh"
W=$R/c
if ! start_cluster "$W" --real-nodes --node-file "$R/nodes" -p "$T/plugins" -t topology/qft \
	-s select/rlft -c "$R/conf/qft.conf" -c "$R/conf/fabric.json" -c "$R/conf/plugstack.conf" \
	-e "SlurmctldDebug=debug"; then
	cat "$W.start.out"
	bad "real-node cluster with select/rlft and the SPANK plugin did not start"
	finish
fi
ok "4 real slurmd, select/rlft, spank/qft_lid, fabric LMC 2"
BIN=$W/bin
LOG=$W/log/slurmctld.log
real_job() { # real_job [SBATCH-ARGS...]: runs job.sh on the 4 nodes, prints its id
	local id
	id=$(cd "$W" && QFT_OUT=$R/out "$BIN/sbatch" --parsable -N 4 -o /dev/null "$@" "$R/job.sh")
	wait_job "$BIN" "$id" >/dev/null
	echo "$id"
}
renv() { sed -n "s/^$3=//p" "$R/out/$1.$2.env" 2>/dev/null; }
h=$(real_job --qft-lid=dest)
expect_eq "--qft-lid=dest reached select/rlft: QFT_LID_CHOICE" "$(renv "$h" batch QFT_LID_CHOICE)" dest
expect_eq "seed 001's example with dest: QFT_LID_HSD_AVG" "$(renv "$h" batch QFT_LID_HSD_AVG)" 1.000
expect_eq "... on one LID: QFT_HSD_AVG" "$(renv "$h" batch QFT_HSD_AVG)" 1.333
check "the log names --qft-lid as the source" grep -q "JobId=$h LID choice dest (--qft-lid dest, LMC 2)" "$LOG"
for step in batch step; do
	check "$step step: the interposer is preloaded" sh -c "grep -q '^LD_PRELOAD=$LIB' '$R/out/$h.$step.env'"
	expect_eq "$step step: UCX_IB_MLX5_DEVX" "$(renv "$h" $step UCX_IB_MLX5_DEVX)" n
	expect_eq "$step step: QFT_LID_TABLE" "$(renv "$h" $step QFT_LID_TABLE)" "$R/hostfiles/job_$h.lid"
done
expect_eq "the job's table (copied by the job)" "$(sed -n '3,4p' "$R/out/$h.lid" 2>/dev/null | paste -sd' ')" "choice dest hosts 4"
check "the table is gone with the job" test ! -e "$R/hostfiles/job_$h.lid"
i=$(real_job)
expect_eq "no option (auto): QFT_LID_CHOICE" "$(renv "$i" batch QFT_LID_CHOICE)" pair
j=$(real_job --qft-lid=off)
check "--qft-lid=off: slurmctld chose none" grep -q "JobId=$j: no LID choice (--qft-lid off: off)" "$LOG"
check "--qft-lid=off: no interposer, no QFT_LID_ variable" \
	sh -c "! grep -Eq '^(LD_PRELOAD=.*libqft-lid|QFT_LID_)' '$R/out/$j.batch.env'"
finish
