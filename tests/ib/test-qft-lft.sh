#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# qft's closed-form QFT tables (seed 002 slide 16, lib/route/qft_route.hpp)
# in a real OpenSM on ibsim, as test-lft.sh does for D-Mod-K on a PGFT: on
# the QFT of PGFT(3;8,4,4;1,4,4;1,2,2) (128 hosts, side-linked level 2,
# parallel top cables), at LMC 0 and LMC 1, OpenSM loads `qft lft` with its
# file engine (-R file -U) and programs it; its dump equals our file;
# ibroute reads a leaf's and a top switch's tables back from the switches
# and they equal the closed form; Shift scored on OpenSM's dump equals the
# closed form at every LID offset. Then three switch cables are unlinked
# in ibsim (slide 17): the tables of the fabric without them (the rule
# around missing cables) load too, route every pair, and score as the
# closed form does.
#   env: QFT (the qft tool), QFT_IB_WORK (scratch, default
#   build/ib/test-qft-lft; its path names the ibsim socket, see
#   ibsim-harness.sh, so runs in other work dirs do not collide)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
QFT=${QFT:-$REPO/build/release/contribs/qft/qft}
IBH=$HERE/ibsim-harness.sh
W=${QFT_IB_WORK:-$REPO/build/ib/test-qft-lft}
TUPLE="3;8,4,4;1,4,4;1,2,2"
HOSTS=128 SWITCHES=48
PASS=0 FAIL=0
ok() { PASS=$((PASS + 1)); echo "ok - $*"; }
bad() { FAIL=$((FAIL + 1)); echo "not ok - $*"; }
expect_eq() { if [ "$2" = "$3" ]; then ok "$1 = $3"; else bad "$1 = '$2', wanted '$3'"; fi; }
hsd() { "$QFT" score --json "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["avg_hsd"])'; }
# Host-LID entries (switch GUID, LID, port) of an LFT dump or ibroute
# output, sorted; with a GUID argument, ibroute's (it names no switch GUID
# per line) are given that GUID.
host_entries() {
	python3 - "$@" <<'PY'
import re, sys
guid = sys.argv[2] if len(sys.argv) > 2 else None
out = set()
for line in open(sys.argv[1]):
    m = re.search(r"guid (0x[0-9a-f]+)", line)
    if "Unicast lids" in line and m:
        guid = guid if len(sys.argv) > 2 else m.group(1)
        continue
    m = re.match(r"\s*(0x[0-9a-f]+)\s+(\d+)", line)
    if m and ("Channel Adapter" in line or "path #" in line):
        out.add((guid, int(m.group(1), 16), int(m.group(2))))
for e in sorted(out):
    print(*e)
PY
}
switch_field() { # JSON DESC FIELD
	python3 -c "import json,sys; f=json.load(open(sys.argv[1])); print([s[sys.argv[3]] for s in f['switches'] if s['desc']==sys.argv[2]][0])" "$@"
}
# Loads DUMP into OpenSM on the running ibsim and checks what it programmed.
load_and_compare() { # TAG DUMP LMC ENTRIES
	local tag=$1 dump=$2 lmc=$3 want=$4
	QFT_OPENSM_STRICT=1 "$IBH" opensm "$W/sim" file "$lmc" -U "$dump" >"$W/opensm-$tag.out" 2>&1
	expect_eq "$tag: opensm -R file exit" "$?" 0
	cp "$W/sim/dump/opensm-lfts.dump" "$W/opensm-$tag.dump" 2>/dev/null || true
	host_entries "$dump" >"$W/ours-$tag.entries"
	host_entries "$W/opensm-$tag.dump" >"$W/loaded-$tag.entries"
	expect_eq "$tag: host-LID entries in our file" "$(wc -l <"$W/ours-$tag.entries")" "$want"
	if cmp -s "$W/ours-$tag.entries" "$W/loaded-$tag.entries"; then
		ok "$tag: OpenSM programmed exactly our tables (its dump equals our file)"
	else
		bad "$tag: OpenSM's dump differs from our file"
	fi
	expect_eq "$tag: OpenSM's file-vs-dump differences" \
		"$(sed -n 's/^opensm_file_lft_differences=//p' "$W/opensm-$tag.out")" 0
}

"$IBH" deps >/dev/null || { echo "test-qft-lft: cannot install the IB packages"; exit 1; }
rm -rf "$W"
mkdir -p "$W"
trap '"$IBH" stop "$W/sim" >/dev/null 2>&1' EXIT

for lmc in 0 1; do
	f=$W/f$lmc.json
	"$QFT" gen qft "$TUPLE" --lmc $lmc -o "$f" --ibsim "$W/f$lmc.net" 2>/dev/null
	expect_eq "LMC $lmc: generated tree kind" \
		"$(python3 -c "import json; print(json.load(open('$f'))['tree_kind'])")" qft
	"$QFT" lft --fabric "$f" -o "$W/ours$lmc.dump"
	expect_eq "LMC $lmc: qft lft exit" "$?" 0
	"$IBH" stop "$W/sim" >/dev/null 2>&1
	"$IBH" start "$W/f$lmc.net" "$W/sim" >/dev/null 2>&1 || { bad "ibsim start"; continue; }
	load_and_compare "LMC $lmc" "$W/ours$lmc.dump" $lmc $((HOSTS * (1 << lmc) * SWITCHES))
	# ibroute reads the tables back from a leaf and a top switch.
	for sw in "qft L1 0.0.0" "qft L3 2.1.0"; do
		guid=$(switch_field "$f" "$sw" guid)
		lid=$(switch_field "$f" "$sw" lid)
		"$IBH" run "$W/sim" ibroute "$lid" >"$W/ibroute-$lmc-$lid.txt" 2>/dev/null
		got=$(host_entries "$W/ibroute-$lmc-$lid.txt" "$guid" | awk '{print $2, $3}')
		want=$(grep "^$guid " "$W/ours-LMC $lmc.entries" | awk '{print $2, $3}')
		if [ -n "$got" ] && [ "$got" = "$want" ]; then
			ok "LMC $lmc: ibroute $sw = our tables ($(echo "$got" | wc -l) LIDs)"
		else
			bad "LMC $lmc: ibroute $sw differs from our tables"
		fi
	done
	# The leaf's entries straight from slide 16: host j below it (j < 8)
	# on down-port j, else up-port g_1(v) = v mod (w_2 p_2) with v = j + k
	# (R'_1 = 1, u_1 = 0), IB port m_1 p_1 + g + 1.
	want=$(python3 - "$f" $lmc <<'PY'
import json, sys
f, per = json.load(open(sys.argv[1])), 1 << int(sys.argv[2])
for h in f["hosts"]:
    j = h["index"]
    for k in range(per):
        print(h["lid"] + k, j + 1 if j < 8 else 8 + (j + k) % 8 + 1)
PY
)
	guid=$(switch_field "$f" "qft L1 0.0.0" guid)
	got=$(host_entries "$W/ibroute-$lmc-$(switch_field "$f" "qft L1 0.0.0" lid).txt" "$guid" |
		awk '{print $2, $3}' | sort -n)
	[ "$got" = "$(echo "$want" | sort -n)" ] &&
		ok "LMC $lmc: ibroute qft L1 0.0.0 = slide 16's g, entry by entry" ||
		bad "LMC $lmc: ibroute qft L1 0.0.0 differs from slide 16's g"
	for k in $(seq 0 $(((1 << lmc) - 1))); do
		closed=$(hsd --fabric "$f" --hosts all --lid-offset $k)
		expect_eq "LMC $lmc offset $k: Shift HSD on OpenSM's dump = closed form ($closed)" \
			"$(hsd --fabric "$f" --hosts all --lid-offset $k --routing "lft:$W/opensm-LMC $lmc.dump")" \
			"$closed"
	done
done

# Slide 17: three switch cables (picked with seed 17) unlinked in ibsim
# and removed from the fabric file; the tables of the rule around them
# load in OpenSM, and qft info routes every pair.
"$IBH" stop "$W/sim" >/dev/null 2>&1
"$IBH" start "$W/f0.net" "$W/sim" >/dev/null 2>&1 || bad "ibsim start (cut)"
python3 - "$W/f0.json" "$W/cut.json" >"$W/cuts" <<'PY'
import json, random, sys
f = json.load(open(sys.argv[1]))
level = {n["guid"]: n["level"] for k in ("switches", "hosts") for n in f[k]}
sw = [l for l in f["links"] if level[l[0]] > 0 and level[l[2]] > 0]
cut = random.Random(17).sample(sw, 3)
f["links"] = [l for l in f["links"] if l not in cut]
json.dump(f, open(sys.argv[2], "w"), indent=1)
for a, pa, b, pb, *_ in cut:
    if level[a] > level[b]:
        a, pa = b, pb
    print("S-" + a[2:], pa)
PY
while read -r id port; do
	"$IBH" console "$W/sim" "Unlink \"$id\"[$port]" >/dev/null
done <"$W/cuts"
"$QFT" info --fabric "$W/cut.json" >"$W/cut.info" 2>&1
expect_eq "cut: qft info's missing cables" "$(sed -n 's/^missing cables //p' "$W/cut.info")" 3
grep -q '^destinations sharing a down-link [0-9]* of 128$' "$W/cut.info" &&
	ok "cut: qft info routes every pair ($(grep '^destinations sharing' "$W/cut.info"))" ||
	bad "cut: qft info: $(grep -E '^(destinations|routing)' "$W/cut.info")"
"$QFT" lft --fabric "$W/cut.json" -o "$W/cut.dump"
expect_eq "cut: qft lft exit" "$?" 0
load_and_compare cut "$W/cut.dump" 0 $((HOSTS * SWITCHES))
closed=$(hsd --fabric "$W/cut.json" --hosts all)
expect_eq "cut: Shift HSD on OpenSM's dump = closed form with the rule ($closed)" \
	"$(hsd --fabric "$W/cut.json" --hosts all --routing "lft:$W/opensm-cut.dump")" "$closed"
echo "test-qft-lft: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
