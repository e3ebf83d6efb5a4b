#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# qft.conf Routing=lft: select/rlft predicts and ranks under the tables the
# subnet manager really programs. Fabric and tables are OpenSM's own, from
# ibsim (tests/data/ib/pgft-3-4-4-2, made by tests/ib/gen-fixtures.sh):
# PGFT(3;4,4,2;1,4,2;1,1,2), 32 hosts, routed by updn, under which a
# whole-fabric Shift has average HSD 2.45 where D-Mod-K gives 1.0.
#   1. Routing=lft, LftFile=updn dump: each job's QFT_HSD_AVG/MAX equal
#      `qft score --lft` on its nodes, and the 32-node job's differ from
#      what D-Mod-K would give (the tables are really in use).
#   2. A reconfigure with a malformed dump keeps the fabric and routing,
#      and says which file and line; a dump without Routing=lft, and an
#      unknown Routing=, stop slurmctld at start with the key named.
TEST_NAME=test-routing
. "$(dirname "$0")/lib.sh"

T=$ROOT/routing
rm -rf "$T"
mkdir -p "$T"
plugin_dir "$T/plugins"
D=$REPO/tests/data/ib/pgft-3-4-4-2
cp "$D/fabric.json" "$T/fabric.json"
cp "$D/opensm-lfts-updn.dump" "$T/updn.dump"
tree_names "$T/fabric.json" >"$T/nodes"
lft=$T/updn.dump
printf 'FabricFile=%s\nRouting=lft\nLftFile=%s\n' "$T/fabric.json" "$lft" >"$T/qft.conf"

hsd() { # hsd HOSTS [ARGS...]: "AVG MAX" of qft score
	local hosts=$1
	shift
	"$QFT" score --fabric "$T/fabric.json" --hosts "$hosts" --json "$@" 2>&1 |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.3f %d" % (d["avg_hsd"], d["max_hsd"]))' 2>&1
}

# --- 1. predictions under OpenSM's updn tables ----------------------------
W=$T/c1
start_cluster "$W" --node-file "$T/nodes" -p "$T/plugins" -t topology/qft -s select/rlft \
	-c "$T/qft.conf" -e "SlurmctldDebug=verbose" ||
	{ cat "$W.start.out"; bad "cluster did not start"; finish; }
BIN=$W/bin
LOG=$W/log/slurmctld.log
ok "slurmctld up with Routing=lft"
check "topology/qft logs the routing" grep -q "topology/qft: fabric .*routing lft:" "$LOG"
mkdir -p "$T/jobs"
run_jobs() { # run_jobs N...: one batch job each, all running together
	local n
	ids=()
	for n in "$@"; do
		ids+=("$(submit_recording "$W" "$T/jobs" "$n")")
	done
	wait_running "$W" "${ids[@]}"
}
job_hosts() { job_nodes "$W" "$1"; }
got_hsd() { echo "$(sed -n 's/^QFT_HSD_AVG=//p' "$1") $(sed -n 's/^QFT_HSD_MAX=//p' "$1")"; }

run_jobs 5 8 3 12
for id in "${ids[@]}"; do
	list=$(job_hosts "$id")
	env=$T/jobs/$id.env
	say "job $id on $list: $(sed -n 's/^QFT_PLACEMENT=//p' "$env" 2>/dev/null)"
	expect_eq "job $id QFT_HSD_AVG/MAX = qft score --lft" "$(got_hsd "$env")" "$(hsd "$list" --lft "$lft")"
done
"$BIN/scancel" "${ids[@]}"
sleep 3
run_jobs 32
list=$(job_hosts "${ids[0]}")
env=$T/jobs/${ids[0]}.env
expect_eq "32-node job under updn: QFT_HSD_AVG/MAX = qft score --lft" "$(got_hsd "$env")" \
	"$(hsd "$list" --lft "$lft")"
expect_eq "32-node job: qft score --lft" "$(hsd "$list" --lft "$lft")" "2.452 4"
expect_eq "32-node job: D-Mod-K would say" "$(hsd "$list")" "1.000 1"
"$BIN/scancel" "${ids[@]}"

# --- 2. bad tables and bad keys -------------------------------------------
cp "$lft" "$T/updn.good"
printf 'Unicast lids [0x0-0x30] of switch Lid 1 guid 0xnotahex (x):\n' >"$lft"
"$BIN/scontrol" reconfigure
sleep 2
check "a malformed LftFile on reconfigure is named with its line, and refused" \
	reconfigure_rejected "$LOG" "topology/qft: .*qft.conf: Routing: $lft:1: "
check "slurmctld alive after it" sh -c "'$BIN/scontrol' ping | grep -q 'is UP'"
run_jobs 32
expect_eq "the kept routing still predicts updn's figures" "$(got_hsd "$T/jobs/${ids[0]}.env")" "2.452 4"
"$BIN/scancel" "${ids[@]}"
cp "$T/updn.good" "$lft"
"$HARNESS" stop -w "$W" >/dev/null 2>&1

bad_start() { # bad_start NAME QFT.CONF-TEXT EXPECTED-LOG-TEXT
	mkdir -p "$T/bad-$1"
	printf '%s\n' "$2" >"$T/bad-$1/qft.conf"
	start_cluster "$T/b-$1" --node-file "$T/nodes" -p "$T/plugins" -t topology/qft \
		-s select/rlft -c "$T/bad-$1/qft.conf" >/dev/null 2>&1
	sleep 2
	check "$1: slurmctld refuses to start, saying '$3'" \
		grep -rqF "$3" "$T/b-$1/log" "$T/b-$1.start.out"
	"$HARNESS" stop -w "$T/b-$1" >/dev/null 2>&1
}
bad_start unknown "$(printf 'FabricFile=%s\nRouting=ftree' "$T/fabric.json")" \
	"Routing=ftree, expected dmodk or lft"
bad_start nofile "$(printf 'FabricFile=%s\nRouting=lft' "$T/fabric.json")" \
	"Routing=lft needs LftFile="
bad_start unused "$(printf 'FabricFile=%s\nLftFile=%s' "$T/fabric.json" "$T/updn.dump")" \
	"LftFile= is set but Routing=dmodk"
finish
