#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A job's LID table (docs/lid-table.md) on real switches: OpenSM on ibsim
# loads qft's closed-form tables at LMC 2 with its file engine (-R file -U,
# as test-lft.sh does), then for placed jobs whose one-LID Shift HSD is
# above 1, every ordered pair (A, B) of the job (a sample of at least 30
# for the bigger ones) is traced with ibtracert from A's port to the DLID
# BASE(B) + o(A, B) of the job's `qft lid --choice pair` table (and of a
# `--choice dest` table), and the switches and ports the packets cross are
# compared hop by hop with what `qft route --lid-offset o(A, B)` says.
# ibtracert reads each switch's LFT over SMPs, so what it shows is what the
# switches would forward. When a pair's offset moves qft route's path, the
# trace must also differ from qft route's offset-0 path: the comparison
# tells the paths apart.
#   env: QFT (the qft tool), QFT_IB_WORK (scratch, default build/ib/test-lid),
#        QFT_LID_MAX_PAIRS (pairs traced per table, default 100: a table
#        with more is sampled, its non-zero offsets first),
#        QFT_LID_BREAK=1 (on purpose: compare the first pair with a non-zero
#        offset against qft route at offset 0; the test must then fail)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
QFT=${QFT:-$REPO/build/release/contribs/qft/qft}
IBH=$HERE/ibsim-harness.sh
W=${QFT_IB_WORK:-$REPO/build/ib/test-lid}
MAXP=${QFT_LID_MAX_PAIRS:-100}
BREAK=${QFT_LID_BREAK:-0}
LMC=2
PASS=0 FAIL=0
ok() { PASS=$((PASS + 1)); echo "ok - $*"; }
bad() { FAIL=$((FAIL + 1)); echo "not ok - $*"; }
expect_eq() { if [ "$2" = "$3" ]; then ok "$1 = $3"; else bad "$1 = '$2', wanted '$3'"; fi; }

