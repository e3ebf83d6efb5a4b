#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What `make check` ran in the build dir BUILD, for check.sh: one line per
# test program with its count of passed checks (cmocka's "[  PASSED  ] N
# test(s)", the CLI tests' "N passed", python's "Ran N tests"), then the end
# of the log of every test that failed (automake's .trs records).
# Usage: contribs/scripts/test-logs.sh BUILD
set -uo pipefail
build=${1:?usage: $0 BUILD}
for log in "$build"/tests/*/*.log; do
	[ -f "${log%.log}.trs" ] || continue
	n=$(awk '/^\[  PASSED  \] [0-9]+ test/ { n += $4 }
		/^[0-9]+ passed, [0-9]+ failed/ { n += $1 }
		/^Ran [0-9]+ tests? in/ { n += $2 }
		END { print n + 0 }' "$log")
	t=${log%.log}
	printf 'check %s: %s passed, %s\n' "${t#"$build"/}" "$n" \
		"$(sed -n 's/^:test-result: //p' "${log%.log}.trs" | head -1)"
done
for log in "$build"/tests/*/*.log; do
	grep -qE '^:test-result: (FAIL|ERROR)' "${log%.log}.trs" 2>/dev/null || continue
	echo "---- $log"
	tail -40 "$log"
done
