#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A large job's pair table beside running jobs, in a real slurmctld and
# slurmd, confirmed by `qft score` (issue 32, the last item): on the
# 4536-host PGFT(3;18,18,14;1,18,9;1,1,2) at LMC 3 (a Slurm 22.05 front
# end, contribs/slurm/harness.sh; select/rlft with LidChoice=pair, the SPANK
# plugin with dir= HostFileDir), jobs of RUNNING sizes (default nine of
# 250) start and get their tables; then a job of BIG nodes (default 1944) starts beside them. Its
# batch script, the job's first task, records what the SPANK plugin gave it
# (QFT_LID_DECISION, QFT_LID_HSD_AVG) and copies its table. Afterwards the
# tables become kept offsets (lib/lid/kept.hpp) and `qft score --batch
# --lid-in` plays the big job's table beside the running jobs' tables, with
# nothing chosen anew. Prints the figures; exits 1 when the task ran without
# the table or the HSDs differ. Root.
#   usage: contribs/bench/lid-confirm.sh BUILD-DIR [BIG [RUNNING...]]
#   QFT_BENCH_WORK=DIR: the cluster's directory (default build/bench-confirm)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: $0 BUILD-DIR [BIG [RUNNING...]]}" && pwd)
big=${2:-1944}
shift $(($# < 2 ? $# : 2))
running=("$@")
# default: nine jobs of 250 nodes, each in a pod of its own, so that the
# big job gets five free pods and the rest of five of theirs
[ ${#running[@]} -gt 0 ] || running=(250 250 250 250 250 250 250 250 250)
qft=$build/contribs/qft/qft
spank=$build/contribs/spank/spank_qft_lid.so
lib=$build/contribs/verbs/.libs/libqft-lid.so
harness=$top/contribs/slurm/harness.sh
work=${QFT_BENCH_WORK:-$top/build/bench-confirm}
for f in "$qft" "$spank" "$lib"; do
	[ -f "$f" ] || { echo "$0: no $f in $build" >&2; exit 2; }
done
rm -rf "$work"
mkdir -p "$work/plugins" "$work/conf" "$work/out" "$work/hostfiles"
cp "$build"/src/plugins/*/*/*.so "$work/plugins/"
"$top/contribs/slurm/slurm-frontend.sh" >/dev/null

"$qft" gen pgft "3;18,18,14;1,18,9;1,1,2" --lmc 3 -o "$work/conf/fabric.json" 2>/dev/null
printf 'FabricFile=fabric.json\nHostFileDir=%s\nLidChoice=pair\n' "$work/hostfiles" >"$work/conf/qft.conf"
echo "optional $spank interposer=$lib dir=$work/hostfiles wait=500" >"$work/conf/plugstack.conf"
cat >"$work/job.sh" <<'JOB'
#!/bin/sh
# the job's first task: what the SPANK plugin gave it, and its table
echo "$(date +%s.%N) decision=$QFT_LID_DECISION hsd=$QFT_LID_HSD_AVG/$QFT_LID_HSD_MAX" \
	>"$QFT_OUT/$SLURM_JOB_ID.task"
cp "$QFT_LID_TABLE" "$QFT_OUT/$SLURM_JOB_ID.lid"
sleep 3000
JOB
chmod +x "$work/job.sh"

w=$work/cluster
"$harness" start -w "$w" -n 4536 -p "$work/plugins" -t topology/qft -s select/rlft \
	-c "$work/conf/qft.conf" -c "$work/conf/fabric.json" -c "$work/conf/plugstack.conf" \
	-e "SlurmctldDebug=verbose" >"$w.out" 2>&1 || { tail -5 "$w.out"; exit 1; }
trap '"$harness" stop -w "$w" >/dev/null 2>&1 || true' EXIT
log=$w/log/slurmctld.log

# submit N: the job's id once its first task has recorded its table
submit() {
	local id i
	id=$(cd "$w" && QFT_OUT=$work/out "$w/bin/sbatch" --parsable -N "$1" --time=100 \
		-o "$work/out/%j.out" "$work/job.sh") || { echo "$0: sbatch -N $1 failed" >&2; exit 1; }
	for i in $(seq 1 900); do
		[ -s "$work/out/$id.task" ] && [ -s "$work/out/$id.lid" ] && { echo "$id"; return; }
		sleep 1
	done
	echo "$0: job $id (-N $1): no table in its task after 900 s" >&2
	exit 1
}

ids=()
for n in "${running[@]}"; do
	ids+=("$(submit "$n")")
done
t0=$(date +%s.%N)
bigid=$(submit "$big")
ready=$(grep -m1 -E "JobId=$bigid LID (table|decision)" "$log" | sed 's/^.*select\/rlft: //')
lock=$(grep -m1 "JobId=$bigid LID choice" "$log" | sed -n 's/.*; \([0-9]* us.*\)$/\1/p')

# tables -> kept offsets and a batch: the running jobs, then the big job
python3 - "$work/out" "$work/kept" "$work/batch" "${ids[@]}" "$bigid" <<'PY'
import sys
out, kept, batch, ids = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
with open(kept, "w") as k, open(batch, "w") as b:
    for i in ids:
        lines = [l.strip() for l in open("%s/%s.lid" % (out, i)) if l.strip() and not l.startswith("#")]
        lmc = next(l.split()[1] for l in lines if l.startswith("lmc "))
        assert "choice pair" in lines, "job %s: its table is not a pair table" % i
        hosts = [l.split()[1] for l in lines if l.startswith("host ")]
        rows = lines[lines.index("pairs") + 1:lines.index("end")]
        assert len(rows) == len(hosts), "job %s: %d rows for %d hosts" % (i, len(rows), len(hosts))
        k.write("j%s pair %s %s %s\n" % (i, lmc, ",".join(hosts), "".join(rows)))
        b.write("j%s: %s\n" % (i, ",".join(hosts)))
PY
score=$("$qft" score --fabric "$work/conf/fabric.json" --json --worst 0 --per-job --order given \
	--lid pair --lmc 3 --lid-in "$work/kept" --batch "$work/batch")
qft_hsd=$(echo "$score" | python3 -c 'import json,sys; print("%.6f" % json.load(sys.stdin)["job_hsd"][-1])')
head=$(sed -n 's/^# hsd \([0-9.]*\) .*/\1/p' "$work/out/$bigid.lid")
task=$(cat "$work/out/$bigid.task")
echo "running jobs: ${running[*]} nodes (JobIds ${ids[*]}), each with its pair table"
echo "JobId=$bigid, $big nodes: under the locks $lock; $ready"
echo "its first task, $(echo "$task" | cut -d' ' -f1 | awk -v t="$t0" '{printf "%.1f", $1 - t}') s after sbatch: $(echo "$task" | cut -d' ' -f2-)"
echo "the table's head: hsd $head; qft score with the table beside the running jobs' tables: $qft_hsd"
rc=0
case $task in *" decision=table "*) ;; *) echo "FAIL: the first task ran without the table"; rc=1 ;; esac
# the head has 3 decimals
python3 -c "import sys; sys.exit(abs(float('$head') - float('$qft_hsd')) > 5.001e-4)" ||
	{ echo "FAIL: the table's HSD $head, qft score's $qft_hsd"; rc=1; }
[ $rc = 0 ] && echo "confirmed"
exit $rc
