#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs every Slurm integration test (tests/slurm/test-*.sh) against the
# front-end Slurm that contribs/slurm/slurm-frontend.sh builds. Needs root.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
"$HERE/../../contribs/slurm/slurm-frontend.sh" >/dev/null || {
	echo "run.sh: contribs/slurm/slurm-frontend.sh failed"
	exit 1
}
passed=0 failed=0
for t in "$HERE"/test-*.sh; do
	if "$t"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "slurm integration: $passed passed, $failed failed"
[ "$failed" = 0 ]
