#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# qft's per-link flow counts against ibutils' ibdm congestion analysis, on
# the same forwarding tables and the same traffic, and the speed of both.
#
# For each fabric (qft gen pgft, simulated by ibsim) and each OpenSM engine:
# OpenSM routes it and dumps its tables; `qft score --lft opensm-lfts.dump
# --pattern perm:N:SEED --flows --link-loads` scores N random permutations
# (one stage each) and writes every flow and every loaded directed link;
# ibdmsh (tests/ib/ibdm-cong.tcl) loads opensm-subnet.lst and opensm.fdbs,
# ranks the fabric from its top switches, traces every flow of a stage with
# ibdmCongTrace, reads the per-port counts from ibdmCongDump and ends the
# stage with ibdmCongClear; tests/ib/ibdm-compare.py compares link by link.
# ibdm never records the last hop (switch -> destination host): those qft
# counts are checked against the number of flows arriving at each host.
# Then both run many permutations for timing (qft: the best of 3 runs).
#
# Needs root for apt-get when packages are missing (ibsim-utils,
# libumad2sim0, infiniband-diags, opensm, ibutils, python3).
#   env: QFT (the qft tool, default build/dev/contribs/qft/qft)
#        QFT_IB_WORK (scratch, default build/ib/test-ibdm)
#        QFT_IBDM_PERMS (compared permutations per run, default 3)
#        QFT_IBDM_SEED (first seed, default 1; each run adds 1)
#        QFT_IBDM_TIMING_PERMS (ibdm's timing run, default 1000)
#        QFT_IBDM_QFT_TIMING_PERMS (qft's timing run, default 10000)
#        QFT_IBDM_ENGINES (default "updn minhop ftree")
#        QFT_IBDM_FABRICS (default "small=3;4,4,2;1,4,2;1,1,2 big=2;18,18;1,18;1,1")
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
QFT=${QFT:-$REPO/build/dev/contribs/qft/qft}
IBH=$HERE/ibsim-harness.sh
TCL=$HERE/ibdm-cong.tcl
CMP=$HERE/ibdm-compare.py
W=${QFT_IB_WORK:-$REPO/build/ib/test-ibdm}
PERMS=${QFT_IBDM_PERMS:-3}
SEED=${QFT_IBDM_SEED:-1}
TPERMS=${QFT_IBDM_TIMING_PERMS:-1000}
QPERMS=${QFT_IBDM_QFT_TIMING_PERMS:-10000}
ENGINES=${QFT_IBDM_ENGINES:-updn minhop ftree}
FABRICS=${QFT_IBDM_FABRICS:-small=3;4,4,2;1,4,2;1,1,2 big=2;18,18;1,18;1,1}
PASS=0 FAIL=0
ok() { PASS=$((PASS + 1)); echo "ok - $*"; }
bad() { FAIL=$((FAIL + 1)); echo "not ok - $*"; }
info() { echo "# $*"; }

# ------------------------------------------------------------- packages
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
deps() {
	"$IBH" deps >/dev/null || return 1
	local p miss=""
	for p in ibutils python3; do installed $p || miss="$miss $p"; done
	[ -n "$miss" ] || return 0
	[ "$(id -u)" = 0 ] || { echo "test-ibdm: missing$miss (run as root)" >&2; return 1; }
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086 # $miss is a list
	apt-get install -y -q $miss >/dev/null 2>&1 || {
		apt-get update -q >/dev/null 2>&1 || true
		# shellcheck disable=SC2086
		apt-get install -y -q $miss >/dev/null
	}
}
deps || { echo "test-ibdm: cannot install the packages"; echo "test-ibdm: 0 passed, 1 failed"; exit 1; }
command -v ibdmsh >/dev/null || { echo "test-ibdm: no ibdmsh after installing ibutils"; exit 1; }
[ -x "$QFT" ] || { echo "test-ibdm: no qft at $QFT (set QFT)"; exit 1; }

