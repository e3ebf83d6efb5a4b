#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs the Slurm integration tests (tests/slurm/test-*.sh, or those named in
# QFT_SLURM_TESTS="test-a test-b") against the front-end Slurm that
# contribs/slurm/slurm-frontend.sh builds. Needs root.
# QFT_SLURM_SERIES=24.11: also builds 24.11 without front end for the
# real-slurmd clusters (contribs/slurm/slurm-2411.sh real; Debian's daemons
# serve 22.05). QFT_SLURM_SKIP="test-a test-b": those are not run (named
# in the summary). QFT_SLURM_READY=1: the Slurm builds are done (check.sh
# made them before it started the tests side by side), not checked again.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
if [ "${QFT_SLURM_READY:-0}" != 1 ]; then
	"$HERE/../../contribs/slurm/slurm-frontend.sh" >/dev/null || {
		echo "run.sh: contribs/slurm/slurm-frontend.sh failed"
		exit 1
	}
	if [ "${QFT_SLURM_SERIES:-22.05}" = 24.11 ]; then
		"$HERE/../../contribs/slurm/slurm-2411.sh" real >/dev/null || {
			echo "run.sh: contribs/slurm/slurm-2411.sh real failed"
			exit 1
		}
	fi
fi
tests=${QFT_SLURM_TESTS:-$(cd "$HERE" && ls test-*.sh | sed 's/\.sh$//')}
passed=0 failed=0 failures= flaky=
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# run_one NAME LOG: the test, its output to the terminal and to LOG
run_one() { "$HERE/$1.sh" 2>&1 | tee "$2"; }
skipped=
for name in $tests; do
	[ -f "$HERE/$name.sh" ] || {
		echo "run.sh: no test $name in $HERE"
		failed=$((failed + 1))
		failures="$failures $name"
		continue
	}
	case " ${QFT_SLURM_SKIP:-} " in *" $name "*)
		skipped="$skipped $name"
		continue
		;;
	esac
	start=$SECONDS
	# each test's output is kept, so that the failures can be repeated at
	# the end, where CI's tail shows them. A test that fails is run once
	# more: passing then, it counts as passed and is named as flaky (with
	# its first run's failed checks); failing twice, it counts as failed.
	# A test that cannot run on this Slurm (skip_test) counts as skipped.
	if run_one "$name" "$logs/$name"; then
		if grep -q "^$name: skipped on Slurm" "$logs/$name"; then
			skipped="$skipped $name"
		else
			passed=$((passed + 1))
		fi
	else
		echo "run.sh: $name failed; running it once more"
		if run_one "$name" "$logs/$name.again"; then
			flaky="$flaky $name"
		else
			failed=$((failed + 1))
			failures="$failures $name"
		fi
	fi
	echo "run.sh: $name took $((SECONDS - start)) s"
done
for name in $flaky; do
	echo "---- $name: FLAKY, failed once then passed; the first run's failed checks:"
	grep -E '\] FAIL: ' "$logs/$name" | head -20
done
for name in $failures; do
	echo "---- $name: failed twice; the failed checks and last lines of each run"
	for log in "$logs/$name" "$logs/$name.again"; do
		grep -E '\] FAIL: ' "$log" | head -20
		tail -10 "$log"
	done
done
nflaky=$(echo $flaky | wc -w)
echo "slurm integration (Slurm ${QFT_SLURM_SERIES:-22.05}): $passed passed, $nflaky flaky, $failed failed${failures:+ (failed:$failures)}${flaky:+ (flaky, passed on a second run:$flaky)}${skipped:+ (skipped or not run here:$skipped)}"
[ "$failed" = 0 ]
