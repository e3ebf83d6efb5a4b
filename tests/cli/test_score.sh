#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# qft score: the figures of seed 000 through the tool, text and JSON.
. "$(dirname "$0")/lib.sh"

"$QFT" gen pgft "2;18,18;1,18;1,1" -o "$TMP/f.json" 2>/dev/null
score() { "$QFT" score --fabric "$TMP/f.json" --json "$@"; }

expect_eq "full shift, tree order" "$(score --hosts all | json_get '["avg_hsd"]')" 1.0
expect_eq "full shift stages" "$(score --hosts all | json_get '["stages"]')" 323
expect_eq "random order max" "$(score --hosts all --order random:1 | json_get '["max_hsd"]')" 6
expect_eq "recdbl-tree" "$(score --hosts all --pattern recdbl-tree | json_get '["max_hsd"]')" 1
expect_eq "aligned 2 blocks" "$(score --hosts 'n[0037-0072]' | json_get '["max_hsd"]')" 1
expect_eq "100 from 0" "$(score --hosts 'n[0001-0100]' | json_get '["max_hsd"]')" 2
# Given order: two leaf-0 hosts whose partners share a residue mod 18.
expect_eq "given order, shared up-port" \
	"$(score --hosts n0001,n0002,n0019,n0037 --order given | json_get '["max_hsd"]')" 2
expect_eq "bisection bandwidth reported" \
	"$(score --hosts all --pattern bisect:20:5 | json_get '["bandwidth"] < 1')" True

# Several jobs in lock-step, from a file.
cat >"$TMP/jobs" <<JOBS
# two aligned jobs, then a third
n[0001-0036]
n[0055-0108]   # 54 hosts
n[0200-0217]
JOBS
expect_eq "3 aligned jobs together" "$(score --jobs "$TMP/jobs" | json_get '["max_hsd"]')" 1
expect_eq "jobs counted" "$(score --jobs "$TMP/jobs" | json_get '["jobs"]')" 3
# Jobs on their own leaves meet only above them: two jobs of one leaf each
# share no link going up or down... unless a spine carries both.
printf 'n[0001-0018]\nn[0019-0036]\n' >"$TMP/two"
expect_eq "shared links of two whole leaves" "$(score --jobs "$TMP/two" | json_get '["shared_links"]')" 0
printf 'n[0001-0009]\nn[0010-0018]\n' >"$TMP/half"
expect_eq "halves of one leaf share no link (traffic stays in the leaf)" "$(score --jobs "$TMP/half" | json_get '["shared_links"]')" 0
printf 'n[0001-0009,0019-0027]\nn[0010-0018,0037-0045]\n' >"$TMP/mixed"
expect_eq "jobs whose partners share residues mod 18 share leaf up-links" "$(score --jobs "$TMP/mixed" | json_get '["shared_links"] > 0')" True
printf 'n[0001-0010]\nn[0005-0012]\n' >"$TMP/overlap"
expect_fail 1 "host n0005 is in job 1 and job 2" -- "$QFT" score --fabric "$TMP/f.json" --jobs "$TMP/overlap"

# Text output names the worst links.
"$QFT" score --fabric "$TMP/f.json" --hosts all --order random:2 >"$TMP/text"
grep -q "^average HSD " "$TMP/text" && ok "text average" || bad "text: $(cat "$TMP/text")"
grep -q "flows, .* stage(s)" "$TMP/text" && ok "text worst links" || bad "no worst links"

# Host file with @
"$QFT" order --fabric "$TMP/f.json" --hosts 'n[0019-0036]' 2>/dev/null >"$TMP/hostfile"
expect_eq "hostfile score" "$(score --hosts "@$TMP/hostfile" | json_get '["hosts"]')" 18

