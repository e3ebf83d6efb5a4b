#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: slurmctld's scheduling with select/rlft + topology/qft beside
# select/cons_tres + topology/tree (the equivalent topology.conf), same
# fabric and workload, in one run: ~200 running jobs, then 50 more
# submitted; sdiag's main-scheduler cycle times for both, and rlft's own
# placement time per job. Figures, no asserts. Needs root.
#   usage: contribs/bench/select-latency.sh BUILD-DIR [RUNNING-JOBS]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: $0 BUILD-DIR [RUNNING-JOBS]}" && pwd)
njobs=${2:-200}
qft=$build/contribs/qft/qft
harness=$top/tests/slurm/harness.sh
work=$top/build/bench-select
rm -rf "$work"
mkdir -p "$work/plugins"
cp "$build"/src/plugins/*/*/*.so "$work/plugins/"
"$top/contribs/slurm/slurm-frontend.sh" >/dev/null
small=(1 2 3 4 6 8 9 12 18 1)
more=(18 36 7 100 2 54 9 72 1 5)

sdiag_mean() { "$1/bin/sdiag" 2>/dev/null | awk '/^Main schedule statistics/ {m=1} m && /Mean cycle:/ {print $3; exit}'; }
sdiag_max() { "$1/bin/sdiag" 2>/dev/null | awk '/^Main schedule statistics/ {m=1} m && /Max cycle:/ {print $3; exit}'; }

echo "rlft place/cons_tres: mean microseconds per placed job of rlft's placement and of"
echo "cons_tres's job_test after it, in the same slurmctld"
printf '%-6s %-30s %8s %12s %12s %14s\n' nodes config running "mean cycle" "max cycle" "rlft place/cons_tres us"
for spec in "1944:3;18,18,6;1,18,6;1,1,3" "4536:3;18,18,14;1,18,9;1,1,2"; do
	n=${spec%%:*}
	tuple=${spec#*:}
	"$qft" gen pgft "$tuple" -o "$work/fabric.json" 2>/dev/null
	"$qft" topology-conf --fabric "$work/fabric.json" -o "$work/topology.conf"
	echo "FabricFile=fabric.json" >"$work/qft.conf"
	for config in rlft tree; do
		w=$work/c-$n-$config
		if [ $config = rlft ]; then
			args=(-t topology/qft -s select/rlft -c "$work/qft.conf" -c "$work/fabric.json")
		else
			args=(-t topology/tree -s select/cons_tres -c "$work/topology.conf")
		fi
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
		for i in $(seq 0 49); do
			"$w/bin/sbatch" -N "${more[$((i % 10))]}" -o /dev/null --wrap 'sleep 1000' >/dev/null
		done
		sleep 15
		us=-
		if [ $config = rlft ]; then
			us=$( (grep -o 'placed in [0-9]* us over [0-9]* candidates, cons_tres [0-9]* us' "$w/log/slurmctld.log" || true) |
				awk '{s += $3; b += $9; c++} END {if (c) printf "%.0f/%.0f (n=%d)", s / c, b / c, c}')
		fi
		printf '%-6s %-30s %8s %12s %12s %14s\n' "$n" \
			"$([ $config = rlft ] && echo "select/rlft+topology/qft" || echo "cons_tres+topology/tree")" \
			"$("$w/bin/squeue" -h -t R | wc -l)" "$(sdiag_mean "$w")" "$(sdiag_max "$w")" "$us"
		cd "$top"
		"$harness" stop -w "$w" >/dev/null 2>&1
	done
done
