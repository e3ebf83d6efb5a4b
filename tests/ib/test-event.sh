#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The OpenSM event plugin (contribs/opensm, libqftevent.so) on ibsim: a
# running OpenSM loads it, it writes the fabric file on SUBNET UP and runs
# QFT_OSM_COMMAND; the file loads in qft and is the generated fabric. Then a
# switch cable is unlinked in ibsim: the next sweep rewrites the file with
# that cable missing (timed), and linking it back makes it whole again.
# A cable that flaps (10 times down and up in 14 s, a state for each of
# OpenSM's sweeps every 2 s to see, then down) gives
# one write and one command, no two commands closer than
# QFT_OSM_MIN_INTERVAL; sweeps that OpenSM ends with initialisation errors
# (ibsim drops a spine's forwarding-table MADs) are not copied, nor those
# that find no switch (ibsim drops the PortInfo MADs of the SM's switch).
#   env: QFT (the qft tool), QFT_EVENT_SO (libqftevent.so; default: built
#        with gcc into QFT_IB_WORK), QFT_IB_WORK (scratch, default
#        build/ib/test-event), QFT_EVENT_BREAK=1 (one check fails on purpose)
# Exit 77 when libopensm-dev is missing and no QFT_EVENT_SO is given.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
QFT=${QFT:-$REPO/build/release/contribs/qft/qft}
IBH=$HERE/ibsim-harness.sh
W=${QFT_IB_WORK:-$REPO/build/ib/test-event}
PASS=0 FAIL=0
ok() { PASS=$((PASS + 1)); echo "ok - $*"; }
bad() { FAIL=$((FAIL + 1)); echo "not ok - $*"; }
expect_eq() { if [ "$2" = "$3" ]; then ok "$1 = $3"; else bad "$1 = '$2', wanted '$3'"; fi; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
field() { awk -v k="$2" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$1"; }
# waits up to $2 s for file $1 to differ from checksum $3; prints the
# seconds since $4 (a now() value)
wait_change() {
	local t0=$4 end sum
	end=$(( $(date +%s) + $2 ))
	while [ "$(date +%s)" -le "$end" ]; do
		sum=$(md5sum <"$1" 2>/dev/null | cut -c1-32)
		if [ -n "$sum" ] && [ "$sum" != "$3" ]; then elapsed "$t0" "$(now)"; return 0; fi
		sleep 0.1
	done
	return 1
}
osm_alive() { [ -n "${OSMPID:-}" ] && [ "$(cat "/proc/$OSMPID/comm" 2>/dev/null)" = opensm ]; }

"$IBH" deps >/dev/null || { echo "test-event: cannot install the IB packages"; exit 1; }
rm -rf "$W"
mkdir -p "$W/plugin" "$W/out"
SO=${QFT_EVENT_SO:-}
if [ -n "$SO" ] && readelf -d "$SO" 2>/dev/null | grep -q 'libasan'; then
	echo "# $SO needs ASan's runtime, which opensm does not load: building one with gcc"
	SO=
fi
if [ -z "$SO" ]; then
	[ -f /usr/include/infiniband/opensm/osm_event_plugin.h ] ||
		{ echo "test-event: SKIP: libopensm-dev is not installed"; exit 77; }
	gcc -std=gnu11 -O2 -Wall -Wextra -Wno-unused-parameter -fPIC -shared \
		-fvisibility=hidden -I/usr/include/infiniband \
		-o "$W/plugin/libqftevent.so" "$REPO/contribs/opensm/qft_fabric_event.c" \
		-ljansson -lpthread -Wl,--no-undefined -lopensm -losmcomp ||
		{ echo "test-event: cannot build the plugin"; exit 1; }
	SO=$W/plugin/libqftevent.so
else
	cp "$SO" "$W/plugin/libqftevent.so"
fi
OSMPID=
cleanup() {
	osm_alive && kill "$OSMPID" 2>/dev/null
	"$IBH" stop "$W/sim" >/dev/null 2>&1
}
trap cleanup EXIT

"$QFT" gen pgft "2;4,8;1,4;1,1" -o "$W/f.json" --ibsim "$W/f.net" 2>/dev/null ||
	{ echo "test-event: qft gen failed"; exit 1; }
"$IBH" start "$W/f.net" "$W/sim" >/dev/null 2>&1 || { echo "test-event: ibsim start failed"; exit 1; }

# OpenSM as a daemon (not the harness's one-shot -o), sweeping every 2 s;
# its performance manager feeds the plugin's port error counters.
FAB=$W/out/fabric.json MARK=$W/out/command.ran LOG=$W/opensm.log
cat >"$W/opensm.conf" <<EOF
event_plugin_name qftevent
sweep_interval 2
force_log_flush TRUE
perfmgr TRUE
perfmgr_sweep_time_s 1
EOF
# start_osm LOG [VAR=VALUE...]: OpenSM with the plugin, in the background
start_osm() {
	local log=$1; shift
	(
		eval "$("$IBH" env "$W/sim" | grep '^export')"
		cd "$W/sim/scratch"
		export LD_LIBRARY_PATH=$W/plugin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
		export OSM_CACHE_DIR=$W/cache OSM_TMP_DIR=$W/dump
		unset QFT_OSM_FABRIC QFT_OSM_COMMAND QFT_OSM_NAMES
		mkdir -p "$W/cache" "$W/dump"
		exec env "$@" opensm -F "$W/opensm.conf" -D 0x03 -f "$log" >"$log.out" 2>&1
	) &
	OSMPID=$!
	for _ in $(seq 1 50); do [ "$(cat "/proc/$OSMPID/comm" 2>/dev/null)" = opensm ] && break; sleep 0.05; done
}
stop_osm() {
	osm_alive && kill "$OSMPID"
	for _ in $(seq 1 100); do osm_alive || break; sleep 0.1; done
	OSMPID=
}
SETTLE=5 MIN_INTERVAL=8
start_osm "$LOG" QFT_OSM_FABRIC="$FAB" QFT_OSM_COMMAND="date +%s.%N >>'$MARK'" \
	QFT_OSM_SETTLE=$SETTLE QFT_OSM_MIN_INTERVAL=$MIN_INTERVAL
t0=$(now)
for _ in $(seq 1 300); do [ -s "$FAB" ] && [ -s "$MARK" ] && break; sleep 0.1; done
[ -s "$FAB" ] && ok "fabric file written $(elapsed "$t0" "$(now)") s after OpenSM started" ||
	bad "no fabric file after 30 s (log: $LOG)"
[ -s "$MARK" ] && ok "QFT_OSM_COMMAND ran" || bad "QFT_OSM_COMMAND did not run"
[ ! -e "$FAB.tmp" ] && ok "no $FAB.tmp left" || bad "$FAB.tmp left behind"

"$QFT" info --fabric "$W/f.json" >"$W/info-gen.txt" 2>&1
"$QFT" info --fabric "$FAB" >"$W/info-0.txt" 2>&1
expect_eq "qft info --fabric exit" "$?" 0
for k in hosts switches cables; do
	want=$(field "$W/info-gen.txt" $k)
	[ "${QFT_EVENT_BREAK:-0}" = 1 ] && [ $k = cables ] && want=$((want + 1))
	expect_eq "plugin file $k" "$(field "$W/info-0.txt" $k)" "$want"
done
"$QFT" recognise "$FAB" >"$W/rec-0.txt" 2>&1
expect_eq "qft recognise exit" "$?" 0
expect_eq "recognised tree" "$(field "$W/rec-0.txt" tree)" "PGFT(2;4,8;1,4;1,1)"
grep -q '^missing cables 0$' "$W/rec-0.txt" && ok "recognise: no missing cable" ||
	bad "recognise reports missing cables: $(grep missing "$W/rec-0.txt" | tr '\n' ' ')"
python3 - "$W/f.json" "$FAB" >"$W/cmp-0.txt" 2>&1 <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
def cables(f):
    return sorted(tuple(sorted([(l[0], l[1]), (l[2], l[3])])) + (l[4], l[5]) for l in f["links"])
def nodes(f, k):
    return sorted((n["guid"], n["desc"], n["ports"], n["lid"], n.get("name")) for n in f[k])
for what, x, y in (("cables", cables(a), cables(b)),
                   ("switches", nodes(a, "switches"), nodes(b, "switches")),
                   ("hosts", nodes(a, "hosts"), nodes(b, "hosts"))):
    print(what, "same" if x == y else "differ: %s" % sorted(set(x) ^ set(y))[:4])
PY
expect_eq "cables, rates, GUIDs, LIDs, names against qft gen" "$(tr '\n' ' ' <"$W/cmp-0.txt")" \
	"cables same switches same hosts same "

# Unlink one up-link of leaf switch "qft L1 0.0" (port 5 goes to level 2).
sw=$(python3 -c "import json; f=json.load(open('$W/f.json')); print([s['guid'] for s in f['switches'] if s['desc']=='qft L1 0.0'][0])")
swname=S-${sw#0x}
sum0=$(md5sum <"$FAB" | cut -c1-32)
runs0=$(wc -l <"$MARK")
t0=$(now)
"$IBH" console "$W/sim" "Unlink \"$swname\"[5]" >"$W/unlink.txt" 2>&1
if dt=$(wait_change "$FAB" 30 "$sum0" "$t0"); then
	ok "file rewritten ${dt} s after the unlink"
else
	bad "file not rewritten within 30 s of the unlink"
fi
sleep 0.5
"$QFT" info --fabric "$FAB" >"$W/info-1.txt" 2>&1
expect_eq "cables after the unlink" "$(field "$W/info-1.txt" cables)" $(( $(field "$W/info-gen.txt" cables) - 1 ))
"$QFT" recognise "$FAB" >"$W/rec-1.txt" 2>&1
expect_eq "recognise after the unlink: tree" "$(field "$W/rec-1.txt" tree)" "PGFT(2;4,8;1,4;1,1)"
grep -q '^missing cables 1$' "$W/rec-1.txt" && ok "recognise reports the missing cable" ||
	bad "recognise after the unlink: $(grep missing "$W/rec-1.txt" | tr '\n' ' ')"
python3 - "$FAB" "$sw" >"$W/gone.txt" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
print(any((l[0] == sys.argv[2] and l[1] == 5) or (l[2] == sys.argv[2] and l[3] == 5) for l in f["links"]))
PY
expect_eq "cable $swname[5] in the file" "$(cat "$W/gone.txt")" False
for _ in $(seq 1 50); do [ "$(wc -l <"$MARK")" -gt "$runs0" ] && break; sleep 0.1; done
[ "$(wc -l <"$MARK")" -gt "$runs0" ] && ok "QFT_OSM_COMMAND ran again" || bad "QFT_OSM_COMMAND did not run again"

# Link it back (the console's Link needs the peer; take it from f.json).
peer=$(python3 -c "
import json; f=json.load(open('$W/f.json'))
for l in f['links']:
    if l[0]=='$sw' and l[1]==5: print('S-%s %d' % (l[2][2:], l[3]))
    if l[2]=='$sw' and l[3]==5: print('S-%s %d' % (l[0][2:], l[1]))")
read -r pname pport <<<"$peer"
sum1=$(md5sum <"$FAB" | cut -c1-32)
t0=$(now)
"$IBH" console "$W/sim" "Link \"$swname\"[5] \"$pname\"[$pport]" >"$W/link.txt" 2>&1
if dt=$(wait_change "$FAB" 30 "$sum1" "$t0"); then
	ok "file rewritten ${dt} s after the link"
else
	bad "file not rewritten within 30 s of the link"
fi
sleep 0.5
"$QFT" recognise "$FAB" >"$W/rec-2.txt" 2>&1
grep -q '^missing cables 0$' "$W/rec-2.txt" && ok "whole again after the link" ||
	bad "after the link: $(grep missing "$W/rec-2.txt" | tr '\n' ' ')"
"$QFT" info --fabric "$FAB" >"$W/info-2.txt" 2>&1
expect_eq "cables after the link" "$(field "$W/info-2.txt" cables)" "$(field "$W/info-gen.txt" cables)"

# A flapping cable: 10 times down and up, then down; the file's state
# before was whole. One write with the cable missing, one command (or two:
# a sweep may see the same state twice; never two within MIN_INTERVAL).
# straight into ibsim's console FIFO: the harness's console waits 0.3 s
# for each answer, too slow for a flap
flap_cmd() { printf '%s\n' "$1" >"$W/sim/ibsim.console"; }
wait_quiet() { # until no command has run for $1 s (60 s at most)
	for _ in $(seq 1 120); do
		awk -v l="$(tail -n 1 "$MARK")" -v n="$(now)" -v q="$1" 'BEGIN { exit !(n - l >= q) }' && return
		sleep 0.5
	done
}
wait_quiet $((SETTLE + 2))
runs0=$(wc -l <"$MARK")
wrote0=$(grep -c 'qft: wrote .*(changed)' "$LOG")
t0=$(now)
for _ in $(seq 1 10); do
	flap_cmd "Unlink \"$swname\"[5]"
	sleep 0.7
	flap_cmd "Link \"$swname\"[5] \"$pname\"[$pport]"
	sleep 0.7
done
flap_cmd "Unlink \"$swname\"[5]"
say_flap="flap of 10 in $(elapsed "$t0" "$(now)") s"
# the write comes SETTLE s after the last change a sweep saw; a second one
# could only come MIN_INTERVAL s after the first
for _ in $(seq 1 60); do [ "$(wc -l <"$MARK")" -gt "$runs0" ] && break; sleep 0.5; done
sleep $((SETTLE + MIN_INTERVAL + 4))
flap_runs=$(( $(wc -l <"$MARK") - runs0 ))
flap_wrote=$(( $(grep -c 'qft: wrote .*(changed)' "$LOG") - wrote0 ))
echo "# $say_flap: $flap_wrote writes, $flap_runs commands"
[ "$flap_runs" -ge 1 ] && [ "$flap_runs" -le 2 ] && ok "flapping cable: $flap_runs commands (1 or 2 wanted)" ||
	bad "flapping cable: $flap_runs commands, wanted 1 or 2"
python3 - "$FAB" "$sw" >"$W/gone-flap.txt" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
print(any((l[0] == sys.argv[2] and l[1] == 5) or (l[2] == sys.argv[2] and l[3] == 5) for l in f["links"]))
PY
expect_eq "after the flap, cable $swname[5] in the file" "$(cat "$W/gone-flap.txt")" False
grep 'qft: wrote' "$LOG" | tail -n 1 | sed 's/^.*-> /# /'
# no two commands closer than QFT_OSM_MIN_INTERVAL (whole run)
gap=$(awk 'NR > 1 { d = $1 - p; if (m == "" || d < m) m = d } { p = $1 } END { printf "%.2f", m }' "$MARK")
awk -v g="$gap" -v m="$MIN_INTERVAL" 'BEGIN { exit !(g >= m - 0.05) }' &&
	ok "shortest gap between two commands ${gap} s (>= QFT_OSM_MIN_INTERVAL $MIN_INTERVAL)" ||
	bad "shortest gap between two commands ${gap} s, under QFT_OSM_MIN_INTERVAL $MIN_INTERVAL"
# A flap that ends as the file has it: no write at all.
wait_quiet $((SETTLE + 2))
runs0=$(wc -l <"$MARK")
"$IBH" console "$W/sim" "Link \"$swname\"[5] \"$pname\"[$pport]" >>"$W/flap.txt" 2>&1
for _ in $(seq 1 60); do [ "$(wc -l <"$MARK")" -gt "$runs0" ] && break; sleep 0.5; done
wait_quiet $((SETTLE + 2))
runs0=$(wc -l <"$MARK")
for _ in $(seq 1 3); do
	flap_cmd "Unlink \"$swname\"[5]"
	sleep 0.2
	flap_cmd "Link \"$swname\"[5] \"$pname\"[$pport]"
	sleep 0.2
done
sleep $((SETTLE + MIN_INTERVAL + 4))
expect_eq "a flap that ends up: commands" "$(( $(wc -l <"$MARK") - runs0 ))" 0
"$QFT" recognise "$FAB" >"$W/rec-3.txt" 2>&1
grep -q '^missing cables 0$' "$W/rec-3.txt" && ok "after the flaps: whole" ||
	bad "after the flaps: $(grep missing "$W/rec-3.txt" | tr '\n' ' ')"

# Unclean sweeps: ibsim drops every LinearForwardingTable MAD to the spine
# switch at the other end of that cable, and the cable goes down: OpenSM's
# new routes cannot be set there, its sweeps end with "ERRORS DURING
# INITIALIZATION" (and it still reports SUBNET UP); the file stays as it
# was. Once the drops stop, a clean sweep writes the cable's loss.
wait_quiet $((SETTLE + 2))
runs0=$(wc -l <"$MARK")
sum0=$(md5sum <"$FAB" | cut -c1-32)
errs0=$(grep -c 'ERRORS DURING INITIALIZATION' "$LOG")
skips0=$(grep -c 'qft: sweep skipped' "$LOG")
"$IBH" console "$W/sim" "Error \"$pname\" 100 25" >"$W/error-on.txt" 2>&1
"$IBH" console "$W/sim" "Unlink \"$swname\"[5]" >>"$W/error-on.txt" 2>&1
for _ in $(seq 1 60); do
	[ "$(grep -c 'qft: sweep skipped' "$LOG")" -gt "$skips0" ] && break
	sleep 0.5
done
sleep $((SETTLE + MIN_INTERVAL + 2))
errs=$(( $(grep -c 'ERRORS DURING INITIALIZATION' "$LOG") - errs0 ))
skips=$(( $(grep -c 'qft: sweep skipped' "$LOG") - skips0 ))
echo "# LFT drops on $pname: $errs sweeps with errors during initialization, $skips skipped by the plugin"
[ "$errs" -ge 1 ] && ok "OpenSM reported $errs sweeps with errors during initialization" ||
	bad "OpenSM reported no sweep with errors during initialization (ibsim's Error did not bite)"
expect_eq "unclean sweeps skipped by the plugin" "$skips" "$errs"
grep 'qft: sweep skipped' "$LOG" | tail -n 1 | sed 's/^.*-> /# /'
expect_eq "during the unclean sweeps: commands" "$(( $(wc -l <"$MARK") - runs0 ))" 0
expect_eq "during the unclean sweeps: file unchanged" "$(md5sum <"$FAB" | cut -c1-32)" "$sum0"
"$IBH" console "$W/sim" "Error \"$pname\" 0" >"$W/error-off.txt" 2>&1
if dt=$(wait_change "$FAB" 60 "$sum0" "$(now)"); then
	ok "drops over: file rewritten ${dt} s later"
else
	bad "drops over: file not rewritten within 60 s"
fi
sleep 0.5
"$QFT" info --fabric "$FAB" >"$W/info-4.txt" 2>&1
expect_eq "after the unclean sweeps: cables" "$(field "$W/info-4.txt" cables)" $(( $(field "$W/info-gen.txt" cables) - 1 ))
"$IBH" console "$W/sim" "Link \"$swname\"[5] \"$pname\"[$pport]" >>"$W/error-off.txt" 2>&1
sum1=$(md5sum <"$FAB" | cut -c1-32)
wait_change "$FAB" 60 "$sum1" "$(now)" >/dev/null
sleep 0.5
"$QFT" recognise "$FAB" >"$W/rec-4.txt" 2>&1
grep -q '^missing cables 0$' "$W/rec-4.txt" && ok "whole again after the unclean sweeps" ||
	bad "after the unclean sweeps: $(grep missing "$W/rec-4.txt" | tr '\n' ' ')"

# The SM's own switch stops answering PortInfo and a cable of it goes down
# (a heavy sweep): OpenSM's sweeps find the SM's port alone and say SUBNET
# UP without errors. Not copied either.
wait_quiet $((SETTLE + 2))
runs0=$(wc -l <"$MARK")
sum0=$(md5sum <"$FAB" | cut -c1-32)
nosw0=$(grep -c 'qft: sweep skipped, OpenSM sees no switch' "$LOG")
"$IBH" console "$W/sim" "Error \"$swname\" 100 21" >"$W/error-sm.txt" 2>&1
"$IBH" console "$W/sim" "Unlink \"$swname\"[5]" >>"$W/error-sm.txt" 2>&1
for _ in $(seq 1 60); do
	[ "$(grep -c 'qft: sweep skipped, OpenSM sees no switch' "$LOG")" -gt "$nosw0" ] && break
	sleep 0.5
done
sleep $((SETTLE + 2))
nosw=$(( $(grep -c 'qft: sweep skipped, OpenSM sees no switch' "$LOG") - nosw0 ))
[ "$nosw" -ge 1 ] && ok "SM's switch silent: $nosw sweeps that found no switch skipped" ||
	bad "SM's switch silent: no sweep skipped for finding no switch"
expect_eq "SM's switch silent: commands" "$(( $(wc -l <"$MARK") - runs0 ))" 0
expect_eq "SM's switch silent: file unchanged" "$(md5sum <"$FAB" | cut -c1-32)" "$sum0"
"$IBH" console "$W/sim" "Error \"$swname\" 0" >>"$W/error-sm.txt" 2>&1
"$IBH" console "$W/sim" "Link \"$swname\"[5] \"$pname\"[$pport]" >>"$W/error-sm.txt" 2>&1
sleep $((SETTLE + MIN_INTERVAL + 2))
"$QFT" recognise "$FAB" >"$W/rec-5.txt" 2>&1
grep -q '^missing cables 0$' "$W/rec-5.txt" && ok "SM's switch back: the file is whole" ||
	bad "SM's switch back: $(grep missing "$W/rec-5.txt" | tr '\n' ' ')"

osm_alive && ok "OpenSM still runs" || bad "OpenSM died (see $W/opensm.out)"
n=$(grep -c 'qft: wrote .*(changed)' "$LOG")
[ "$n" -ge 3 ] && ok "OpenSM log has $n 'qft: wrote' lines" || bad "OpenSM log has $n 'qft: wrote' lines, wanted >= 3"
grep 'qft: wrote' "$LOG" | tail -n 1 | sed 's/^.*-> /# /'
nerr=$(grep -v 'qft: sweep skipped' "$LOG" | grep -c 'qft: .*\(cannot\|error\|exited\|killed\)')
expect_eq "plugin error lines in the log" "$nerr" 0
python3 - "$FAB" <<'PY'
import json, sys
pe = json.load(open(sys.argv[1])).get("port_errors", [])
print("# port_errors (perfmgr): %d ports counted errors%s" % (len(pe),
      "; e.g. %s" % pe[0] if pe else ""))
PY

# QFT_OSM_NAMES: the capture group gives the name ("n0001 HCA-1" -> "1").
stop_osm
FAB2=$W/out/named.json
start_osm "$W/opensm-names.log" QFT_OSM_FABRIC="$FAB2" QFT_OSM_NAMES='^n0*([0-9]+) '
for _ in $(seq 1 100); do [ -s "$FAB2" ] && break; sleep 0.1; done
expect_eq "QFT_OSM_NAMES: names of the first hosts" "$(python3 -c "
import json; f=json.load(open('$FAB2')); print(' '.join(sorted(h.get('name','-') for h in f['hosts'])[:3]))" 2>&1)" "1 10 11"
# Without QFT_OSM_FABRIC: one error line, OpenSM runs on, no file.
stop_osm
start_osm "$W/opensm-nofile.log"
for _ in $(seq 1 100); do grep -q 'SUBNET UP' "$W/opensm-nofile.log" 2>/dev/null && break; sleep 0.1; done
expect_eq "without QFT_OSM_FABRIC: error lines" "$(grep -c 'qft: QFT_OSM_FABRIC is not set' "$W/opensm-nofile.log")" 1
osm_alive && ok "without QFT_OSM_FABRIC: OpenSM runs (subnet up: $(grep -c 'SUBNET UP' "$W/opensm-nofile.log"))" ||
	bad "without QFT_OSM_FABRIC: OpenSM died"
stop_osm
# A directory that does not exist: an error in OpenSM's log, OpenSM runs on.
start_osm "$W/opensm-nodir.log" QFT_OSM_FABRIC="$W/nodir/f.json"
for _ in $(seq 1 100); do grep -q 'qft: cannot' "$W/opensm-nodir.log" 2>/dev/null && break; sleep 0.1; done
grep -q "qft: cannot write $W/nodir/f.json.tmp: No such file or directory" "$W/opensm-nodir.log" &&
	ok "unwritable path: the error is in OpenSM's log" || bad "unwritable path: no error in $W/opensm-nodir.log"
osm_alive && ok "unwritable path: OpenSM runs" || bad "unwritable path: OpenSM died"
stop_osm

echo "test-event: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
