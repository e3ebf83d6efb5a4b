# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers of the Slurm integration tests (sourced).
#   QFT               the qft tool
#   QFT_PLUGIN_BUILD  build dir of the plugins (<build>/src/plugins)
#   QFT_TEST_ROOT     where each test puts its clusters (default
#                     build/slurm-tests, build/slurm-tests-24.11 for 24.11:
#                     the two series' tests run side by side in check.sh)
#   QFT_SLURM_SERIES  22.05 (default) or 24.11
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
HARNESS=$REPO/contribs/slurm/harness.sh
: "${QFT:?QFT must name the qft tool}"
: "${QFT_PLUGIN_BUILD:?QFT_PLUGIN_BUILD must name the plugin build dir}"
# the Slurm the harness runs (contribs/slurm: 22.05 or 24.11)
SERIES=${QFT_SLURM_SERIES:-22.05}
ROOT=${QFT_TEST_ROOT:-$REPO/build/slurm-tests$([ "$SERIES" = 22.05 ] || echo "-$SERIES")}
export QFT_SLURM_SERIES=$SERIES
PASS=0
FAIL=0
CLUSTERS=()

say() { printf '[%s %s] %s\n' "${TEST_NAME:-test}" "$(date +%H:%M:%S)" "$*"; }
ok() { PASS=$((PASS + 1)); say "ok: $*"; }
bad() { FAIL=$((FAIL + 1)); say "FAIL: $*"; }
check() { # check DESCRIPTION CMD...: ok if CMD succeeds
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
skip() { say "skip: $*"; }
# reconfigure_rejected LOG REGEX: a reconfigure refused what REGEX names
# and kept what it had. 22.05: slurmctld logs it and keeps the fabric;
# 24.11: the new slurmctld stops on it and the running one resumes.
reconfigure_rejected() {
	if [ "$SERIES" = 22.05 ]; then
		grep -q "$2.*; keeping the fabric loaded from" "$1"
	else
		grep -q "fatal: $2" "$1" && grep -q "Resuming operation, reconfigure failed" "$1"
	fi
}
# recovered_jobs LOG: how many running jobs select/rlft took in after the
# last start of slurmctld (job_init's count).
recovered_jobs() {
	awk '/slurmctld version .* started/ {n = ""}
		/select\/rlft: tracking [0-9]+ running jobs/ && n == "" {n = $0}
		END {print n}' "$1" | grep -oE '[0-9]+ running' | cut -d' ' -f1
}
# restart_ctld W WHAT [--kill]: the harness restarts slurmctld of cluster
# W; ok WHAT, or FAIL with the harness's last words (its output is kept in
# W/restart.out: a restart that fails once in many runs needs them).
restart_ctld() {
	local w=$1 what=$2
	shift 2
	if "$HARNESS" restart -w "$w" "$@" >"$w/restart.out" 2>&1; then
		ok "$what"
	else
		bad "$what: restart failed: $(tail -n 3 "$w/restart.out" | tr '\n' ' ')"
	fi
}
# expect_empty WHAT FILE: ok when FILE is empty or absent, else FAIL with
# its first lines (a check that fails once in many runs needs them).
expect_empty() {
	if [ -s "$2" ]; then
		bad "$1: $(head -c 400 "$2" | tr '\n' ' ')"
	else
		ok "$1"
	fi
}
expect_eq() { if [ "$2" = "$3" ]; then ok "$1 = $3"; else bad "$1 = '$2', wanted '$3'"; fi; }

stop_all() {
	local w
	for w in "${CLUSTERS[@]}"; do
		[ "${QFT_KEEP:-0}" = 1 ] || "$HARNESS" stop -w "$w" >/dev/null 2>&1 || true
	done
}
trap stop_all EXIT

finish() {
	echo "${TEST_NAME:-test}: $PASS passed, $FAIL failed"
	[ "$FAIL" = 0 ] && [ "$PASS" -gt 0 ]
	exit $?
}

# A whole test that cannot run on this Slurm: says why, passes nothing.
skip_test() {
	say "skip: $*"
	echo "${TEST_NAME:-test}: skipped on Slurm $SERIES"
	exit 0
}

# plugin_dir DIR: the built plugins, copied where PluginDir can list them.
plugin_dir() {
	mkdir -p "$1"
	cp "$QFT_PLUGIN_BUILD"/*/*/*.so "$1/"
}

# start_cluster WORKDIR HARNESS-ARGS...: fresh cluster, remembered for stop.
start_cluster() {
	local w=$1
	shift
	local rc=0
	"$HARNESS" stop -w "$w" >/dev/null 2>&1 || true
	CLUSTERS+=("$w")
	mkdir -p "$w"
	QFT_START_TIMEOUT=${QFT_START_TIMEOUT:-60} "$HARNESS" start -w "$w" "$@" >"$w.start.out" 2>&1 || rc=$?
	# A start that ends with no word of why (seen in CI beside other
	# clusters' stops, docs/testing.md): once more, said.
	if [ "$rc" != 0 ] && ! grep -q 'ERROR:' "$w.start.out"; then
		say "harness start of $w ended silently (exit $rc): once more"
		"$HARNESS" stop -w "$w" >/dev/null 2>&1 || true
		QFT_START_TIMEOUT=${QFT_START_TIMEOUT:-60} "$HARNESS" start -w "$w" "$@" >"$w.start.out" 2>&1
		return
	fi
	return "$rc"
}

# job_state BIN JOBID: waits for the job to end, prints its final state.
wait_job() {
	local bin=$1 id=$2 state=
	for _ in $(seq 1 240); do
		state=$("$bin/scontrol" -o show job "$id" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
		case $state in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) break ;; esac
		sleep 0.5
	done
	echo "$state"
}

# submit_recording W ENVDIR N [SBATCH-ARGS...]: a batch job of N nodes in
# cluster W that writes its QFT_ variables to ENVDIR/<id>.env and sleeps;
# prints its id.
submit_recording() {
	local w=$1 dir=$2 n=$3
	shift 3
	(cd "$w" && "$w/bin/sbatch" --parsable -N "$n" -o /dev/null "$@" \
		--wrap "env | grep ^QFT_ | sort > $dir/\$SLURM_JOB_ID.env; sleep 600")
}

# wait_running W ID...: until every job runs (60 s at most), then 2 s for
# their scripts to write their environment.
wait_running() {
	local w=$1
	shift
	for _ in $(seq 1 60); do
		[ "$("$w/bin/squeue" -h -t R -j "$(echo "$@" | tr ' ' ,)" | wc -l)" -ge $# ] && break
		sleep 1
	done
	sleep 2
}

# job_nodes W ID: the job's nodes, comma-separated.
job_nodes() { "$1/bin/scontrol" show hostnames "$("$1/bin/squeue" -h -j "$2" -o %N)" | paste -sd,; }

# tree_names FABRIC [FIRST COUNT]: host names in tree order.
tree_names() {
	python3 - "$@" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
hosts = sorted(f["hosts"], key=lambda h: h["index"])
first = int(sys.argv[2]) if len(sys.argv) > 2 else 0
count = int(sys.argv[3]) if len(sys.argv) > 3 else len(hosts)
print("\n".join(h["name"] for h in hosts[first:first + count]))
PY
}
