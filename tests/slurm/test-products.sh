#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# qft.conf Shapes=products in a real slurmctld on the 1944-node
# PGFT(3;18,18,6;1,18,6;1,1,3) (docs/product-shapes.md):
#   1. a 756-node job gets a product shape with HSD 1.0, where the
#      contiguous run of 7 blocks that Shapes=blocks gives has 1.43;
#   2. a 70-node job (5 leaves x 14) and then a 20-node job take the same
#      leaves with complementary positions: 0 links shared under
#      `qft score --jobs`, and each job's QFT_SHAPE / QFT_HSD_* say so;
#   3. a slurmctld restart keeps both jobs, their nodes, and select/rlft
#      tracks them (a new job avoids them).
TEST_NAME=test-products
. "$(dirname "$0")/lib.sh"

T=$ROOT/products
rm -rf "$T"
mkdir -p "$T/jobs"
plugin_dir "$T/plugins"
"$QFT" gen pgft "3;18,18,6;1,18,6;1,1,3" -o "$T/fabric.json" 2>/dev/null
tree_names "$T/fabric.json" >"$T/nodes"

hsd() { # hsd ARGS...: "AVG MAX [SHARED]" of qft score
	"$QFT" score --fabric "$T/fabric.json" --json "$@" 2>&1 |
		python3 -c 'import json,sys; d=json.load(sys.stdin); s=d.get("shared_links"); print("%.3f %d%s" % (d["avg_hsd"], d["max_hsd"], "" if s is None or s < 0 else " %d" % s))' 2>&1
}
env_of() { sed -n "s/^$2=//p" "$T/jobs/$1.env" 2>/dev/null; }

submit() { submit_recording "$W" "$T/jobs" "$@"; }
nodes_of() { job_nodes "$W" "$1"; }

for shapes in blocks products; do
	mkdir -p "$T/$shapes"
	printf 'FabricFile=%s\nShapes=%s\n' "$T/fabric.json" "$shapes" >"$T/$shapes/qft.conf"
	W=$T/c-$shapes
	start_cluster "$W" --node-file "$T/nodes" -p "$T/plugins" -t topology/qft -s select/rlft \
		-c "$T/$shapes/qft.conf" -e "SlurmctldDebug=verbose" ||
		{ cat "$W.start.out"; bad "Shapes=$shapes: cluster did not start"; continue; }
	BIN=$W/bin
	LOG=$W/log/slurmctld.log
	check "Shapes=$shapes: select/rlft says so" grep -q "select/rlft: fabric .*shapes $([ $shapes = products ] && echo 'products first' || echo blocks)" "$LOG"

	# --- 1. 756 nodes ------------------------------------------------------
	id=$(submit 756)
	wait_running "$W" "$id"
	list=$(nodes_of "$id")
	say "Shapes=$shapes: 756-node job: $(env_of "$id" QFT_PLACEMENT) ($(env_of "$id" QFT_PLACEMENT_KIND))"
	got="$(env_of "$id" QFT_HSD_AVG) $(env_of "$id" QFT_HSD_MAX)"
	if [ $shapes = blocks ]; then
		expect_eq "Shapes=blocks: the 756-node run of 7 blocks congests (qft score)" "$(hsd --hosts "$list")" "1.428 2"
		expect_eq "Shapes=blocks: the 756-node run: QFT_CONGESTION_FREE" "$(env_of "$id" QFT_CONGESTION_FREE)" no
		"$BIN/scancel" "$id"
		"$HARNESS" stop -w "$W" >/dev/null 2>&1
		continue
	fi
	expect_eq "756-node job: QFT_PLACEMENT_KIND" "$(env_of "$id" QFT_PLACEMENT_KIND)" product
	shape=$(env_of "$id" QFT_SHAPE)
	expect_eq "756-node job: QFT_SHAPE $shape multiplies out" "$(("${shape//x/*}"))" 756
	expect_eq "756-node job: qft score" "$(hsd --hosts "$list")" "1.000 1"
	expect_eq "756-node job: QFT_HSD_AVG/MAX" "$got" "1.000 1"
	expect_eq "756-node job: QFT_CONGESTION_FREE" "$(env_of "$id" QFT_CONGESTION_FREE)" yes
	"$BIN/scancel" "$id"
	sleep 3

	# --- 2. complementary positions ------------------------------------------
	a=$(submit 70)
	wait_running "$W" "$a"
	b=$(submit 20)
	wait_running "$W" "$a" "$b"
	la=$(nodes_of "$a")
	lb=$(nodes_of "$b")
	printf '%s\n%s\n' "$la" "$lb" >"$T/two.jobs"
	say "70-node job: $(env_of "$a" QFT_SHAPE) $la"
	say "20-node job: $(env_of "$b" QFT_SHAPE) $lb"
	expect_eq "70-node job: QFT_SHAPE" "$(env_of "$a" QFT_SHAPE)" 1x5x14
	expect_eq "20-node job: QFT_SHAPE" "$(env_of "$b" QFT_SHAPE)" 1x5x4
	leaves() { echo "$1" | tr , '\n' | sed 's/^n0*//' | awk '{print int(($1 - 1) / 18)}' | sort -u | paste -sd,; }
	expect_eq "the 20-node job is on the 70-node job's leaves" "$(leaves "$lb")" "$(leaves "$la")"
	expect_eq "both jobs in lock-step: HSD and links shared" "$(hsd --jobs "$T/two.jobs")" "1.000 1 0"

	# --- 3. restart ------------------------------------------------------------
	"$BIN/squeue" -h -o '%i %T %N' | sort >"$T/before"
	restart_ctld "$W" "slurmctld restarted"
	sleep 5
	"$BIN/squeue" -h -o '%i %T %N' | sort >"$T/after"
	check "both jobs and their nodes survive the restart" cmp -s "$T/before" "$T/after"
	if [ "$SERIES" = 22.05 ]; then
		check "select/rlft tracks them again" grep -q "select/rlft: JobId=$b tracked" "$LOG"
	else
		expect_eq "select/rlft tracks them again" "$(recovered_jobs "$LOG")" 2
	fi
	c=$(submit 18)
	wait_running "$W" "$c"
	lc=$(nodes_of "$c")
	check "a job after the restart avoids them ($lc)" \
		sh -c "[ \$(printf '%s,%s,%s' '$la' '$lb' '$lc' | tr , '\\n' | sort | uniq -d | wc -l) = 0 ]"
	check "slurmctld alive at the end" sh -c "'$BIN/scontrol' ping | grep -q 'is UP'"
	"$HARNESS" stop -w "$W" >/dev/null 2>&1
done
finish
