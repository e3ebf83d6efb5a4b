#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# qft import ibnetdiscover / qft recognise: real ibnetdiscover output (from
# ibsim, tests/data/ib) gives back the generated tuple and every node's
# position; removed cables are listed exactly; bad input is named.
. "$(dirname "$0")/lib.sh"
DATA=$QFT_SRCDIR/tests/data/ib

# Same tuple and the same position (level, index) for every GUID.
same_positions() {
	python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
pos = lambda f: {n["guid"]: (n.get("level"), n.get("index")) for k in ("switches", "hosts") for n in f[k]}
sys.exit(0 if a["tree"] == b["tree"] and pos(a) == pos(b) else 1)
PY
}

for d in pgft-2-4 pgft-3-4-4-2 pgft-2-6; do
	"$QFT" import ibnetdiscover "$DATA/$d/ibnetdiscover.txt" -o "$TMP/$d.json" 2>"$TMP/$d.err"
	expect_eq "$d import exit" "$?" 0
	same_positions "$TMP/$d.json" "$DATA/$d/fabric.json" &&
		ok "$d: ibnetdiscover -> recognise gives the generated tuple and positions" ||
		bad "$d: positions differ"
done
"$QFT" import ibnetdiscover "$DATA/pgft-2-4/ibnetdiscover-lmc2.txt" -o "$TMP/lmc2.json" 2>/dev/null
expect_eq "LMC from ibnetdiscover" "$(json_get '["lmc"]' <"$TMP/lmc2.json")" 2
expect_eq "link rate from ibnetdiscover" "$(json_get '["links"][0][4:]' <"$TMP/pgft-2-4.json")" "['4x', 'HDR']"
# scoring works on the imported fabric
expect_eq "imported fabric scores" \
	"$("$QFT" score --fabric "$TMP/pgft-3-4-4-2.json" --hosts all --json | json_get '["max_hsd"]')" 1

# Recognition of a generated tree with shuffled records and cut cables.
"$QFT" gen pgft "3;18,18,6;1,18,6;1,1,3" -o "$TMP/big.json" 2>/dev/null
cut() { # cut N SEED: removes N random cables and the annotation
	python3 - "$TMP/big.json" "$TMP/cut.json" "$1" "$2" >"$TMP/removed" <<'PY'
import json, random, sys
f = json.load(open(sys.argv[1]))
rng = random.Random(int(sys.argv[4]))
gone = set(rng.sample(range(len(f["links"])), int(sys.argv[3])))
removed = [l for i, l in enumerate(f["links"]) if i in gone]
f["links"] = [l for i, l in enumerate(f["links"]) if i not in gone]
del f["tree"]
for k in ("switches", "hosts"):
    for n in f[k]:
        n.pop("level"); n.pop("index")
    rng.shuffle(f[k])  # record order must not matter
json.dump(f, open(sys.argv[2], "w"))
hosts = {h["guid"] for h in f["hosts"]}
for a, _, b, _, _, _ in removed:
    print("host" if a in hosts or b in hosts else "switch", *sorted((a, b)))
PY
}
for n in 1 5 20; do
	cut "$n" "$n"
	"$QFT" recognise "$TMP/cut.json" --json -o "$TMP/rec.json" >"$TMP/rec.report"
	expect_eq "$n cut: tuple" "$(json_get '["tree"]' <"$TMP/rec.report")" "3;18,18,6;1,18,6;1,1,3"
	python3 - "$TMP/rec.report" "$TMP/removed" <<'PY' && ok "$n cut: exactly the removed cables are reported" || bad "$n cut: report differs"
import json, sys
r = json.load(open(sys.argv[1]))
rem = [l.split() for l in open(sys.argv[2])]
want = sorted((a, b) for k, a, b in rem if k == "switch")
got = sorted(tuple(sorted((c["lower_guid"], c["upper_guid"]))) for c in r["missing_cables"])
hosts = sorted(a if a.startswith("0x0002c903") else b for k, a, b in rem if k == "host")
gone = sorted(d.split()[1].rstrip(":") for d in r["detached"])
sys.exit(0 if want == got and hosts == gone and r["absent_hosts"] == len(hosts) else 1)
PY
done
# positions of an uncut, shuffled file equal the generator's
cut 0 3
"$QFT" recognise "$TMP/cut.json" -o "$TMP/rec0.json" >/dev/null
same_positions "$TMP/rec0.json" "$TMP/big.json" && ok "shuffled records: generator positions" || bad "shuffled records: positions differ"

