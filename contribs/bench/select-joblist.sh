#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: what select/rlft does under slurmctld's locks when the job list
# is long (issue 30 item 6). Slurm 22.05 front end (contribs/slurm/harness.sh),
# a 4536-node PGFT of 1 CPU a node, qft.conf with ShapeWait=; in one run
# cons_tres + topology/tree (baseline) and select/rlft + topology/qft, each:
#   - RUNNING jobs (1-node and 2-12-node ones mixed, 1000-minute limits),
#   - then PENDING jobs (not arrays: the emulator crashes on large ones) of
#     more nodes than are free, so that they stay pending: every backfill
#     test of them is a WILL_RUN with ShapeWait=,
#   - sdiag --reset; WAVES waves of 4 small short jobs (they start on the
#     free nodes: RUN_NOW, job_begin; and end: job_fini) and 4 cancelled
#     1-node jobs, one wave every 2 s, then a wait for one more backfill
#     cycle; then REConfigures (`scontrol reconfigure`, timed).
# Prints, per configuration: how long the submissions took, sdiag's main
# and backfill cycles (mean and max/last, microseconds; no DebugFlags), and
# from select/rlft's log lines (mean/max microseconds and count; the
# per-test ones with DebugFlags=SelectType, set for one more backfill cycle
# and 4 more waves): WILL_RUN (the shape search with ShapeWait=), RUN_NOW placements
# (job_begin's "placed in"), RUN_NOW declines ("not now"), the free times
# (rlft_free_at, when the plugin logs it), job_begin, job_fini, and each
# reconfigure (slurmctld's "completed usec=", the client's wall time, and
# select/rlft's replay line when it logs one). Figures, no asserts. Root.
#   usage: contribs/bench/select-joblist.sh BUILD-DIR [RUNNING [PENDING [WAVES [RECONFS]]]]
#   QFT_BENCH_CONFIGS="tree rlft" (default) or one of them
#   QFT_BENCH_SUBMITTERS=8: parallel sbatch loops
#   QFT_BENCH_SHAPEWAIT=100: qft.conf's ShapeWait=
#   QFT_BENCH_PLUGINS=DIR: the plugins (*.so) to run, instead of BUILD-DIR's
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: $0 BUILD-DIR [RUNNING [PENDING [WAVES [RECONFS]]]]}" && pwd)
nrun=${2:-2000}
npend=${3:-10000}
waves=${4:-20}
nreconf=${5:-3}
par=${QFT_BENCH_SUBMITTERS:-8}
qft=$build/contribs/qft/qft
harness=$top/contribs/slurm/harness.sh
work=${QFT_BENCH_WORK:-$top/build/bench-joblist}
rm -rf "$work"
mkdir -p "$work/plugins"
if [ -n "${QFT_BENCH_PLUGINS:-}" ]; then
	cp "$QFT_BENCH_PLUGINS"/*.so "$work/plugins/"
else
	cp "$build"/src/plugins/*/*/*.so "$work/plugins/"
fi
"$top/contribs/slurm/slurm-frontend.sh" >/dev/null

nodes=4536
tuple="3;18,18,14;1,18,9;1,1,2"
attrs="CPUs=1"
"$qft" gen pgft "$tuple" -o "$work/fabric.json" 2>/dev/null
"$qft" topology-conf --fabric "$work/fabric.json" -o "$work/topology.conf"
printf 'FabricFile=fabric.json\nShapes=products\nShapeWait=%s\n' "${QFT_BENCH_SHAPEWAIT:-100}" >"$work/qft.conf"

# The running jobs are allocations without a process (salloc --no-shell):
# 2000 batch jobs would be 2000 slurmstepds on this host. 5 in 6 take one
# node, the others 4-12 (8.6 on average): 2000 of them leave 13 of the 4536
# nodes free. The pending ones ask for more nodes than are free; they are
# submitted held and released together (each submission would otherwise
# wait for a scheduling pass over the ones before it).
multi=(4 6 8 10 12 6 8 10 12 10)

# sbatch_loop WORKDIR FIRST COUNT KIND: COUNT jobs, numbered from FIRST
sbatch_loop() {
	local w=$1 first=$2 count=$3 kind=$4 i n
	for i in $(seq "$first" $((first + count - 1))); do
		if [ "$kind" = run ] && [ $((i % 6)) != 5 ]; then
			"$w/bin/salloc" -I60 --no-shell -N 1 --time=1000 >/dev/null 2>&1
		elif [ "$kind" = run ]; then
			n=${multi[$((i / 6 % 10))]}
			"$w/bin/salloc" -I60 --no-shell -N "$n" --time=1000 >/dev/null 2>&1
		else
			"$w/bin/sbatch" -H -N $((free + 1 + i % 64)) --time=$((30 + i % 90)) -o /dev/null \
				--wrap 'sleep 60' >/dev/null
		fi
	done
}

# submit WORKDIR COUNT KIND: in $par parallel loops; prints the seconds
submit() {
	local w=$1 count=$2 kind=$3 t0 k per
	t0=$(date +%s.%N)
	per=$(((count + par - 1) / par))
	for k in $(seq 0 $((par - 1))); do
		local c=$((count - k * per < per ? count - k * per : per))
		[ "$c" -gt 0 ] && sbatch_loop "$w" $((k * per)) "$c" "$kind" &
	done
	wait
	awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.0f", b - a}'
}

# stat NAME: "mean/max (count)" of the NAME figures, one a line
stat() {
	awk '{v = $1; s += v; if (v > m) m = v; c++}
	     END {if (c) printf "%.0f/%d (%d)", s / c, m, c; else printf "-"}'
}
# us LOG REGEX: the number before " us" in the matching lines
us() { (grep -E "$2" "$1" || true) | sed -nE "s/.*$3 ([0-9]+) us.*/\1/p" | stat; }

