#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The whole test suite on a fresh Debian 12 machine: installs what it needs,
# fetches and builds Debian's Slurm 22.05 and Debian 13's Slurm 24.11,
# builds, and runs, side by side:
#   make check                the cmocka unit tests, C API test, CLI tests
#   the same under AddressSanitizer + UndefinedBehaviorSanitizer (the C++
#                             core, the C API, the qft tool, the interposer,
#                             the plugins' cmocka tests; not the python tests)
#   check-slurm               the plugins in real slurmctld and slurmd, every
#                             test of tests/slurm against both Slurm series
#   check-sim                 the simulation harness end to end, both series
#   check-ib                  OpenSM, infiniband-diags and ibdm on ibsim
#   check-fuzz                libFuzzer on every parser (QFT_FUZZ_SECONDS,
#                             default 12 s each here; 20 in tests/fuzz/run.sh)
# Compiles run one at a time under nice, the tests (much of it waiting on
# daemons) up to QFT_CHECK_JOBS at once (default 3), each Slurm or IB test a
# job of its own, in its own work dir, ports and ibsim socket. Every job's
# output is printed whole when it ends; the summary, and the failed checks of
# every failed job, come last. A Slurm test that fails is run once more and
# named flaky if it then passes. The benchmarks are not run here: `make
# bench` (README).
# Needs root (apt-get, slurmd). Logs: build/check/.
#
# Usage: contribs/check.sh [all|slurm]
#   slurm  only the Slurm part: Slurm source, the release build, make check,
#          check-slurm, of one series (22.05 unless QFT_SLURM_SERIES=24.11).
# QFT_SLURM_SERIES=24.11 with all: every stage, against 24.11 only.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-all}
case $what in all | slurm) ;; *)
	echo "usage: $0 [all|slurm]" >&2
	exit 2
	;;
esac
case ${QFT_SLURM_SERIES:-} in
"") series="22.05 24.11" ;;
22.05 | 24.11) series=$QFT_SLURM_SERIES ;;
*)
	echo "check.sh: QFT_SLURM_SERIES=$QFT_SLURM_SERIES: expected 22.05 or 24.11" >&2
	exit 2
	;;
esac
[ "$what" = all ] || series=${series%% *}
export POOL_LOGS=$top/build/check
rm -rf "$POOL_LOGS"
mkdir -p "$POOL_LOGS"
# shellcheck source=contribs/scripts/pool.sh
. "$top/contribs/scripts/pool.sh"
trap '_pool_stamp "end (exit $?)"' EXIT

# 1. every Debian package the stages install, in one apt-get run before any
# of them starts: two apt-gets at once would fight over dpkg's lock. The
# Slurm packages come with slurm-frontend.sh (pinned to one version, their
# services kept from starting).
_pool_stamp "Debian packages (contribs/scripts/deps.sh)"
"$top/contribs/scripts/deps.sh" python3-matplotlib dpkg-dev libmunge-dev libpmix-dev \
	ibsim-utils libumad2sim0 infiniband-diags opensm ibutils \
	clang-14 libclang-rt-14-dev curl ca-certificates xz-utils gpgv debian-archive-keyring ccache \
	debhelper lintian fakeroot debootstrap
# Every compile through ccache (Debian's compiler links in /usr/lib/ccache),
# one cache for all: release-24.11 shares its core with release (107 s of
# compiles become 12), and Slurm 24.11's build without front end the files
# that do not include read_config.h (it tests HAVE_FRONT_END). Paths under
# the checkout are hashed relative to it (CCACHE_BASEDIR), and not the
# directory a compile runs in, so two build dirs share objects.
export PATH=/usr/lib/ccache:$PATH CCACHE_DIR=$top/build/ccache CCACHE_BASEDIR=$top \
	CCACHE_NOHASHDIR=true

# 2. the jobs. cpu: Slurm builds, our builds, unit tests and fuzzing, one at a
# time under nice; test: daemons, up to QFT_CHECK_JOBS at once.
POOL_MAX_CPU=1
POOL_MAX_TEST=${QFT_CHECK_JOBS:-3}
POOL_NICE=cpu
first=${series%% *}
sfx() { [ "$1" = 22.05 ] || echo "-$1"; }
build_dir() { echo "$top/build/release$(sfx "$1")"; }
for s in $series; do
	# Slurm: the source (22.05: Debian's packages, the front-end libslurmfull
	# and slurmctld; 24.11: the front-end build), then our build against it
	pool_add "slurm-$s" cpu "" \
		"QFT_SLURM_SERIES=$s '$top/contribs/slurm/slurm-frontend.sh'"
	# and the libibverbs test double test-lid runs a step on (make check
	# builds it too, but the Slurm tests start before make check)
	pool_add "build$(sfx "$s")" cpu "slurm-$s" \
		"QFT_SLURM_SERIES=$s '$top/contribs/scripts/build.sh' release$(sfx "$s") && make -C '$(build_dir "$s")' -s tests/verbs/libibverbs.la"
	# 24.11's real-slurmd build serves the tests with --real-nodes
	if [ "$s" = 24.11 ]; then
		pool_add "slurm-24.11-real" cpu "slurm-24.11" \
			"'$top/contribs/slurm/slurm-2411.sh' real"
	fi
