# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers of the qft CLI tests. $QFT is the tool under test.
set -u
: "${QFT:?QFT must point at the qft binary}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0
checks=0

ok() { checks=$((checks + 1)); echo "ok - $*"; }
bad() { checks=$((checks + 1)); failures=$((failures + 1)); echo "not ok - $*"; }

# expect_fail STATUS NEEDLE -- CMD...: CMD exits with STATUS and its stderr
# contains NEEDLE.
expect_fail() {
	local want=$1 needle=$2
	shift 3
	local err rc
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" = "$want" ] && printf '%s' "$err" | grep -qF -- "$needle"; then
		ok "$* -> exit $rc: $needle"
	else
		bad "$* -> exit $rc (wanted $want), stderr: $err (wanted: $needle)"
	fi
}

# expect_eq WHAT GOT WANTED
expect_eq() {
	if [ "$2" = "$3" ]; then ok "$1 = $3"; else bad "$1 = '$2', wanted '$3'"; fi
}

json_get() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

finish() {
	echo "$((checks - failures)) passed, $failures failed"
	[ "$failures" = 0 ]
}
