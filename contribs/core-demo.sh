#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The slurm-qft demo on a default fabric: installs what it needs, builds the
# qft tool, generates PGFT(3;18,18,6;1,18,6;1,1,3) (1944 hosts) and shows
# what node order, alignment and routing do to collective traffic.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/contribs/scripts/deps.sh"
build=$("$top/contribs/scripts/build.sh" release)
qft="$build/contribs/qft/qft"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tuple=${QFT_DEMO_TUPLE:-3;18,18,6;1,18,6;1,1,3}

echo "== fabric: PGFT($tuple)"
"$qft" gen pgft "$tuple" -o "$work/fabric.json" --ibsim "$work/fabric.net"
"$qft" info --fabric "$work/fabric.json" | sed -n '1,/^rlft/p'

hsd() { "$qft" score --fabric "$work/fabric.json" --json "$@" |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print("avg HSD %6.3f  worst %2d  congested stages %5d of %5d" % (d["avg_hsd"], d["max_hsd"], d["congested_stages"], d["stages"]))'; }

echo
echo "== one job on every host: tree order against random rank order"
for p in shift recdbl-tree ring dissemination; do
	printf '%-14s tree     %s\n' "$p" "$(hsd --hosts all --pattern $p)"
	printf '%-14s random:1 %s\n' "$p" "$(hsd --hosts all --pattern $p --order random:1)"
done
printf '%-14s tree     %s\n' recdbl "$(hsd --hosts all --pattern recdbl)"

echo
echo "== jobs of 216 hosts (2 blocks of 108), Shift"
row() { printf '%-34s %s\n' "$1" "$2"; }
row 'aligned n[0109-0324]' "$(hsd --hosts 'n[0109-0324]')"
row 'whole leaves, not adjacent' "$(hsd --hosts 'n[0001-0108],n[1009-1116]')"
row 'every 9th host, tree order' "$(hsd --hosts "$(seq -f 'n%04.0f' 1 9 1944 | paste -sd,)")"
row '216 hosts from n0031, tree order' "$(hsd --hosts 'n[0031-0246]')"
row 'aligned, random rank order' "$(hsd --hosts 'n[0109-0324]' --order random:3)"
row '200 hosts from n0001 (not i x 108)' "$(hsd --hosts 'n[0001-0200]')"

echo
echo "== four jobs at once, stages in lock-step"
printf 'n[0001-0324]\nn[0325-0540]\nn[0541-0648]\nn[0649-1080]\n' >"$work/aligned.jobs"
printf 'n[0001-0300]\nn[0301-0550]\nn[0551-0700]\nn[0701-1080]\n' >"$work/packed.jobs"
row 'aligned to blocks' "$(hsd --jobs "$work/aligned.jobs")"
row 'packed, unaligned' "$(hsd --jobs "$work/packed.jobs")"

echo
echo "== effective bisection bandwidth, 200 random pairings (seed 003)"
"$qft" score --fabric "$work/fabric.json" --hosts all --pattern bisect:200:1 | sed -n 3p

echo
echo "== a path, and the busiest links of a random order"
"$qft" route --fabric "$work/fabric.json" --src n0001 --dst n1944
"$qft" score --fabric "$work/fabric.json" --hosts 'n[0001-0216]' --order random:5 --worst 3 | tail -4
echo
echo "demo done. The front-end Slurm simulation joins this demo when it lands (issues 4-6)."