# LMC: every offset routes, a uniform offset keeps Shift congestion-free.
"$QFT" gen pgft "2;12,12;1,12;1,1" --lmc 2 -o "$TMP/l.json" 2>/dev/null
for k in 0 1 2 3; do
	expect_eq "lmc 2 offset $k" "$("$QFT" score --fabric "$TMP/l.json" --hosts all --lid-offset $k --json | json_get '["max_hsd"]')" 1
done
root0=$("$QFT" route --fabric "$TMP/l.json" --src n0001 --dst n0101 --lid-offset 0 | sed -n 3p)
root1=$("$QFT" route --fabric "$TMP/l.json" --src n0001 --dst n0101 --lid-offset 1 | sed -n 3p)
[ "$root0" != "$root1" ] && ok "offset 1 takes another root" || bad "same root: $root0"

# --batch: groups separated by blank lines, one JSON object per line, each
# equal to the separate call (--hosts for a group of one, --jobs else).
cat >"$TMP/batch" <<'JOBS'
n[0001-0100]

# a comment line does not end a group
n[0001-0009,0019-0027]
n[0010-0018,0037-0045]   # shares leaf up-links with the job above


n[0019-0036]
n[0200-0217],n0300
JOBS
for order in tree random:4; do
	"$QFT" score --fabric "$TMP/f.json" --json --order $order --batch "$TMP/batch" >"$TMP/batch.$order"
	{
		score --order $order --hosts 'n[0001-0100]'
		printf 'n[0001-0009,0019-0027]\nn[0010-0018,0037-0045]\n' >"$TMP/g2"
		score --order $order --jobs "$TMP/g2"
		printf 'n[0019-0036]\nn[0200-0217],n0300\n' >"$TMP/g3"
		score --order $order --jobs "$TMP/g3"
	} >"$TMP/separate.$order"
	expect_eq "batch ($order): 3 groups, 3 lines" "$(wc -l <"$TMP/batch.$order")" 3
	expect_eq "batch ($order) = separate calls" "$(python3 - "$TMP/batch.$order" "$TMP/separate.$order" <<'PY'
import json, sys
batch = [json.loads(line) for line in open(sys.argv[1])]
dec, text, sep = json.JSONDecoder(), open(sys.argv[2]).read(), []
i = 0
while text[i:].strip():
    obj, i = dec.raw_decode(text, len(text) - len(text[i:].lstrip()))
    sep.append(obj)
print(batch == sep and len(sep) == 3 and batch[1]["shared_links"] > 0)
PY
)" True
done
printf 'n[0001-0018]\n\nn[0001-0018]\nn0900\n' >"$TMP/badbatch"
expect_fail 1 "badbatch:4: " -- "$QFT" score --fabric "$TMP/f.json" --json --batch "$TMP/badbatch"
printf 'n[0001-0010]\nn[0005-0012]\n' >"$TMP/overbatch"
expect_fail 1 "overbatch:2: host n0005 is in job 1 and job 2" -- "$QFT" score --fabric "$TMP/f.json" --batch "$TMP/overbatch"
printf '\n# nothing\n\n' >"$TMP/emptybatch"
expect_fail 1 "no jobs" -- "$QFT" score --fabric "$TMP/f.json" --batch "$TMP/emptybatch"
expect_fail 2 "not --batch" -- "$QFT" score --fabric "$TMP/f.json" --batch "$TMP/batch" --flows "$TMP/fl"

# --batch --lid: the jobs of a group choose their offsets in the order
# listed, each beside those before it, then the group is scored together.
# Two jobs of 16 hosts scattered over three leaves each (leaves 2-4 and
# 6-8, no link in common) congest on one LID (1.333 each, seed 001's
# unequal leaves); LMC 2 gives every destination 4 paths and per pair
# both reach 1.0. A group of one is the job alone.
"$QFT" gen pgft "2;18,18;1,18;1,1" --lmc 2 -o "$TMP/l2.json" 2>/dev/null
cat >"$TMP/lidbatch" <<'JOBS'
n[0019-0023,0037-0041,0055-0060]
n[0091-0095,0109-0113,0127-0132]

