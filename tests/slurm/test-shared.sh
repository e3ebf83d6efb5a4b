#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Shared nodes and job arrays on real slurmd (--real-nodes: 4 nodes of 4
# CPUs, SelectTypeParameters=CR_Core), under select/rlft + topology/qft and,
# in the same run, cons_tres + topology/tree. The front-end emulator's
# slurmctld crashes on both (tests/slurm/README.md, Real nodes).
#   1. Every node half used by a one-node job: a job sized to the free
#      halves (-N 4 -n 8) and one sized by tasks alone (-n 6: three nodes'
#      halves, where two whole nodes would do) start at once under both.
#      select/rlft places the first (a partly used node with the CPUs the
#      job needs there is free for the placer) and leaves the second to
#      cons_tres (no node has 3 CPUs free): no job waits for rlft.
#   2. --array=1-4 -N 2: every task starts, and under select/rlft each gets
#      its own placement (the log line and QFT_PLACEMENT_KIND of a placer's
#      choice, not "chosen by cons_tres") and its QFT_* variables.
#   QFT_SHARED_ONLY_RLFT=1  skips the cons_tres run (while debugging)
TEST_NAME=test-shared
. "$(dirname "$0")/lib.sh"

T=$ROOT/shared
rm -rf "$T"
mkdir -p "$T/conf" "$T/plugins"
plugin_dir "$T/plugins"
# two leaves of two hosts: n0001-n0002, n0003-n0004
"$QFT" gen pgft "2;2,2;1,2;1,1" -o "$T/conf/fabric.json" 2>/dev/null
"$QFT" topology-conf --fabric "$T/conf/fabric.json" -o "$T/conf/topology.conf"
printf 'FabricFile=fabric.json\n' >"$T/conf/qft.conf"
printf 'n000%s\n' 1 2 3 4 >"$T/nodes"

# running_within W SECONDS ID: whether job ID runs within SECONDS
running_within() {
	for _ in $(seq 1 "$2"); do
		[ "$("$1/bin/squeue" -h -j "$3" -o %T 2>/dev/null)" = RUNNING ] && return 0
		sleep 1
	done
	return 1
}
# begun W REGEX: who chose the nodes of the job whose job_begin line
# select/rlft logged starts with REGEX ("by the placer", "by cons_tres",
# or "no line")
begun() {
	local line
	line=$(grep -E "select/rlft: $2: " "$1/log/slurmctld.log" | tail -1)
	case $line in
	'') echo "no line" ;;
	*": chosen by cons_tres;"*) echo "by cons_tres" ;;
	*) echo "by the placer" ;;
	esac
}
# qvar DIR ID NAME: NAME's value in the QFT_ dump of job (or task) ID
qvar() { sed -n "s/^$3=//p" "$1/$2.env" 2>/dev/null; }

