#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test-discover.sh: qft discover (libibnetdisc) on fabrics simulated by
# ibsim, against the fabric qft generated and against real ibnetdiscover.
#
#   tests/ib/test-discover.sh
#
# For PGFT(2;18,18;1,18;1,1) (324 hosts) and PGFT(3;18,18,6;1,18,6;1,1,3)
# (1944 hosts, 324 switches: ibsim's limits raised by the harness):
#   (a) recognition of the discovered fabric gives the generated tuple and
#       every node's position (level, index by GUID); the discovered fabric
#       equals the generated one (nodes, names, LIDs, cables, rates);
#   (b) it equals `qft import ibnetdiscover` of ibnetdiscover's output on
#       the same simulated fabric;
#   (c) on the 2-level fabric, with cables removed through ibsim's console
#       (Unlink), recognition lists exactly the missing switch cables and
#       the host that vanished; ReLink gives the full fabric back.
# Prints the discovery times. Ends with "N passed, M failed"; exit status
# 0 when all passed, 1 on a failure, 77 (skip) when this qft was built
# without libibnetdisc or packages are missing and this is not root.
#
# Environment: QFT (the qft binary, default build/dev/contribs/qft/qft),
# QFT_IB_DISCOVER_WORK (work directories, kept; default: a temporary
# directory, removed). Installs ibsim-utils libumad2sim0 infiniband-diags
# (and the libibnetdisc/libibmad/libibumad headers) with apt-get as root.
#
# Copyright (C) 2025 slurm-qft authors. SPDX-License-Identifier: GPL-2.0-or-later

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
H=$HERE/ibsim-harness.sh
QFT=${QFT:-$REPO/build/dev/contribs/qft/qft}
export QFT
. "$REPO/tests/cli/lib.sh"

PKGS="ibsim-utils libumad2sim0 infiniband-diags libibnetdisc-dev libibmad-dev libibumad-dev"
WORK=${QFT_IB_DISCOVER_WORK:-$TMP/work}
STARTED=()
cleanup() {
	local w
	for w in "${STARTED[@]}"; do "$H" stop "$w" >/dev/null 2>&1 || true; done
	rm -rf "$TMP"
}
trap cleanup EXIT

# ------------------------------------------------------------- set-up
[ -x "$QFT" ] || { echo "test-discover: no qft at $QFT (set QFT)" >&2; exit 1; }
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP: packages missing:$missing (run as root to install them)"
		exit 77
	fi
	echo "test-discover: installing$missing"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing \
		>/dev/null 2>&1 || {
		apt-get update -q >/dev/null 2>&1
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			$missing >/dev/null || { echo "test-discover: apt-get failed"; exit 1; }
	}
fi
"$H" deps || exit 1
# The command exists and was built with libibnetdisc (no MAD is sent: the
# CA does not exist).
err=$("$QFT" discover -C qft-no-such-ca 2>&1 >/dev/null)
case $err in
*"unknown command"*) bad "qft at $QFT has no discover command"; finish; exit 1 ;;
*"built without libibnetdisc"*) echo "SKIP: $err"; exit 77 ;;
esac
expect_fail 2 "--json prints the report" -- "$QFT" discover --json

# ------------------------------------------------------------- helpers
# same_positions A B: same tuple and position (level, index) for every GUID.
same_positions() {
	python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
pos = lambda f: {n["guid"]: (n.get("level"), n.get("index")) for k in ("switches", "hosts") for n in f[k]}
sys.exit(0 if a.get("tree") == b.get("tree") and pos(a) == pos(b) else 1)
PY
}

