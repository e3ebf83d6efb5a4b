#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: slurmctld's scheduling with select/rlft + topology/qft beside
# select/cons_tres + topology/tree (the equivalent topology.conf), same
# fabric and workload, in one run: ~200 running jobs, then WAVES waves of 4
# jobs (one main-scheduler cycle each at least) while short jobs end; sdiag's
# main-scheduler cycle (mean over every cycle after the reset, and the
# count of cycles) for both, the ratio rlft/cons_tres, and what select/rlft
# did under slurmctld's locks per job (placement, cons_tres's job_test after
# it, job_begin, job_fini; from its log lines). With QFT_SLURM_SERIES=24.11
# on Slurm 24.11, with cons_tres + topology/qft as a third configuration.
# Figures, no asserts. Root.
#   usage: contribs/bench/select-latency.sh BUILD-DIR [RUNNING-JOBS [WAVES]]
#   QFT_BENCH_NODES=1944 or 4536: one tree only
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: $0 BUILD-DIR [RUNNING-JOBS [WAVES]]}" && pwd)
njobs=${2:-200}
waves=${3:-40}
qft=$build/contribs/qft/qft
harness=$top/contribs/slurm/harness.sh
work=$top/build/bench-select
rm -rf "$work"
mkdir -p "$work/plugins"
cp "$build"/src/plugins/*/*/*.so "$work/plugins/"
"$top/contribs/slurm/slurm-frontend.sh" >/dev/null
# Slurm 24.11 (QFT_SLURM_SERIES=24.11): also stock cons_tres with
# topology/qft, which places in its eval_nodes hook there
configs_24=
[ "${QFT_SLURM_SERIES:-22.05}" = 22.05 ] || configs_24=qft
small=(1 2 3 4 6 8 9 12 18 1)
more=(18 36 7 100 2 54 9 72 1 5)

sdiag_mean() { "$1/bin/sdiag" 2>/dev/null | awk '/^Main schedule statistics/ {m=1} m && /Mean cycle:/ {print $3; exit}'; }
sdiag_max() { "$1/bin/sdiag" 2>/dev/null | awk '/^Main schedule statistics/ {m=1} m && /Max cycle:/ {print $3; exit}'; }

sdiag_field() { # sdiag_field WORKDIR "Mean cycle:"
	"$1/bin/sdiag" 2>/dev/null | awk -v f="$2" '/^Main schedule statistics/ {m=1} m && index($0, f) {print $NF; exit}'
}
# mean and max of "<key> N us" in rlft's log lines
log_us() {
	(grep -o "$2 [0-9]* us" "$1" || true) |
		awk '{v = $(NF - 1); s += v; if (v > m) m = v; c++} END {if (c) printf "%.0f/%d", s / c, m; else printf "-"}'
}

echo "mean cycle: sdiag's main scheduler, microseconds, over 'cycles' cycles after the reset;"
echo "rlft's columns: mean/max microseconds per job of its placement, cons_tres's job_test"
echo "after it, job_begin and job_fini (everything select/rlft does under slurmctld's locks)"
printf '%-6s %-26s %7s %7s %11s %6s %10s %12s %10s %9s\n' nodes config running cycles "mean cycle" ratio \
	place cons_tres job_begin job_fini
for spec in "1944:3;18,18,6;1,18,6;1,1,3" "4536:3;18,18,14;1,18,9;1,1,2"; do
	n=${spec%%:*}
	# QFT_BENCH_NODES=1944: that size only
	[ -z "${QFT_BENCH_NODES:-}" ] || [ "$QFT_BENCH_NODES" = "$n" ] || continue
	tuple=${spec#*:}
	"$qft" gen pgft "$tuple" -o "$work/fabric.json" 2>/dev/null
	"$qft" topology-conf --fabric "$work/fabric.json" -o "$work/topology.conf"
	echo "FabricFile=fabric.json" >"$work/qft.conf"
	base_mean=
	for config in tree rlft $configs_24; do
		w=$work/c-$n-$config
		if [ $config = rlft ]; then
			args=(-t topology/qft -s select/rlft -c "$work/qft.conf" -c "$work/fabric.json")
		elif [ $config = qft ]; then
			args=(-t topology/qft -s select/cons_tres -c "$work/qft.conf" -c "$work/fabric.json")
		else
			args=(-t topology/tree -s select/cons_tres -c "$work/topology.conf")
		fi
		# verbose: rlft's job_fini line; both configs log the same way
		args+=(-e "SlurmctldDebug=verbose")
		"$harness" start -w "$w" -n "$n" -p "$work/plugins" "${args[@]}" >"$w.out" 2>&1 ||
			{ tail -5 "$w.out"; exit 1; }
		cd "$w"
		for i in $(seq 0 $((njobs - 1))); do
			"$w/bin/sbatch" -N "${small[$((i % 10))]}" -o /dev/null --wrap 'sleep 1000' >/dev/null
		done
		for _ in $(seq 1 60); do
			[ "$("$w/bin/squeue" -h -t R | wc -l)" -ge $((njobs * 9 / 10)) ] && break
			sleep 1
		done
		"$w/bin/sdiag" --reset >/dev/null || true
		for i in $(seq 0 $((waves - 1))); do
			for k in 0 1 2 3; do
				"$w/bin/sbatch" -N "${more[$(((4 * i + k) % 10))]}" -o /dev/null \
					--wrap "sleep $((2 + k))" >/dev/null
			done
			sleep 1.5
		done
		sleep 5
		mean=$(sdiag_field "$w" "Mean cycle:")
		ratio=-
		if [ $config = tree ]; then
			base_mean=$mean
		elif [ -n "$base_mean" ] && [ "${base_mean:-0}" -gt 0 ]; then
			ratio=$(awk -v a="$mean" -v b="$base_mean" 'BEGIN {printf "%.2f", a / b}')
		fi
		log=$w/log/slurmctld.log
		printf '%-6s %-26s %7s %7s %11s %6s %10s %12s %10s %9s\n' "$n" \
			"$(case $config in rlft) echo "select/rlft+topology/qft" ;; qft) echo "cons_tres+topology/qft" ;;
				*) echo "cons_tres+topology/tree" ;; esac)" \
			"$("$w/bin/squeue" -h -t R | wc -l)" "$(sdiag_field "$w" "Total cycles:")" "$mean" "$ratio" \
			"$([ $config = rlft ] && log_us "$log" "placed in" || echo -)" \
			"$([ $config = rlft ] && log_us "$log" "cons_tres" || echo -)" \
			"$([ $config = rlft ] && log_us "$log" "job_begin" || echo -)" \
			"$([ $config = rlft ] && log_us "$log" "job_fini" || echo -)"
		cd "$top"
		"$harness" stop -w "$w" >/dev/null 2>&1
	done
done