# one_config NAME SLURM-ARGS...: the scenario on one cluster
one_config() {
	local name=$1 w=$T/$1 out=$T/$1.out bin n halves a b arr t
	shift
	mkdir -p "$out"
	# config_overrides: 4 cores a node on a machine of fewer
	if ! start_cluster "$w" --real-nodes --node-file "$T/nodes" \
		--node-attrs "CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1" \
		-e SelectTypeParameters=CR_Core -e SlurmdParameters=config_overrides "$@"; then
		cat "$w.start.out"
		bad "$name: 4 real slurmd did not start"
		return
	fi
	bin=$w/bin
	ok "$name: 4 real slurmd, 4 CPUs each, CR_Core"

	# 1. half of every node
	halves=()
	for n in n0001 n0002 n0003 n0004; do
		halves+=("$(cd "$w" && "$bin/sbatch" --parsable -w "$n" -N 1 -n 2 -o /dev/null --wrap 'sleep 600')")
	done
	wait_running "$w" "${halves[@]}"
	expect_eq "$name: nodes MIXED after four 2-CPU jobs" \
		"$("$bin/sinfo" -h -N -o %t | sort -u | paste -sd,)" mix
	a=$(submit_recording "$w" "$out" 4 -n 8)
	if running_within "$w" 20 "$a"; then
		ok "$name: -N 4 -n 8 on the free halves runs at once"
	else
		bad "$name: -N 4 -n 8 on the free halves: $("$bin/squeue" -h -j "$a" -o '%T %r')"
	fi
	"$bin/scancel" "$a"
	b=$(cd "$w" && "$bin/sbatch" --parsable -n 6 -o /dev/null \
		--wrap "env | grep ^QFT_ | sort > $out/\$SLURM_JOB_ID.env; sleep 600")
	if running_within "$w" 20 "$b"; then
		ok "$name: -n 6 (three nodes' halves) runs at once"
	else
		bad "$name: -n 6 (three nodes' halves): $("$bin/squeue" -h -j "$b" -o '%T %r')"
	fi
	expect_eq "$name: -n 6's node count" "$("$bin/squeue" -h -j "$b" -o %D)" 3
	if [ "$name" = rlft ]; then
		sleep 2
		expect_eq "$name: -N 4 -n 8 on the free halves, as placed (the log)" \
			"$(begun "$w" "JobId=$a on 4 nodes n\[0001-0004\]")" "by the placer"
		expect_eq "$name: -N 4 -n 8's QFT_NODELIST" "$(qvar "$out" "$a" QFT_NODELIST)" "n[0001-0004]"
		expect_eq "$name: -n 6 left to cons_tres: QFT_PLACEMENT_KIND" \
			"$(qvar "$out" "$b" QFT_PLACEMENT_KIND)" cons_tres
		# a partly used node counted free without the room: cons_tres
		# cannot fit the job on the placer's nodes and takes them all
		check "$name: the placer chose nodes with room only (no job fell back to cons_tres)" \
			sh -c "! grep -q 'cons_tres could not fit it on the nodes rlft chose' '$w/log/slurmctld.log'"
	fi
	"$bin/scancel" "$b" "${halves[@]}"
	for _ in $(seq 1 30); do
		[ -z "$("$bin/squeue" -h)" ] && break
		sleep 1
	done

	# 2. an array of 2-node jobs
	arr=$(cd "$w" && "$bin/sbatch" --parsable --array=1-4 -N 2 -n 2 -o /dev/null \
		--wrap "env | grep ^QFT_ | sort > $out/\${SLURM_ARRAY_JOB_ID}_\${SLURM_ARRAY_TASK_ID}.env; sleep 600")
	for _ in $(seq 1 30); do
		[ "$("$bin/squeue" -h -t R -r -j "$arr" | wc -l)" -ge 4 ] && break
		sleep 1
	done
	sleep 2
	expect_eq "$name: --array=1-4 -N 2: tasks running" "$("$bin/squeue" -h -t R -r -j "$arr" | wc -l)" 4
	if [ "$name" = rlft ]; then
		# %pJ of a task: JobId=<array id>_<task>(<its own id>)
		for t in 1 2 3 4; do
			expect_eq "$name: array task $t, as placed (the log)" \
				"$(begun "$w" "JobId=${arr}_$t\\([0-9]+\\) on 2 nodes [^ ]+")" "by the placer"
		done
		for t in 1 2 3 4; do
			expect_eq "$name: array task $t: QFT_PLACEMENT_KIND is the placer's" \
				"$(qvar "$out" "${arr}_$t" QFT_PLACEMENT_KIND | grep -vx cons_tres | grep -c .)" 1
			expect_eq "$name: array task $t: nodes in QFT_HOSTS" \
				"$(qvar "$out" "${arr}_$t" QFT_HOSTS | tr , '\n' | grep -c .)" 2
		done
	fi
	"$bin/scancel" "$arr"
	"$HARNESS" stop -w "$w" >/dev/null 2>&1
}

[ -n "${QFT_SHARED_ONLY_RLFT:-}" ] || one_config cons_tres -t topology/tree -c "$T/conf/topology.conf"
one_config rlft -p "$T/plugins" -t topology/qft -s select/rlft \
	-c "$T/conf/qft.conf" -c "$T/conf/fabric.json" -e DebugFlags=SelectType -e SlurmctldDebug=verbose
finish