# same_fabric A B [--no-tree]: same LMC, nodes (every member), cables (each
# once, either direction) and rates; prints the first differences.
same_fabric() {
	python3 - "$@" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
notree = "--no-tree" in sys.argv[3:]
def canon(f):
    drop = ("level", "index") if notree else ()
    nodes = {k: {n["guid"]: {m: v for m, v in n.items() if m not in drop} for n in f[k]}
             for k in ("switches", "hosts")}
    links = {tuple(sorted([(l[0], l[1]), (l[2], l[3])])): (l[4], l[5]) for l in f["links"]}
    return {"lmc": f["lmc"], "tree": None if notree else f.get("tree"), **nodes, "links": links}
ca, cb = canon(a), canon(b)
bad = 0
for k in ca:
    if ca[k] == cb[k]:
        continue
    bad += 1
    if isinstance(ca[k], dict):
        only_a = [x for x in ca[k] if x not in cb[k]][:3]
        only_b = [x for x in cb[k] if x not in ca[k]][:3]
        diff = [(x, ca[k][x], cb[k][x]) for x in ca[k] if x in cb[k] and ca[k][x] != cb[k][x]][:3]
        print(f"  {k}: {len(ca[k])} vs {len(cb[k])}; only in first {only_a}; only in second {only_b}; differ {diff}")
    else:
        print(f"  {k}: {ca[k]!r} vs {cb[k]!r}")
sys.exit(1 if bad else 0)
PY
}

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
TIMES=()

# discover W OUT.json REPORT.json [ARGS...]: qft discover under the preload
# (in W/scratch); sets DISC_WALL and DISC_SCAN (libibnetdisc's own time).
discover() {
	local w=$1 out=$2 rep=$3 t0 t1 rc=0
	shift 3
	t0=$(now)
	"$H" run "$w" "$QFT" discover -o "$out" --json "$@" >"$rep" 2>"$out.err" || rc=$?
	t1=$(now)
	DISC_WALL=$(secs "$t0" "$t1")
	DISC_SCAN=$(sed -n 's/^qft discover: .* in \([0-9.]*\) s (.*/\1/p' "$out.err")
	[ $rc = 0 ] || { grep -v '^ibwarn' "$out.err" | tail -n 5; }
	return $rc
}

# ------------------------------------------------------------- (a), (b)
declare -A TUPLE=([pgft-2-18]="2;18,18;1,18;1,1" [pgft-3-18-18-6]="3;18,18,6;1,18,6;1,1,3")
for name in pgft-2-18 pgft-3-18-18-6; do
	tuple=${TUPLE[$name]}
	W=$WORK/$name
	"$H" stop "$W" >/dev/null 2>&1 || true
	rm -rf "$W"
	mkdir -p "$W"
	"$QFT" gen pgft "$tuple" -o "$W/fabric.json" --ibsim "$W/fabric.net" 2>/dev/null ||
		{ bad "$name: qft gen"; continue; }
	"$H" start "$W/fabric.net" "$W" >"$W/start.out" 2>&1 ||
		{ bad "$name: ibsim did not start: $(tail -n 3 "$W/start.out")"; continue; }
	STARTED+=("$W")

	if discover "$W" "$W/disc.json" "$W/disc.report"; then
		ok "$name: qft discover ($DISC_WALL s)"
		wall=$DISC_WALL scan=$DISC_SCAN
	else
		bad "$name: qft discover failed"; continue
	fi
	expect_eq "$name: recognised tuple" "$(json_get '["tree"]' <"$W/disc.report")" "$tuple"
	same_positions "$W/disc.json" "$W/fabric.json" &&
		ok "$name: recognition gives the generated position of every GUID" ||
		bad "$name: positions differ from the generated fabric"
	same_fabric "$W/disc.json" "$W/fabric.json" &&
		ok "$name: discovered nodes, names, LIDs, cables and rates are the generated ones" ||
		bad "$name: discovered fabric differs from the generated one"

	t0=$(now)
	"$H" run "$W" ibnetdiscover >"$W/ibnetdiscover.txt" 2>"$W/ibnetdiscover.err" ||
		{ bad "$name: ibnetdiscover failed"; continue; }
	ibn=$(secs "$t0" "$(now)")
	"$QFT" import ibnetdiscover "$W/ibnetdiscover.txt" -o "$W/import.json" 2>/dev/null ||
		{ bad "$name: qft import ibnetdiscover failed"; continue; }
	same_fabric "$W/disc.json" "$W/import.json" &&
		ok "$name: discovery = import of ibnetdiscover (nodes, cables, LIDs, rates)" ||
		bad "$name: discovery and ibnetdiscover import differ"
	"$QFT" import ibnetdiscover "$W/ibnetdiscover.txt" --raw -o "$W/import-raw.json" 2>/dev/null
	discover "$W" "$W/disc-raw.json" /dev/null --raw &&
		same_fabric "$W/disc-raw.json" "$W/import-raw.json" &&
		ok "$name: --raw discovery = --raw import" || bad "$name: --raw outputs differ"
	if cmp -s "$W/disc.json" "$W/import.json"; then
		echo "# $name: the two fabric files are byte-identical (same record order)"
	else
		echo "# $name: same fabric, different record order (discovery order changed)"
	fi
	TIMES+=("$name: qft discover $wall s wall (libibnetdisc scan ${scan:-?} s), ibnetdiscover $ibn s wall")
