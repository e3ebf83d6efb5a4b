#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: qft's closed-form tables beside OpenSM's own routing step on
# the same ibsim fabric (ftree; its log from "STARTING SWITCH TABLE CONFIG"
# to the tables configured), at 1944 and 5832 hosts. Figures, no asserts.
#   usage: contribs/bench/lft-vs-opensm.sh BUILD-DIR [REPS]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: $0 BUILD-DIR [REPS]}" && pwd)
reps=${2:-3}
make -C "$build" -s contribs/bench/bench_lft >/dev/null
"$build/contribs/bench/bench_lft" "$reps"
for tuple in "3;18,18,6;1,18,6;1,1,3" "3;18,18,18;1,18,9;1,1,2"; do
	QFT=$build/contribs/qft/qft "$top/tests/ib/bench.sh" "$tuple" "$reps" ftree 2>/dev/null |
		grep -iE "median|ftree" | sed "s/^/OpenSM PGFT($tuple): /"
done
