#!/bin/bash
# bench.sh: times ibsim start, ibnetdiscover and OpenSM routing on a PGFT.
#
#   tests/ib/bench.sh [TUPLE [REPS [ENGINES]]]
#       default TUPLE "3;18,18,6;1,18,6;1,1,3" (1944 hosts), REPS 5,
#       ENGINES "ftree updn minhop"
#
# Prints one line per measurement and the median of each.  The OpenSM
# routing time is from its log: "LID ASSIGNMENT COMPLETE - STARTING SWITCH
# TABLE CONFIG" to "<engine> tables configured on all switches" (route);
# "lft" runs on to "SWITCHES CONFIGURED FOR UNICAST" (LFT MADs answered by
# ibsim); "wall" is the whole `opensm -o` run with dumps.
#
# Copyright (C) 2025 slurm-qft authors. SPDX-License-Identifier: GPL-2.0-or-later

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
H=$HERE/ibsim-harness.sh
QFT=${QFT:-$REPO/build/release/contribs/qft/qft}
TUPLE=${1:-"3;18,18,6;1,18,6;1,1,3"}
REPS=${2:-5}
ENGINES=${3:-"ftree updn minhop"}
WD=${QFT_IB_BENCH_WORK:-$REPO/build/ib/bench}

[ -x "$QFT" ] || { echo "bench: qft not found at $QFT" >&2; exit 1; }
"$H" deps
"$H" stop "$WD" >/dev/null 2>&1 || true
mkdir -p "$WD"
trap '"$H" stop "$WD" >/dev/null 2>&1 || true' EXIT
"$QFT" gen pgft "$TUPLE" -o "$WD/fabric.json" --ibsim "$WD/fabric.net" 2>/dev/null

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
kv() { sed -n "s/^$1=//p"; }

declare -A ALL
for _ in $(seq 1 "$REPS"); do
	t=$("$H" start "$WD/fabric.net" "$WD" 2>/dev/null | kv ibsim_start_seconds)
	ALL[start]+="$t "
	t0=$(date +%s.%N)
	"$H" run "$WD" ibnetdiscover >"$WD/ibnetdiscover.txt" 2>/dev/null
	t1=$(date +%s.%N)
	ALL[ibnetdiscover]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') "
	for e in $ENGINES; do
		out=$("$H" opensm "$WD" "$e" 2>/dev/null)
		ALL[$e-route]+="$(echo "$out" | kv opensm_route_seconds) "
		ALL[$e-lft]+="$(echo "$out" | kv opensm_lft_configured_seconds) "
		ALL[$e-wall]+="$(echo "$out" | kv opensm_wall_seconds) "
	done
	"$H" stop "$WD" >/dev/null 2>&1
done
echo "PGFT($TUPLE): $(grep -c '^Ca' "$WD/fabric.net") hosts, $(grep -c '^Switch' "$WD/fabric.net") switches, $REPS runs"
for k in start ibnetdiscover $(for e in $ENGINES; do echo "$e-route $e-lft $e-wall"; done); do
	printf '%-16s median %9s s   runs: %s\n' "$k" \
		"$(printf '%s\n' ${ALL[$k]} | median)" "${ALL[$k]}"
done
