#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# qft gen / info / order: files written, counts, tree order of shuffled names.
. "$(dirname "$0")/lib.sh"

"$QFT" gen pgft "3;18,18,6;1,18,6;1,1,3" -o "$TMP/f.json" --ibsim "$TMP/f.net" 2>"$TMP/gen.err"
expect_eq "gen exit" "$?" 0
grep -q "1944 hosts, 324 switches, block 108" "$TMP/gen.err" && ok "gen summary" || bad "gen summary: $(cat "$TMP/gen.err")"
grep -q "warning: PGFT(3;18,18,6;1,18,6;1,1,3) is not an RLFT" "$TMP/gen.err" && ok "RLFT warning" || bad "no RLFT warning"
expect_eq "hosts in JSON" "$(json_get '["hosts"].__len__()' <"$TMP/f.json")" 1944
expect_eq "links in JSON" "$(json_get '["links"].__len__()' <"$TMP/f.json")" $((1944 * 3))
expect_eq "Ca records in net" "$(grep -c '^Ca' "$TMP/f.net")" 1944
expect_eq "Switch records in net" "$(grep -c '^Switch' "$TMP/f.net")" 324
# every cable appears at both ends in the net file
expect_eq "port lines in net" "$(grep -c '^\[' "$TMP/f.net")" $((2 * 1944 * 3))

"$QFT" info --fabric "$TMP/f.json" >"$TMP/info"
grep -q "^tree PGFT(3;18,18,6;1,18,6;1,1,3)$" "$TMP/info" && ok "info tuple" || bad "info: $(cat "$TMP/info")"
grep -q "^missing cables 0$" "$TMP/info" && ok "info no missing cables" || bad "info missing"

# An RLFT gives no warning; --require-rlft refuses a non-RLFT.
"$QFT" gen pgft "2;18,18;1,9;1,2" -o "$TMP/r.json" 2>"$TMP/r.err"
grep -q warning "$TMP/r.err" && bad "RLFT warned" || ok "RLFT 2;18,18;1,9;1,2 accepted silently"
expect_fail 1 "bisection is not constant at level 1" -- "$QFT" gen pgft "2;12,12;1,12;1,2" --require-rlft -o "$TMP/x.json"

# Names shuffled against the tree: qft order still gives tree order.
"$QFT" gen pgft "2;4,4;1,4;1,1" --shuffle-names 3 -o "$TMP/s.json" 2>/dev/null
first_leaf=$(python3 -c "
import json; f=json.load(open('$TMP/s.json'))
print(','.join(h['name'] for h in sorted(f['hosts'], key=lambda h: h['index'])[:4]))")
reversed=$(echo "$first_leaf" | tr ',' '\n' | tac | paste -sd,)
got=$("$QFT" order --fabric "$TMP/s.json" --hosts "$reversed" 2>/dev/null | paste -sd,)
expect_eq "tree order of a shuffled leaf" "$got" "$first_leaf"
[ "$first_leaf" != "n0001,n0002,n0003,n0004" ] && ok "names are shuffled" || bad "names not shuffled"

# order reports alignment
"$QFT" order --fabric "$TMP/f.json" --hosts "n[0109-0324]" --hostlist >"$TMP/o" 2>"$TMP/o.err"
expect_eq "order hostlist" "$(cat "$TMP/o")" "n[0109-0324]"
grep -q "a multiple of the block, contiguous and aligned" "$TMP/o.err" && ok "aligned" || bad "alignment: $(cat "$TMP/o.err")"

# route prints the hops: up to the top and down, 6 links across subtrees
"$QFT" route --fabric "$TMP/f.json" --src n0001 --dst n1944 >"$TMP/route"
expect_eq "route hops" "$(grep -c '^ *[0-9]' "$TMP/route")" 6
expect_eq "route up hops" "$(grep -c ' up ' "$TMP/route")" 3
# topology.conf for stock topology/tree: one switch per subtree
"$QFT" topology-conf --fabric "$TMP/f.json" -o "$TMP/topology.conf"
expect_eq "topology.conf switches" "$(grep -c '^SwitchName=' "$TMP/topology.conf")" $((108 + 6 + 1))
expect_eq "topology.conf top" "$(grep '^SwitchName=L3-0 ' "$TMP/topology.conf")" "SwitchName=L3-0 Switches=L2-[0-5] LinkSpeed=200"
expect_eq "topology.conf first leaf" "$(grep '^SwitchName=L1-0 ' "$TMP/topology.conf")" "SwitchName=L1-0 Nodes=n[0001-0018] LinkSpeed=200"
# topology.conf for 24.11's topology/block: a base block per leaf in tree
# order, BlockSizes only for aggregates that tile every subtree (18 leaves
# per pod: 1 and 2 leaves)
"$QFT" topology-conf --block --fabric "$TMP/f.json" -o "$TMP/block.conf"
expect_eq "block.conf blocks" "$(grep -c '^BlockName=' "$TMP/block.conf")" 108
expect_eq "block.conf first and last" "$(grep '^BlockName=' "$TMP/block.conf" | sed -n '1p;$p' | paste -sd' ')" \
	"BlockName=L1-0 Nodes=n[0001-0018] BlockName=L1-107 Nodes=n[1927-1944]"
expect_eq "block.conf sizes (1944 tree)" "$(grep '^BlockSizes=' "$TMP/block.conf")" "BlockSizes=18,36"
"$QFT" gen pgft "3;8,16,4;1,8,4;1,1,1" -o "$TMP/p2.json" 2>/dev/null
expect_eq "block.conf sizes (16 leaves per pod, 4 pods)" \
	"$("$QFT" topology-conf --block --fabric "$TMP/p2.json" | grep '^BlockSizes=')" "BlockSizes=8,16,32,64,128,256,512"
# a host gone from leaf 3 (as discovery sees a cut host cable): that
# block is smaller, and so is the base
python3 - "$TMP/f.json" "$TMP/cut.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
gone = next(h["guid"] for h in f["hosts"] if h["name"] == "n0060")
f["links"] = [l for l in f["links"] if gone not in (l[0], l[2])]
f["hosts"] = [h for h in f["hosts"] if h["guid"] != gone]
json.dump(f, open(sys.argv[2], "w"))
PY
"$QFT" topology-conf --block --fabric "$TMP/cut.json" -o "$TMP/cut.conf" 2>/dev/null
expect_eq "block.conf with a cut host: its leaf" "$(grep '^BlockName=L1-3 ' "$TMP/cut.conf")" \
	"BlockName=L1-3 Nodes=n[0055-0059,0061-0072]"
expect_eq "block.conf with a cut host: base 17" "$(grep '^BlockSizes=' "$TMP/cut.conf")" "BlockSizes=17,34"
finish
