#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# qft gen qft: the Quasi Fat Tree of a PGFT tuple, its files, and its
# closed-form routing through the tool (shorter paths than the PGFT's).
. "$(dirname "$0")/lib.sh"

T="3;8,4,4;1,4,4;1,2,2"
"$QFT" gen qft "$T" -o "$TMP/q.json" --ibsim "$TMP/q.net" 2>"$TMP/gen.err"
expect_eq "gen qft exit" "$?" 0
grep -q "QFT of PGFT($T): 128 hosts, 48 switches" "$TMP/gen.err" && ok "gen qft summary" ||
	bad "gen qft summary: $(cat "$TMP/gen.err")"
expect_eq "tree_kind in JSON" "$(json_get '["tree_kind"]' <"$TMP/q.json")" qft
expect_eq "links in JSON" "$(json_get '["links"].__len__()' <"$TMP/q.json")" 384
expect_eq "Switch records in net" "$(grep -c '^Switch' "$TMP/q.net")" 48
grep -q "^# ibsim net file written by qft (slurm-qft) for the QFT of PGFT($T)" "$TMP/q.net" &&
	ok "net header names the QFT" || bad "net header: $(head -1 "$TMP/q.net")"

"$QFT" info --fabric "$TMP/q.json" >"$TMP/info"
grep -q "^tree QFT of PGFT($T)$" "$TMP/info" && ok "info says QFT" || bad "info: $(cat "$TMP/info")"
grep -q "^missing cables 0$" "$TMP/info" && ok "QFT cables read back" || bad "info missing"

# n0001 and n0064 share a level-2 side group: 4 hops on the QFT, 6 on the PGFT
"$QFT" gen pgft "$T" -o "$TMP/p.json" 2>/dev/null
hops() { "$QFT" route --fabric "$1" --src n0001 --dst n0064 | grep -c '^ *[0-9]'; }
expect_eq "QFT route hops" "$(hops "$TMP/q.json")" 4
expect_eq "PGFT route hops" "$(hops "$TMP/p.json")" 6
"$QFT" route --fabric "$TMP/q.json" --src n0001 --dst n0064 | grep -q "routing qft" &&
	ok "dmodk on a QFT routes by the QFT closed form" || bad "routing name"

score() { "$QFT" score --fabric "$TMP/q.json" --json "$@"; }
expect_eq "full shift on the QFT" "$(score --hosts all | json_get '["avg_hsd"]')" 1.0
expect_eq "full shift stages" "$(score --hosts all | json_get '["stages"]')" 127

expect_fail 1 "p2 = 2 does not divide m3 = 3" -- "$QFT" gen qft "3;4,2,3;1,2,2;1,2,1" -o "$TMP/x.json"
expect_fail 2 "expected: gen pgft TUPLE or gen qft TUPLE" -- "$QFT" gen xgft "$T"
finish
