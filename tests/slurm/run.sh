#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs every Slurm integration test (tests/slurm/test-*.sh) against the
# front-end Slurm that contribs/slurm/slurm-frontend.sh builds. Needs root.
# QFT_SLURM_SERIES=24.11: also builds 24.11 without front end for the
# real-slurmd clusters (contribs/slurm/slurm-2411.sh real; Debian's daemons
# serve 22.05).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
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
passed=0 failed=0 failures=
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
for t in "$HERE"/test-*.sh; do
	name=$(basename "$t" .sh)
	start=$SECONDS
	# each test's output goes to the terminal and to a log, so that the
	# failures can be repeated at the end, where CI's tail shows them
	if "$t" 2>&1 | tee "$logs/$name"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failures="$failures $name"
	fi
	echo "run.sh: $name took $((SECONDS - start)) s"
done
for name in $failures; do
	echo "---- $name: its failed checks and last lines"
	grep -E '\] FAIL: ' "$logs/$name" | head -20
	tail -15 "$logs/$name"
done
echo "slurm integration (Slurm ${QFT_SLURM_SERIES:-22.05}): $passed passed, $failed failed${failures:+ (failed:$failures)}"
[ "$failed" = 0 ]
