#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Recognition of a QFT (seed 002) from its bare graph: `qft gen qft` output
# without its annotation and with shuffled records is read back as the QFT
# of its tuple, every node where the generator put it; a PGFT stays a
# PGFT; with switch cables cut, the QFT is still recognised and exactly the
# cut cables are listed; ibnetdiscover's output on ibsim, and the ibsim net
# file, import as the same QFT; its Slurm switch groups are QFT sub-trees.
. "$(dirname "$0")/lib.sh"

# strip IN OUT CUT SEED: OUT is IN without its tree annotation, records
# shuffled, and CUT random switch-to-switch cables removed (printed as
# "guid guid" lines, sorted).
strip() {
	python3 - "$@" <<'PY'
import json, random, sys
src, dst, cut, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
f = json.load(open(src))
rng = random.Random(seed)
hosts = {h["guid"] for h in f["hosts"]}
inner = [i for i, l in enumerate(f["links"]) if l[0] not in hosts and l[2] not in hosts]
gone = set(rng.sample(inner, cut))
for i in sorted(gone):
    a, _, b = f["links"][i][:3]
    print(*sorted((a, b)))
f["links"] = [l for i, l in enumerate(f["links"]) if i not in gone]
rng.shuffle(f["links"])
for k in ("tree", "tree_kind"):
    f.pop(k, None)
for k in ("switches", "hosts"):
    for n in f[k]:
        n.pop("level"); n.pop("index")
    rng.shuffle(f[k])  # record order must not matter
json.dump(f, open(dst, "w"))
PY
}

# Same tuple, kind and position (level, index) for every GUID.
same_positions() {
	python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
pos = lambda f: {n["guid"]: (n.get("level"), n.get("index")) for k in ("switches", "hosts") for n in f[k]}
kind = lambda f: f.get("tree_kind", "pgft")
sys.exit(0 if a["tree"] == b["tree"] and kind(a) == kind(b) and pos(a) == pos(b) else 1)
PY
}

# The missing cables of a JSON report equal the cut ones ("guid guid" lines).
same_cables() {
	python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
want = sorted(tuple(l.split()) for l in open(sys.argv[2]))
got = sorted(tuple(sorted((c["lower_guid"], c["upper_guid"]))) for c in r["missing_cables"])
sys.exit(0 if want == got and not r["missing_switches"] and not r["detached"] else 1)
PY
}

# QFTs of 2 and 3 levels, side-linked at level 1 (hosts on 2 leaves), 2,
# and 2 and the top (1024 hosts).
for T in "2;4,4;1,2;2,2" "3;8,4,4;1,4,4;1,2,2" "3;4,2,8;1,2,4;1,2,1" "3;16,8,8;1,8,8;1,2,2"; do
	"$QFT" gen qft "$T" -o "$TMP/q.json" 2>/dev/null
	strip "$TMP/q.json" "$TMP/bare.json" 0 7 >/dev/null
	"$QFT" recognise "$TMP/bare.json" -o "$TMP/rec.json" >"$TMP/rec.txt"
	expect_eq "QFT of $T: recognise exit" "$?" 0
	expect_eq "QFT of $T: report" "$(head -1 "$TMP/rec.txt")" "tree QFT of PGFT($T)"
	same_positions "$TMP/rec.json" "$TMP/q.json" &&
		ok "QFT of $T: shuffled records, the generator's positions" ||
		bad "QFT of $T: positions differ"
	"$QFT" recognise "$TMP/bare.json" --json >"$TMP/rec.report"
	expect_eq "QFT of $T: JSON kind" "$(json_get '["tree_kind"]' <"$TMP/rec.report")" qft
done

# PGFT vs QFT: a PGFT is still a PGFT (its report and file say no kind);
# the QFT of a tuple without side links (p_l = 1 below the top) has the
# PGFT's cables, and the rule is: a graph both fit is a PGFT.
T="3;8,4,4;1,4,4;1,2,2"
"$QFT" gen pgft "$T" -o "$TMP/p.json" 2>/dev/null
strip "$TMP/p.json" "$TMP/bare.json" 0 7 >/dev/null
"$QFT" recognise "$TMP/bare.json" -o "$TMP/rec.json" >"$TMP/rec.txt"
expect_eq "PGFT($T): report" "$(head -1 "$TMP/rec.txt")" "tree PGFT($T)"
same_positions "$TMP/rec.json" "$TMP/p.json" && ok "PGFT($T): positions" || bad "PGFT($T): positions differ"
grep -q tree_kind "$TMP/rec.json" && bad "PGFT file has a tree_kind" || ok "PGFT file has no tree_kind"
"$QFT" recognise "$TMP/bare.json" --json | grep -q tree_kind &&
	bad "PGFT report has a tree_kind" || ok "PGFT report has no tree_kind"