# ------------------------------------------------------------- helpers
now() { echo "$EPOCHREALTIME"; }
fsub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", a - b }'; }
fdiv() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", (b > 0 ? a / b : 0) }'; }
us() { awk -v a="$1" 'BEGIN { printf "%.1f", a * 1e6 }'; }
kv() { sed -n "s/^$1=//p" "$2" | tail -n1; }
# best (smallest) wall time of 3 runs of a command
best_of3() {
	local t0 t1 d best=
	for _ in 1 2 3; do
		t0=$(now); "$@" >/dev/null 2>&1 || return 1; t1=$(now)
		d=$(fsub "$t1" "$t0")
		if [ -z "$best" ] || awk -v a="$d" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$d; fi
	done
	echo "$best"
}
# runs ibdm-compare.py and turns its PASS/FAIL/INFO lines into ok/not ok
run_cmp() {
	local prefix=$1 line; shift
	while IFS= read -r line; do
		case $line in
		PASS\ *) ok "$prefix: ${line#PASS }" ;;
		FAIL\ *) bad "$prefix: ${line#FAIL }" ;;
		INFO\ *) info "$prefix: ${line#INFO }" ;;
		EXIT\ 0) ;;
		EXIT\ *) bad "$prefix: ibdm-compare.py $1 exited with status ${line#EXIT }" ;;
		*) info "$prefix: $line" ;;
		esac
	done < <(python3 "$CMP" "$@" 2>&1; echo "EXIT $?")
}

rm -rf "$W"
mkdir -p "$W"
trap '"$IBH" stop "$W/sim" >/dev/null 2>&1' EXIT
TIMES=()
seed=$SEED

