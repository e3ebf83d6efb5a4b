#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# qft lid and qft score --lid/--lmc: seed 001's 18-host example (6 leaves
# of 3, 3 roots) and a 16-host scattered job on PGFT(2;18,18;1,18;1,1),
# the table text, the LID space check and the errors.
. "$(dirname "$0")/lib.sh"

"$QFT" gen pgft "2;3,6;1,3;1,1" --lmc 2 -o "$TMP/s.json" 2>/dev/null
"$QFT" gen pgft "2;18,18;1,18;1,1" --lmc 2 -o "$TMP/f.json" 2>/dev/null
"$QFT" gen pgft "2;18,18;1,18;1,1" -o "$TMP/f0.json" 2>/dev/null
score() { "$QFT" score --json "$@" | json_get '["avg_hsd"]'; }
# Seed 001 section 3.1: N3, N5, N6, N9 (n0004 ...) congest on one LID.
seed=n0004,n0006,n0007,n0010
expect_eq "seed 001 example, one LID" "$(score --fabric "$TMP/s.json" --hosts $seed | cut -c1-4)" 1.33
for m in dest pair; do
	expect_eq "seed 001 example, --lid $m" "$(score --fabric "$TMP/s.json" --hosts $seed --lid $m)" 1.0
done
job="n[0019-0023,0037-0041,0055-0060]"
expect_eq "16 scattered, one LID" "$(score --fabric "$TMP/f.json" --hosts "$job" | cut -c1-5)" 1.333
expect_eq "16 scattered, --lid pair" "$(score --fabric "$TMP/f.json" --hosts "$job" --lid pair)" 1.0
expect_eq "16 scattered, --lid job (a renaming of the roots)" \
	"$(score --fabric "$TMP/f.json" --hosts "$job" --lid job | cut -c1-5)" 1.333
expect_eq "--lid stripe" "$("$QFT" score --fabric "$TMP/f.json" --hosts "$job" --lid stripe | sed -n 's/^hsd_avg //p')" 1.0833
# The table: header, hosts in tree order with base LIDs ((j + 1) << LMC as
# qft gen assigns them: n0019 is j = 18, 76), 16 rows of offsets.
"$QFT" lid --fabric "$TMP/f.json" --hosts "$job" --choice pair -o "$TMP/t.lid" 2>"$TMP/lid.err"
expect_eq "table head" "$(sed -n 1,5p "$TMP/t.lid" | paste -sd' ')" "qft-lid 1 lmc 2 choice pair hosts 16 host n0019 0x004c 0"
expect_eq "table rows" "$(sed -n '/^pairs$/,/^end$/p' "$TMP/t.lid" | grep -c '^[0-3]\{16\}$')" 16
expect_eq "table ends" "$(tail -1 "$TMP/t.lid")" end
expect_eq "the prediction on stderr" "$(cat "$TMP/lid.err")" \
	"qft lid: pair, LMC 2, 16 hosts: shift HSD 1.000 avg, 1.000 worst, 0 of 15 stages congested"
expect_eq "--compare lists one LID and four choices" \
	"$("$QFT" lid --fabric "$TMP/f.json" --hosts "$job" --compare | awk 'NR > 2 {print $1}' | paste -sd,)" \
	"one-lid,job,dest,pair,stripe"
# --lmc: LIDs of an LMC-0 fabric are not aligned; LMC 2 ones take --lmc 1.
expect_fail 1 "n0001: base LID 1 is not a multiple of 2^LMC = 4" -- \
	"$QFT" score --fabric "$TMP/f0.json" --hosts "$job" --lmc 2
# Two offsets help too (the ejection chains of lib/lid/pair_search.cpp
# reach 1.0 here; the search before them stopped above it).
expect_eq "--lmc 1 on LMC-2 LIDs: pair below one LID" "$(score --fabric "$TMP/f.json" --hosts "$job" --lmc 1 --lid pair |
	python3 -c 'import sys; print(1.0 <= float(sys.stdin.read()) < 1.333)')" True
expect_fail 1 "the largest LMC that fits is 4" -- \
	"$QFT" gen pgft "3;18,18,6;1,18,6;1,1,3" --lmc 5 -o "$TMP/big.json"
