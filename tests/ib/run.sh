#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs the ibsim tests (`make check-ib`): every tests/ib/test-*.sh, or those
# named in QFT_IB_TESTS="test-a test-b", one after the other. Each has its
# own work dir and ibsim socket, so check.sh runs them side by side, one
# per call. Exit status 77 from a test is a skip (test-event without
# libopensm-dev, test-discover without libibnetdisc). Needs root.
#   environment: QFT (the qft tool), QFT_EVENT_SO (OpenSM's event plugin)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
tests=${QFT_IB_TESTS:-$(cd "$HERE" && ls test-*.sh | sed 's/\.sh$//')}
status=0
for name in $tests; do
	if [ ! -f "$HERE/$name.sh" ]; then
		echo "run.sh: no test $name in $HERE"
		status=1
		continue
	fi
	rc=0
	"$HERE/$name.sh" || rc=$?
	case $rc:$name in
	0:*) ;;
	77:test-event | 77:test-discover) echo "run.sh: $name skipped" ;;
	*)
		echo "run.sh: $name failed (exit $rc)"
		status=1
		;;
	esac
done
exit $status