for fab in $FABRICS; do
	name=${fab%%=*} tuple=${fab#*=}
	F=$W/$name
	"$QFT" gen pgft "$tuple" -o "$F.json" --ibsim "$F.net" 2>"$F.gen.err" ||
		{ bad "$name: qft gen pgft '$tuple'"; cat "$F.gen.err"; continue; }
	info "$name: $(tail -n1 "$F.gen.err")"
	"$IBH" stop "$W/sim" >/dev/null 2>&1
	"$IBH" start "$F.net" "$W/sim" >"$F.ibsim.out" 2>&1 ||
		{ bad "$name: ibsim start"; cat "$F.ibsim.out"; continue; }
	for eng in $ENGINES; do
		R=$W/$name-$eng
		tag="$name/$eng"
		mkdir -p "$R"
		if ! QFT_OPENSM_STRICT=1 "$IBH" opensm "$W/sim" "$eng" 0 >"$R/opensm.out" 2>&1; then
			bad "$tag: opensm -R $eng (see $R/opensm.out)"; tail -n 5 "$R/opensm.out"; continue
		fi
		cp "$W/sim/dump/"* "$R/"
		ok "$tag: OpenSM routed with $eng in $(kv opensm_route_seconds "$R/opensm.out") s"
		run_cmp "$tag" check "$F.json" "$R"

		# --- the comparison: PERMS permutations
		pat=perm:$PERMS:$seed
		"$QFT" score --fabric "$F.json" --hosts all --pattern "$pat" --lft "$R/opensm-lfts.dump" \
			--flows "$R/flows.txt" --link-loads "$R/qft-loads.txt" >"$R/qft-score.txt" 2>&1 ||
			{ bad "$tag: qft score $pat"; cat "$R/qft-score.txt"; continue; }
		info "$tag: qft $(sed -n 2p "$R/qft-score.txt")"
		run_cmp "$tag" traces "$F.json" "$R/flows.txt" "$R/traces.txt" "$R/roots.txt"
		if ! ibdmsh "$TCL" "$R/opensm-subnet.lst" "$R/opensm.fdbs" "$R/roots.txt" "$R/traces.txt" \
			"$R/ibdm-loads.txt" "$R/ibdm-report.txt" >"$R/ibdm.out" 2>&1; then
			bad "$tag: ibdmsh ibdm-cong.tcl failed (see $R/ibdm.out)"; grep -v '^-I-' "$R/ibdm.out" | tail -n 5
		else
			ok "$tag: ibdm traced $(kv ibdm_traced "$R/ibdm.out") paths in $(kv ibdm_stages "$R/ibdm.out") stages without error"
		fi
		run_cmp "$tag $pat" compare "$F.json" "$R/flows.txt" "$R/qft-loads.txt" \
			"$R/ibdm-loads.txt" "$R/ibdm-report.txt"

		# --- timing: QPERMS permutations in qft, TPERMS in ibdm
		tpat=perm:$TPERMS:$seed
		q1=$(best_of3 "$QFT" score --fabric "$F.json" --hosts all --pattern "perm:1:$seed" --lft "$R/opensm-lfts.dump")
		qn=$(best_of3 "$QFT" score --fabric "$F.json" --hosts all --pattern "perm:$QPERMS:$seed" --lft "$R/opensm-lfts.dump")
		if [ -z "$q1" ] || [ -z "$qn" ]; then bad "$tag: qft timing runs"; continue; fi
		"$QFT" score --fabric "$F.json" --hosts all --pattern "$tpat" --lft "$R/opensm-lfts.dump" \
			--flows "$R/tflows.txt" >/dev/null 2>&1
		python3 "$CMP" traces "$F.json" "$R/tflows.txt" "$R/ttraces.txt" "$R/roots.txt" >/dev/null
		t0=$(now)
		ibdmsh "$TCL" "$R/opensm-subnet.lst" "$R/opensm.fdbs" "$R/roots.txt" "$R/ttraces.txt" - \
			>"$R/ibdm-timing.out" 2>&1 || bad "$tag: ibdm timing run failed (see $R/ibdm-timing.out)"
		t1=$(now)
		q_per=$(fdiv "$qn" "$QPERMS")
		q_marg=$(fdiv "$(fsub "$qn" "$q1")" "$((QPERMS - 1))")
		i_per=$(kv ibdm_trace_clear_per_stage "$R/ibdm-timing.out")
		i_cnt=$(kv ibdm_counts_per_stage "$R/ibdm.out")
		i_wall=$(fdiv "$(fsub "$t1" "$t0")" "$TPERMS")
		nfl=$(($(wc -l <"$R/tflows.txt") / TPERMS))
		TIMES+=("$(printf '%-13s %6d %10s %10s %10s %10s %10s %8s' "$tag" "$nfl" \
			"$(us "$q_per")" "$(us "$q_marg")" "$(us "$i_per")" "$(us "$i_wall")" "$(us "${i_cnt:-0}")" \
			"$(awk -v a="$i_per" -v b="$q_marg" 'BEGIN { printf "%.0f", (b > 0 ? a / b : 0) }')")")
		info "$tag: qft perm:1 $q1 s, perm:$QPERMS:$seed $qn s; ibdm $tpat: load $(kv ibdm_load_seconds "$R/ibdm-timing.out") s, trace $(kv ibdm_trace_seconds "$R/ibdm-timing.out") s, clear $(kv ibdm_clear_seconds "$R/ibdm-timing.out") s, ibdmsh wall $(fsub "$t1" "$t0") s"
		seed=$((seed + 1))
	done
done
"$IBH" stop "$W/sim" >/dev/null 2>&1

echo
echo "Time per permutation in microseconds (qft: $QPERMS permutations, $QFT; ibdm: $TPERMS permutations, ibutils $(dpkg-query -W -f='${Version}' ibutils)):"
printf '%-13s %6s %10s %10s %10s %10s %10s %8s\n' "fabric/eng" flows "qft/N" "qft marg." \
	"ibdm t+c" "ibdm wall" "ibdm+dump" "ratio"
for t in "${TIMES[@]}"; do echo "$t"; done
cat <<'EOF'
  qft/N      whole `qft score --pattern perm:N` run (load JSON + LFT dump, route, score) / N
  qft marg.  (run with N permutations - run with 1) / (N - 1): scoring alone
  ibdm t+c   ibdmCongTrace of every flow + ibdmCongClear, per stage (Tcl clock, no file loading)
  ibdm wall  whole ibdmsh run (parse subnet.lst + fdbs, rank, trace, clear) / N
  ibdm+dump  t+c plus ibdmCongDump and its parsing into per-link counts (the compared runs)
  ratio      ibdm t+c / qft marg.
EOF
echo "test-ibdm: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
