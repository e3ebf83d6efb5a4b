#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# select/rlft + topology/qft on degraded fabrics: the 1944-node
# PGFT(3;18,18,6;1,18,6;1,1,3) with 1, 5 and 20 switch-to-switch cables
# removed (seeded) and the cable of one host (n0100) cut. slurmctld starts,
# the cut host is never placed, jobs are placed, and each job's QFT_HSD_AVG
# and QFT_HSD_MAX equal `qft score` on the same fabric (the jobs are small
# enough that the prediction plays every stage: QFT_HSD_STAGES says so).
TEST_NAME=test-degraded
. "$(dirname "$0")/lib.sh"

T=$ROOT/degraded
rm -rf "$T"
mkdir -p "$T"
plugin_dir "$T/plugins"
"$QFT" gen pgft "3;18,18,6;1,18,6;1,1,3" -o "$T/full.json" 2>/dev/null
tree_names "$T/full.json" >"$T/nodes"

# cut FABRIC-IN CABLES SEED FABRIC-OUT: removes CABLES random cables between
# switches, and n0100's cable
cut() {
	python3 - "$@" <<'PY'
import json, random, sys
src, count, seed, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
f = json.load(open(src))
hosts = {h["guid"]: h["name"] for h in f["hosts"]}
victim = next(g for g, n in hosts.items() if n == "n0100")
trunk = [i for i, l in enumerate(f["links"]) if l[0] not in hosts and l[2] not in hosts]
gone = set(random.Random(seed).sample(trunk, count))
gone |= {i for i, l in enumerate(f["links"]) if victim in (l[0], l[2])}
f["links"] = [l for i, l in enumerate(f["links"]) if i not in gone]
json.dump(f, open(out, "w"))
PY
}

for cables in 1 5 20; do
	fab=$T/fabric-$cables.json
	cut "$T/full.json" "$cables" "$cables" "$fab"
	mkdir -p "$T/conf$cables"
	printf 'FabricFile=%s\n' "$fab" >"$T/conf$cables/qft.conf"
	W=$T/c$cables
	start_cluster "$W" --node-file "$T/nodes" -p "$T/plugins" -t topology/qft -s select/rlft \
		-c "$T/conf$cables/qft.conf" -e "SlurmctldDebug=verbose" ||
		{ cat "$W.start.out"; bad "$cables cables cut: cluster did not start"; continue; }
	BIN=$W/bin
	LOG=$W/log/slurmctld.log
	ok "$cables cables and n0100's cut: slurmctld up"
	check "$cables: topology/qft names the host without a tree position" grep -q "topology/qft.*n0100" "$LOG"
	"$QFT" status --file "$W/state/qft-status.json" >"$T/status$cables" 2>&1
	check "$cables: qft status names n0100 cut off" grep -q '^nodes cut off (.*) 1: n0100$' "$T/status$cables"
	expect_eq "$cables: qft status's missing cables (and n0100's)" \
		"$(grep -c "^  $fab: missing cable" "$T/status$cables")" "$((cables + 1))"
	lost=$("$QFT" info --fabric "$fab" | sed -n 's/^destinations sharing a down-link \([0-9]* of 1943\)$/\1/p')
	check "$cables: qft status's destinations that lost congestion freedom = qft info's (${lost:-none})" \
		grep -q "^destinations that lost congestion freedom (routing dmodk) ${lost:-none} attached hosts$" "$T/status$cables"
	mkdir -p "$T/jobs$cables"
	ids=()
	for n in 7 18 36 50 100 150; do
		ids+=("$(submit_recording "$W" "$T/jobs$cables" "$n")")
	done
	wait_running "$W" "${ids[@]}"
	for id in "${ids[@]}"; do
		st=$("$BIN/squeue" -h -j "$id" -o '%T %D %N')
		list=$(job_nodes "$W" "$id")
		env=$T/jobs$cables/$id.env
		want=$("$QFT" score --fabric "$fab" --hosts "$list" --json 2>&1 |
			python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.3f %d" % (d["avg_hsd"], d["max_hsd"]))' 2>&1)
		got="$(sed -n 's/^QFT_HSD_AVG=//p' "$env" 2>/dev/null) $(sed -n 's/^QFT_HSD_MAX=//p' "$env" 2>/dev/null)"
		say "$cables cut: job $id $st: $(sed -n 's/^QFT_PLACEMENT=//p' "$env" 2>/dev/null); stages $(sed -n 's/^QFT_HSD_STAGES=//p' "$env" 2>/dev/null)"
		expect_eq "$cables cut: job $id runs" "${st%% *}" RUNNING
		expect_eq "$cables cut: job $id QFT_HSD_AVG/MAX = qft score" "$got" "$want"
		check "$cables cut: job $id played every stage" sh -c "grep -Eq '^QFT_HSD_STAGES=([0-9]+)/\\1$' '$env'"
		check "$cables cut: job $id is not on n0100" sh -c "! echo ',$list,' | grep -q ',n0100,'"
	done
	check "$cables: slurmctld alive" sh -c "'$BIN/scontrol' ping | grep -q 'is UP'"
	"$HARNESS" stop -w "$W" >/dev/null 2>&1
done
finish
