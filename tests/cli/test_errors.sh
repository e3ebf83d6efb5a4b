#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad input: a clear message and a non-zero exit, never a crash.
. "$(dirname "$0")/lib.sh"

"$QFT" gen pgft "2;4,4;1,4;1,1" -o "$TMP/f.json" 2>/dev/null

# malformed and non-RLFT tuples
expect_fail 1 "character 3: expected" -- "$QFT" gen pgft "2;x;1;1"
expect_fail 1 "has 1 values, expected h = 2" -- "$QFT" gen pgft "2;4;1,4;1,1"
expect_fail 1 "m_1 = 0, expected at least 1" -- "$QFT" gen pgft "2;0,4;1,4;1,1"
expect_fail 1 "needs 400 ports" -- "$QFT" gen pgft "2;200,200;1,200;1,1"
expect_fail 1 "not an RLFT" -- "$QFT" gen pgft "2;4,4;1,4;1,2" --require-rlft
expect_fail 1 "expected one number conversion" -- "$QFT" gen pgft "2;4,4;1,4;1,1" --names node
expect_fail 2 "expected: gen pgft TUPLE" -- "$QFT" gen xgft "2;4,4;1,4;1,1"

# host lists
expect_fail 1 "2 host(s) not in the fabric: x[1-2]" -- "$QFT" score --fabric "$TMP/f.json" --hosts "n0001,x1,x2"
expect_fail 1 "host list is empty" -- "$QFT" score --fabric "$TMP/f.json" --hosts ""
expect_fail 1 "n0002 is listed twice" -- "$QFT" score --fabric "$TMP/f.json" --hosts "n[0001-0003],n0002"
expect_fail 1 "closing ']'" -- "$QFT" score --fabric "$TMP/f.json" --hosts "n[0001-0003"
: >"$TMP/empty"
expect_fail 1 "no host names in the file" -- "$QFT" score --fabric "$TMP/f.json" --hosts "@$TMP/empty"
printf 'n0001\nn[3-\n' >"$TMP/badlist"
expect_fail 1 "badlist:2: host list" -- "$QFT" score --fabric "$TMP/f.json" --hosts "@$TMP/badlist"
expect_fail 1 "rank order \"sorted\"" -- "$QFT" score --fabric "$TMP/f.json" --hosts all --order sorted
expect_fail 1 "pattern \"alltoall\": expected one of" -- "$QFT" score --fabric "$TMP/f.json" --hosts all --pattern alltoall

# fabric files
expect_fail 1 "cannot open" -- "$QFT" info --fabric "$TMP/missing.json"
printf '{"format": "slurm-qft-fabric",\n "version": 1,\n "switches": [,]}\n' >"$TMP/syntax.json"
expect_fail 1 "syntax.json:3:" -- "$QFT" info --fabric "$TMP/syntax.json"
head -c 2000 "$TMP/f.json" >"$TMP/truncated.json"
expect_fail 1 "truncated.json:" -- "$QFT" info --fabric "$TMP/truncated.json"
sed 's/"lid":1,/"lid":-1,/' "$TMP/f.json" >"$TMP/neg.json"
expect_fail 1 "hosts[0].lid: expected an integer" -- "$QFT" info --fabric "$TMP/neg.json"
: >"$TMP/zero.json"
expect_fail 1 "zero.json:" -- "$QFT" info --fabric "$TMP/zero.json"

# command line
expect_fail 2 "unknown command" -- "$QFT" frobnicate
expect_fail 2 "unknown option --bogus" -- "$QFT" score --fabric "$TMP/f.json" --bogus
expect_fail 2 "option --fabric is required" -- "$QFT" score --hosts all
expect_fail 2 "give exactly one of --hosts, --jobs and --batch" -- "$QFT" score --fabric "$TMP/f.json"
expect_fail 2 "expected a number in 0..127" -- "$QFT" route --fabric "$TMP/f.json" --src n0001 --dst n0002 --lid-offset 999
expect_fail 1 "LID offset 1, expected 0..0" -- "$QFT" route --fabric "$TMP/f.json" --src n0001 --dst n0009 --lid-offset 1
expect_fail 1 "host nx is not in the fabric" -- "$QFT" route --fabric "$TMP/f.json" --src nx --dst n0002
finish
