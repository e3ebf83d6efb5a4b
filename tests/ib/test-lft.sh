#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# qft's closed-form D-Mod-K tables in a real OpenSM on ibsim: OpenSM loads
# them with its file engine (-R file -U) at LMC 0 and LMC 2 and programs
# them into the switches; ibroute reads them back from the switches; Shift
# scored on what OpenSM dumped equals the closed form. Then OpenSM's own
# engines (ftree, updn, minhop) scored on the same job, for comparison.
#   env: QFT (the qft tool), QFT_IB_WORK (scratch, default build/ib/test-lft)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
QFT=${QFT:-$REPO/build/release/contribs/qft/qft}
IBH=$HERE/ibsim-harness.sh
W=${QFT_IB_WORK:-$REPO/build/ib/test-lft}
PASS=0 FAIL=0
ok() { PASS=$((PASS + 1)); echo "ok - $*"; }
bad() { FAIL=$((FAIL + 1)); echo "not ok - $*"; }
expect_eq() { if [ "$2" = "$3" ]; then ok "$1 = $3"; else bad "$1 = '$2', wanted '$3'"; fi; }
hsd() { "$QFT" score --json "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["avg_hsd"])'; }
# Host-LID entries of an LFT dump (switch GUID, LID, port), sorted.
host_entries() {
	python3 - "$@" <<'PY'
import re, sys
hosts = set()
for path in sys.argv[2:]:
    pass
out = set()
guid = None
for line in open(sys.argv[1]):
    m = re.search(r"guid (0x[0-9a-f]+)", line)
    if "Unicast lids" in line and m:
        guid = m.group(1)
        continue
    m = re.match(r"\s*(0x[0-9a-f]+)\s+(\d+)", line)
    if m and ("Channel Adapter" in line or "path #" in line):
        out.add((guid, int(m.group(1), 16), int(m.group(2))))
for e in sorted(out):
    print(*e)
PY
}
"$IBH" deps >/dev/null || { echo "test-lft: cannot install the IB packages"; exit 1; }
rm -rf "$W"
mkdir -p "$W"
trap '"$IBH" stop "$W/sim" >/dev/null 2>&1' EXIT

for lmc in 0 2; do
	tuple="3;4,4,2;1,4,2;1,1,2"
	"$QFT" gen pgft "$tuple" --lmc $lmc -o "$W/f$lmc.json" --ibsim "$W/f$lmc.net" 2>/dev/null
	"$QFT" lft --fabric "$W/f$lmc.json" -o "$W/ours$lmc.dump"
	"$IBH" stop "$W/sim" >/dev/null 2>&1
	"$IBH" start "$W/f$lmc.net" "$W/sim" >/dev/null 2>&1 || { bad "ibsim start"; continue; }
	QFT_OPENSM_STRICT=1 "$IBH" opensm "$W/sim" file $lmc -U "$W/ours$lmc.dump" >"$W/opensm$lmc.out" 2>&1
	expect_eq "LMC $lmc: opensm -R file exit" "$?" 0
	cp "$W/sim/dump/opensm-lfts.dump" "$W/opensm-file$lmc.dump"
	host_entries "$W/ours$lmc.dump" >"$W/ours$lmc.entries"
	host_entries "$W/opensm-file$lmc.dump" >"$W/loaded$lmc.entries"
	expect_eq "LMC $lmc: host-LID entries in our file" "$(wc -l <"$W/ours$lmc.entries")" $(((32 * (1 << lmc)) * 24))
	cmp -s "$W/ours$lmc.entries" "$W/loaded$lmc.entries" &&
		ok "LMC $lmc: OpenSM programmed exactly our tables (its dump equals our file)" ||
		bad "LMC $lmc: OpenSM's dump differs from our file"
	# ibroute reads the tables back from two switches (a leaf and a top).
	for sw in "qft L1 0.0.0" "qft L3 1.3.0"; do
		guid=$(python3 -c "import json; f=json.load(open('$W/f$lmc.json')); print([s['guid'] for s in f['switches'] if s['desc']=='$sw'][0])")
		lid=$(python3 -c "import json; f=json.load(open('$W/f$lmc.json')); print([s['lid'] for s in f['switches'] if s['desc']=='$sw'][0])")
		"$IBH" run "$W/sim" ibroute "$lid" >"$W/ibroute-$lid.txt" 2>/dev/null
		got=$(host_entries "$W/ibroute-$lid.txt" | awk '{print $2, $3}' | sort)
		want=$(grep "^$guid " "$W/ours$lmc.entries" | awk '{print $2, $3}' | sort)
		[ -n "$got" ] && [ "$got" = "$want" ] && ok "LMC $lmc: ibroute $sw matches the closed form" ||
			bad "LMC $lmc: ibroute $sw differs from the closed form"
	done
	for k in $(seq 0 $(((1 << lmc) - 1))); do
		expect_eq "LMC $lmc offset $k: Shift HSD on OpenSM's dump = closed form" \
			"$(hsd --fabric "$W/f$lmc.json" --hosts all --lid-offset $k --lft "$W/opensm-file$lmc.dump")" \
			"$(hsd --fabric "$W/f$lmc.json" --hosts all --lid-offset $k)"
	done
done

# OpenSM's own engines on the 1944-host three-level tree, same jobs: a table.
"$QFT" gen pgft "3;18,18,6;1,18,6;1,1,3" -o "$W/big.json" --ibsim "$W/big.net" 2>/dev/null
"$IBH" stop "$W/sim" >/dev/null 2>&1
"$IBH" start "$W/big.net" "$W/sim" >/dev/null 2>&1
job='n[0001-0300]'
printf '\n%-8s %-12s %-12s %-12s %-12s\n' engine "all tree" "all random" "300 tree" "300 random"
printf '%-8s %-12s %-12s %-12s %-12s\n' dmodk "$(hsd --fabric "$W/big.json" --hosts all)" \
	"$(hsd --fabric "$W/big.json" --hosts all --order random:1)" \
	"$(hsd --fabric "$W/big.json" --hosts "$job")" "$(hsd --fabric "$W/big.json" --hosts "$job" --order random:1)"
for engine in ftree updn minhop; do
	if "$IBH" opensm "$W/sim" $engine 0 >"$W/opensm-$engine.out" 2>&1; then
		d=$W/$engine.dump
		cp "$W/sim/dump/opensm-lfts.dump" "$d"
		printf '%-8s %-12s %-12s %-12s %-12s\n' $engine "$(hsd --fabric "$W/big.json" --hosts all --lft "$d")" \
			"$(hsd --fabric "$W/big.json" --hosts all --order random:1 --lft "$d")" \
			"$(hsd --fabric "$W/big.json" --hosts "$job" --lft "$d")" \
			"$(hsd --fabric "$W/big.json" --hosts "$job" --order random:1 --lft "$d")"
		ok "OpenSM $engine tables scored"
	else
		bad "OpenSM $engine failed"
	fi
done
echo "test-lft: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