# lidpy pairs TABLE MAX: "A B BASE_A BASE_B OFFSET" for the ordered pairs of
# a LID table; all of them when there are at most MAX, else every pair with
# a non-zero offset and evenly spaced others (sample()), MAX in all.
# lidpy compare FABRIC.json DIR LMC: compares DIR/trace.* (ibtracert) with
# DIR/route.I (qft route at the table's offset) and DIR/route0.I (qft route
# at offset 0) for the lines of DIR/pairs; prints the mismatches and a last
# line "checked N matched M nonzero Z moved X apart Y lids L".
lidpy() {
	python3 - "$@" <<'PY'
import json, re, sys

def table(path):
    lines = [l.strip() for l in open(path)]
    lines = [l for l in lines if l and not l.startswith("#")]
    assert lines[0] == "qft-lid 1" and lines[-1] == "end", "not a complete qft-lid 1 table"
    kv = {}
    i = 1
    while not lines[i].startswith("host "):
        k, v = lines[i].split(None, 1)
        kv[k] = v
        i += 1
    lmc, n = int(kv["lmc"]), int(kv["hosts"])
    hosts = []
    for l in lines[i:i + n]:
        _, name, base, dest = l.split()
        hosts.append((name, int(base, 0), int(dest)))
    rows = None
    if kv["choice"] == "pair":
        w = 1 if lmc <= 4 else 2
        rows = [[int(r[j:j + w], 16) for j in range(0, n * w, w)]
                for r in lines[i + n + 1:i + n + 1 + n]]
    out = []
    for a in range(n):
        for b in range(n):
            if a != b:
                o = rows[a][b] if rows else hosts[b][2]
                assert 0 <= o < (1 << lmc) and hosts[b][1] % (1 << lmc) == 0
                out.append((hosts[a][0], hosts[b][0], hosts[a][1], hosts[b][1], o))
    return out

def spaced(items, k):
    k = min(k, len(items))
    return [items[int(i * len(items) / k)] for i in range(k)]

def sample(pairs, cap):
    # all pairs, or cap of them: the non-zero offsets first (at most 3/4
    # of cap), then offset 0, each evenly spaced over the table
    if len(pairs) <= cap:
        return pairs
    nz = [p for p in pairs if p[4]]
    zero = [p for p in pairs if not p[4]]
    keep = spaced(nz, max(cap * 3 // 4, cap - len(zero)))
    keep += spaced(zero, cap - len(keep))
    return sorted(keep, key=pairs.index)

class Names:
    def __init__(self, fabric):
        f = json.load(open(fabric))
        self.sw_guid = {s["desc"]: s["guid"].lower() for s in f["switches"]}
        self.host_desc = {h["desc"]: h["name"] for h in f["hosts"]}
    def sw(self, desc):
        return "%s(%s)" % (self.sw_guid[desc], desc)

def route_hops(path, names):
    # "n0001 -> n0020, LID 82 (base 80 + offset 2), routing dmodk, 4 hops"
    # "   2 up  \"qft L1 0.0\" port 10 -> \"qft L2 3.0\" port 1"
    text = open(path).read().splitlines() or [""]
    m = re.match(r"\S+ -> \S+, LID (\d+) \(base (\d+) \+ offset (\d+)\)", text[0])
    hops = []
    def node(s):
        return names.sw(s[1:-1]) if s.startswith('"') else s
    for l in text[1:]:
        m2 = re.match(r'\s*\d+(?: up| down)?\s+(".*?"|\S+) port (\d+) -> (".*?"|\S+) port (\d+)$', l)
        if m2:
            hops.append((node(m2.group(1)), int(m2.group(2)), node(m2.group(3)), int(m2.group(4))))
    return (int(m.group(1)) if m else None), hops

def traces(d, n, names):
    # ibtracert --ports-file output, one block per pair traced:
    # From ca {0x...} portnum 1 lid 4-7 "n0001 HCA-1"
    # [1] -> switch port {0x...}[1] lid 148-148 "qft L1 0.0"
    # [2] -> ca port {0x...}[1] lid 80-83 "n0020 HCA-1"
    # To ca {0x...} portnum 1 lid 80-83 "n0020 HCA-1"
    # trace.S holds pairs S, S+1, ... (1-based) up to the one it failed
    # on ("iberror: ... at line L"); trace.(S+L) goes on after that.
    out = [([], None, "not traced")] * n
    s = 1
    while s <= n:
        blocks, err = [], ""
        for l in open("%s/trace.%d" % (d, s)):
            if l.startswith("From "):
                blocks.append([])
            if "iberror" in l:
                err += l
            elif blocks:
                blocks[-1].append(l)
        for j, b in enumerate(blocks):
            if s - 1 + j < n:
                out[s - 1 + j] = trace_hops(b, names) + ("",)
        err = open("%s/trace.%d.err" % (d, s)).read() + err
        m = re.search(r"at line (\d+)$", err.strip())
        if not m:
            break
        if s - 2 + int(m.group(1)) < n:
            out[s - 2 + int(m.group(1))] = ([], None, " ".join(
                l.strip() for l in err.splitlines() if "sim_connect" not in l))
        s += int(m.group(1))
    return out

def trace_hops(block, names):
    cur, hops, lids = None, [], None
    for l in block:
        m = re.match(r'From ca \{\S+\} portnum \d+ lid \S+ "(.*)"', l)
        if m:
            cur = names.host_desc.get(m.group(1), m.group(1))
            continue
        m = re.match(r'\[(\d+)\] -> (switch|ca) port \{(0x[0-9a-f]+)\}\[(\d+)\] lid (\d+)-(\d+) "(.*)"', l)
        if m:
            if m.group(2) == "switch":
                nxt = "%s(%s)" % (m.group(3), m.group(7))
            else:
                nxt = names.host_desc.get(m.group(7), m.group(7))
                lids = (int(m.group(5)), int(m.group(6)))
            hops.append((cur, int(m.group(1)), nxt, int(m.group(4))))
            cur = nxt
    return hops, lids

def show(hops):
    return " ".join("%s:%d>%s:%d" % h for h in hops) or "(no path)"

if sys.argv[1] == "pairs":
    for p in sample(table(sys.argv[2]), int(sys.argv[3])):
        print(*p)
    sys.exit(0)

names = Names(sys.argv[2])
d = sys.argv[3]
lmc = int(sys.argv[4])
checked = matched = nonzero = moved = apart = lidok = 0
pairs = open(d + "/pairs").read().splitlines()
traced = traces(d, len(pairs), names)
for i, l in enumerate(pairs):
    a, b, base_a, base_b, o = l.split()
    base_b, o = int(base_b), int(o)
    checked += 1
    nonzero += o != 0
    dlid, want = route_hops("%s/route.%d" % (d, i), names)
    got, lids, err = traced[i]
    # the destination's LIDs on the switches are BASE(B) .. BASE(B)+2^LMC-1
    if lids == (base_b, base_b + (1 << lmc) - 1):
        lidok += 1
    else:
        print("  %s -> %s: ibtracert shows %s's LIDs %s, the table BASE %d (LMC %d)" % (a, b, b, lids, base_b, lmc))
    # qft route's DLID (the fabric's BASE(B) + offset) is the table's
    if dlid == base_b + o and got == want and want and got[0][0] == a and got[-1][2] == b:
        matched += 1
    else:
        print("  %s -> %s DLID %d (BASE %d + o %d):" % (a, b, base_b + o, base_b, o))
        print("    ibtracert : %s%s" % (show(got), " " + err if err else ""))
        print("    qft route : %s (LID %s)" % (show(want), dlid))
    if o:
        _, zero = route_hops("%s/route0.%d" % (d, i), names)
        if zero != want:
            moved += 1
            apart += got != zero
print("checked %d matched %d nonzero %d moved %d apart %d lids %d" % (checked, matched, nonzero, moved, apart, lidok))
PY
}

"$IBH" deps >/dev/null || { echo "test-lid: cannot install the IB packages"; exit 1; }
command -v python3 >/dev/null || { echo "test-lid: python3 is needed"; exit 1; }
rm -rf "$W"
mkdir -p "$W"
W=$(cd "$W" && pwd)    # absolute: OpenSM reads -U from its own directory
trap '"$IBH" stop "$W/sim" >/dev/null 2>&1' EXIT
SUMMARY=()
BROKEN=0

# check_table NAME FABRIC.json TABLE: traces the table's pairs, compares.
check_table() {
	local name=$1 fab=$2 tab=$3 d=$W/$1 a b o i=0 ro res
	mkdir -p "$d"
	lidpy pairs "$tab" "$MAXP" >"$d/pairs" || { bad "$name: cannot read $tab"; return; }
	while read -r a b _ _ o; do
		ro=$o
		if [ "$BREAK" = 1 ] && [ "$BROKEN" = 0 ] && [ "$o" != 0 ]; then
			ro=0 BROKEN=1
			echo "# QFT_LID_BREAK: $name $a -> $b has o = $o; comparing with qft route --lid-offset 0"
		fi
		"$QFT" route --fabric "$fab" --src "$a" --dst "$b" --lid-offset "$ro" >"$d/route.$i"
		[ "$o" = 0 ] || "$QFT" route --fabric "$fab" --src "$a" --dst "$b" --lid-offset 0 >"$d/route0.$i"
		i=$((i + 1))
	done <"$d/pairs"
	# All the traces in one ibtracert (--ports-file: "SRC-LID DST-LID"
	# lines). It stops at the first pair it cannot trace ("iberror: ...
	# at line N", on stdout): then again from the pair after that one.
	"$IBH" run "$W/sim" bash -c 'd=$1 s=1 n= l=
		n=$(wc -l <"$d/pairs")
		while [ $s -le $n ]; do
			tail -n +$s "$d/pairs" | awk "{ print \$3, \$4 + \$5 }" >"$d/ports.$s"
			ibtracert --ports-file "$d/ports.$s" >"$d/trace.$s" 2>"$d/trace.$s.err" && break
			l=$(cat "$d/trace.$s" "$d/trace.$s.err" | sed -n "s/.* at line \([0-9]*\)\$/\1/p")
			[ -n "$l" ] || break
			s=$((s + l))
		done' _ "$d"
	res=$(lidpy compare "$fab" "$d" "$LMC")
	sed '$d' <<<"$res"
	local checked matched nonzero moved apart lids n
	read -r _ checked _ matched _ nonzero _ moved _ apart _ lids <<<"$(tail -n1 <<<"$res")"
	for n in "$checked" "$matched" "$nonzero" "$moved" "$apart" "$lids"; do
		[[ $n =~ ^[0-9]+$ ]] || { bad "$name: no result from the comparison"; return; }
	done
	[ "$checked" -gt 0 ] && [ "$checked" = "$matched" ] &&
		ok "$name: $matched of $checked pairs route through the switches and ports qft route says ($nonzero at a non-zero offset)" ||
		bad "$name: $matched of $checked pairs match qft route"
	[ "$nonzero" -gt 0 ] && ok "$name: the table uses non-zero offsets ($nonzero traced pairs)" ||
		bad "$name: no traced pair has a non-zero offset"
	n=$(sed -n 's/^hosts //p' "$tab")
	[ "$checked" = $((n * (n - 1))) ] || [ "$checked" -ge 30 ] &&
		ok "$name: $checked of the $((n * (n - 1))) ordered pairs traced" ||
		bad "$name: only $checked of $((n * (n - 1))) pairs traced (fewer than 30)"
	expect_eq "$name: traced pairs whose destination has the LIDs BASE..BASE+$(((1 << LMC) - 1)) of the table" "$lids" "$checked"
	[ "$moved" = "$apart" ] &&
		ok "$name: $apart of $moved pairs whose offset moves the path differ from the offset-0 path on the switches" ||
		bad "$name: only $apart of $moved pairs whose offset moves the path differ from the offset-0 path"
	SUMMARY+=("$(printf '%-22s %7s %8s %8s' "$name" "$checked" "$matched" "$nonzero")")
}

# check_job TAG FABRIC.json HOSTS: HSD with and without the choice, then
# the pair and (with "dest") the dest table.
check_job() {
	local tag=$1 fab=$2 hosts=$3 choices=$4 cmp one c hsd n
	cmp=$("$QFT" lid --fabric "$fab" --hosts "$hosts" --compare)
	n=$(sed -n 's/^# \([0-9]*\) hosts.*/\1/p' <<<"$cmp")
	one=$(awk '$1 == "one-lid" { print $2 }' <<<"$cmp")
	awk -v h="$one" 'BEGIN { exit !(h > 1) }' &&
		ok "$tag: $n hosts, one-LID Shift HSD $one > 1" || bad "$tag: one-LID Shift HSD $one, not above 1"
	for c in $choices; do
		"$QFT" lid --fabric "$fab" --hosts "$hosts" --choice "$c" -o "$W/$tag-$c.lid" 2>"$W/$tag-$c.err" ||
			{ bad "$tag: qft lid --choice $c"; continue; }
		hsd=$(sed -n 's/.*shift HSD \([0-9.]*\) avg.*/\1/p' "$W/$tag-$c.err")
		expect_eq "$tag: qft lid --choice $c HSD = --compare's $c row" "$hsd" \
			"$(awk -v c="$c" '$1 == c { print $2 }' <<<"$cmp")"
		awk -v a="$hsd" -v b="$one" 'BEGIN { exit !(a <= b) }' &&
			ok "$tag: --choice $c Shift HSD $hsd, one-LID $one" ||
			bad "$tag: --choice $c Shift HSD $hsd is above the one-LID $one"
		HSDS+=("$(printf '%-22s %5s %8s %8s' "$tag-$c" "$n" "$one" "$hsd")")
		check_table "$tag-$c" "$fab" "$W/$tag-$c.lid"
	done
}

HSDS=()
t0=$(date +%s)
# fabric tag, PGFT tuple, then "job-tag hosts choices" lines
fabrics=(
	"f2a|2;6,6;1,6;1,1|j1 n[0002-0003,0006,0010,0015,0017,0022-0023,0027,0029] pair dest"
	"f2b|2;4,8;1,4;1,1|j2 n[0001-0002,0007,0011,0014,0019-0020,0025,0030,0032] pair"
	"f3|3;4,4,2;1,4,2;1,1,2|j3 n[0001-0003,0006,0009-0010,0012,0015,0017-0018,0022-0023,0026-0027,0029,0031] pair dest"
)
for spec in "${fabrics[@]}"; do
	IFS='|' read -r ft tuple jobs <<<"$spec"
	fab=$W/$ft.json
	"$QFT" gen pgft "$tuple" --lmc $LMC -o "$fab" --ibsim "$W/$ft.net" 2>/dev/null
	"$QFT" lft --fabric "$fab" -o "$W/$ft.lft"
	"$IBH" stop "$W/sim" >/dev/null 2>&1
	"$IBH" start "$W/$ft.net" "$W/sim" >/dev/null 2>&1 || { bad "$ft: ibsim start"; continue; }
	QFT_OPENSM_STRICT=1 "$IBH" opensm "$W/sim" file $LMC -U "$W/$ft.lft" >"$W/$ft-opensm.out" 2>&1
	expect_eq "$ft PGFT($tuple) LMC $LMC: opensm -R file exit" "$?" 0
	expect_eq "$ft: OpenSM's engine" "$(sed -n 's/^opensm_engine_used=//p' "$W/$ft-opensm.out")" file
	expect_eq "$ft: LFT entries OpenSM configured unlike our file" \
		"$(sed -n 's/^opensm_file_lft_differences=//p' "$W/$ft-opensm.out")" 0
	read -r jt hosts choices <<<"$jobs"
	check_job "$ft-$jt" "$fab" "$hosts" "$choices"
done
"$IBH" stop "$W/sim" >/dev/null 2>&1

echo
printf '%-22s %5s %8s %8s\n' table hosts "HSD 1LID" "HSD with"
printf '%s\n' "${HSDS[@]}"
echo
printf '%-22s %7s %8s %8s\n' table checked matching "o != 0"
printf '%s\n' "${SUMMARY[@]}"
echo "pairs: $(printf '%s\n' "${SUMMARY[@]}" | awk '{ c += $2; m += $3 } END { print c " checked, " m " matching" }'); $(($(date +%s) - t0)) s"
echo "test-lid: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
