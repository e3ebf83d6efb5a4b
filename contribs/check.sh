#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The whole test suite on a fresh Debian 12 machine: installs what it needs,
# fetches and configures Debian's Slurm source, builds, runs `make check`
# (cmocka unit tests, C API test, CLI tests), the same under
# AddressSanitizer + UndefinedBehaviorSanitizer, `make check-slurm` (the
# plugins in a real front-end slurmctld, built from the same source),
# `make check-sim` (the simulation harness end to end), `make check-ib`
# (qft's tables in a real OpenSM on ibsim), `make check-fuzz` (libFuzzer
# on every parser, 20 s each), `make check-slurm` again against Slurm 24.11
# (built from Debian 13's tarball; without test-routing and test-products
# unless QFT_CHECK_ALL_2411=1, and with QFT_CHECK_SIM_2411=1 also
# `make check-sim` there), then prints the benchmark figures.
# Needs root (apt-get, slurmd).
#
# Usage: contribs/check.sh [all|slurm]
#   slurm  only the Slurm part: Slurm source, the release build, check-slurm.
# QFT_SLURM_SERIES=24.11: against Debian 13's Slurm 24.11 instead (fetched
# from deb.debian.org and built in build/slurm-24.11, about 5 min the first
# time), in build/release-24.11 and build/sanitize-24.11.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-all}
case $what in all | slurm) ;; *)
	echo "usage: $0 [all|slurm]" >&2
	exit 2
	;;
esac
case ${QFT_SLURM_SERIES:-22.05} in
22.05) sfx= ;;
24.11) sfx=-24.11 ;;
*)
	echo "check.sh: QFT_SLURM_SERIES=$QFT_SLURM_SERIES: expected 22.05 or 24.11" >&2
	exit 2
	;;
esac
mkdir -p "$top/build"
# each stage's start, in minutes since the start, so that a slow stage shows
stage() { printf '== [%d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }
trap 'stage "end (exit $?)"' EXIT
"$top/contribs/scripts/deps.sh" python3-matplotlib
stage "Slurm ${QFT_SLURM_SERIES:-22.05} source (contribs/slurm/slurm-source.sh)"
"$top/contribs/slurm/slurm-source.sh" >"$top/build/slurm-source$sfx.log" 2>&1 || {
	tail -30 "$top/build/slurm-source$sfx.log"
	exit 1
}

run_check() {
	local name=$1
	shift
	local build
	build=$("$top/contribs/scripts/build.sh" "$name" "$@")
	stage "make check ($name)"
	if ! make -C "$build" -s -j"$(nproc)" check; then
		for log in "$build"/tests/*/*.log; do
			grep -qE '^(FAIL|ERROR)' "${log%.log}.trs" 2>/dev/null || continue
			echo "---- $log"
			tail -40 "$log"
		done
		return 1
	fi
}

run_check "release$sfx"
if [ "$what" = slurm ]; then
	stage "make check-slurm (front-end slurmctld)"
	make -C "$top/build/release$sfx" -s check-slurm
	exit 0
fi
run_check "sanitize$sfx" --enable-sanitizers
stage "make check-slurm (front-end slurmctld)"
make -C "$top/build/release$sfx" -s check-slurm
stage "make check-sim (contribs/sim/qft-sim on small front-end clusters)"
make -C "$top/build/release$sfx" -s check-sim
stage "make check-ib (OpenSM on ibsim)"
make -C "$top/build/release$sfx" -s check-ib
# 12 s per parser here (run.sh's default is 20): 15-50k runs each, and a
# minute of CI's 90 kept for the Slurm tests; QFT_FUZZ_SECONDS for longer
stage "make check-fuzz (every parser, ${QFT_FUZZ_SECONDS:-12} s each)"
make -C "$top/build/release$sfx" -s check-fuzz QFT_FUZZ_SECONDS="${QFT_FUZZ_SECONDS:-12}"
if [ -z "$sfx" ]; then
	# the plugins against Slurm 24.11 too: its build (about 5 min the
	# first time), the plugins, their Slurm tests (the unit tests above
	# do not depend on Slurm)
	stage "Slurm 24.11: source, plugins, make check-slurm"
	QFT_SLURM_SERIES=24.11 "$top/contribs/slurm/slurm-source.sh" \
		>"$top/build/slurm-source-24.11.log" 2>&1 || {
		tail -30 "$top/build/slurm-source-24.11.log"
		exit 1
	}
	build=$(QFT_SLURM_SERIES=24.11 "$top/contribs/scripts/build.sh" release-24.11)
	# test-routing (Routing=lft) and test-products (Shapes=products) test
	# the placer, not Slurm's interfaces, and passed above on 22.05: on
	# 24.11 they run only when asked (QFT_CHECK_ALL_2411=1), to keep CI
	# within its 90 minutes
	skip="test-routing test-products"
	[ "${QFT_CHECK_ALL_2411:-0}" = 1 ] && skip=
	QFT_SLURM_SKIP=$skip make -C "$build" -s check-slurm
	# the simulator on 24.11 (stock cons_tres + topology/qft, topology/block;
	# about 5 min) only when asked: with it, CI's 2 cores would end too
	# close to their 90 minutes
	if [ "${QFT_CHECK_SIM_2411:-0}" = 1 ]; then
		stage "make check-sim on Slurm 24.11 (with stock cons_tres + topology/qft and topology/block)"
		make -C "$build" -s check-sim
	fi
fi
stage "make bench (figures, not pass/fail)"
make -C "$top/build/release$sfx" -s bench