done

# ------------------------------------------------------------- rates
# Every width and speed ibsim 0.10 simulates (it has no NDR/XDR, and FDR10
# needs Mellanox device IDs): discovery reads them as ibnetdiscover does.
W=$WORK/rates
for ws in 1x:SDR 4x:DDR 4x:QDR 12x:FDR 8x:EDR 2x:HDR; do
	"$H" stop "$W" >/dev/null 2>&1 || true
	rm -rf "$W"
	mkdir -p "$W"
	"$QFT" gen pgft "2;4,4;1,4;1,1" --width "${ws%%:*}" --speed "${ws#*:}" \
		-o "$W/fabric.json" --ibsim "$W/fabric.net" 2>/dev/null &&
		"$H" start "$W/fabric.net" "$W" >/dev/null 2>&1 ||
		{ bad "rate $ws: set-up failed"; continue; }
	STARTED+=("$W")
	"$H" run "$W" ibnetdiscover >"$W/ibnetdiscover.txt" 2>/dev/null &&
		"$QFT" import ibnetdiscover "$W/ibnetdiscover.txt" --raw -o "$W/import.json" 2>/dev/null &&
		discover "$W" "$W/disc.json" /dev/null --raw &&
		same_fabric "$W/disc.json" "$W/import.json" &&
		same_fabric "$W/disc.json" "$W/fabric.json" --no-tree &&
		ok "rate ${ws/:/}: discovered as generated and as ibnetdiscover prints it" ||
		bad "rate ${ws/:/}: differs"
	"$H" stop "$W" >/dev/null 2>&1
done

# LMC 2 (LIDs aligned to 4 in the net file): the fabric's LMC is the CA ports'.
W=$WORK/lmc
rm -rf "$W"
mkdir -p "$W"
if "$QFT" gen pgft "2;4,4;1,4;1,1" --lmc 2 -o "$W/fabric.json" --ibsim "$W/fabric.net" 2>/dev/null &&
	"$H" start "$W/fabric.net" "$W" >/dev/null 2>&1; then
	STARTED+=("$W")
	"$H" run "$W" ibnetdiscover >"$W/ibnetdiscover.txt" 2>/dev/null &&
		"$QFT" import ibnetdiscover "$W/ibnetdiscover.txt" -o "$W/import.json" 2>/dev/null &&
		discover "$W" "$W/disc.json" /dev/null &&
		same_fabric "$W/disc.json" "$W/import.json" &&
		same_fabric "$W/disc.json" "$W/fabric.json" &&
		ok "LMC 2: discovered as generated and as imported" || bad "LMC 2: differs"
	expect_eq "LMC 2: fabric LMC" "$(json_get '["lmc"]' <"$W/disc.json")" 2
	"$H" stop "$W" >/dev/null 2>&1
else
	bad "LMC 2: set-up failed"
fi

# ------------------------------------------------------------- (c)
W=$WORK/pgft-2-18
if [ -f "$W/disc.json" ] && "$H" status "$W" >/dev/null 2>&1; then
	# 3 leaf-to-spine cables and 1 host cable (not the first host's: the
	# simulator's client, where discovery starts), from the lower end.
	python3 - "$W/fabric.json" "$W/fabric.net" >"$W/cuts" <<'PY'
import json, random, re, sys
f = json.load(open(sys.argv[1]))
ids, guid = {}, None
for line in open(sys.argv[2]):
    m = re.match(r'(switchguid|caguid)=0x([0-9a-fA-F]+)', line)
    if m:
        guid = int(m.group(2), 16)
    m = re.match(r'(Switch|Ca)\s+\d+\s+"([^"]+)"', line)
    if m:
        ids[guid], guid = m.group(2), None
