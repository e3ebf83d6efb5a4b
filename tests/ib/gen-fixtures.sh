#!/bin/bash
# gen-fixtures.sh: regenerates the InfiniBand parser fixtures in
# tests/data/ib/<name>/ from the real tools (ibsim, ibnetdiscover, ibroute,
# dump_lfts, OpenSM) run on fabrics written by `qft gen pgft`.
#
#   tests/ib/gen-fixtures.sh [NAME...]      default: all fixtures below
#
# Environment: QFT (the qft binary, default build/release/contribs/qft/qft),
# QFT_IB_FIXTURE_WORK (scratch, default build/ib/fixtures).
# Needs root for apt-get if the packages are missing (ibsim-harness.sh deps).
# See tests/data/ib/README.md for what each file is.
#
# Copyright (C) 2025 slurm-qft authors. SPDX-License-Identifier: GPL-2.0-or-later

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
H=$HERE/ibsim-harness.sh
QFT=${QFT:-$REPO/build/release/contribs/qft/qft}
OUT=$REPO/tests/data/ib
WORK=${QFT_IB_FIXTURE_WORK:-$REPO/build/ib/fixtures}
MAXSIZE=$((200 * 1024))

die() { printf 'gen-fixtures: ERROR: %s\n' "$*" >&2; exit 1; }
log() { printf '[gen-fixtures] %s\n' "$*" >&2; }

