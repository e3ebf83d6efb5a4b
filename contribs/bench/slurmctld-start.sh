#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: how long slurmctld (front-end mode) takes to start with
# topology/qft, beside topology/tree given the equivalent topology.conf
# (qft topology-conf), on the same generated fabric, in the same run.
# Prints figures; asserts nothing. Needs root and a build configured with
# the Slurm source (make check-slurm works).
#   usage: contribs/bench/slurmctld-start.sh BUILD-DIR [ROUNDS]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: $0 BUILD-DIR [ROUNDS]}" && pwd)
rounds=${2:-3}
qft=$build/contribs/qft/qft
harness=$top/contribs/slurm/harness.sh
work=$top/build/bench-start
rm -rf "$work"
mkdir -p "$work/plugins"
cp "$build"/src/plugins/*/*/*.so "$work/plugins/"
"$top/contribs/slurm/slurm-frontend.sh" >/dev/null

# Milliseconds from slurmctld's first log line to the one saying it serves.
ctld_ms() {
	python3 - "$1" <<'PY'
import re, sys, datetime
first = ready = None
for line in open(sys.argv[1]):
    m = re.match(r"\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+)\]", line)
    if not m:
        continue
    t = datetime.datetime.fromisoformat(m.group(1))
    first = first or t
    if "Running as primary controller" in line:
        ready = t
        break
print(round((ready - first).total_seconds() * 1000) if ready else -1)
PY
}

printf '%-6s %-14s %8s %10s %10s\n' nodes plugin round ctld_ms idle_s
for spec in "1944:3;18,18,6;1,18,6;1,1,3" "4536:3;18,18,14;1,18,9;1,1,2"; do
	n=${spec%%:*}
	tuple=${spec#*:}
	"$qft" gen pgft "$tuple" -o "$work/fabric.json" 2>/dev/null
	"$qft" topology-conf --fabric "$work/fabric.json" -o "$work/topology.conf"
	echo "FabricFile=fabric.json" >"$work/qft.conf"
	for plugin in qft tree; do
		if [ $plugin = qft ]; then
			conf=(-c "$work/qft.conf" -c "$work/fabric.json")
		else
			conf=(-c "$work/topology.conf")
		fi
		for r in $(seq 1 "$rounds"); do
			w=$work/c-$n-$plugin
			"$harness" start -w "$w" -n "$n" -p "$work/plugins" \
				-t topology/$plugin "${conf[@]}" >"$w.out" 2>&1 ||
				{ tail -5 "$w.out"; exit 1; }
			. "$w/harness.env"
			printf '%-6s %-14s %8s %10s %10s\n' "$n" "topology/$plugin" "$r" \
				"$(ctld_ms "$w/log/slurmctld.log")" "$IDLE_SECS"
			"$harness" stop -w "$w" >/dev/null 2>&1
		done
	done
done