first_host = next(int(re.search(r'"H-([0-9a-f]+)"', l).group(1), 16)
                  for l in open(sys.argv[2]) if l.startswith("Ca"))
level = {int(n["guid"], 16): n["level"] for k in ("switches", "hosts") for n in f[k]}
rng = random.Random(7)
ups = [l for l in f["links"] if {level[int(l[0], 16)], level[int(l[2], 16)]} == {1, 2}]
hosts = [l for l in f["links"] if 0 in (level[int(l[0], 16)], level[int(l[2], 16)])
         and first_host not in (int(l[0], 16), int(l[2], 16))]
for kind, pool, n in (("switch", ups, 3), ("host", hosts, 1)):
    for l in rng.sample(pool, n):
        a, pa, b, pb = int(l[0], 16), l[1], int(l[2], 16), l[3]
        if level[a] > level[b]:
            a, pa, b, pb = b, pb, a, pa
        print(kind, ids[a], pa, "0x%016x" % a, "0x%016x" % b)
PY
	while read -r kind id port _ _; do
		"$H" console "$W" "Unlink \"$id\"[$port]" >/dev/null
	done <"$W/cuts"
	if discover "$W" "$W/cut.json" "$W/cut.report"; then
		ok "cut: qft discover after 4 Unlinks"
		python3 - "$W/cut.report" "$W/cut.json" "$W/cuts" <<'PY' && ok "cut: exactly the unlinked cables are missing, the cut host is absent" || bad "cut: report differs"
import json, sys
r, f = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
cuts = [l.split() for l in open(sys.argv[3])]
want = sorted((a, b) for k, _, _, a, b in cuts if k == "switch")
got = sorted((c["lower_guid"], c["upper_guid"]) for c in r["missing_cables"])
gone = {a for k, _, _, a, _ in cuts if k == "host"}
present = {n["guid"] for n in f["hosts"]}
okay = (want == got and r["absent_hosts"] == len(gone) and not (gone & present)
        and not r["detached"] and r["tree"] == "2;18,18;1,18;1,1")
if not okay:
    print("  want", want, "got", got, "absent", r["absent_hosts"], "detached", r["detached"])
sys.exit(0 if okay else 1)
PY
		expect_eq "cut: hosts discovered" "$(json_get '["hosts"].__len__()' <"$W/cut.json")" 323
	else
		bad "cut: qft discover failed"
	fi
	while read -r kind id port _ _; do
		"$H" console "$W" "ReLink \"$id\"" >/dev/null
	done <"$W/cuts"
	if discover "$W" "$W/relink.json" "$W/relink.report"; then
		same_fabric "$W/relink.json" "$W/fabric.json" &&
			ok "cut: ReLink gives the generated fabric back" ||
			bad "cut: fabric after ReLink differs"
	else
		bad "cut: qft discover after ReLink failed"
	fi

	# Bad local CA or port: named, exit 1.
	expect_fail 1 'no CA "nosuch"' -- "$H" run "$W" "$QFT" discover -C nosuch
	expect_fail 1 "no CA has a port 7" -- "$H" run "$W" "$QFT" discover -P 7
	ca=$(sed -n 's/^qft discover: .* from \([^ ]*\) port .*/\1/p' "$W/disc.json.err")
	expect_fail 1 "CA $ca has no port 7" -- "$H" run "$W" "$QFT" discover -C "$ca" -P 7
	# The local port's own cable gone: the port is down.
	local_id=$(sed -n 's/^Ca[ \t].*"\(H-[0-9a-fA-F]*\)".*/\1/p' "$W/fabric.net" | head -n 1)
	"$H" console "$W" "Unlink \"$local_id\"[1]" >/dev/null
	expect_fail 1 "port 1 is down (state Down, physical state Polling)" -- \
		"$H" run "$W" "$QFT" discover -P 1
	expect_fail 1 "no InfiniBand port is up" -- "$H" run "$W" "$QFT" discover
	"$H" console "$W" "ReLink \"$local_id\"" >/dev/null
else
	bad "cut: no running 2-level fabric to cut"
fi

echo "discovery times (seconds):"
for t in "${TIMES[@]}"; do echo "  $t"; done
finish