# Host naming: a regex with one group.
"$QFT" import ibnetdiscover "$DATA/pgft-2-4/ibnetdiscover.txt" --names '^n0*([0-9]+) HCA-1$' -o "$TMP/re.json" 2>/dev/null
expect_eq "names from a regex" "$(json_get '["hosts"][0]["name"]' <"$TMP/re.json")" \
	"$(json_get '["hosts"][0]["desc"].split()[0].lstrip("n0")' <"$TMP/pgft-2-4.json")"
"$QFT" import ibnetdiscover "$DATA/pgft-2-4/ibnetdiscover.txt" --names '^(x.*)$' -o "$TMP/none.json" 2>"$TMP/none.err"
grep -q "the description gives no Slurm name" "$TMP/none.err" && ok "unnamed hosts are reported" || bad "no unnamed warning"

# Bad input: file and line named.
IBN=$DATA/pgft-2-4/ibnetdiscover.txt
expect_fail 1 "expected exactly one capture group" -- "$QFT" import ibnetdiscover "$IBN" --names 'n.*'
head -n 14 "$IBN" >"$TMP/trunc.txt"
expect_fail 1 "has no Switch or Ca record" -- "$QFT" import ibnetdiscover "$TMP/trunc.txt"
sed '12s/\[2\]/[99]/' "$IBN" >"$TMP/port.txt"
expect_fail 1 "port.txt:12: expected a port number in 1..8" -- "$QFT" import ibnetdiscover "$TMP/port.txt"
sed '12s/"H-/H-/' "$IBN" >"$TMP/quote.txt"
expect_fail 1 "quote.txt:12: expected" -- "$QFT" import ibnetdiscover "$TMP/quote.txt"
sed '12s/4xHDR/fast/' "$IBN" >"$TMP/rate.txt"
expect_fail 1 "rate.txt:12: expected the link rate such as 4xHDR" -- "$QFT" import ibnetdiscover "$TMP/rate.txt"
sed '12i garbage here' "$IBN" >"$TMP/garbage.txt"
expect_fail 1 "garbage.txt:12: expected a Switch, Ca or [port] line" -- "$QFT" import ibnetdiscover "$TMP/garbage.txt"
guid=$(sed -n 's/^switchguid=\(0x[0-9a-f]*\)(.*/\1/p' "$IBN" | head -2)
sed "s/^switchguid=$(echo "$guid" | sed -n 2p)/switchguid=$(echo "$guid" | sed -n 1p)/" "$IBN" >"$TMP/dup.txt"
expect_fail 1 "duplicate GUID" -- "$QFT" import ibnetdiscover "$TMP/dup.txt"
sed '12s/\[1\](/[2](/' "$IBN" >"$TMP/disagree.txt"
expect_fail 1 "disagree.txt:" -- "$QFT" import ibnetdiscover "$TMP/disagree.txt"
: >"$TMP/empty.txt"
expect_fail 1 "no Switch or Ca records" -- "$QFT" import ibnetdiscover "$TMP/empty.txt"
expect_fail 1 "cannot open" -- "$QFT" import ibnetdiscover "$TMP/nope.txt"
# Not a fat tree: two leaves cabled to each other.
python3 - "$TMP/pgft-2-4.json" "$TMP/ring.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
leaves = [s["guid"] for s in f["switches"] if s["desc"].startswith("qft L1")]
f["links"] = [l for l in f["links"] if not (l[0] == leaves[0] and l[1] == 8)]
f["links"] = [l for l in f["links"] if not (l[0] == leaves[1] and l[1] == 8)]
f["links"].append([leaves[0], 8, leaves[1], 8, "4x", "HDR"])
json.dump(f, open(sys.argv[2], "w"))
PY
expect_fail 1 "not a fat tree: cable" -- "$QFT" recognise "$TMP/ring.json"
finish
