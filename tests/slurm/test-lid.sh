#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# select/rlft's LID choice (qft.conf LidChoice=, docs/lid-table.md,
# docs/lid-choice.md "Off the locks") in a real slurmctld, front-end mode,
# on PGFT(2;18,18;1,18;1,1) with LMC 2:
#   1. LidChoice=auto (the default): a job whose nodes are a congestion-free
#      shape keeps one LID; one on 16 scattered nodes (-w, by -N and by -n
#      in a node range), Shift HSD 1.333 on one LID, gets a per-pair table
#      in HostFileDir=, made by select/rlft's worker off slurmctld's locks
#      (under them: at most 2 ms, logged) and published under the name the
#      job was told (QFT_LID_TABLE), whose HSD (its head) `qft score --lid
#      pair` confirms (1.000).
#   2. Reconfigure to LidPairMaxNodes=10: the same job gets per-destination
#      offsets (a dest table); LidChoice=job: a job-wide offset (a job
#      table: the nodes set UCX_IB_LID_PATH_BITS); LidChoice=off: none. LidChoice=pair
#      and no LidPairMaxNodes=: a 300-node job gets pair (no cap by
#      default), under 2 ms under the locks; its log line says what its
#      search proved (the floor no offsets get below).
#   3. A bad LidChoice= or LidThreads= at reconfigure is named and the settings kept; a
#      job's table goes when the job ends. A late worker (LidTestDelay=,
#      tests only) past LidTableWait= decides base LIDs for the job, and
#      says why. A slurmctld restarted with a table pending chooses again. Without HostFileDir= no job gets a choice (it could not
#      reach the nodes), said once. ShapeWait=100 at LMC 2: with no leaf
#      whole free, a job of -n 20 (one CPU per node) that is not
#      congestion-free now waits for whole leaves (Candidate::offset_shape),
#      due when a 2-minute job ends, and takes them once that job ends; a
#      1-minute one (a wait of 60 s) starts now.
#   4. End to end with Debian's real slurmd (--real-nodes, 4 nodes): seed
#      001's example (N3, N5, N6, N9 of 18 hosts, 3 roots, LMC 2) with the
#      SPANK plugin in plugstack.conf (dir= HostFileDir): sbatch
#      --qft-lid=dest reaches select/rlft, which chooses dest (auto would
#      give pair) and predicts HSD 1.0; the batch step and an srun step
#      wait for the table, then get the interposer (libqft-lid.so of this
#      build) and the table; --qft-lid=off: none.
#      All or nothing: a verbs program on the test double of libibverbs
#      (tests/verbs) in a 4-task step, its table 3 s late (the nodes wait
#      for it before the first task): every task rewrites; with the
#      table differing on one node (QFT_LID_DIGEST, set on each node from
#      the decision it read), that node's task stops with one message and
#      the step fails. A table later than the nodes' wait= (LidTestDelay=):
#      the first node to give up decides base LIDs, every task of every
#      step of the job runs on base LIDs (the probe's addresses unchanged),
#      the step's output says so once, and the worker's late table is
#      discarded.
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
# digest FILE: QFT_LID_DIGEST's form of FILE (FNV-1a 64, lid_table.h)
digest() {
	python3 -c 'import sys
h = 0xcbf29ce484222325
for b in open(sys.argv[1], "rb").read():
    h = ((h ^ b) * 0x100000001b3) % (1 << 64)
print("fnv1a64:%016x" % h)' "$1"
}
lid_score() { # lid_score MODE HOSTS: qft's HSD of the choice, in rank order
	"$QFT" score --fabric "$T/fabric.json" --hosts "$2" --order given --lid "$1" --json |
		python3 -c 'import json,sys; print("%.3f" % json.load(sys.stdin)["avg_hsd"])'
}
# wait_file PATH: until the worker (or a node) published it, 60 s at most
wait_file() {
	for _ in $(seq 1 120); do
		[ -e "$1" ] && return
		sleep 0.5
	done
}
# hsd_of TABLE: the HSD select/rlft wrote in the table's head
hsd_of() { sed -n 's/^# hsd \([0-9.]*\) .*/\1/p' "$1"; }
# lock_us WHAT ID: the job's LID choice took at most 2 ms under the locks:
# its wall clock, or when this 2-CPU VM gave the CPU to another process
# meanwhile, the slurmctld thread's CPU time (both logged)
lock_us() {
	local line us cpu
	line=$(grep -m1 "JobId=$2 LID choice" "$LOG")
	us=$(echo "$line" | sed -n 's/.*; \([0-9]*\) us (\([0-9]*\) us CPU)$/\1/p')
	cpu=$(echo "$line" | sed -n 's/.*; \([0-9]*\) us (\([0-9]*\) us CPU)$/\2/p')
	if [ "${us:-99999}" -le 2000 ]; then
		ok "$1: LID choice under slurmctld's locks $us us <= 2000 ($cpu us CPU)"
	else
		check "$1: LID choice under slurmctld's locks ${us:-?} us wall (the CPU elsewhere), ${cpu:-?} us CPU <= 2000" \
			test "${cpu:-99999}" -le 2000
	fi
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
check "16 nodes: QFT_LID_TABLE is job_$b.TAG.lid in HostFileDir ($table)" \
	sh -c "echo '$table' | grep -Eq '^$T/hostfiles/job_$b\.[0-9a-f]{16}\.lid\$'"
wait_file "$table"
check "16 nodes: the worker published the table" test -f "$table"
expect_eq "16 nodes: table head" "$(grep -v '^#' "$table" | sed -n '1,4p' | paste -sd' ')" "qft-lid 1 lmc 2 choice pair hosts 16"
expect_eq "16 nodes: table hosts in QFT_HOSTS order" "$(sed -n 's/^host \([^ ]*\) .*/\1/p' "$table" | paste -sd,)" "$hosts"
expect_eq "16 nodes: 16 rows of 16 offsets" "$(sed -n '/^pairs$/,/^end$/p' "$table" | grep -c '^[0-3]\{16\}$')" 16
check "16 nodes: no QFT_LID_DIGEST from slurmctld (each node takes the digest of the decision it reads)" \
	sh -c "! grep -q '^QFT_LID_DIGEST=' $T/jobs/$b.env"
pair_hsd=$(hsd_of "$table")
expect_eq "16 nodes: the table's HSD = qft score --lid pair" "$pair_hsd" "$(lid_score pair "$hosts")"
check "16 nodes: pair ($pair_hsd) below one LID ($one)" python3 -c "import sys; sys.exit(not $pair_hsd < $one)"
check "16 nodes: the log names the choice and the pending table, with the time under the locks" \
	grep -Eq "JobId=$b LID choice pair \(LidChoice= auto, LMC 2\): table pending, $table \([0-9]+ choices before it\); [0-9]+ us \([0-9]+ us CPU\)" "$LOG"
check "16 nodes: the worker's line names the HSD and when it was ready" \
	grep -Eq "JobId=$b LID table pair \(LidChoice= auto, LMC 2\) ready [0-9.]+ s after job_begin \(choice [0-9.]+ s\): HSD $pair_hsd avg, .* one LID $one alone; $table" "$LOG"
lock_us "16 nodes" "$b"
"$BIN/scancel" "$a" "$b"
sleep 2
check "the ended job's table is removed" test ! -e "$table"
# One CPU per node: -n 16 takes 16 nodes, in a node range.
c=$(run_one 1-30 -n 16 -w "$scattered")
expect_eq "-N 1-30 -n 16: QFT_LID_CHOICE" "$(envof "$c" QFT_LID_CHOICE)" pair
wait_file "$(envof "$c" QFT_LID_TABLE)"
expect_eq "-N 1-30 -n 16: 16 hosts in the table" "$(sed -n 's/^hosts //p' "$(envof "$c" QFT_LID_TABLE)")" 16
"$BIN/scancel" "$c"

# --- 2. reconfigure: dest, job, off ----------------------------------------
conf $'LidPairMaxNodes=10\n'
"$BIN/scontrol" reconfigure
sleep 2
d=$(run_one 16 -w "$scattered")
expect_eq "LidPairMaxNodes=10, 16 nodes: QFT_LID_CHOICE" "$(envof "$d" QFT_LID_CHOICE)" dest
dtable=$(envof "$d" QFT_LID_TABLE)
wait_file "$dtable"
offsets=$(sed -n 's/^host [^ ]* [^ ]* \([0-9]*\)$/\1/p' "$dtable" | paste -sd,)
check "dest: the table has 16 offsets, not all 0 ($offsets)" \
	sh -c "[ \$(echo $offsets | tr , '\\n' | wc -l) = 16 ] && echo $offsets | grep -q '[1-3]'"
expect_eq "dest: the table's HSD = qft score --lid dest" "$(hsd_of "$dtable")" "$(lid_score dest "$(envof "$d" QFT_HOSTS)")"
check "dest: the log says why not pair" grep -q "JobId=$d LID choice dest (LidChoice= auto: more nodes than LidPairMaxNodes=" "$LOG"
lock_us "dest, 16 nodes" "$d"
"$BIN/scancel" "$d"
# LidThreads=2: the worker searches the stages on two threads
conf $'LidChoice=pair\nLidThreads=2\n'
"$BIN/scontrol" reconfigure
sleep 2
big=$(run_one 300)
expect_eq "LidChoice=pair, 300 nodes, no LidPairMaxNodes=: QFT_LID_CHOICE" "$(envof "$big" QFT_LID_CHOICE)" pair
wait_file "$(envof "$big" QFT_LID_TABLE)"
expect_eq "300 nodes: a pair table of 300 hosts" \
	"$(grep -v '^#' "$(envof "$big" QFT_LID_TABLE)" | sed -n '3,4p' | paste -sd' ')" "choice pair hosts 300"
lock_us "pair, 300 nodes" "$big"
# congested (300 of 324 hosts at LMC 2): the worker says what its search
# proved, the floor at most the HSD it got
line=$(grep -m1 "JobId=$big LID table pair .* ready" "$LOG")
expect_eq "300 nodes: the log says what no offsets can do" "$(echo "$line" | python3 -c '
import re, sys
l = sys.stdin.read()
h = re.search(r"HSD ([0-9.]+) avg", l)
f = re.search(r"no offsets give below ([0-9.]+) \(([0-9]+) stages proven congested, ([0-9]+) undecided\)", l)
print(bool(h and f and float(h.group(1)) > 1 and float(f.group(1)) <= float(h.group(1))
           and int(f.group(2)) + int(f.group(3)) > 0))')" True
"$BIN/scancel" "$big"
conf $'LidChoice=job\n'
"$BIN/scontrol" reconfigure
sleep 2
e=$(run_one 16 -w "$scattered")
expect_eq "LidChoice=job: QFT_LID_CHOICE" "$(envof "$e" QFT_LID_CHOICE)" job
etable=$(envof "$e" QFT_LID_TABLE)
wait_file "$etable"
expect_eq "job: a table of choice job" "$(grep -v '^#' "$etable" | sed -n 3p)" "choice job"
expect_eq "job: one offset for all 16 hosts" \
	"$(sed -n 's/^host [^ ]* [^ ]* \([0-3]\)$/\1/p' "$etable" | sort -u | wc -l) $(grep -c '^host ' "$etable")" "1 16"
check "job: no QFT_LID_PATH_BITS from slurmctld (the nodes take it from the table)" \
	sh -c "! grep -q '^QFT_LID_PATH_BITS=' $T/jobs/$e.env"
lock_us "job, 16 nodes" "$e"
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
conf $'LidChoice=pair\nLidThreads=0\n'
"$BIN/scontrol" reconfigure
sleep 2
check "LidThreads=0 is named with the range it takes" \
	grep -q "LidThreads=0: expected 1 to 256 threads for a LID choice" "$LOG"
g=$(run_one 16 -w "$scattered")
expect_eq "after the bad reconfigure the last settings hold (off)" "$(envof "$g" QFT_LID_CHOICE)" none
"$BIN/scancel" "$g"
# a late worker: LidTestDelay= (tests only) holds it 6 s, past
# LidTableWait=2: it decides base LIDs for the job instead of choosing
conf $'LidTestDelay=6\nLidTableWait=2\n'
"$BIN/scontrol" reconfigure
sleep 2
late=$(run_one 16 -w "$scattered")
ltable=$(envof "$late" QFT_LID_TABLE)
expect_eq "late worker: QFT_LID_CHOICE" "$(envof "$late" QFT_LID_CHOICE)" pair
wait_file "$ltable"
expect_eq "late worker: the job's decision is base LIDs" "$(grep -v '^#' "$ltable" 2>/dev/null | paste -sd' ')" "qft-lid 1 choice base end"
check "late worker: the decision says why" \
	grep -q "^# select/rlft: JobId=$late runs on base LIDs: its choice had not started within LidTableWait=2 s" "$ltable"
check "late worker: the log says so" \
	grep -q "JobId=$late LID decision base LIDs, $ltable [0-9.]* s after job_begin" "$LOG"
lock_us "late worker" "$late"
"$BIN/scancel" "$late"
# slurmctld restarted while a table is pending (the worker held 8 s): the
# restarted slurmctld chooses again for the running job
conf $'LidTestDelay=8\n'
"$BIN/scontrol" reconfigure
sleep 2
rs=$(run_one 16 -w "$scattered")
rtable=$(envof "$rs" QFT_LID_TABLE)
check "restart: the table is still pending" test ! -e "$rtable"
restart_ctld "$W" "slurmctld restarted with JobId=$rs's table pending"
for _ in $(seq 1 60); do [ -e "$rtable" ] && break; sleep 1; done
expect_eq "restart: the job's decision is a pair table" "$(grep -v '^#' "$rtable" 2>/dev/null | sed -n 3p)" "choice pair"
check "restart: slurmctld chose again, and says so" \
	grep -q "JobId=$rs LID choice pair: its table was pending when slurmctld stopped: chosen again" "$LOG"
check "restart: the worker's line" \
	grep -q "JobId=$rs LID table pair (pending when slurmctld stopped, LMC 2) ready" "$LOG"
"$BIN/scancel" "$rs"
# without HostFileDir=: every choice is made off the locks and reaches the
# nodes as a file there, so no job gets one; said once
printf 'FabricFile=fabric.json\n' >"$W/etc/qft.conf"
"$BIN/scontrol" reconfigure
sleep 2
k=$(run_one 16 -w "$scattered")
l=$(run_one 16 -w "n[0073-0077,0091-0095,0109-0114]")
for x in "$k" "$l"; do
	expect_eq "no HostFileDir=, auto: QFT_LID_CHOICE" "$(envof "$x" QFT_LID_CHOICE)" none
	check "no HostFileDir=: no table, no digest, no offset" \
		sh -c "! grep -Eq '^QFT_LID_(TABLE|DIGEST|PATH_BITS)=' $T/jobs/$x.env"
	check "no HostFileDir=: the job's line says why" \
		grep -q "JobId=$x: no LID choice (LidChoice= auto: no HostFileDir= for the decision, made off slurmctld's locks)" "$LOG"
done
expect_eq "no HostFileDir=: said once, not per job" \
	"$(grep -c 'LidChoice=auto without HostFileDir=: no LID choice for any job' "$LOG")" 1
"$BIN/scancel" "$k" "$l"
# ShapeWait= at LMC > 0: whole leaves are a shape to wait for. Q holds 10
# positions of leaves 1-17, shifted by one per leaf, R (a 2-minute limit)
# positions 0-9 of leaf 0: every leaf has 8 free hosts, at other positions
# from leaf to leaf, so a 20-node job takes parts of three leaves.
conf $'ShapeWait=100\n'
"$BIN/scontrol" reconfigure
sleep 2
name_at() { sed -n "$(($1 + 1))p" "$T/nodes"; }
qhosts=$(for l in $(seq 1 17); do for k in $(seq 0 9); do name_at $((18 * l + (l + k) % 18)); done; done | paste -sd,)
rhosts=$(for k in $(seq 0 9); do name_at "$k"; done | paste -sd,)
sq=$(run_one 170 -w "$qhosts" --time=60)
sr=$(run_one 10 -w "$rhosts" --time=2)
now=$(run_one 1-30 -n 20 --time=1)
expect_eq "ShapeWait at LMC 2: -n 20, 1 minute (R ends after its wait): starts now" "$("$BIN/squeue" -h -j "$now" -o '%T %D')" "RUNNING 20"
expect_eq "on three leaves' parts: not congestion-free" "$(envof "$now" QFT_CONGESTION_FREE)" no
"$BIN/scancel" "$now"
sleep 2
sw=$(submit_recording "$W" "$T/jobs" 1-30 -n 20 --time=10)
sleep 6
expect_eq "ShapeWait at LMC 2: the 10-minute job waits" "$("$BIN/squeue" -h -j "$sw" -o %T)" PENDING
check "for whole leaves, due at R's end" \
	grep -q "select/rlft: JobId=$sw waits for a whole-leaf unaligned (20 nodes) due in .* within its ShapeWait of 600 s" "$LOG"
"$BIN/scancel" "$sr"
wait_running "$W" "$sw"
expect_eq "R ended: it runs on leaf 0 whole and 2 hosts more" \
	"$(job_nodes "$W" "$sw" | tr , '\n' | grep -cxF -f <(for k in $(seq 0 17); do name_at "$k"; done))" 18
check "and waited for them: QFT_SHAPE_WAITED" test -n "$(envof "$sw" QFT_SHAPE_WAITED)"
"$BIN/scancel" "$sq" "$sw"
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
echo "optional $SPANK interposer=$LIB dir=$R/hostfiles" >"$R/conf/plugstack.conf"
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
htable=$(renv "$h" batch QFT_LID_TABLE)
check "QFT_LID_TABLE is the job's decision in HostFileDir ($htable)" \
	sh -c "echo '$htable' | grep -Eq '^$R/hostfiles/job_$h\.[0-9a-f]{16}\.lid\$'"
for step in batch step; do
	check "$step step: the interposer is preloaded" sh -c "grep -q '^LD_PRELOAD=$LIB' '$R/out/$h.$step.env'"
	expect_eq "$step step: UCX_IB_MLX5_DEVX" "$(renv "$h" $step UCX_IB_MLX5_DEVX)" n
	expect_eq "$step step: QFT_LID_TABLE" "$(renv "$h" $step QFT_LID_TABLE)" "$htable"
	expect_eq "$step step: QFT_LID_DECISION" "$(renv "$h" $step QFT_LID_DECISION)" table
	expect_eq "$step step: QFT_LID_DIGEST, from the table the node read" \
		"$(renv "$h" $step QFT_LID_DIGEST)" "$(digest "$R/out/$h.lid" 2>/dev/null)"
done
expect_eq "the job's table (copied by the job)" "$(grep -v '^#' "$R/out/$h.lid" 2>/dev/null | sed -n '3,4p' | paste -sd' ')" "choice dest hosts 4"
check "the table is gone with the job" test ! -e "$htable"
i=$(real_job)
expect_eq "no option (auto): QFT_LID_CHOICE" "$(renv "$i" batch QFT_LID_CHOICE)" pair
j=$(real_job --qft-lid=off)
check "--qft-lid=off: slurmctld chose none" grep -q "JobId=$j: no LID choice (--qft-lid off: off)" "$LOG"
check "--qft-lid=off: no interposer, no QFT_LID_ variable" \
	sh -c "! grep -Eq '^(LD_PRELOAD=.*libqft-lid|QFT_LID_)' '$R/out/$j.batch.env'"
jj=$(real_job --qft-lid=job)
expect_eq "--qft-lid=job: QFT_LID_CHOICE" "$(renv "$jj" batch QFT_LID_CHOICE)" job
for step in batch step; do
	check "$step step, job: UCX_IB_LID_PATH_BITS from the job's table ($(renv "$jj" $step UCX_IB_LID_PATH_BITS))" \
		sh -c "grep -Eq '^UCX_IB_LID_PATH_BITS=[0-3]$' '$R/out/$jj.$step.env'"
	expect_eq "$step step, job: QFT_LID_PATH_BITS the same" "$(renv "$jj" $step QFT_LID_PATH_BITS)" \
		"$(renv "$jj" $step UCX_IB_LID_PATH_BITS)"
	check "$step step, job: no interposer" sh -c "! grep -q '^LD_PRELOAD=.*libqft-lid' '$R/out/$jj.$step.env'"
done

# --- all or nothing: the interposer in every task of a step ---------------
FAKE=$(cd "$BUILD/tests/verbs/.libs" 2>/dev/null && pwd)
if [ ! -e "$FAKE/libibverbs.so.1" ]; then
	bad "no test double of libibverbs in $BUILD/tests/verbs/.libs (make check builds it)"
	finish
fi
# probe PEER_LID: an RC queue pair to PEER_LID through the interposer and
# the test double; prints what reached "the provider"
cat >"$R/probe.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include "tests/verbs/fake_ibverbs.h"
int main(int argc, char **argv)
{
	struct ibv_qp qp = {.context = fake_ibv_context(0), .qp_num = 1, .qp_type = IBV_QPT_RC};
	struct ibv_qp_attr attr = {.qp_state = IBV_QPS_RTR};

	if (argc != 2)
		return 2;
	attr.ah_attr.dlid = (uint16_t)strtoul(argv[1], NULL, 0);
	attr.ah_attr.port_num = 1;
	if (ibv_modify_qp(&qp, &attr, IBV_QP_STATE | IBV_QP_AV))
		return 1;
	printf("%s: dlid %s -> 0x%04x, src_path_bits %u\n", getenv("SLURMD_NODENAME"), argv[1],
	       fake_ibv_record()->ah.dlid, fake_ibv_record()->ah.src_path_bits);
	return 0;
}
C
if ! ${CC:-cc} -I"$REPO" -o "$R/probe" "$R/probe.c" -L"$FAKE" -libverbs; then
	bad "cannot build the verbs probe"
	finish
fi
# each task: its own port has its base LID of the table, LMC 2; it
# connects to the next host of the table. BAD_NODE's task reads a table
# that differs in one offset from the job's (as a node with a stale copy).
cat >"$R/task.sh" <<'TASK'
#!/bin/sh
t=$QFT_LID_TABLE
if [ "$SLURM_NODEID" = "${BAD_NODE:--}" ]; then
	sed '/^pairs$/{n;s/^\(.\)0/\11/;t;s/^\(.\)./\10/}' "$t" >"$QFT_OUT/$SLURM_JOB_ID.stale.lid"
	export QFT_LID_TABLE=$QFT_OUT/$SLURM_JOB_ID.stale.lid
fi
self=$(sed -n "s/^host $SLURMD_NODENAME \([^ ]*\) .*/\1/p" "$t")
peer=$(python3 "$PICK" "$t" "$SLURMD_NODENAME")
FAKE_IBV_PORTS=0:1:$self:2 LD_LIBRARY_PATH=$FAKE exec "$PROBE" "$peer"
TASK
# the LID table's hosts and o(A, B) (docs/lid-table.md, pair)
cat >"$R/table.py" <<'PY'
def load(path):
    hosts, rows, inpairs = [], [], False
    for line in open(path):
        w = line.split()
        if not w or w[0].startswith("#"):
            continue
        if w[0] == "host":
            hosts.append((w[1], int(w[2], 0)))
        elif w[0] == "pairs":
            inpairs = True
        elif inpairs and w[0] != "end":
            rows.append([int(c, 16) for c in w[0]])
    return hosts, rows
PY
# pick.py TABLE NAME: the base LID of the host NAME addresses at the
# largest offset (so that the rewrite shows)
cat >"$R/pick.py" <<'PY'
import sys
from table import load
hosts, rows = load(sys.argv[1])
a = [h[0] for h in hosts].index(sys.argv[2])
b = max((b for b in range(len(hosts)) if b != a), key=lambda b: rows[a][b])
print("0x%04x" % hosts[b][1])
PY
# verify.py TABLE OUT: how many probe lines are BASE(B) | o(A,B) with
# src_path_bits o(B,A), of how many, and how many of those differ from
# the caller's address
cat >"$R/verify.py" <<'PY'
import re, sys
from table import load
hosts, rows = load(sys.argv[1])
names, bases = [h[0] for h in hosts], [h[1] for h in hosts]
right = changed = n = 0
for line in open(sys.argv[2]):
    m = re.match(r"(\S+): dlid (0x[0-9a-f]+) -> (0x[0-9a-f]+), src_path_bits (\d+)$", line)
    if not m:
        continue
    n += 1
    a, b = names.index(m.group(1)), bases.index(int(m.group(2), 16))
    want = (bases[b] | rows[a][b], rows[b][a])
    right += (int(m.group(3), 16), int(m.group(4))) == want
    changed += want != (bases[b], 0)
print("%d of %d, %d changed" % (right, n, changed))
PY
cat >"$R/aon.sh" <<'JOB'
#!/bin/sh
cp "$QFT_LID_TABLE" "$QFT_OUT/$SLURM_JOB_ID.lid"
srun -N4 -n4 "$TASK" >"$QFT_OUT/$SLURM_JOB_ID.good.out" 2>&1
echo $? >"$QFT_OUT/$SLURM_JOB_ID.good.rc"
BAD_NODE=1 srun -N4 -n4 "$TASK" >"$QFT_OUT/$SLURM_JOB_ID.bad.out" 2>&1
echo $? >"$QFT_OUT/$SLURM_JOB_ID.bad.rc"
JOB
chmod +x "$R/task.sh" "$R/aon.sh"
# the table 3 s late (LidTestDelay=, tests only): the nodes wait for it
printf 'FabricFile=fabric.json\nHostFileDir=%s\nLidTestDelay=3\n' "$R/hostfiles" >"$W/etc/qft.conf"
"$BIN/scontrol" reconfigure
sleep 2
m=$(cd "$W" && QFT_OUT=$R/out FAKE=$FAKE PROBE=$R/probe TASK=$R/task.sh PICK=$R/pick.py "$BIN/sbatch" --parsable -N 4 \
	-o "$R/out/aon.out" --qft-lid=pair "$R/aon.sh")
wait_job "$BIN" "$m" >/dev/null
check "the table came 3 s after job_begin: the nodes waited for it" \
	grep -Eq "JobId=$m LID table pair \(--qft-lid pair, LMC 2\) ready [3-9]\.[0-9]+ s after job_begin" "$LOG"
expect_eq "all or nothing: the job has a pair table with a digest" \
	"$(grep -v '^#' "$R/out/$m.lid" 2>/dev/null | sed -n 3p) $(digest "$R/out/$m.lid" | cut -c1-8)" "choice pair fnv1a64:"
expect_eq "same table everywhere: the step succeeds" "$(cat "$R/out/$m.good.rc" 2>/dev/null)" 0
rewrites=$(python3 "$R/verify.py" "$R/out/$m.lid" "$R/out/$m.good.out")
check "  every task addressed its peer at BASE | o(A,B), src_path_bits o(B,A) ($rewrites)" \
	sh -c "echo '$rewrites' | grep -Eq '^4 of 4, [1-4] changed$'"
expect_eq "  and nothing else was said" "$(grep -vc 'dlid 0x.* -> 0x.*, src_path_bits' "$R/out/$m.good.out")" 0
check "one node's table differs: the step fails ($(cat "$R/out/$m.bad.rc" 2>/dev/null))" \
	sh -c "[ \"\$(cat '$R/out/$m.bad.rc')\" != 0 ]"
expect_eq "  with one message, from the interposer on that node" \
	"$(grep -c "^qft-lid: $R/out/$m.stale.lid: digest fnv1a64:[0-9a-f]*, expected QFT_LID_DIGEST=$(digest "$R/out/$m.lid") (the table select/rlft wrote for the job); this task stops (exit 78)" "$R/out/$m.bad.out")" 1
expect_eq "  the other tasks rewrote; that node's stopped before" \
	"$(python3 "$R/verify.py" "$R/out/$m.lid" "$R/out/$m.bad.out" | cut -d, -f1)" "3 of 3"

# --- a table later than the nodes' wait: base LIDs on every node ----------
# The worker held 8 s (LidTestDelay=, tests only); the nodes wait 2 s
# (plugstack.conf wait=, read at each step): the batch step's node gives
# up first and decides base LIDs; every step of the job runs on them.
printf 'FabricFile=fabric.json\nHostFileDir=%s\nLidTestDelay=8\n' "$R/hostfiles" >"$W/etc/qft.conf"
"$BIN/scontrol" reconfigure
echo "optional $SPANK interposer=$LIB dir=$R/hostfiles wait=2" >"$W/etc/plugstack.conf"
sleep 2
cat >"$R/base-task.sh" <<'TASK'
#!/bin/sh
echo "$SLURMD_NODENAME decision=$QFT_LID_DECISION preload=${LD_PRELOAD:-none}"
FAKE_IBV_PORTS=0:1:0x0004:2 LD_LIBRARY_PATH=$FAKE exec "$PROBE" 0x0008
TASK
cat >"$R/late.sh" <<'JOB'
#!/bin/sh
cp "$QFT_LID_TABLE" "$QFT_OUT/$SLURM_JOB_ID.late.lid"
srun -N4 -n4 "$TASK" >"$QFT_OUT/$SLURM_JOB_ID.late1.out" 2>&1
echo $? >"$QFT_OUT/$SLURM_JOB_ID.late1.rc"
srun -N4 -n4 "$TASK" >"$QFT_OUT/$SLURM_JOB_ID.late2.out" 2>&1
sleep 10
JOB
chmod +x "$R/base-task.sh" "$R/late.sh"
x=$(cd "$W" && QFT_OUT=$R/out FAKE=$FAKE PROBE=$R/probe TASK=$R/base-task.sh "$BIN/sbatch" --parsable -N 4 \
	-o "$R/out/late.out" --qft-lid=pair "$R/late.sh")
wait_job "$BIN" "$x" >/dev/null
expect_eq "late table: the job's decision is base LIDs" \
	"$(grep -v '^#' "$R/out/$x.late.lid" 2>/dev/null | paste -sd' ')" "qft-lid 1 choice base end"
check "  decided by the node that waited its limit" \
	grep -Eq "^# spank/qft_lid on [^ ]+: no LID table within wait=2 s$" "$R/out/$x.late.lid"
expect_eq "  the first step succeeds" "$(cat "$R/out/$x.late1.rc" 2>/dev/null)" 0
for k in 1 2; do
	expect_eq "  step $k: every task says decision base, no interposer" \
		"$(grep -c ' decision=base preload=none$' "$R/out/$x.late$k.out")" 4
	expect_eq "  step $k: every task's address unchanged (base LIDs)" \
		"$(grep -c 'dlid 0x0008 -> 0x0008, src_path_bits 0$' "$R/out/$x.late$k.out")" 4
	expect_eq "  step $k: said once in the step's output" \
		"$(grep -c "^spank/qft_lid: LID decision .*: base LIDs (spank/qft_lid on .*: no LID table within wait=2 s); every node of this step runs on base LIDs$" "$R/out/$x.late$k.out")" 1
done
check "  the batch step says so too" grep -q "every node of this step runs on base LIDs" "$R/out/late.out"
check "  the worker, when it comes to the job, finds the decision made and chooses nothing" \
	grep -q "JobId=$x LID decision taken before the worker reached it (a node's base LIDs): no choice made" "$LOG"
finish