T2="2;8,8;1,4;1,2"
"$QFT" gen qft "$T2" -o "$TMP/q2.json" 2>/dev/null
strip "$TMP/q2.json" "$TMP/bare.json" 0 3 >/dev/null
expect_eq "QFT of $T2 (no side link) is read as its PGFT" \
	"$("$QFT" recognise "$TMP/bare.json" | head -1)" "tree PGFT($T2)"

# Cut switch cables: the QFT is still recognised, every node in place, and
# the cut cables are the missing ones.
for T in "3;8,4,4;1,4,4;1,2,2" "3;16,8,8;1,8,8;1,2,2"; do
	"$QFT" gen qft "$T" -o "$TMP/q.json" 2>/dev/null
	for n in 1 5; do
		strip "$TMP/q.json" "$TMP/cut.json" "$n" "$n" >"$TMP/removed"
		"$QFT" recognise "$TMP/cut.json" --json -o "$TMP/rec.json" >"$TMP/rec.report"
		expect_eq "QFT of $T, $n cut: tuple and kind" \
			"$(json_get '["tree"]' <"$TMP/rec.report") $(json_get '["tree_kind"]' <"$TMP/rec.report")" "$T qft"
		same_cables "$TMP/rec.report" "$TMP/removed" &&
			ok "QFT of $T, $n cut: exactly the cut cables are missing" ||
			bad "QFT of $T, $n cut: missing cables differ"
		same_positions "$TMP/rec.json" "$TMP/q.json" &&
			ok "QFT of $T, $n cut: the generator's positions" ||
			bad "QFT of $T, $n cut: positions differ"
	done
done
"$QFT" info --fabric "$TMP/rec.json" >"$TMP/info"
grep -q "^tree QFT of PGFT(3;16,8,8;1,8,8;1,2,2)$" "$TMP/info" && ok "info on the recognised QFT" ||
	bad "info: $(head -5 "$TMP/info")"
grep -q "^missing cables 5$" "$TMP/info" && ok "info lists the 5 cut cables" || bad "info: missing"

# Real ibnetdiscover output of the QFT of 3;4,2,4;1,2,2;1,2,2 on ibsim
# (tests/data/ib/qft-3-4-2-4, side links at level 2, parallel top cables),
# and `gen qft --ibsim`'s net file read as ibnetdiscover text: the QFT,
# every node where the generator put it.
DATA=$QFT_SRCDIR/tests/data/ib/qft-3-4-2-4
for f in ibnetdiscover.txt fabric.net; do
	"$QFT" import ibnetdiscover "$DATA/$f" -o "$TMP/imp.json" 2>"$TMP/imp.err"
	expect_eq "$f of the QFT: import exit" "$?" 0
	grep -q "^tree QFT of PGFT(3;4,2,4;1,2,2;1,2,2)$" "$TMP/imp.err" && ok "$f: import says QFT" ||
		bad "$f: import: $(head -3 "$TMP/imp.err")"
	same_positions "$TMP/imp.json" "$DATA/fabric.json" && ok "$f: the generator's positions" ||
		bad "$f: positions differ"
	expect_eq "$f: full Shift on the imported QFT" \
		"$("$QFT" score --fabric "$TMP/imp.json" --hosts all --json | json_get '["max_hsd"]')" 1
done

# Slurm's switch records on a recognised QFT: a level-2 switch reaches 64
# hosts (two PGFT level-2 subtrees of 4 leaves each), so two L2 groups of 8
# leaves, inside the one top group; leaves unchanged (no side link at
# level 1).
T="3;8,4,4;1,4,4;1,2,2"
"$QFT" gen qft "$T" -o "$TMP/q.json" 2>/dev/null
strip "$TMP/q.json" "$TMP/bare.json" 0 11 >/dev/null
"$QFT" recognise "$TMP/bare.json" -o "$TMP/rec.json" >/dev/null
"$QFT" topology-conf --fabric "$TMP/rec.json" >"$TMP/topo.conf"
grep -q "^# topology.conf for topology/tree, written by qft from the QFT of PGFT($T)" "$TMP/topo.conf" &&
	ok "topology.conf names the QFT" || bad "topology.conf header: $(head -1 "$TMP/topo.conf")"
expect_eq "topology.conf level-2 records" "$(grep '^SwitchName=L2-' "$TMP/topo.conf")" \
	"SwitchName=L2-0 Switches=L1-[0-7] LinkSpeed=200
SwitchName=L2-1 Switches=L1-[8-15] LinkSpeed=200"
expect_eq "topology.conf top record" "$(grep '^SwitchName=L3-' "$TMP/topo.conf")" \
	"SwitchName=L3-0 Switches=L2-[0-1] LinkSpeed=200"
finish