n[0019-0023,0037-0041,0055-0060]
JOBS
lidbatch() { "$QFT" score --fabric "$TMP/l2.json" --json --per-job --batch "$TMP/lidbatch" "$@"; }
figures='import json, sys
for line in sys.stdin:
    d = json.loads(line)
    print("%.3f %s" % (d["avg_hsd"], " ".join("%.3f" % h for h in d["job_hsd"] or [])))'
expect_eq "batch, one LID: avg and per job" "$(lidbatch | python3 -c "$figures" | paste -sd'|')" \
	"1.333 1.333 1.333|1.333 1.333"
expect_eq "batch --lid pair: lower, 1.0 for each job" \
	"$(lidbatch --lid pair | python3 -c "$figures" | paste -sd'|')" "1.000 1.000 1.000|1.000 1.000"
expect_eq "batch --lid dest: lower than one LID" "$(lidbatch --lid dest | python3 -c '
import json, sys
print(all(1.0 <= json.loads(l)["avg_hsd"] < 1.333 for l in sys.stdin))')" True
sed -n 1,2p "$TMP/lidbatch" >"$TMP/lidjobs"
expect_eq "batch --lid pair, group 1 = --jobs --lid pair" \
	"$(lidbatch --lid pair | head -1 | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["avg_hsd"], d["job_hsd"])')" \
	"$("$QFT" score --fabric "$TMP/l2.json" --json --per-job --jobs "$TMP/lidjobs" --lid pair |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["avg_hsd"], d["job_hsd"])')"
# Two such jobs interleaved on the same three leaves share leaf up-links:
# each choosing alone, their offsets collide (1.533 together, above one
# LID's 1.333); the second choosing beside the first must do better than
# one LID.
printf 'n[0019-0023,0037-0041,0055-0060]\nn[0024-0028,0042-0046,0061-0066]\n' >"$TMP/interleaved"
expect_eq "interleaved, one LID" "$("$QFT" score --fabric "$TMP/l2.json" --json --batch "$TMP/interleaved" |
	python3 -c 'import json,sys; print("%.3f" % json.load(sys.stdin)["avg_hsd"])')" 1.333
expect_eq "interleaved, --lid pair: the second beside the first, below one LID" \
	"$("$QFT" score --fabric "$TMP/l2.json" --json --per-job --batch "$TMP/interleaved" --lid pair |
	python3 -c 'import json,sys; d = json.load(sys.stdin); print(d["avg_hsd"] < 1.333 and max(d["job_hsd"]) < 1.333)')" True
# Kept offsets: a keyed job ("KEY: HOSTS") chooses once, in its first
# group, and keeps its offsets in every later group, as a running job
# keeps its table. a keeps its choice alone, b chooses beside it: the
# interleaved figures. b kept from alone, then a alone first: both as
# chosen alone, the collision (above one LID).
A='n[0019-0023,0037-0041,0055-0060]' B='n[0024-0028,0042-0046,0061-0066]'
printf 'a: %s\n\na: %s\nb: %s\n' "$A" "$A" "$B" >"$TMP/keep1"
printf 'b: %s\n\na: %s\nb: %s\n' "$B" "$A" "$B" >"$TMP/keep2"
keepfig='import json, sys
d = [json.loads(l) for l in sys.stdin][-1]
print("%.3f %s" % (d["avg_hsd"], " ".join("%.3f" % h for h in d["job_hsd"])))'
inter=$("$QFT" score --fabric "$TMP/l2.json" --json --per-job --batch "$TMP/interleaved" --lid pair |
	python3 -c "$keepfig")
expect_eq "kept: a keeps its offsets, b chooses beside them = in order" \
	"$("$QFT" score --fabric "$TMP/l2.json" --json --per-job --batch "$TMP/keep1" --lid pair |
	python3 -c "$keepfig")" "$inter"
