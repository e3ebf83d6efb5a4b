#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Routing with faults through the real OpenSM (issue 15): on the 1944-host
# PGFT(3;18,18,6;1,18,6;1,1,3), 1 %, 2 % and 5 % of the 3888 switch-to-switch
# cables cut at random (SEEDS seeds each, Python's random.Random(seed) on
# the generated JSON's links), in ibsim (console Unlink) and in the fabric
# JSON alike. Per run, on a fresh ibsim started from the .net file:
#   - `qft lft` on the cut JSON (the closed form with its rule around
#     missing cables) and its time;
#   - OpenSM loads it with its file engine (opensm -o -R file -U, strict:
#     no fallback); the harness's file-vs-dump differences (every entry);
#     our file's host-LID entries against OpenSM's dump;
#   - ibroute reads K switches back (both ends of the first cut cables and
#     random others): every LID against OpenSM's dump, host LIDs against
#     our file;
#   - every (source, destination) host pair walked on OpenSM's dump over
#     the cut fabric's cables (108 leaves x 1944 destination LIDs: tables
#     are per destination, and no host cable is cut), and `qft score
#     --lft <OpenSM's dump> --hosts all` (a Shift over every pair) completes;
#   - Shift average HSD, tree order: the whole fabric on the closed form and
#     on OpenSM's dump (must be equal), and aligned jobs (each played
#     together with the others of its set): every leaf an 18-host job (108
#     jobs), every congestion-free block N_CF = 108 hosts a job (18 jobs),
#     every level-2 subtree a 324-host job (6 jobs), and one 108-host block
#     alone; before is the 0 % row;
#   - destinations that lost congestion freedom (`qft info`: destinations
#     sharing a down-link) and the switch cables OpenSM found.
# Figures, not a test: each check prints whether it held; exit 1 when a
# check failed or a step could not run. Needs the IB packages (root to
# install them). About 1 minute per run on 2 cores.
#
#   usage: contribs/bench/faults-opensm.sh [QFT] [SEEDS]
#   env:   QFT (the qft tool; default build/release/contribs/qft/qft),
#          QFT_FAULTS_SEEDS (default 3), QFT_FAULTS_PCTS (default "1 2 5"),
#          QFT_FAULTS_SAMPLE (switches read back with ibroute, default 6),
#          QFT_FAULTS_WORK (scratch, default build/faults-opensm; its path
#          names the ibsim socket, see tests/ib/ibsim-harness.sh)
set -euo pipefail
BENCH=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$BENCH/../.." && pwd)
QFT=${1:-${QFT:-$TOP/build/release/contribs/qft/qft}}
SEEDS=${2:-${QFT_FAULTS_SEEDS:-3}}
PCTS=${QFT_FAULTS_PCTS:-"1 2 5"}
K=${QFT_FAULTS_SAMPLE:-6}
W=${QFT_FAULTS_WORK:-$TOP/build/faults-opensm}
case $W in /*) ;; *) W=$TOP/$W ;; esac
case $QFT in /*) ;; *) QFT=$(pwd)/$QFT ;; esac
IBH=$TOP/tests/ib/ibsim-harness.sh
TUPLE="3;18,18,6;1,18,6;1,1,3"
T0=$SECONDS
FAILS=0

die() { echo "faults-opensm: ERROR: $*" >&2; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
kv() { sed -n "s/^$1=//p" "$2"; }
# want MSG CMD...: runs CMD; when it fails, counts a failed check and
# prints MSG
want() {
	local msg=$1
	shift
	"$@" && return 0
	FAILS=$((FAILS + 1))
	echo "  CHECK FAILED: $msg"
}

[ -x "$QFT" ] || die "no qft at $QFT (give it as first argument or QFT=)"
"$IBH" deps >/dev/null || die "cannot install the IB packages (tests/ib/ibsim-harness.sh deps)"
"$IBH" stop "$W/sim" >/dev/null 2>&1 || true
rm -rf "$W"
mkdir -p "$W"
trap '"$IBH" stop "$W/sim" >/dev/null 2>&1 || true' EXIT
trap 'exit 130' INT TERM

"$QFT" gen pgft "$TUPLE" -o "$W/gen.json" --ibsim "$W/gen.net" 2>"$W/gen.err" ||
	die "qft gen: $(cat "$W/gen.err")"

# The scored job sets, one --batch group each (tree order = index order):
# the whole fabric, 108 leaves, 18 blocks of N_CF = 108, 6 level-2
# subtrees, one 108-host block alone.
python3 - "$W/gen.json" >"$W/jobs.batch" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
names = [h["name"] for h in sorted(f["hosts"], key=lambda h: h["index"])]
def group(size, count=None):
    jobs = [names[i:i + size] for i in range(0, len(names), size)][:count]
    print("\n".join(" ".join(j) for j in jobs) + "\n")
group(len(names)); group(18); group(108); group(324); group(108, 1)
PY
JOBSETS="all leaf18x108 blk108x18 pod324x6 one108"

# The checks on one run's files: our dump, OpenSM's dump, ibroute's
# outputs (GUID=FILE ...) and the cut fabric JSON. Prints key=value lines.
cat >"$W/check.py" <<'PY'
import json, re, sys
fab, ours_p, osm_p = sys.argv[1:4]
f = json.load(open(fab))
head = re.compile(r"guid (0x[0-9a-fA-F]+)")
entry = re.compile(r"\s*(0x[0-9a-fA-F]+)\s+(\d+)")
def load(path, guid=None):
    t, g = {}, guid
    for line in open(path):
        if line.startswith("Unicast lids"):
            g = guid or int(head.search(line).group(1), 16)
            t.setdefault(g, {})
            continue
        m = entry.match(line)
        if m and g is not None:
            t[g][int(m.group(1), 16)] = int(m.group(2))
    return t
ours, osm = load(ours_p), load(osm_p)
sw = {int(s["guid"], 16): s for s in f["switches"]}
host_lid = {int(h["guid"], 16): h["lid"] for h in f["hosts"]}
hl = set(host_lid.values())
def host_entries(t):
    return {(g, l, p) for g, e in t.items() for l, p in e.items() if l in hl}
a, b = host_entries(ours), host_entries(osm)
print("host_entries_ours=%d" % len(a))
print("host_entries_osm=%d" % len(b))
print("host_entries_differ=%d" % len(a ^ b))
# ibroute: every LID against OpenSM's dump, host LIDs against our file
cmp = read = vs_osm = vs_ours = 0
for arg in sys.argv[4:]:
    g, path = arg.split("=", 1)
    g = int(g, 16)
    got = load(path, g).get(g, {})
    read += bool(got)
    cmp += len(got)
    o, u = osm.get(g, {}), ours.get(g, {})
    vs_osm += sum(1 for l in set(got) | set(o) if got.get(l) != o.get(l))
    vs_ours += sum(1 for l in hl if got.get(l) != u.get(l))
print("ibroute_switches=%d" % read)
print("ibroute_entries=%d" % cmp)
print("ibroute_vs_osm=%d" % vs_osm)
print("ibroute_vs_ours=%d" % vs_ours)
print("ibroute_differ=%d" % (vs_osm + vs_ours))
# every (leaf, destination host) path on OpenSM's dump over the cut cables
peer = {}
for x, px, y, py, *_ in f["links"]:
    peer[(int(x, 16), px)] = int(y, 16)
    peer[(int(y, 16), py)] = int(x, 16)
leaves = [g for g, s in sw.items() if s["level"] == 1]
ok = 0
why = {}
for leaf in leaves:
    for dst in hl:
        node, res = leaf, None
        for _ in range(12):
            port = osm.get(node, {}).get(dst)
            if port is None or port == 0 or port == 255:
                res = "no entry"
                break
            nxt = peer.get((node, port))
            if nxt is None:
                res = "down port"
                break
            if nxt in host_lid:
                res = "ok" if host_lid[nxt] == dst else "wrong host"
                break
            node = nxt
        res = res or "loop"
        if res == "ok":
            ok += 1
        else:
            why[res] = why.get(res, 0) + 1
print("walk_ok=%d" % ok)
print("walk_total=%d" % (len(leaves) * len(hl)))
print("walk_fail=%s" % (",".join("%s:%d" % kv for kv in sorted(why.items())) or "-"))
PY

# cut PCT SEED DIR: DIR/cut.json, DIR/unlink (console lines), DIR/sample
# ("GUID LID DESC" of the K switches ibroute reads back)
cut() {
	python3 - "$W/gen.json" "$1" "$2" "$3" "$K" <<'PY'
import json, random, sys
src, pct, seed, d, k = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
f = json.load(open(src))
level = {n["guid"]: n["level"] for key in ("switches", "hosts") for n in f[key]}
sw = [l for l in f["links"] if level[l[0]] > 0 and level[l[2]] > 0]
rng = random.Random(seed)
n = round(len(sw) * pct / 100)
cut = rng.sample(sw, n) if n else []
f["links"] = [l for l in f["links"] if l not in cut]
json.dump(f, open(d + "/cut.json", "w"), indent=1)
with open(d + "/unlink", "w") as out:
    for a, pa, b, pb, *_ in cut:
        if level[a] > level[b]:
            a, pa = b, pb
        out.write('Unlink "S-%s"[%d]\n' % (a[2:], pa))
pick = []
for a, _, b, *_ in cut[:2]:
    pick += [g for g in (a, b) if g not in pick]
rest = sorted(s["guid"] for s in f["switches"] if s["guid"] not in pick)
pick += rng.sample(rest, k - len(pick))
by = {s["guid"]: s for s in f["switches"]}
with open(d + "/sample", "w") as out:
    for g in pick:
        out.write("%s %d %s\n" % (g, by[g]["lid"], by[g]["desc"].replace(" ", "_")))
print(len(sw), n)
PY
}

# hsd_batch OUT ARGS: one "AVG MAX" line per group of jobs.batch
hsd_batch() {
	local out=$1
	shift
	: >"$out"
	"$QFT" score --batch "$W/jobs.batch" --json "$@" >"$out.json" 2>"$out.err" || return 1
	python3 -c 'import json,sys; [print("%.3f %d" % (d["avg_hsd"], d["max_hsd"])) for d in map(json.loads, open(sys.argv[1]))]' \
		"$out.json" >"$out"
}

printf '# PGFT(%s) on ibsim: %s hosts, %s switches; Shift, tree order; %s switches read back per run\n' \
	"$TUPLE" "$(grep -c '^Ca' "$W/gen.net")" "$(grep -c '^Switch' "$W/gen.net")" "$K"
HDR=$(printf '%4s %4s %4s %6s %4s %4s %-10s %5s %-15s %-13s %-16s %-7s %6s %6s %6s %6s %6s %6s %4s %5s' \
	pct seed cut lft_s osm fvsd host=osm unrt "ibroute sw/ent" "pairs walked" "score all" \
	sw-cabl all_cf all_os leaf18 blk108 pod324 one108 lost secs)
echo "$HDR"
LEGEND="lft_s: qft lft seconds; osm: OpenSM -R file loaded it (strict); fvsd: the harness's file-vs-dump entry differences;
host=osm: our host-LID entries = OpenSM's dump (and how many); unrt: (switch, host LID) pairs with no entry (OpenSM's
dump; switches on no path to that host); ibroute: switches/entries read back, 'ok' = all equal to OpenSM's dump and ours;
pairs walked: (leaf, destination) paths on OpenSM's dump reaching their host over the cut cables (of 108 x 1944);
score all: qft score --lft <OpenSM dump> --hosts all (stages, flows), or FAIL; sw-cabl: switch cables in OpenSM's subnet
(of 3888);
all_cf/all_os: whole-fabric Shift avg HSD, closed form / OpenSM's dump; leaf18..one108: jobs (on OpenSM's dump, = closed form
unless flagged); lost: destinations sharing a down-link (qft info); secs: the run's wall time"

# run PCT SEED
run() {
	local pct=$1 seed=$2 d=$W/p$1-s$2 t t0 n total rc
	t0=$(now)
	mkdir -p "$d"
	read -r total n < <(cut "$pct" "${seed/-/0}" "$d")
	# a fresh ibsim from the .net: every run starts from the whole fabric
	"$IBH" stop "$W/sim" >/dev/null 2>&1 || true
	"$IBH" start "$W/gen.net" "$W/sim" >"$d/ibsim.out" 2>&1 || die "ibsim did not start (see $d/ibsim.out)"
	# the console takes a batch of lines per write
	if [ -s "$d/unlink" ]; then
		split -l 25 "$d/unlink" "$d/unlink."
		for part in "$d"/unlink.*; do
			"$IBH" console "$W/sim" "$(cat "$part")" >>"$d/console.out" 2>&1 ||
				die "ibsim console (see $d/console.out)"
		done
	fi
	"$QFT" info --fabric "$d/cut.json" >"$d/info" 2>&1 || true
	local missing lost
	missing=$(sed -n 's/^missing cables //p' "$d/info")
	lost=$(sed -n 's/^destinations sharing a down-link \([0-9]*\) of .*/\1/p' "$d/info")
	[ -n "$lost" ] || lost=0 # qft info prints it only when something is missing
	grep -q '^routing incomplete' "$d/info" && lost="INCOMPLETE"
	want "qft info counts $missing missing cables, $n were cut" [ "$missing" = "$n" ]
	t=$(now)
	rc=0
	"$QFT" lft --fabric "$d/cut.json" -o "$d/ours.dump" 2>"$d/lft.err" || rc=$?
	local lft_s
	lft_s=$(since "$t")
	if [ $rc != 0 ]; then
		want "qft lft exit $rc: $(head -n1 "$d/lft.err")" false
		return 0
	fi
	local feed=$d/ours.dump
	rc=0
	QFT_OPENSM_STRICT=1 "$IBH" opensm "$W/sim" file 0 -U "$feed" >"$d/opensm.kv" 2>"$d/opensm.err" || rc=$?
	local osm=ok fvsd
	[ $rc = 0 ] || osm="exit$rc"
	want "opensm -R file exit $rc ($(grep -m1 -E 'ERROR|WARNING' "$d/opensm.err" || true))" [ $rc = 0 ]
	fvsd=$(kv opensm_file_lft_differences "$d/opensm.kv")
	fvsd=${fvsd:--}
	want "OpenSM's dump and our file: $fvsd entries differ (harness lft_diff)" [ "$fvsd" = 0 ]
	cp "$W/sim/dump/opensm-lfts.dump" "$d/osm.dump" 2>/dev/null || : >"$d/osm.dump"
	local oscables
	oscables=$(grep -c '^{ SW .*} { SW ' "$W/sim/dump/opensm-subnet.lst" 2>/dev/null || true)
	oscables=$((oscables / 2))
	want "OpenSM found $oscables switch cables, $((total - n)) remain" [ "$oscables" = $((total - n)) ]
	# ibroute on the sampled switches
	local args=() guid lid desc
	while read -r guid lid desc; do
		"$IBH" run "$W/sim" ibroute "$lid" >"$d/ibroute-$lid.txt" 2>/dev/null || true
		args+=("$guid=$d/ibroute-$lid.txt")
	done <"$d/sample"
	python3 "$W/check.py" "$d/cut.json" "$d/ours.dump" "$d/osm.dump" "${args[@]}" >"$d/check.kv"
	local hd hostcmp ibe ibd walk
	hd=$(kv host_entries_differ "$d/check.kv")
	hostcmp="yes $(kv host_entries_ours "$d/check.kv")"
	[ "$hd" = 0 ] || hostcmp="NO($hd)"
	want "our host-LID entries vs OpenSM's dump: $hd differ" [ "$hd" = 0 ]
	local unrt
	unrt=$(kv opensm_unrouted_to_ca "$d/opensm.kv")
	ibe=$(kv ibroute_entries "$d/check.kv")
	ibd=$(kv ibroute_differ "$d/check.kv")
	local ibs ibok=NO
	ibs=$(kv ibroute_switches "$d/check.kv")
	[ "$ibd" != 0 ] || [ "$ibs" != "$(wc -l <"$d/sample")" ] || ibok=ok
	want "ibroute read $ibs of $(wc -l <"$d/sample") switches ($ibe entries): $(kv ibroute_vs_osm "$d/check.kv") differ from OpenSM's dump, $(kv ibroute_vs_ours "$d/check.kv") host-LID entries from ours" \
		[ $ibok = ok ]
	walk="$(kv walk_ok "$d/check.kv")/$(kv walk_total "$d/check.kv")"
	want "paths on OpenSM's dump: $(kv walk_fail "$d/check.kv")" [ "$(kv walk_fail "$d/check.kv")" = - ]
	[ "$(kv walk_fail "$d/check.kv")" = - ] || walk="$walk $(kv walk_fail "$d/check.kv")"
	# qft score over every pair on OpenSM's dump
	local sall
	if "$QFT" score --fabric "$d/cut.json" --hosts all --json --lft "$d/osm.dump" >"$d/score-all.json" 2>"$d/score-all.err"; then
		sall=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%dst %dfl" % (d["stages"], d["flows"]))' "$d/score-all.json")
	else
		sall="FAIL"
		want "qft score --lft OpenSM's dump --hosts all: $(head -n1 "$d/score-all.err")" false
	fi
	# HSD: closed form and OpenSM's dump, every job set
	local cf os
	hsd_batch "$d/hsd-closed" --fabric "$d/cut.json" ||
		want "qft score --batch (closed form): $(head -n1 "$d/hsd-closed.err")" false
	hsd_batch "$d/hsd-osm" --fabric "$d/cut.json" --lft "$d/osm.dump" ||
		want "qft score --batch (OpenSM's dump): $(head -n1 "$d/hsd-osm.err")" false
	want "HSD (avg max per job set) closed form [$(tr '\n' ' ' <"$d/hsd-closed")] != OpenSM's dump [$(tr '\n' ' ' <"$d/hsd-osm")]" \
		cmp -s "$d/hsd-closed" "$d/hsd-osm"
	cf=$(awk 'NR == 1 {print $1}' "$d/hsd-closed")
	os=($(awk '{print $1}' "$d/hsd-osm") - - - - -)
	printf '%4s %4s %4s %6s %4s %4s %-10s %5s %-15s %-13s %-16s %-7s %6s %6s %6s %6s %6s %6s %4s %5s\n' \
		"$pct" "$seed" "$n" "$lft_s" "$osm" "$fvsd" "$hostcmp" "${unrt:--}" \
		"$ibs/$ibe $ibok" \
		"$walk" "$sall" "$oscables" "${cf:--}" "${os[0]}" "${os[1]}" "${os[2]}" "${os[3]}" "${os[4]}" \
		"$lost" "$(since "$t0")"
}

run 0 -
for pct in $PCTS; do
	for seed in $(seq 1 "$SEEDS"); do
		run "$pct" "$seed"
	done
done
echo "$LEGEND" | sed 's/^/# /'
echo "# aligned jobs (avg HSD, max HSD) per run: $W/p*/hsd-osm (lines: $JOBSETS)"
echo "# failed checks: $FAILS; wall time $((SECONDS - T0)) s"
[ "$FAILS" = 0 ]
