#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Fabric changes while slurmctld runs (issue 15), end to end and timed:
# ibsim runs the 1944-host PGFT(3;18,18,6;1,18,6;1,1,3); OpenSM sweeps it
# with the event plugin (contribs/opensm, libqftevent.so) writing the
# fabric file of a front-end slurmctld (topology/qft + select/rlft, 22.05)
# and running `scontrol reconfigure` after each change. Three jobs run
# throughout. Then, through ibsim's console:
#   unlink 1, 5 and 20 switch cables (seeded), and the cable of one host;
#   after each, link them back.
# For each step it prints the seconds from the first console command to
#   console: the last console command sent (20 cables: 20 commands),
#   file:   the plugin's new fabric file,
#   reload: slurmctld's log naming the new fabric with as many missing
#           cables (or absent hosts) as the step leaves,
#   job:    a new 18-node job running on it,
# and checks that the new job avoids a cut host, that no job is lost and
# that slurmctld stays up. Figures, not a test: exit 1 only when a step
# cannot run at all. Needs root. About 10 minutes.
#
#   contribs/bench/fabric-change.sh [SEED]
# env: QFT (the qft tool), QFT_PLUGIN_BUILD (<build>/src/plugins),
#      QFT_EVENT_SO (libqftevent.so; default: built with gcc),
#      QFT_BENCH_WORK (scratch, default build/bench/fabric-change)
set -uo pipefail
BENCH=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$BENCH/../.." && pwd)
W=${QFT_BENCH_WORK:-$TOP/build/bench/fabric-change}
export QFT_TEST_ROOT=$W/slurm
TEST_NAME=fabric-change
. "$TOP/tests/slurm/lib.sh"
IBH=$TOP/tests/ib/ibsim-harness.sh
SEED=${1:-1}
TUPLE="3;18,18,6;1,18,6;1,1,3"
die() { echo "fabric-change: $*" >&2; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

"$IBH" deps >/dev/null || die "cannot install the IB packages"
rm -rf "$W"
mkdir -p "$W/plugin" "$W/jobs" "$QFT_TEST_ROOT"
"$QFT" gen pgft "$TUPLE" -o "$W/gen.json" --ibsim "$W/f.net" 2>/dev/null || die "qft gen"
SO=${QFT_EVENT_SO:-}
if [ -z "$SO" ]; then
	gcc -std=gnu11 -O2 -fPIC -shared -fvisibility=hidden -I/usr/include/infiniband \
		-o "$W/plugin/libqftevent.so" "$TOP/contribs/opensm/qft_fabric_event.c" \
		-ljansson -lpthread -Wl,--no-undefined -lopensm -losmcomp || die "cannot build the plugin"
else
	cp "$SO" "$W/plugin/libqftevent.so"
fi

# --- slurmctld on the generated fabric --------------------------------------
C=$W/c
plugin_dir "$W/plugins"
printf 'FabricFile=fabric.json\n' >"$W/qft.conf"
cp "$W/gen.json" "$W/fabric.json"
tree_names "$W/gen.json" >"$W/nodes"
start_cluster "$C" --node-file "$W/nodes" -p "$W/plugins" -t topology/qft -s select/rlft \
	-c "$W/qft.conf" -c "$W/fabric.json" || { cat "$C.start.out"; die "slurmctld did not start"; }
LOG=$C/log/slurmctld.log
FAB=$C/etc/fabric.json
[ -f "$FAB" ] || die "no $FAB"

# --- ibsim and OpenSM with the plugin ---------------------------------------
t=$(now)
"$IBH" start "$W/f.net" "$W/sim" >/dev/null 2>&1 || die "ibsim did not start"
echo "# ibsim up on 1944 hosts, 324 switches in $(since "$t") s"
cat >"$W/opensm.conf" <<EOF
event_plugin_name qftevent
sweep_interval 2
force_log_flush TRUE
EOF
(
	eval "$("$IBH" env "$W/sim" | grep '^export')"
	cd "$W/sim/scratch"
	export LD_LIBRARY_PATH=$W/plugin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export OSM_CACHE_DIR=$W/cache OSM_TMP_DIR=$W/dump
	mkdir -p "$W/cache" "$W/dump"
	# no settle time or interval: the figures are of the chain itself
	exec env QFT_OSM_FABRIC="$FAB" QFT_OSM_COMMAND="'$C/bin/scontrol' reconfigure" \
		QFT_OSM_SETTLE=0 QFT_OSM_MIN_INTERVAL=0 \
		opensm -F "$W/opensm.conf" -D 0x03 -f "$W/opensm.log" >"$W/opensm.out" 2>&1
) &
OSMPID=$!
cleanup() {
	kill "$OSMPID" 2>/dev/null
	"$IBH" stop "$W/sim" >/dev/null 2>&1
	stop_all
}
trap cleanup EXIT
trap "exit 1" INT TERM

# reloads: the fabrics topology/qft loaded (its "fabric F: TREE, N hosts,
# G switch groups, routing R" line; a rejected file logs an error instead)
reloads() { grep -c 'topology/qft: fabric .* switch groups, routing ' "$LOG"; }
# findings: the WARNING lines after the newest load (missing cables and
# switches, absent hosts)
findings() {
	awk '/topology\/qft: fabric .* switch groups, routing / {n = 0}
		/topology\/qft: WARNING/ {n++} END {print n + 0}' "$LOG"
}
# rejected: the fabric files topology/qft refused (and kept the old one)
rejected() { grep -c 'topology/qft: .*keeping the fabric loaded from' "$LOG"; }
# wait_reload R0 N T: until slurmctld has loaded a fabric after R0 loads
# with N findings ("+": at least one), at most T seconds
wait_reload() {
	local end=$(($(date +%s) + $3)) f
	while [ "$(date +%s)" -le "$end" ]; do
		f=$(findings)
		[ "$(reloads)" -gt "$1" ] && { [ "$f" = "$2" ] || { [ "$2" = + ] && [ "$f" -gt 0 ]; }; } &&
			return 0
		sleep 0.2
	done
	return 1
}
t=$(now)
r0=$(reloads)
wait_reload "$r0" 0 600 || die "OpenSM's first fabric file never reached slurmctld (see $W/opensm.log, $LOG)"
echo "# OpenSM's first sweep, file and slurmctld's reload: $(since "$t") s after OpenSM started"

# --- the jobs that must survive everything ----------------------------------
keep=()
for n in 18 36 100; do
	keep+=("$(cd "$C" && "$C/bin/sbatch" --parsable -N "$n" -o /dev/null --wrap 'sleep 3600')")
done
wait_running "$C" "${keep[@]}"

# --- the steps --------------------------------------------------------------
# cables K: K switch-to-switch cables of the generated fabric, seeded, as
# console names "S-<guid>" port peer peer-port
cables() {
	python3 - "$W/gen.json" "$1" "$SEED" <<'PY'
import json, random, sys
f = json.load(open(sys.argv[1]))
sw = {s["guid"] for s in f["switches"]}
links = [l for l in f["links"] if l[0] in sw and l[2] in sw]
for l in random.Random(int(sys.argv[3])).sample(links, int(sys.argv[2])):
    print("S-%s %d S-%s %d" % (l[0][2:], l[1], l[2][2:], l[3]))
PY
}
host_cable() {
	python3 - "$W/gen.json" "$1" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
g = [h["guid"] for h in f["hosts"] if h["name"] == sys.argv[2]][0]
l = [l for l in f["links"] if g in (l[0], l[2])][0]
a, b = (l[0:2], l[2:4]) if l[0] == g else (l[2:4], l[0:2])
print("H-%s %d S-%s %d" % (a[0][2:], a[1], b[0][2:], b[1]))
PY
}
# step NAME FINDINGS AVOID CMD...: runs the console commands (one per line
# of the file CMD), then times file, reload and a new 18-node job
printf '%-28s %8s %8s %8s %8s  %s\n' step console file reload job "new job's nodes"
step() {
	local name=$1 want=$2 avoid=$3 cmds=$4 sum r0 t tc tf tr tj id nodes
	sum=$(md5sum <"$FAB" | cut -c1-32)
	r0=$(reloads)
	t=$(now)
	while read -r line; do "$IBH" console "$W/sim" "$line" >/dev/null 2>&1; done <"$cmds"
	tc=$(since "$t") tf=- tr=- tj=-
	for _ in $(seq 1 600); do
		[ "$(md5sum <"$FAB" | cut -c1-32)" != "$sum" ] && { tf=$(since "$t"); break; }
		sleep 0.1
	done
	wait_reload "$r0" "$want" 120 && tr=$(since "$t")
	id=$(submit_recording "$C" "$W/jobs" 18 -t 5)
	for _ in $(seq 1 600); do
		[ "$("$C/bin/squeue" -h -t R -j "$id" | wc -l)" = 1 ] && { tj=$(since "$t"); break; }
		sleep 0.1
	done
	nodes=$("$C/bin/squeue" -h -j "$id" -o %N)
	printf '%-28s %8s %8s %8s %8s  %s\n' "$name" "$tc" "$tf" "$tr" "$tj" "$nodes"
	if [ "$avoid" != - ] && "$C/bin/scontrol" show hostnames "$nodes" | grep -qx "$avoid"; then
		echo "  !! the new job got $avoid, whose cable is cut"
	fi
	"$C/bin/scancel" "$id"
}
for k in 1 5 20; do
	cables "$k" >"$W/cables-$k"
	awk '{printf "Unlink \"%s\"[%s]\n", $1, $2}' "$W/cables-$k" >"$W/unlink-$k"
	awk '{printf "Link \"%s\"[%s] \"%s\"[%s]\n", $1, $2, $3, $4}' "$W/cables-$k" >"$W/link-$k"
	step "unlink $k switch cable(s)" "$k" - "$W/unlink-$k"
	step "link them back" 0 - "$W/link-$k"
done
# n0170: in the leaf (n0163-n0180) the new 18-node jobs take while it is
# whole, so the job after the cut must go elsewhere
host_cable n0170 >"$W/host"
awk '{printf "Unlink \"%s\"[%s]\n", $1, $2}' "$W/host" >"$W/unlink-host"
awk '{printf "Link \"%s\"[%s] \"%s\"[%s]\n", $3, $4, $1, $2}' "$W/host" >"$W/link-host"
# a cut host is gone from OpenSM's subnet: slurmctld warns that a node of
# slurm.conf is not in the fabric
step "unlink host n0170's cable" + n0170 "$W/unlink-host"
step "link it back" 0 - "$W/link-host"

# --- what must hold ---------------------------------------------------------
alive=$("$C/bin/squeue" -h -t R -j "$(IFS=,; echo "${keep[*]}")" | wc -l)
echo "# the 3 jobs running since the start: $alive still running"
"$C/bin/scontrol" ping | grep -q 'is UP' && echo "# slurmctld: UP" || echo "# slurmctld: DOWN"
echo "# slurmctld loaded the fabric $(reloads) times and refused it $(rejected) times; OpenSM wrote it $(grep -c 'qft: wrote' "$W/opensm.log") times"
grep 'are not in fabric' "$LOG" | tail -n 1 | sed 's/^/# log: /'
