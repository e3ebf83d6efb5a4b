#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Degraded fabrics as normal input: with cables missing, `qft score` (the
# router's fallback rule) and `qft score --lft` over the tables `qft lft`
# exported give the same figures; a host whose cable is cut is loaded,
# named, and never placed; load errors name the file.
. "$(dirname "$0")/lib.sh"

"$QFT" gen pgft "2;18,18;1,18;1,1" -o "$TMP/f.json" 2>/dev/null
# cut N SEED [host]: removes N random spine cables (or one host cable and
# its position, as recognition leaves a detached host), into cut.json
cut() {
	python3 - "$TMP/f.json" "$TMP/cut.json" "$@" <<'PY'
import json, random, sys
f = json.load(open(sys.argv[1]))
rng = random.Random(int(sys.argv[4]))
hosts = {h["guid"]: h for h in f["hosts"]}
if len(sys.argv) > 5:  # a host cable: the host loses its position
    link = rng.choice([l for l in f["links"] if l[0] in hosts])
    for k in ("level", "index"):
        hosts[link[0]].pop(k)
    gone = [link]
    print(hosts[link[0]]["name"])
else:
    gone = rng.sample([l for l in f["links"] if l[0] not in hosts], int(sys.argv[3]))
f["links"] = [l for l in f["links"] if l not in gone]
json.dump(f, open(sys.argv[2], "w"))
PY
}
json_all() { python3 -c "import json,sys; d=json.load(sys.stdin); print((d$1))"; }

for n in 1 5 20; do
	cut "$n" "$n"
	"$QFT" lft --fabric "$TMP/cut.json" -o "$TMP/lft.dump"
	for hosts in all 'n[0001-0100]' 'n[0010-0045],n[0200-0230]'; do
		for order in tree random:3; do
			a=$("$QFT" score --fabric "$TMP/cut.json" --hosts "$hosts" --order "$order" --json |
				json_all '["avg_hsd"], d["max_hsd"], d["stages"]')
			b=$("$QFT" score --fabric "$TMP/cut.json" --hosts "$hosts" --order "$order" --json \
				--lft "$TMP/lft.dump" | json_all '["avg_hsd"], d["max_hsd"], d["stages"]')
			if [ -n "$a" ] && [ "$a" = "$b" ]; then
				ok "$n cables cut, $hosts $order: score = score --lft: $a"
			else
				bad "$n cables cut, $hosts $order: score '$a', score --lft '$b'"
			fi
		done
	done
done

# What the fallback costs: one cable cut between leaf i and spine k, the
# destinations whose traffic now shares a down-link (none on the whole
# tree). Into leaf i: host (i, k)'s traffic falls back to one other spine
# k' and comes down beside host (i, k')'s: 2. Out of leaf i: the traffic
# to host (m, k) of each of the 17 other leaves m falls back to k' and
# comes down beside host (m, k')'s: 34. 36 in all.
cut 1 11
lost=$("$QFT" info --fabric "$TMP/cut.json" | sed -n 's/^destinations sharing a down-link \([0-9]*\) of 324$/\1/p')
expect_eq "one spine cable cut: destinations sharing a down-link" "$lost" 36
if "$QFT" info --fabric "$TMP/f.json" | grep -q 'sharing a down-link'; then
	bad "the whole tree reports destinations sharing a down-link"
else
	ok "the whole tree: no destination shares a down-link"
fi

# A host whose cable is cut: loaded, named, never placed, unroutable.
host=$(cut 1 7 host)
out=$("$QFT" info --fabric "$TMP/cut.json" 2>&1)
expect_eq "info on a fabric with a detached host exits" "$?" 0
printf '%s' "$out" | grep -qF "cut.json: host $host has no tree position" &&
	ok "info names $host" || bad "info does not name $host: $out"
placed=$("$QFT" place --fabric "$TMP/cut.json" --nodes 323 | sed -n 's/^placed 323 nodes: //p')
python3 - "$TMP/cut.json" "$placed" "$host" <<'PY' && ok "323 nodes placed without $host" || bad "placement: $placed"
import json, sys
sys.exit(0 if sys.argv[2] and sys.argv[3] not in sys.argv[2] else 1)
PY
out=$("$QFT" place --fabric "$TMP/cut.json" --nodes 324)
expect_eq "324 nodes: never (exit 3): $out" "$?" 3
expect_fail 1 "$host" -- "$QFT" score --fabric "$TMP/cut.json" --hosts all

# Load errors name the file (two hosts at one tree position).
python3 - "$TMP/f.json" "$TMP/dup.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
f["hosts"][1]["index"] = f["hosts"][0]["index"]
json.dump(f, open(sys.argv[2], "w"))
PY
expect_fail 1 "dup.json: " -- "$QFT" info --fabric "$TMP/dup.json"
finish
