#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The whole test suite on a fresh Debian 12 machine: installs what it needs,
# builds, runs `make check` (cmocka unit tests, C API test, CLI tests), then
# again under AddressSanitizer + UndefinedBehaviorSanitizer, then prints
# the benchmark figures.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/contribs/scripts/deps.sh"

run_check() {
	local name=$1
	shift
	local build
	build=$("$top/contribs/scripts/build.sh" "$name" "$@")
	echo "== make check ($name)"
	if ! make -C "$build" -s -j"$(nproc)" check; then
		for log in "$build"/tests/*/*.log; do
			grep -qE '^(FAIL|ERROR)' "${log%.log}.trs" 2>/dev/null || continue
			echo "---- $log"
			tail -40 "$log"
		done
		return 1
	fi
}

run_check release
run_check sanitize --enable-sanitizers
echo "== make bench (figures, not pass/fail)"
make -C "$top/build/release" -s bench
