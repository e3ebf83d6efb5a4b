#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The slurm-qft simulation demo, from a fresh Debian 12 machine, as root:
# installs what it needs (build packages, Debian's Slurm and its source, the
# front-end Slurm pieces, python3-matplotlib), builds slurm-qft (release),
# then replays one workload through a real slurmctld in front-end mode under
# the four placement policies and prints the report:
#
#   fabric    PGFT(2;18,18;1,18;1,1), 324 hosts (QFT_DEMO_TUPLE)
#   workload  200 jobs of the "mixed" kind, seed 1, offered load 0.9
#             (QFT_DEMO_JOBS, QFT_DEMO_SEED, QFT_DEMO_LOAD)
#   runtime   jobs slowed by the congestion they meet: --comm mixed (30%
#             of the jobs communicate half their time, the rest a tenth;
#             QFT_DEMO_COMM, empty: every job sleeps its trace time)
#   policies  rlft, rlft-nocong, cons_tres, linear; with
#             QFT_SLURM_SERIES=24.11 on Slurm 24.11 (Debian 13's, built
#             from its tarball): rlft, cons_tres-qft (stock cons_tres,
#             topology/qft choosing the nodes), cons_tres, block
#             (topology/block, a block per leaf)
#   time      compressed so that the arrivals take about 90 s per policy
#             (QFT_DEMO_SPAN); the four policies take 6 to 8 minutes on
#             2 cores once everything is built
#
# The report goes to build/sim-demo (QFT_DEMO_OUT): report.txt,
# report.json, hsd.png, util.png, and per policy jobs.json and the cluster.
# Extra arguments go to contribs/sim/qft-sim (e.g. --kill-ctld-at 0.5).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
t0=$SECONDS
[ "$(id -u)" = 0 ] || { echo "demo.sh: run it as root (apt-get, slurmd)" >&2; exit 1; }

step() { printf '== %s\n' "$*"; }
quiet() { # quiet LOG CMD...: runs CMD, shows the log's tail if it fails
	local log=$1
	shift
	if ! "$@" >"$log" 2>&1; then
		tail -30 "$log" >&2
		echo "demo.sh: '$*' failed, see $log" >&2
		exit 1
	fi
}
mkdir -p "$top/build"
logs=$top/build/sim-demo-logs
mkdir -p "$logs"

step "Debian packages (contribs/scripts/deps.sh)"
quiet "$logs/deps.log" "$top/contribs/scripts/deps.sh" python3-matplotlib
series=${QFT_SLURM_SERIES:-22.05}
case $series in
22.05) name=release policies=rlft,rlft-nocong,cons_tres,linear ;;
24.11) name=release-24.11 policies=rlft,cons_tres-qft,cons_tres,block ;;
*) echo "demo.sh: QFT_SLURM_SERIES=$series: expected 22.05 or 24.11" >&2; exit 2 ;;
esac
export QFT_SLURM_SERIES=$series
step "Slurm $series source and front-end pieces (contribs/slurm/slurm-source.sh, slurm-frontend.sh)"
quiet "$logs/slurm-source.log" "$top/contribs/slurm/slurm-source.sh"
quiet "$logs/slurm-frontend.log" "$top/contribs/slurm/slurm-frontend.sh"
step "slurm-qft release build (contribs/scripts/build.sh $name)"
quiet "$logs/build.log" "$top/contribs/scripts/build.sh" "$name"
build=$top/build/$name
for f in contribs/qft/qft src/plugins/select/rlft/select_rlft.so src/plugins/topology/qft/topology_qft.so; do
	[ -e "$build/$f" ] || { echo "demo.sh: the build has no $f" >&2; exit 1; }
done
echo "   ready after $((SECONDS - t0)) s"

tuple=${QFT_DEMO_TUPLE:-2;18,18;1,18;1,1}
out=${QFT_DEMO_OUT:-$top/build/sim-demo}
step "simulation: PGFT($tuple), ${QFT_DEMO_JOBS:-200} mixed jobs, Slurm $series, $policies (contribs/sim/qft-sim)"
t1=$SECONDS
rc=0
comm=()
[ -z "${QFT_DEMO_COMM-mixed}" ] || comm=(--comm "${QFT_DEMO_COMM-mixed}")
"$top/contribs/sim/qft-sim" --build "$build" --pgft "$tuple" \
	--synthetic mixed --jobs "${QFT_DEMO_JOBS:-200}" --seed "${QFT_DEMO_SEED:-1}" \
	--load "${QFT_DEMO_LOAD:-0.9}" --real-span "${QFT_DEMO_SPAN:-90}" "${comm[@]}" \
	--series "$series" --policies "$policies" --out "$out" "$@" || rc=$?
echo
echo "simulation took $((SECONDS - t1)) s, the demo $((SECONDS - t0)) s; plots: $out/hsd.png $out/util.png"
exit $rc
