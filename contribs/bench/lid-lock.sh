#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: what select/rlft's LID choice (qft.conf LidChoice=) costs under
# slurmctld's locks in job_begin, and how long until the job's table is in
# HostFileDir= (issue 32 item 3). Slurm 22.05 front end
# (contribs/slurm/harness.sh); per fabric one cluster, per mode a
# reconfigure (LidChoice=pair, then dest; LidPairMaxNodes= above the
# machine), per size one batch job (sbatch: an allocation's reply would
# time out while a choice under the locks takes longer than MessageTimeout)
# on an otherwise idle machine:
#   - PGFT(3;18,18,6;1,18,6;1,1,3), 1944 hosts, LMC 4: jobs of 324 and 1944
#     nodes;
#   - PGFT(3;18,18,14;1,18,9;1,1,2), 4536 hosts, LMC 3 (4536 x 8 LIDs fit
#     the 49151 unicast LIDs): jobs of 324, 1944 and 4536 nodes.
# From select/rlft's log: the line of the LID choice ("JobId=N LID choice
# ...; N us": the time under the locks), and, when the choice runs off the
# locks, the worker's line ("JobId=N LID table ... ready S s after
# job_begin (choice C s)"). Figures, no asserts. Root.
#   usage: contribs/bench/lid-lock.sh BUILD-DIR [SIZES...]
#   QFT_BENCH_PLUGINS=DIR: the plugins (*.so) to run, instead of BUILD-DIR's
#   QFT_BENCH_FABRICS="1944 4536" (default) or one of them
#   QFT_BENCH_MODES="pair dest" (default) or one of them
#   QFT_BENCH_WORK=DIR: the clusters' directory (default build/bench-lid)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: $0 BUILD-DIR [SIZES...]}" && pwd)
shift
sizes=("$@")
qft=$build/contribs/qft/qft
harness=$top/contribs/slurm/harness.sh
work=${QFT_BENCH_WORK:-$top/build/bench-lid}
rm -rf "$work"
mkdir -p "$work/plugins"
if [ -n "${QFT_BENCH_PLUGINS:-}" ]; then
	cp "$QFT_BENCH_PLUGINS"/*.so "$work/plugins/"
else
	cp "$build"/src/plugins/*/*/*.so "$work/plugins/"
fi
"$top/contribs/slurm/slurm-frontend.sh" >/dev/null

# lid_line LOG ID: the job's "LID choice" line
lid_line() { grep -m1 "JobId=$2 LID choice" "$1" || true; }
# ready_line LOG ID: the worker's line, once it is there (at most 600 s)
ready_line() {
	local i
	for i in $(seq 1 600); do
		grep -m1 -E "JobId=$2 LID (table|decision)" "$1" && return
		# the choice made under the locks has no worker line
		lid_line "$1" "$2" | grep -q "table written" && return
		sleep 1
	done
}

printf '%-6s %-5s %-6s %10s %8s %10s  %s\n' fabric mode nodes "lock us" "CPU us" "ready s" "what the log says"
for fab in ${QFT_BENCH_FABRICS:-1944 4536}; do
	case $fab in
	1944) tuple="3;18,18,6;1,18,6;1,1,3" lmc=4 fsizes=(324 1944) ;;
	4536) tuple="3;18,18,14;1,18,9;1,1,2" lmc=3 fsizes=(324 1944 4536) ;;
	*) echo "unknown fabric $fab" >&2; exit 2 ;;
	esac
	[ ${#sizes[@]} = 0 ] || fsizes=("${sizes[@]}")
	w=$work/c-$fab
	mkdir -p "$work/$fab"
	"$qft" gen pgft "$tuple" --lmc $lmc -o "$work/$fab/fabric.json" 2>/dev/null
	conf() { printf 'FabricFile=fabric.json\nHostFileDir=%s\nLidChoice=%s\nLidPairMaxNodes=100000\n' \
		"$work/$fab/hostfiles" "$1"; }
	conf pair >"$work/$fab/qft.conf"
	"$harness" start -w "$w" -n "$fab" -p "$work/plugins" -t topology/qft -s select/rlft \
		-c "$work/$fab/qft.conf" -c "$work/$fab/fabric.json" -e "SlurmctldDebug=verbose" \
		>"$w.out" 2>&1 || { tail -5 "$w.out"; exit 1; }
	log=$w/log/slurmctld.log
	for mode in ${QFT_BENCH_MODES:-pair dest}; do
		conf "$mode" >"$w/etc/qft.conf"
		(cd "$w" && "$w/bin/scontrol" reconfigure)
		sleep 2
		for n in "${fsizes[@]}"; do
			[ "$n" -le "$fab" ] || continue
			id=$(cd "$w" && "$w/bin/sbatch" --parsable -N "$n" --time=100 -o /dev/null \
				--wrap 'sleep 1000' 2>&1) || { echo "$fab $mode $n: $id" >&2; continue; }
			for _ in $(seq 1 600); do
				[ "$(cd "$w" && "$w/bin/squeue" -h -j "$id" -o %T)" = RUNNING ] && break
				sleep 1
			done
			line=$(lid_line "$log" "$id")
			us=$(echo "$line" | sed -n 's/.*; \([0-9]*\) us\( (.*)\)*$/\1/p')
			cpu=$(echo "$line" | sed -n 's/.*; [0-9]* us (\([0-9]*\) us CPU)$/\1/p')
			ready=$(ready_line "$log" "$id")
			secs=$(echo "$ready" | sed -n 's/.* ready \([0-9.]*\) s after.*/\1/p')
			printf '%-6s %-5s %-6s %10s %8s %10s  %s\n' "$fab" "$mode" "$n" "${us:--}" "${cpu:--}" "${secs:--}" \
				"$(echo "${ready:-$line}" | sed 's/^.*select\/rlft: //' | cut -c1-160)"
			(cd "$w" && "$w/bin/scancel" "$id")
			for _ in $(seq 1 60); do
				[ -z "$(cd "$w" && "$w/bin/squeue" -h)" ] && break
				sleep 1
			done
		done
	done
	"$harness" stop -w "$w" >/dev/null 2>&1
done
