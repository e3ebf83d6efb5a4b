#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every function of the C API (QFT_EXPORT in lib/include/qft/qft.h) is
# defined in an extern "C" block of lib/capi/qft_capi.cpp and its body
# starts with guard(), guard_or() or guard_void(): an exception that gets
# past them reaches slurmctld, which is C, and aborts it. The check is on
# the text (a function is a line at the block's top level that opens with
# a type and has a '('), so it wants the file's layout: one definition
# after another, body braces on their own lines or at a line's end.
set -eu
src=${QFT_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
capi=$src/lib/capi/qft_capi.cpp
header=$src/lib/include/qft/qft.h
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sed -n 's/^QFT_EXPORT[^(]*[ *]\([A-Za-z_][A-Za-z_0-9]*\)(.*/\1/p' "$header" | sort >"$tmp/declared"

# Prints "name ok" or "name BAD: <first statement>" for every function
# defined at the top level of an extern "C" block.
awk '
function strip(line) {
	gsub(/"([^"\\]|\\.)*"/, "\"\"", line)
	gsub(/\047([^\047\\]|\\.)*\047/, "0", line)
	sub(/\/\/.*/, "", line)
	return line
}
function verdict(fn, stmt) {
	sub(/^[ \t]+/, "", stmt)
	if (stmt ~ /^(return |qft_status_t [a-z_]+ = )?guard(_or<[^>]*>|_void)?\(/)
		print fn " ok"
	else
		print fn " BAD: " stmt
}
/^extern "C" \{/ { inc = 1; depth = 0; name = ""; want = 0; next }
inc && depth == 0 && /^} \/\/ extern "C"/ { inc = 0; next }
!inc { next }
{
	line = strip($0)
	if (want == 1 && line ~ /[^ \t]/) {
		first = line
		want = 2
	}
	if (depth == 0 && name == "" && line ~ /^[A-Za-z_]/ && line ~ /\(/ &&
	    line !~ /^static/) {
		head = line
		sub(/\(.*/, "", head)
		n = split(head, w, /[ *&]+/)
		name = w[n]
		first = "(empty body)"
		want = 0
	}
	for (i = 1; i <= length(line); i++) {
		c = substr(line, i, 1)
		if (c == "{" && ++depth == 1 && name != "") {
			rest = substr(line, i + 1)
			if (rest ~ /[^ \t]/) {
				first = rest
				want = 2
			} else {
				want = 1
			}
		} else if (c == "}" && --depth == 0 && name != "") {
			verdict(name, first)
			name = ""
			want = 0
		}
	}
}
' "$capi" >"$tmp/defined"

status=0
if grep ' BAD: ' "$tmp/defined" >&2; then
	echo "check_capi_guard: the functions above do not start with guard(), guard_or() or guard_void() ($capi)" >&2
	status=1
fi
cut -d' ' -f1 "$tmp/defined" | sort >"$tmp/names"
if ! cmp -s "$tmp/declared" "$tmp/names"; then
	echo "check_capi_guard: QFT_EXPORT functions of $header not defined in an extern \"C\" block of $capi (<), or defined there and not declared (>):" >&2
	diff "$tmp/declared" "$tmp/names" | grep '^[<>]' >&2 || true
	status=1
fi
[ "$status" = 0 ] && echo "check_capi_guard: $(wc -l <"$tmp/names") functions, all guarded"
exit "$status"
