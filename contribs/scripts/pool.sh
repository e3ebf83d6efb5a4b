# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# A pool of named jobs with needs, run side by side (sourced by check.sh).
#
#   pool_add NAME CLASS NEEDS CMD    NEEDS: space-separated names, or "";
#                                    CMD: a shell string, run in a subshell
#   pool_run                         runs them all; exit status 1 if any
#                                    failed or could not run
#
# At most POOL_MAX_<CLASS> jobs of a class run at once (default 1); a class
# named in POOL_NICE runs under nice -n 19, so that compiles take only the
# cycles the daemons of the tests leave. Jobs start in the order they were
# added, as soon as their needs passed; a job whose need failed does not run
# and is reported. Each job's output goes to POOL_LOGS/NAME.log and is printed
# whole when the job ends, so that outputs never interleave; the last lines
# printed are the summary and, for every failed job, its FAIL lines and the
# end of its log: what CI's tail shows.
POOL_LOGS=${POOL_LOGS:-$(mktemp -d)}
POOL_NAMES=()
declare -A POOL_CLASS POOL_NEEDS POOL_CMD POOL_STATE POOL_START POOL_TOOK POOL_PID

_pool_stamp() { printf '== [%d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

pool_add() {
	POOL_NAMES+=("$1")
	POOL_CLASS[$1]=$2
	POOL_NEEDS[$1]=$3
	POOL_CMD[$1]=$4
	POOL_STATE[$1]=wait
}

# _pool_ready NAME: 0 when every need passed, 1 while one is still to come,
# 2 when one failed or will never run
_pool_ready() {
	local n
	for n in ${POOL_NEEDS[$1]}; do
		case ${POOL_STATE[$n]:-unknown} in
		ok) ;;
		failed | skipped | unknown) return 2 ;;
		*) return 1 ;;
		esac
	done
	return 0
}

_pool_running() { # _pool_running CLASS: how many of CLASS run now
	local n c=0
	for n in "${POOL_NAMES[@]}"; do
		[ "${POOL_STATE[$n]}" = running ] && [ "${POOL_CLASS[$n]}" = "$1" ] && c=$((c + 1))
	done
	echo "$c"
}

_pool_start() {
	local name=$1 class=${POOL_CLASS[$1]} max nice=
	max=POOL_MAX_${class^^}
	max=${!max:-1}
	[ "$(_pool_running "$class")" -lt "$max" ] || return 1
	case " ${POOL_NICE:-} " in *" $class "*) nice="nice -n 19" ;; esac
	_pool_stamp "start $name${POOL_NEEDS[$name]:+ (after ${POOL_NEEDS[$name]// /, })}"
	# shellcheck disable=SC2086 # $nice is a command prefix or nothing
	$nice bash -c "${POOL_CMD[$name]}" </dev/null >"$POOL_LOGS/$name.log" 2>&1 &
	POOL_PID[$name]=$!
	POOL_START[$name]=$SECONDS
	POOL_STATE[$name]=running
}

# _pool_summary_line NAME: the counts a job's log ends with: a test's last
# "NAME: N passed, M failed", automake's totals, or the fuzz runs
_pool_summary_line() {
	local log=$POOL_LOGS/$1.log
	grep -E '^([A-Za-z0-9_.-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -1
	grep -E '^# (TOTAL|PASS|FAIL|ERROR): ' "$log" | tr -s ' ' | paste -sd' ' -
	grep -cE '^fuzz [a-z]+: ok' "$log" | grep -v '^0$' | sed 's/$/ parsers fuzzed, no crash/'
	grep -E '^run.sh: test-[a-z-]+ skipped|^test-[a-z-]+: skipped' "$log"
	true
}
_pool_counts() { _pool_summary_line "$1" 2>/dev/null | sed '/^$/d' | paste -sd' ' -; }

pool_run() {
	local name pid rc progress status=0
	while :; do
		progress=0
		for name in "${POOL_NAMES[@]}"; do
			[ "${POOL_STATE[$name]}" = wait ] || continue
			rc=0
			_pool_ready "$name" || rc=$?
			case $rc in
			0) _pool_start "$name" && progress=1 ;;
			2)
				POOL_STATE[$name]=skipped
				_pool_stamp "not run: $name (needs ${POOL_NEEDS[$name]}, which did not pass)"
				progress=1
				;;
			esac
		done
		[ "$progress" = 1 ] && continue
		local any=0
		for name in "${POOL_NAMES[@]}"; do
			[ "${POOL_STATE[$name]}" = running ] && any=1
		done
		[ "$any" = 1 ] || break
		pid= rc=0
		wait -n -p pid || rc=$?
		for name in "${POOL_NAMES[@]}"; do
			[ "${POOL_STATE[$name]}" = running ] && [ "${POOL_PID[$name]}" = "$pid" ] && break
		done
		POOL_TOOK[$name]=$((SECONDS - POOL_START[$name]))
		if [ "$rc" = 0 ]; then POOL_STATE[$name]=ok; else POOL_STATE[$name]=failed; fi
		echo "---- $name (${POOL_TOOK[$name]} s) ----"
		cat "$POOL_LOGS/$name.log"
		_pool_stamp "end $name: ${POOL_STATE[$name]}$([ "$rc" = 0 ] || echo " (exit $rc)"), ${POOL_TOOK[$name]} s; $(_pool_counts "$name")"
	done
	_pool_stamp "summary"
	for name in "${POOL_NAMES[@]}"; do
		printf '  %-24s %-8s %5s s  %s\n' "$name" "${POOL_STATE[$name]}" \
			"${POOL_TOOK[$name]:--}" "$(_pool_counts "$name")"
		[ "${POOL_STATE[$name]}" = ok ] || status=1
	done
	local failed=() skipped=()
	for name in "${POOL_NAMES[@]}"; do
		case ${POOL_STATE[$name]} in
		skipped) skipped+=("$name") ;;
		failed)
			failed+=("$name")
			echo "---- $name FAILED: its failed checks and last lines ($POOL_LOGS/$name.log)"
			grep -E 'FAIL' "$POOL_LOGS/$name.log" | awk '!seen[$0]++' | head -30 || true
			tail -15 "$POOL_LOGS/$name.log"
			;;
		esac
	done
	_pool_stamp "${#POOL_NAMES[@]} jobs: $((${#POOL_NAMES[@]} - ${#failed[@]} - ${#skipped[@]})) passed${failed:+, ${#failed[@]} failed (${failed[*]})}${skipped:+, ${#skipped[@]} not run (${skipped[*]})}"
	grep -l 'FLAKY' "$POOL_LOGS"/*.log 2>/dev/null |
		sed 's|.*/||; s|\.log$||; s|^|  flaky (failed once, then passed): |' || true
	return $status
}
