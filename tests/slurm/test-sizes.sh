#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Jobs sized the ways users size them, not only by -N: select/rlft +
# topology/qft on the 1944-node PGFT(3;18,18,6;1,18,6;1,1,3) with 32 CPUs
# and 64000 MB per node. Each job must start, run an srun step, get the
# node count cons_tres gives the same job (sbatch --test-only: select/rlft
# hands WILL_RUN to cons_tres unchanged), and, when rlft placed it, the
# nodes rlft chose (its log line names them).
TEST_NAME=test-sizes
. "$(dirname "$0")/lib.sh"

T=$ROOT/sizes
rm -rf "$T"
mkdir -p "$T/jobs"
plugin_dir "$T/plugins"
"$QFT" gen pgft "3;18,18,6;1,18,6;1,1,3" -o "$T/fabric.json" 2>/dev/null
printf 'FabricFile=fabric.json\n' >"$T/qft.conf"
tree_names "$T/fabric.json" >"$T/nodes"
W=$T/c
start_cluster "$W" --node-file "$T/nodes" --node-attrs "CPUs=32 RealMemory=64000" \
	-p "$T/plugins" -t topology/qft -s select/rlft -c "$T/qft.conf" -c "$T/fabric.json" \
	-e "SelectTypeParameters=CR_CPU_Memory
DebugFlags=SelectType
SlurmctldDebug=verbose" ||
	{ cat "$W.start.out"; bad "cluster did not start"; finish; }
BIN=$W/bin
LOG=$W/log/slurmctld.log
ok "1944 nodes of 32 CPUs up with select/rlft + topology/qft"
cd "$W" || finish

count_of() { "$BIN/scontrol" show hostnames "$1" | wc -l; }
# cons_tres's count for the same request: --test-only prints
# "... to start at ... using N processors on nodes LIST in partition P"
cons_tres_count() {
	local out
	out=$("$BIN/sbatch" --test-only "$@" --wrap true 2>&1)
	count_of "$(echo "$out" | sed -n 's/.* on nodes \([^ ]*\) in partition.*/\1/p')"
}

# Each line: a name, then sbatch options. --exclusive jobs ask --mem too.
cat >"$T/requests" <<'EOF'
n128 -n 128
n100c4 -n 100 -c 4
range -N 4-16
tpn2 --ntasks-per-node=2 -N 9
mem -n 64 --mem=60000
excl -n 40 --exclusive --mem=1000
mpc -n 64 --mem-per-cpu=4000
EOF
declare -A ids want
while read -r name args; do
	# shellcheck disable=SC2086
	want[$name]=$(cons_tres_count $args)
	# shellcheck disable=SC2086
	ids[$name]=$("$BIN/sbatch" --parsable $args -o "$T/jobs/%j.out" \
		--wrap "env | grep ^QFT_ | sort > $T/jobs/\$SLURM_JOB_ID.env; echo \${SLURM_NTASKS:-\$SLURM_NNODES} \$(srun sh -c 'echo \$SLURM_PROCID' | sort -u | wc -l) > $T/jobs/\$SLURM_JOB_ID.step; sleep 300")
	say "$name ($args): job ${ids[$name]}, cons_tres would give ${want[$name]} nodes"
done <"$T/requests"

for _ in $(seq 1 60); do
	[ "$("$BIN/squeue" -h -t R | wc -l)" -ge "${#ids[@]}" ] && break
	sleep 1
done
sleep 3
while read -r name args; do
	id=${ids[$name]}
	st=$("$BIN/squeue" -h -j "$id" -o '%T %r')
	expect_eq "$name ($args) runs" "$st" "RUNNING None"
	list=$("$BIN/squeue" -h -j "$id" -o %N)
	n=$(count_of "$list")
	expect_eq "$name: node count = cons_tres's" "$n" "${want[$name]}"
	placed=$(grep "select/rlft: JobId=$id on " "$LOG" | tail -1)
	say "$name: $placed"
	check "$name: select/rlft placed it (not cons_tres)" sh -c "[ -n '$placed' ] && ! echo '$placed' | grep -q 'chosen by cons_tres'"
	# the job's tasks (without -n: one a node) against the distinct ranks
	# its srun step printed
	ntasks= ranks=
	read -r ntasks ranks <"$T/jobs/$id.step" 2>/dev/null
	expect_eq "$name: an srun step ran every task (SLURM_NTASKS ${ntasks:-?})" "${ranks:-0}" "${ntasks:-none}"
done <"$T/requests"
# A one-node job is cons_tres's (no fabric traffic): it runs too.
one=$("$BIN/sbatch" --parsable -n 4 --wrap "srun true")
expect_eq "a 4-task job on one node" "$(wait_job "$BIN" "$one")" COMPLETED
check "slurmctld alive at the end" sh -c "'$BIN/scontrol' ping | grep -q 'is UP'"
finish