# name -> PGFT tuple
declare -A TUPLE=(
	[pgft-2-4]="2;4,4;1,4;1,1"
	[pgft-3-4-4-2]="3;4,4,2;1,4,2;1,1,2"
	[pgft-2-6]="2;6,6;1,6;1,1"
)
# name -> LMC of the multi-LID fixtures (the 3-level one at LMC 2 makes
# LFT dumps of 250 KB; LMC 1 keeps them under 200 KB)
declare -A LMC=(
	[pgft-2-4]=2
	[pgft-3-4-4-2]=1
	[pgft-2-6]=2
)
NAMES=("$@")
[ ${#NAMES[@]} -gt 0 ] || NAMES=(pgft-2-4 pgft-3-4-4-2 pgft-2-6)

[ -x "$QFT" ] || die "qft not found at $QFT (build: contribs/scripts/build.sh release)"
"$H" deps

WD=
cleanup() { [ -z "$WD" ] || "$H" stop "$WD" >/dev/null 2>&1 || true; }
trap cleanup EXIT

# switch LIDs and descriptions from the fabric JSON: "LID DESC" per switch
switches() { grep -o '"desc":"qft L[^"]*","ports":[0-9]*,"lid":[0-9]*' "$1" |
	sed 's/"desc":"\([^"]*\)","ports":[0-9]*,"lid":\([0-9]*\)/\2 \1/'; }

osm() { # DIR ROUTING LMC SUFFIX [extra]: run opensm, keep its LFT dump
	local d=$1 r=$2 l=$3 suf=$4; shift 4
	"$H" opensm "$WD" "$r" "$l" "$@" >"$WD/osm-$r-$l.kv"
	cp "$WD/dump/opensm-lfts.dump" "$d/opensm-lfts-$suf.dump"
}

ibroutes() { # DIR JSON SUFFIX: ibroute of the first switch of each level
	local d=$1 json=$2 suf=$3 lid desc lvl seen=" "
	while read -r lid desc; do
		lvl=${desc#qft }; lvl=${lvl%% *}
		case $seen in *" $lvl "*) continue ;; esac
		seen="$seen$lvl "
		"$H" run "$WD" ibroute "$lid" >"$d/ibroute-${lvl}-${desc##* }$suf.txt" 2>/dev/null
	done < <(switches "$json")
}

for name in "${NAMES[@]}"; do
	tuple=${TUPLE[$name]:-}
	[ -n "$tuple" ] || die "unknown fixture $name (known: ${!TUPLE[*]})"
	d=$OUT/$name
	WD=$WORK/$name
	log "$name: PGFT($tuple) -> $d"
	rm -rf "$d" "$WD"
	mkdir -p "$d" "$WD"

	"$QFT" gen pgft "$tuple" -o "$d/fabric.json" --ibsim "$d/fabric.net" 2>/dev/null
	L=${LMC[$name]}
	"$QFT" gen pgft "$tuple" --lmc "$L" -o "$d/fabric-lmc$L.json" --ibsim "$d/fabric-lmc$L.net" 2>/dev/null

	# ---- LMC 0: LIDs as in fabric.json
	"$H" start "$d/fabric.net" "$WD" >/dev/null
	"$H" run "$WD" ibnetdiscover >"$d/ibnetdiscover.txt" 2>/dev/null
	"$H" run "$WD" ibnetdiscover -p >"$d/ibnetdiscover-p.txt" 2>/dev/null
	osm "$d" updn 0 updn
	osm "$d" minhop 0 minhop
	osm "$d" ftree 0 ftree
	cp "$WD/dump/opensm-subnet.lst" "$d/opensm-subnet.lst"
	cp "$WD/dump/opensm.fdbs" "$d/opensm-ftree.fdbs"
	cp "$WD/dump/opensm-ftree-ca-order.dump" "$d/opensm-ftree-ca-order.dump"
	cp "$WD/dump/guid2lid" "$d/guid2lid"
	if [ "$name" = pgft-2-4 ]; then
		cp "$WD/opensm-ftree-lmc0.log" "$d/opensm-ftree.log"
	fi
	# the switches now hold the ftree LFTs
	ibroutes "$d" "$d/fabric.json" ""
	"$H" run "$WD" dump_lfts >"$d/dump_lfts-ftree.txt" 2>/dev/null
	"$H" run "$WD" ibtracert 1 "$(grep -c '"name"' "$d/fabric.json")" \
		>"$d/ibtracert-ftree.txt" 2>/dev/null
	# -R file loads what OpenSM wrote
	"$H" opensm "$WD" file 0 -U "$d/opensm-lfts-ftree.dump" >"$WD/osm-file-0.kv"
	grep -q '^opensm_file_lft_differences=0$' "$WD/osm-file-0.kv" ||
		die "$name: -R file did not reproduce opensm-lfts-ftree.dump"
	"$H" stop "$WD" >/dev/null 2>&1

	# ---- LMC L: aligned LIDs from fabric-lmcL.json
	"$H" start "$d/fabric-lmc$L.net" "$WD" >/dev/null
	"$H" run "$WD" ibnetdiscover >"$d/ibnetdiscover-lmc$L.txt" 2>/dev/null
	osm "$d" minhop "$L" "minhop-lmc$L"
	osm "$d" updn "$L" "updn-lmc$L"
	cp "$WD/dump/guid2lid" "$d/guid2lid-lmc$L"
	ibroutes "$d" "$d/fabric-lmc$L.json" "-lmc$L"
	"$H" opensm "$WD" file "$L" -U "$d/opensm-lfts-updn-lmc$L.dump" >"$WD/osm-file-$L.kv"
	grep -q '^opensm_file_lft_differences=0$' "$WD/osm-file-$L.kv" ||
		die "$name: -R file did not reproduce opensm-lfts-updn-lmc$L.dump"
	# ftree refuses LMC > 0 and falls back to minhop: keep the log
	"$H" opensm "$WD" ftree "$L" >"$WD/osm-ftree-$L.kv" 2>/dev/null
	grep -q '^opensm_engine_used=minhop$' "$WD/osm-ftree-$L.kv" ||
		die "$name: expected ftree at LMC $L to fall back to minhop"
	if [ "$name" = pgft-2-4 ]; then
		cp "$WD/opensm-ftree-lmc$L.log" "$d/opensm-ftree-lmc$L-fallback.log"
	fi
	"$H" stop "$WD" >/dev/null 2>&1
	WD=

	for f in "$d"/*; do
		[ "$(stat -c %s "$f")" -le $MAXSIZE ] || die "$f is larger than 200 KB"
	done
	log "$name: $(ls "$d" | wc -l) files, $(du -sk "$d" | cut -f1) KB"
done