done
# make check, then what each test program checked (and the failures' logs)
check_cmd() { echo "rc=0; make -C \"$1\" -s -j2 check || rc=\$?; '$top/contribs/scripts/test-logs.sh' \"$1\"; exit \$rc"; }
pool_add check-release cpu "build$(sfx "$first")" "$(check_cmd "$(build_dir "$first")")"
# the Debian packages for this machine's Slurm (22.05), built with the
# Debian tools and lintian clean, then installed and loaded by Debian's own
# daemons (tests/deb/test-deb.sh; with 24.11's daemons: refused by version)
if [ "$what" = all ] && [ "$first" = 22.05 ]; then
	pool_add deb-build cpu "slurm-22.05" "QFT_DEB_CHECK=0 '$top/contribs/deb/build.sh' 22.05"
	deb_needs="deb-build"
	case " $series " in *" 24.11 "*) deb_needs="$deb_needs slurm-24.11-real" ;; esac
	pool_add test-deb test "$deb_needs" "bash '$top/tests/deb/test-deb.sh'"
fi
# the same for Debian 13's Slurm 24.11, in a Debian 13 root made with
# debootstrap (no compile: beside the compiles), built and tested there
# with Debian 13's own daemons (tests/deb/test-deb-2411.sh; with the 22.05
# packages: refused there by apt and slurmctld)
if [ "$what" = all ]; then
	case " $series " in *" 24.11 "*)
		pool_add debian13-root test "" "'$top/contribs/deb/debian13-root.sh' make"
		pool_add deb-build-2411 cpu "debian13-root" "QFT_DEB_CHECK=0 '$top/contribs/deb/build.sh' 24.11"
		deb_needs="deb-build-2411"
		[ "$first" != 22.05 ] || deb_needs="$deb_needs deb-build"
		pool_add test-deb-2411 test "$deb_needs" "bash '$top/tests/deb/test-deb-2411.sh'"
		;;
	esac
fi
if [ "$what" = all ]; then
	# -O1, as AddressSanitizer advises: a third less compile time than -O2
	pool_add build-sanitize cpu "" \
		"QFT_SLURM_SERIES=$first '$top/contribs/scripts/build.sh' sanitize$(sfx "$first") --enable-sanitizers CFLAGS='-g -O1' CXXFLAGS='-g -O1'"
	pool_add check-sanitize cpu build-sanitize "$(check_cmd "$top/build/sanitize$(sfx "$first")")"
	pool_add fuzz cpu "" \
		"'$top/tests/fuzz/run.sh' '${QFT_FUZZ_SECONDS:-12}'"
fi

# the tests, the longest first (seconds on this kind of machine, 22.05,
# one at a time); a test not named here comes last
by_length() { # by_length DIR NAME...: the tests of DIR, NAMEs first
	local dir=$1 t
	shift
	for t in "$@"; do [ -f "$dir/$t.sh" ] && echo "$t"; done
	for t in $(cd "$dir" && ls test-*.sh | sed 's/\.sh$//'); do
		case " $* " in *" $t "*) ;; *) echo "$t" ;; esac
	done
}
slurm_tests=$(by_length "$top/tests/slurm" test-topology test-shapewait test-lid \
	test-select test-routing test-degraded test-products test-spank test-sizes test-qft)
ib_tests=$(by_length "$top/tests/ib")
for s in $series; do
	b=$(build_dir "$s")
	if [ "$what" = all ]; then
		# as tests/slurm/run.sh does for the Slurm tests: a failure is run once
		# more; passing then, it is named FLAKY (the first run's FAIL lines,
		# with their details, stay in the log), failing twice, it fails
		pool_add "test-sim$(sfx "$s")" test "build$(sfx "$s")" \
			"make -C '$b' -s check-sim || { echo 'test-sim: FLAKY? failed once; running it once more'; make -C '$b' -s check-sim; }"
	fi
	for t in $slurm_tests; do
		needs="build$(sfx "$s")"
		# the tests that start real slurmd need 24.11's real build
		if [ "$s" = 24.11 ] && grep -q -- '--real-nodes' "$top/tests/slurm/$t.sh"; then
			needs="$needs slurm-24.11-real"
		fi
		pool_add "$t$(sfx "$s")" test "$needs" \
			"QFT_SLURM_READY=1 QFT_SLURM_TESTS=$t make -C '$b' -s check-slurm"
	done
	if [ "$what" = all ] && [ "$s" = "$first" ]; then
		for t in $ib_tests; do
			pool_add "ib-$t" test "build$(sfx "$s")" \
				"QFT_IB_TESTS=$t make -C '$b' -s check-ib"
		done
	fi
done
pool_run