kept2=$("$QFT" score --fabric "$TMP/l2.json" --json --per-job --batch "$TMP/keep2" --lid pair \
	--lid-out "$TMP/kept2" | python3 -c "$keepfig")
expect_eq "kept: b keeps its lone choice beside a, above one LID" \
	"$(echo "$kept2" | awk '{print ($1 > 1.333)}')" 1
expect_eq "--lid-out: the keyed jobs that chose, in order" \
	"$(awk '{print $1, $2, $3, $4, length($5)}' "$TMP/kept2" | paste -sd'|')" \
	"b pair 2 $B 256|a pair 2 $A 256"
grep '^b ' "$TMP/kept2" >"$TMP/keptb"
sed 1,2d "$TMP/keep2" >"$TMP/keep2b"
expect_eq "--lid-in: b's offsets from an earlier run, the same figures" \
	"$("$QFT" score --fabric "$TMP/l2.json" --json --per-job --batch "$TMP/keep2b" --lid pair \
	--lid-in "$TMP/keptb" | python3 -c "$keepfig")" "$kept2"
# What a pair choice proved (lid_floor): a chooses (alone: b is after it),
# b kept its offsets (null); a's floor is at most its HSD.
floorfig='import json, sys
d = json.load(sys.stdin)
a, b = d["lid_floor"]
print(b, a["stages"], a["hsd"] <= d["job_hsd"][0], a["congested"] + a["undecided"] <= a["stages"])'
expect_eq "lid_floor: the kept job null, the chooser's floor at most its HSD" \
	"$("$QFT" score --fabric "$TMP/l2.json" --json --per-job --batch "$TMP/keep2b" --lid pair \
	--lid-in "$TMP/keptb" | python3 -c "$floorfig")" "None 15 True True"
# At LMC 0 each flow has one path: every congested stage is proven, the
# floor is the HSD; without the exhaustive search none is.
onefig='import json, sys
d = json.load(sys.stdin)
f = d["lid_floor"][0]
print(d["congested_stages"], f["congested"], f["undecided"], f["hsd"] == d["avg_hsd"])'
expect_eq "lid_floor at one LID: every congested stage proven" \
	"$(score --hosts 'n[0001-0100]' --lid pair | python3 -c "$onefig")" "68 68 0 True"
expect_eq "lid_floor: --lid-exact 0 proves nothing" \
	"$(score --hosts 'n[0001-0100]' --lid pair --lid-exact 0 | python3 -c "$onefig")" \
	"68 0 68 False"
printf 'b: %s\n' "$A" >"$TMP/keepbad"
expect_fail 1 "keepbad:1: job b: not the hosts" -- "$QFT" score --fabric "$TMP/l2.json" \
	--batch "$TMP/keepbad" --lid pair --lid-in "$TMP/keptb"
expect_fail 1 "kept pair at LMC 2, scored --lid dest" -- "$QFT" score --fabric "$TMP/l2.json" \
	--batch "$TMP/keep2b" --lid dest --lid-in "$TMP/keptb"
printf 'a: %s\na: %s\n' "$A" "$B" >"$TMP/keeptwice"
expect_fail 1 "keeptwice:2: job a is twice in its group" -- "$QFT" score --fabric "$TMP/l2.json" \
	--batch "$TMP/keeptwice" --lid pair
expect_fail 2 "keep the offsets of --lid MODE" -- lidbatch --lid-out "$TMP/x"
expect_fail 2 "across the groups of --batch" -- "$QFT" score --fabric "$TMP/l2.json" \
	--jobs "$TMP/lidjobs" --lid pair --lid-in "$TMP/keptb"
expect_fail 2 "--lid stripe scores one job (--hosts), not --batch" -- lidbatch --lid stripe
expect_fail 2 "not with --lid-offset" -- lidbatch --lid pair --lid-offset 1
finish