expect_fail 1 "expected job, dest, pair or stripe" -- \
	"$QFT" lid --fabric "$TMP/f.json" --hosts "$job" --choice best
expect_fail 2 "not with --lid-offset" -- \
	"$QFT" score --fabric "$TMP/f.json" --hosts "$job" --lid pair --lid-offset 1
expect_fail 2 "--lid stripe scores one job" -- \
	"$QFT" score --fabric "$TMP/f.json" --hosts "$job" --lid stripe --json
# qft place --path-pressure (qft.conf PathPressure=yes): beside a job that
# spans leaves 0 and 1 and two jobs inside leaves 2 and 3, 4 nodes (no
# leaf holds them) go to leaves 2 and 3, whose running jobs send nothing
# out; without it, the tightest fit in leaves 0 and 1.
"$QFT" gen pgft "2;4,4;1,4;1,1" --lmc 2 -o "$TMP/p.json" 2>/dev/null
"$QFT" gen pgft "2;4,4;1,4;1,1" -o "$TMP/p0.json" 2>/dev/null
printf 'n[0001-0002,0005-0006]\nn[0009-0010]\nn[0013-0014]\n' >"$TMP/running"
placed() { "$QFT" place --fabric "$TMP/p.json" --running "$TMP/running" --nodes 4 "$@" | sed -n 's/^placed 4 nodes: //p'; }
expect_eq "place, the tightest fit" "$(placed)" "n[0003-0004,0007-0008]"
expect_eq "place --path-pressure, the quietest leaves" "$(placed --path-pressure)" "n[0011-0012,0015-0016]"
expect_eq "--explain gives each candidate's pressure" \
	"$("$QFT" place --fabric "$TMP/p.json" --running "$TMP/running" --nodes 4 --path-pressure --explain |
		grep -o 'quietest subtrees.*path pressure [0-9.]*\|path pressure [0-9.]*' | sed 's/.*path pressure //' | paste -sd,)" "0.00,2.00"
# --candidate-hosts: every candidate's hosts, best first (the first is the
# one placed), for contribs/bench/place-beside.py to score again.
expect_eq "--candidate-hosts lists the candidates, the one placed first" \
	"$("$QFT" place --fabric "$TMP/p.json" --running "$TMP/running" --nodes 4 --path-pressure --candidate-hosts |
		sed -n 's/^candidate \([0-9]*\): /\1 /p' | paste -sd,)" "1 n[0011-0012,0015-0016],2 n[0003-0004,0007-0008]"
expect_fail 2 "the fabric has LMC 0" -- \
	"$QFT" place --fabric "$TMP/p0.json" --running "$TMP/running" --nodes 4 --path-pressure
# qft place --whole-leaves (qft.conf WholeLeaves=yes): leaves of 4, pods of
# 2 leaves; beside a job in leaf 0 and one in leaves 3 and 5, 12 nodes go
# to whole free leaves 1, 2 and 4 (two pods), where the base-LID HSD alone
# prefers a best fit with two leaves in part.
"$QFT" gen pgft "3;4,2,3;1,4,2;1,1,1" --lmc 2 -o "$TMP/w.json" 2>/dev/null
printf 'n0004\nn[0013,0021]\n' >"$TMP/running-w"
whole() { "$QFT" place --fabric "$TMP/w.json" --running "$TMP/running-w" --nodes 12 "$@"; }
expect_eq "place --whole-leaves, whole free leaves" \
	"$(whole --whole-leaves | sed -n 's/^placed 12 nodes: //p')" "n[0005-0012,0017-0020]"
expect_eq "place without it, the best fit" \
	"$(whole | grep -c 'in whole free leaves')" "0"
expect_eq "--explain gives each candidate's leaves in part" \
	"$(whole --whole-leaves --explain | grep -o '[0-9]* leaves in part' | paste -sd,)" \
	"0 leaves in part,2 leaves in part"
expect_fail 2 "the fabric has LMC 0" -- \
	"$QFT" place --fabric "$TMP/p0.json" --running "$TMP/running" --nodes 4 --whole-leaves
finish