sdiag_sec() { # sdiag_sec WORKDIR SECTION FIELD
	"$1/bin/sdiag" 2>/dev/null |
		awk -v s="$2" -v f="$3" 'index($0, s) == 1 {m=1} m && index($0, f) {print $NF; exit}'
}

row() { printf '  %-34s %s\n' "$1" "$2"; }

for config in ${QFT_BENCH_CONFIGS:-tree rlft}; do
	w=$work/c-$config
	if [ "$config" = rlft ]; then
		args=(-t topology/qft -s select/rlft -c "$work/qft.conf" -c "$work/fabric.json")
	else
		args=(-t topology/tree -s select/cons_tres -c "$work/topology.conf")
	fi
	args+=(-e "SlurmctldDebug=verbose"
		-e "MaxJobCount=$((nrun + npend + 4 * waves + 1000))"
		-e "SchedulerParameters=bf_interval=10" --node-attrs "$attrs")
	t0=$(date +%s)
	"$harness" start -w "$w" -n "$nodes" -p "$work/plugins" "${args[@]}" >"$w.out" 2>&1 ||
		{ tail -5 "$w.out"; exit 1; }
	echo "== $config: $nodes nodes ($attrs), cluster up in $(($(date +%s) - t0)) s"
	free=0
	secs=$(submit "$w" "$nrun" run)
	for _ in $(seq 1 300); do
		[ "$("$w/bin/squeue" -h -t R | wc -l)" -ge "$nrun" ] && break
		sleep 2
	done
	running=$("$w/bin/squeue" -h -t R | wc -l)
	free=$("$w/bin/sinfo" -h -t idle -o %D | awk '{s += $1} END {print s + 0}')
	row "running jobs submitted" "$nrun in $secs s ($running running, $free nodes idle)"
	secs=$(submit "$w" "$npend" pend)
	"$w/bin/squeue" -h -t PD -o %i | xargs -n 500 | tr ' ' , |
		while read -r ids; do "$w/bin/scontrol" release "$ids"; done
	row "pending jobs submitted" "$npend in $secs s ($("$w/bin/squeue" -h -t PD | wc -l) pending)"
	log=$w/log/slurmctld.log
	mark=$(wc -l <"$log")
	"$w/bin/sdiag" --reset >/dev/null || true
	# (no head: with pipefail its early exit would end the script)
	ones=($("$w/bin/squeue" -h -t R -o '%i %D' | awk -v n=$((4 * waves)) '$2 == 1 && c++ < n {print $1}'))
	for i in $(seq 0 $((waves - 1))); do
		for k in 0 1 2 3; do
			"$w/bin/sbatch" -N $((2 + (4 * i + k) % 7)) --time=1 -o /dev/null \
				--wrap "sleep $((2 + k))" >/dev/null
		done
		"$w/bin/scancel" "${ones[@]:$((4 * i)):4}" 2>/dev/null || true
		sleep 2
	done
	sleep 12 # one more backfill cycle
	# sdiag's figures without DebugFlags=SelectType: with it cons_tres
	# logs every node at every test
	row "main cycle mean/max (cycles)" "$(sdiag_sec "$w" "Main schedule" "Mean cycle:")/$(sdiag_sec "$w" "Main schedule" "Max cycle:") us ($(sdiag_sec "$w" "Main schedule" "Total cycles:"))"
	row "backfill cycle mean/last (cycles)" "$(sdiag_sec "$w" "Backfilling stats" "Mean cycle:")/$(sdiag_sec "$w" "Backfilling stats" "Last cycle:") us ($(sdiag_sec "$w" "Backfilling stats" "Total cycles:")), $(sdiag_sec "$w" "Backfilling stats" "Last depth cycle:") jobs tested last cycle"
	tail -n +"$((mark + 1))" "$log" >"$w.window.log"
	# select/rlft's per-test lines need the flag: one more backfill cycle
	# with it, and 4 more waves
	mark=$(wc -l <"$log")
	"$w/bin/scontrol" setdebugflags +SelectType
	for i in $(seq "$waves" $((waves + 3))); do
		for k in 0 1 2 3; do
			"$w/bin/sbatch" -N $((2 + (4 * i + k) % 7)) --time=1 -o /dev/null \
				--wrap "sleep $((2 + k))" >/dev/null
		done
		sleep 2
	done
	sleep 6
	"$w/bin/scontrol" setdebugflags -SelectType
	tail -n +"$((mark + 1))" "$log" >"$w.flags.log"
	if [ "$config" = rlft ]; then
		wl=$w.flags.log
		row "WILL_RUN (shape search)" "$(us "$wl" "WILL_RUN shape search took" took)"
		row "RUN_NOW placed" "$(us "$wl" "placed in" "placed in")"
		row "RUN_NOW declined (not now)" "$(us "$wl" "not now: a " "\\(")"
		row "free times (rlft_free_at)" "$(us "$wl" "free times" "free times")"
		wl=$w.window.log
		row "RUN_NOW placed (no flags)" "$(us "$wl" "placed in" "placed in")"
		row "job_begin" "$(us "$wl" "job_begin [0-9]+ us" job_begin)"
		row "job_fini" "$(us "$wl" "job_fini [0-9]+ us" job_fini)"
	fi
	# select/rlft: the last one with another SampleStages= (a new placer)
	for r in $(seq 1 $((nreconf + 1))); do
		[ "$r" -le "$nreconf" ] || [ "$config" = rlft ] || break
		[ "$r" -le "$nreconf" ] || echo "SampleStages=16" >>"$w/etc/qft.conf"
		mark=$(wc -l <"$log")
		t0=$(date +%s.%N)
		"$w/bin/scontrol" reconfigure
		wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.0f", (b - a) * 1e6}')
		sleep 1
		rc=$(tail -n +"$((mark + 1))" "$log" | sed -nE 's/.*reconfigure_controller: completed usec=([0-9]+).*/\1/p' | head -1)
		replay=$(tail -n +"$((mark + 1))" "$log" | grep -E "select/rlft: (tracking|kept|replayed)" | sed -E 's/.*select\/rlft: //' | paste -sd';' || true)
		row "reconfigure $r$([ "$r" -le "$nreconf" ] || echo ", SampleStages=16")" "slurmctld ${rc:--} us, client ${wall} us${replay:+; rlft: $replay}"
	done
	"$harness" stop -w "$w" >/dev/null 2>&1
done
