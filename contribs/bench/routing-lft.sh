#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# routing-lft.sh: select/rlft with qft.conf Routing=lft on the 1944-host
# PGFT(3;18,18,6;1,18,6;1,1,3) routed by the real OpenSM on ibsim (the
# closing-note evidence of issue 11). Root. Figures; exit 1 when a check
# fails (a prediction that differs from `qft score --lft`, a daemon that
# would not start, no ranking difference found).
#   1. ibsim runs the fabric `qft gen pgft` writes; OpenSM routes it with
#      updn and with ftree (opensm -o, LMC 0); their opensm-lfts.dump are
#      kept, and the fabric JSON is checked against OpenSM's guid2lid (same
#      GUIDs, same LIDs); whole-fabric Shift under dmodk, updn and ftree.
#   2. A front-end Slurm cluster of the 1944 nodes (topology/qft,
#      select/rlft, qft.conf Routing=lft LftFile=<updn dump>) runs a mix of
#      jobs together (-N 18, 36, 100, 324, 7, 648, -n 50, -n 200). For each:
#      its QFT_HSD_AVG/MAX/STAGES, `qft score --lft <updn dump>` on its nodes
#      in tree order over the same stages (a job above 181 nodes is
#      predicted on a sample of its Shift stages: the same sample is taken
#      from `qft score --link-loads`), the same over every stage, and what
#      D-Mod-K would give (`qft score`). Mismatches are counted.
#   3. `qft place --explain` searches two-job sequences (a small job, then
#      one of 324..756 nodes) for one where the placer chooses other nodes
#      under updn's tables than under D-Mod-K for the same running job and
#      request; then the same two sbatch jobs run in slurmctld under
#      Routing=lft (the cluster of step 2) and Routing=dmodk (a second
#      cluster), and both node lists are printed.
#   4. Single jobs (contiguous 100, 7, a leaf, 324, the whole fabric, and
#      some spanning level 3) scored under OpenSM's ftree tables, D-Mod-K
#      and updn; and every (leaf switch, host) path of ftree's tables
#      compared hop by hop with D-Mod-K's (`qft lft`).
# About 2 minutes on 2 cores (each OpenSM run 8-25 s, each 1944-node
# cluster start under 10 s, the rest mostly qft score on the 49 MB dumps).
# Prints one section per step (tables of figures), then a summary: the
# mismatch count, the ranking case, failed checks and the wall time. The
# work dir keeps the dumps, OpenSM and slurmctld logs and job environments.
# Every daemon it starts (ibsim, opensm, munged, slurmctld, slurmd) is
# stopped on exit, by PID, through the harnesses that started it.
#
#   usage: contribs/bench/routing-lft.sh
#   env:   QFT_BUILD          build dir (default build/release; relative
#                             paths are from the repo top; made by
#                             contribs/scripts/build.sh release; when it has
#                             no Slurm plugins yet, build.sh rebuilds it once
#                             slurm-frontend.sh has fetched the Slurm source)
#          QFT_ROUTING_WORK   scratch (default build/routing-lft)
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${QFT_BUILD:-$TOP/build/release}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
WORK=${QFT_ROUTING_WORK:-$TOP/build/routing-lft}
case $WORK in /*) ;; *) WORK=$TOP/$WORK ;; esac
IBH=$TOP/tests/ib/ibsim-harness.sh
TUPLE="3;18,18,6;1,18,6;1,1,3"
T0=$SECONDS

die() { printf 'routing-lft: ERROR: %s\n' "$*" >&2; exit 1; }
section() { printf '\n=== %s (t=%ds)\n' "$*" $((SECONDS - T0)); }

[ "$(id -u)" = 0 ] || die "needs root (slurmd, apt-get for the IB packages)"
# The front-end Slurm pieces (idempotent; builds them on a fresh machine).
"$TOP/contribs/slurm/slurm-frontend.sh" >/dev/null 2>&1 ||
	die "contribs/slurm/slurm-frontend.sh failed"
if ! ls "$BUILD"/src/plugins/*/*/*.so >/dev/null 2>&1; then
	# a build configured before the Slurm source was there: reconfigure it
	[ "$(dirname "$BUILD")" = "$TOP/build" ] ||
		die "no Slurm plugins in $BUILD/src/plugins (contribs/scripts/build.sh NAME)"
	"$TOP/contribs/scripts/build.sh" "$(basename "$BUILD")" >/dev/null ||
		die "contribs/scripts/build.sh $(basename "$BUILD") failed"
fi
[ -x "$BUILD/contribs/qft/qft" ] || die "no qft in $BUILD (contribs/scripts/build.sh release)"
ls "$BUILD"/src/plugins/*/*/*.so >/dev/null 2>&1 || die "no Slurm plugins in $BUILD/src/plugins"
"$IBH" deps >/dev/null || die "cannot install ibsim/OpenSM (tests/ib/ibsim-harness.sh deps)"

export QFT=$BUILD/contribs/qft/qft QFT_PLUGIN_BUILD=$BUILD/src/plugins
export QFT_TEST_ROOT=$WORK
export TEST_NAME=routing-lft # lib.sh's say() prefix
# shellcheck source=tests/slurm/lib.sh
. "$TOP/tests/slurm/lib.sh" # start_cluster, plugin_dir, tree_names, stop_all
SIM=$WORK/ib
cleanup() {
	stop_all
	"$IBH" stop "$SIM" >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# what an interrupted earlier run may have left (their pid files are in WORK)
"$IBH" stop "$SIM" >/dev/null 2>&1 || true
for c in L D; do "$HARNESS" stop -w "$WORK/c-$c" >/dev/null 2>&1 || true; done
rm -rf "$WORK"
mkdir -p "$WORK/jobs" "$WORK/tmp"
FAB=$WORK/fabric.json
UPDN=$WORK/opensm-lfts-updn.dump
FTREE=$WORK/opensm-lfts-ftree.dump
DMODK=$WORK/qft-lft-dmodk.dump
FAILS=0
fail() { FAILS=$((FAILS + 1)); echo "FAIL: $*"; }

# ============================================================ 1. OpenSM
section "1. PGFT($TUPLE) on ibsim, routed by OpenSM updn and ftree"
"$QFT" gen pgft "$TUPLE" -o "$FAB" --ibsim "$WORK/fabric.net" 2>"$WORK/gen.err" ||
	die "qft gen failed: $(cat "$WORK/gen.err")"
sed -n 's/^qft gen: PGFT/PGFT/p' "$WORK/gen.err"
"$IBH" start "$WORK/fabric.net" "$SIM" >"$WORK/ibsim.kv" 2>"$WORK/ibsim.err" ||
	{ cat "$WORK/ibsim.err"; die "ibsim did not start"; }
echo "ibsim up in $(sed -n 's/^ibsim_start_seconds=//p' "$WORK/ibsim.kv") s"
kv() { sed -n "s/^$1=//p" "$2"; }
for eng in updn ftree; do
	QFT_OPENSM_STRICT=1 "$IBH" opensm "$SIM" "$eng" 0 >"$WORK/opensm-$eng.kv" 2>"$WORK/opensm-$eng.err" ||
		{ cat "$WORK/opensm-$eng.err"; die "opensm -R $eng failed"; }
	cp "$SIM/dump/opensm-lfts.dump" "$WORK/opensm-lfts-$eng.dump"
	cp "$SIM/dump/guid2lid" "$WORK/guid2lid-$eng"
	k=$WORK/opensm-$eng.kv
	printf 'opensm -R %-5s engine used %s, routing %.2f s, LFTs set %.2f s, run %.1f s; unrouted (switch, host LID) pairs: %s; dump %s MB\n' \
		"$eng" "$(kv opensm_engine_used "$k")" "$(kv opensm_route_seconds "$k")" \
		"$(kv opensm_lft_configured_seconds "$k")" "$(kv opensm_wall_seconds "$k")" \
		"$(kv opensm_unrouted_to_ca "$k")" "$(($(stat -c %s "$WORK/opensm-lfts-$eng.dump") / 1000000))"
done
"$IBH" stop "$SIM" >/dev/null 2>&1
echo "ibsim stopped (the dumps are all the rest needs)"
# The fabric JSON against OpenSM's LID assignment: port GUID -> LID.
python3 - "$FAB" "$WORK/guid2lid-updn" "$WORK/guid2lid-ftree" <<'PY' || fail "fabric JSON and OpenSM's guid2lid differ"
import json, sys
f = json.load(open(sys.argv[1]))
want = {}
for h in f["hosts"]:  # port 1 of a host: node GUID + 1
    want[int(h["guid"], 16) + 1] = h["lid"]
for s in f["switches"]:  # switch port 0: the node GUID
    want[int(s["guid"], 16)] = s["lid"]
bad = 0
for path in sys.argv[2:]:
    got = {}
    for line in open(path):
        w = line.split()
        if len(w) >= 2:
            got[int(w[0], 16)] = int(w[1], 16)
    bad += sum(1 for g, l in want.items() if got.get(g) != l) + len(set(got) - set(want))
    print("%s: %d port GUIDs, each with the LID of fabric.json: %s" %
          (path.rsplit("/", 1)[1], len(got), "yes" if got == want else "NO"))
sys.exit(1 if bad else 0)
PY
"$QFT" lft --fabric "$FAB" -o "$DMODK" || die "qft lft failed"

# hsd HOSTS [ARGS]: "AVG MAX" of qft score over every stage
hsd() {
	local hosts=$1
	shift
	"$QFT" score --fabric "$FAB" --hosts "$hosts" --json "$@" 2>&1 |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.3f %d" % (d["avg_hsd"], d["max_hsd"]))' 2>&1
}
hsd_jobs() { # hsd_jobs FILE [ARGS]: the same for the jobs of FILE played together
	local jobs=$1
	shift
	"$QFT" score --fabric "$FAB" --jobs "$jobs" --json "$@" 2>&1 |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.3f %d" % (d["avg_hsd"], d["max_hsd"]))' 2>&1
}
echo "whole-fabric Shift (1943 stages), average/worst HSD: dmodk $(hsd all)," \
	"updn $(hsd all --lft "$UPDN"), ftree $(hsd all --lft "$FTREE")"

# ============================================================ 2. Slurm
section "2. slurmctld on 1944 nodes, Routing=lft, LftFile=updn dump: predictions vs qft score"
plugin_dir "$WORK/plugins"
tree_names "$FAB" >"$WORK/nodes"
mkdir -p "$WORK/conf-lft" "$WORK/conf-dmodk"
printf 'FabricFile=%s\nRouting=lft\nLftFile=%s\n' "$FAB" "$UPDN" >"$WORK/conf-lft/qft.conf"
printf 'FabricFile=%s\nRouting=dmodk\n' "$FAB" >"$WORK/conf-dmodk/qft.conf"
sed 's/^/  qft.conf: /' "$WORK/conf-lft/qft.conf"

# cluster NAME ROUTING: starts WORK/c-NAME with conf-ROUTING/qft.conf
cluster() {
	local w=$WORK/c-$1 t=$SECONDS
	start_cluster "$w" --node-file "$WORK/nodes" -p "$WORK/plugins" -t topology/qft \
		-s select/rlft -c "$WORK/conf-$2/qft.conf" -e "SlurmctldDebug=verbose" ||
		{ tail -n 20 "$w.start.out"; die "cluster $1 (Routing=$2) did not start"; }
	BIN=$w/bin
	LOG=$w/log/slurmctld.log
	echo "cluster $1 up in $((SECONDS - t)) s: $(grep -o 'topology/qft: fabric .*routing [^ ,]*' "$LOG" | head -n1)"
}
submit() { # submit SBATCH-SIZE-ARGS...: prints the job id
	(cd "$WORK" && "$BIN/sbatch" --parsable "$@" -o /dev/null \
		--wrap "env | grep ^QFT_ | sort > $WORK/jobs/\$SLURM_JOB_ID.env; sleep 900")
}
wait_running() { # wait_running ID...: until each runs and wrote its env
	local id n
	for _ in $(seq 1 240); do
		n=0
		for id in "$@"; do
			[ "$("$BIN/squeue" -h -j "$id" -o %T 2>/dev/null)" = RUNNING ] &&
				[ -s "$WORK/jobs/$id.env" ] && n=$((n + 1))
		done
		[ "$n" = $# ] && return 0
		sleep 0.5
	done
	return 1
}
wait_idle() { # until no job is left and every node is idle
	for _ in $(seq 1 240); do
		[ -z "$("$BIN/squeue" -h 2>/dev/null)" ] &&
			[ "$("$BIN/sinfo" -h -t idle -o %D 2>/dev/null)" = 1944 ] && return 0
		sleep 0.5
	done
	return 1
}
envv() { sed -n "s/^$1=//p" "$WORK/jobs/$2.env"; }
job_nodes() { "$BIN/squeue" -h -j "$1" -o %N; }

# score_job HOSTS PLAYED ARGS...: "SAMPLED_AVG SAMPLED_MAX FULL_AVG FULL_MAX"
# from `qft score ARGS --link-loads`: each stage's HSD is its busiest link;
# SAMPLED takes the PLAYED stages lib/traffic's SampledPattern takes
# (stratum s of PLAYED, golden-ratio offset), FULL every stage. FULL is
# checked against the JSON avg_hsd/max_hsd of the same run.
score_job() {
	local hosts=$1 played=$2 tmp=$WORK/tmp/score
	shift 2
	"$QFT" score --fabric "$FAB" --hosts "$hosts" --json "$@" --link-loads /dev/fd/3 \
		3>&1 >"$tmp.json" 2>"$tmp.err" |
		awk '{ if ($6 > m[$1]) m[$1] = $6 } END { for (s in m) print s, m[s] }' >"$tmp.stages"
	python3 - "$tmp.json" "$tmp.stages" "$played" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
peak = {}
for line in open(sys.argv[2]):
    s, m = line.split()
    peak[int(s)] = int(m)
total = d["stages"]
played = int(sys.argv[3])
if played >= total:
    picks = list(range(total))
else:  # lib/traffic/pattern.cpp SampledPattern::stage
    picks = []
    for s in range(played):
        lo, hi = s * total // played, (s + 1) * total // played
        frac = math.fmod(float(s + 1) * 0.6180339887498949, 1.0)
        picks.append(lo + min(hi - lo - 1, int(frac * float(hi - lo))))
full = [peak[s] for s in range(total)]
samp = [peak[s] for s in picks]
assert "%.3f %d" % (sum(full) / total, max(full)) == "%.3f %d" % (d["avg_hsd"], d["max_hsd"]), "link loads disagree with the JSON"
print("%.3f %d %.3f %d" % (sum(samp) / len(samp), max(samp), d["avg_hsd"], d["max_hsd"]))
PY
}

cluster L lft
MIX=("-N 18" "-N 36" "-N 100" "-N 324" "-N 7" "-N 648" "-n 50" "-n 200")
ids=()
for spec in "${MIX[@]}"; do
	# shellcheck disable=SC2086
	ids+=("$(submit $spec)")
done
wait_running "${ids[@]}" || fail "not every job of the mix runs"
MISMATCH=0
printf '%-7s %-7s %5s %-32s %-14s %11s %-16s %-16s %-12s %s\n' job request nodes "nodes (tree order)" kind \
	"stages" "slurmctld" "score --lft" "--lft all" "dmodk all"
printf '%-7s %-7s %5s %-32s %-14s %11s %-16s %-16s %-12s %s\n' "" "" "" "" "" "played" "QFT_HSD_AVG MAX" \
	"same stages" "stages" "stages"
i=0
for id in "${ids[@]}"; do
	spec=${MIX[$i]}
	i=$((i + 1))
	[ -s "$WORK/jobs/$id.env" ] || { fail "job $id ($spec) wrote no environment"; continue; }
	nl=$(job_nodes "$id")
	hosts=$(envv QFT_HOSTS "$id")
	stages=$(envv QFT_HSD_STAGES "$id")
	got="$(envv QFT_HSD_AVG "$id") $(envv QFT_HSD_MAX "$id")"
	read -r savg smax favg fmax < <(score_job "$hosts" "${stages%%/*}" --lft "$UPDN")
	dm=$(hsd "$hosts")
	mark=
	[ "$got" = "$savg $smax" ] || { mark=" MISMATCH"; MISMATCH=$((MISMATCH + 1)); }
	printf '%-7s %-7s %5s %-32s %-14s %11s %-16s %-16s %-12s %s%s\n' "$id" "$spec" \
		"$(echo "$hosts" | tr , '\n' | wc -l)" "$nl" "$(envv QFT_PLACEMENT_KIND "$id")" "$stages" \
		"$got" "$savg $smax" "$favg $fmax" "$dm" "$mark"
done
echo "predictions equal to qft score --lft on the same stages: $((${#ids[@]} - MISMATCH)) of ${#ids[@]} (mismatches: $MISMATCH)"
[ "$MISMATCH" = 0 ] || fail "$MISMATCH predictions differ from qft score --lft"
"$BIN/scancel" "${ids[@]}"

# ============================================================ 3. ranking
section "3. the placer under updn's tables vs D-Mod-K: same running job, same request"
# place N RUNNING-FILE|- [ARGS]: qft place's chosen host list ("-" if none)
place() {
	local n=$1 run=$2
	shift 2
	"$QFT" place --fabric "$FAB" --nodes "$n" ${run:+--running "$run"} "$@" 2>&1 |
		sed -n 's/^placed [0-9]* nodes: //p' | grep . || echo -
}
FIRST="" SECOND="" FOUND=""
echo "search: job A alone, then job B with A running; qft place under dmodk and under --lft updn"
printf '  %-4s %-6s %-16s %-16s %-16s %s\n' A B "A (both)" "B dmodk" "B lft" ""
for a in 7 18 36 100; do
	pa=$(place "$a" "")
	pal=$(place "$a" "" --lft "$UPDN")
	if [ "$pa" != "$pal" ]; then
		printf '  %-4s %-6s %-16s differs alone: dmodk %s, lft %s\n' "$a" - "" "$pa" "$pal"
		continue # the running job must be the same under both
	fi
	echo "$pa" >"$WORK/running-$a"
	for b in 324 432 540 648 756; do
		pd=$(place "$b" "$WORK/running-$a")
		pl=$(place "$b" "$WORK/running-$a" --lft "$UPDN")
		printf '  %-4s %-6s %-16s %-16s %-16s %s\n' "$a" "$b" "$pa" "$pd" "$pl" "$([ "$pd" = "$pl" ] || echo DIFFERENT)"
		if [ "$pd" != "$pl" ]; then
			FIRST=$a SECOND=$b FOUND=1
			break 2
		fi
	done
done
if [ -z "$FOUND" ]; then
	fail "no two-job sequence where updn and dmodk rank differently"
else
	R=$WORK/running-$FIRST
	echo
	echo "found: running = $(cat "$R") (a -N $FIRST job), request -N $SECOND"
	echo "\$ qft place --fabric fabric.json --running running.txt --nodes $SECOND --explain"
	"$QFT" place --fabric "$FAB" --running "$R" --nodes "$SECOND" --explain | sed 's/^/  /'
	echo "\$ qft place --fabric fabric.json --running running.txt --nodes $SECOND --lft opensm-lfts-updn.dump --explain"
	"$QFT" place --fabric "$FAB" --running "$R" --nodes "$SECOND" --lft "$UPDN" --explain | sed 's/^/  /'
	PD=$(place "$SECOND" "$R")
	PL=$(place "$SECOND" "$R" --lft "$UPDN")
	# both: "AVG MAX" of the job alone, and of it beside job A (score --jobs)
	echo "both choices, every stage of Shift (qft score; avg max; alone and together with job A):"
	for c in "$PD" "$PL"; do
		printf '%s\n%s\n' "$c" "$(cat "$R")" >"$WORK/tmp/pair"
		printf '  %-16s dmodk %s, with A %s   updn %s, with A %s\n' "$c" "$(hsd "$c")" \
			"$(hsd_jobs "$WORK/tmp/pair")" "$(hsd "$c" --lft "$UPDN")" \
			"$(hsd_jobs "$WORK/tmp/pair" --lft "$UPDN")"
	done

	# the same two sbatch jobs in slurmctld, Routing=lft then Routing=dmodk
	seq_jobs() { # seq_jobs ROUTING: -N FIRST, then -N SECOND once it runs
		local a b
		a=$(submit -N "$FIRST")
		wait_running "$a" || fail "$1: the -N $FIRST job does not run"
		b=$(submit -N "$SECOND")
		wait_running "$b" || fail "$1: the -N $SECOND job does not run"
		printf '  Routing=%-6s job %s -N %-4s %-16s job %s -N %-4s %-16s QFT_HSD_AVG %s MAX %s (%s stages) %s\n' \
			"$1" "$a" "$FIRST" "$(job_nodes "$a")" "$b" "$SECOND" "$(job_nodes "$b")" \
			"$(envv QFT_HSD_AVG "$b")" "$(envv QFT_HSD_MAX "$b")" "$(envv QFT_HSD_STAGES "$b")" \
			"$(envv QFT_PLACEMENT "$b")"
		SEQ_NODES=$(job_nodes "$b")
		"$BIN/scancel" "$a" "$b"
	}
	echo
	echo "the same sequence in slurmctld (sbatch -N $FIRST; once it runs, sbatch -N $SECOND):"
	wait_idle || fail "cluster L: nodes not idle after the mix"
	seq_jobs lft
	SEQ_LFT=$SEQ_NODES
	wait_idle || true
	"$HARNESS" stop -w "$WORK/c-L" >/dev/null 2>&1
	cluster D dmodk >/dev/null
	seq_jobs dmodk
	SEQ_DMODK=$SEQ_NODES
	"$HARNESS" stop -w "$WORK/c-D" >/dev/null 2>&1
	if [ "$SEQ_LFT" != "$SEQ_DMODK" ]; then
		echo "slurmctld: the -N $SECOND job gets $SEQ_LFT under Routing=lft, $SEQ_DMODK under Routing=dmodk"
	else
		fail "slurmctld chose $SEQ_LFT under both routings"
	fi
	[ "$SEQ_LFT" = "$PL" ] && [ "$SEQ_DMODK" = "$PD" ] &&
		echo "slurmctld's choices are qft place's (lft $PL, dmodk $PD)" ||
		fail "slurmctld's choices ($SEQ_LFT, $SEQ_DMODK) differ from qft place's ($PL, $PD)"
fi

# ============================================================ 4. ftree
section "4. OpenSM ftree vs D-Mod-K on single jobs (Shift, tree order, every stage; avg max)"
SINGLE=("contiguous 100:n[0001-0100]" "contiguous 100 at 300:n[0300-0399]" "7 hosts:n[0001-0007]"
	"a leaf (18):n[0019-0036]" "324 (an L2 subtree):n[0001-0324]" "432 across 2 subtrees:n[0109-0540]"
	"756 (7 blocks):n[0001-0756]" "1000 from 900:n[0900-1899]" "every 7th host (278):every7"
	"whole fabric:n[0001-1944]")
: >"$WORK/single.batch"
for s in "${SINGLE[@]}"; do
	h=${s#*:}
	[ "$h" != every7 ] || h=$(python3 -c 'print(",".join("n%04d" % j for j in range(1, 1945, 7)))')
	printf '%s\n\n' "$h" >>"$WORK/single.batch"
done
for r in dmodk ftree updn; do
	case $r in dmodk) a=() ;; ftree) a=(--lft "$FTREE") ;; updn) a=(--lft "$UPDN") ;; esac
	"$QFT" score --fabric "$FAB" --batch "$WORK/single.batch" --json "${a[@]}" |
		python3 -c 'import json,sys; [print("%.3f %d" % (d["avg_hsd"], d["max_hsd"])) for d in map(json.loads, sys.stdin)]' \
			>"$WORK/single.$r"
done
printf '%-26s %-16s %-12s %-12s %-12s %s\n' job hosts dmodk ftree updn "ftree = dmodk"
i=0
SAME=0
while read -r d && read -r f <&3 && read -r u <&4; do
	s=${SINGLE[$i]}
	i=$((i + 1))
	h=${s#*:}
	[ "$h" != every7 ] || h="n0001,n0008,.."
	[ "$d" = "$f" ] && SAME=$((SAME + 1))
	printf '%-26s %-16s %-12s %-12s %-12s %s\n' "${s%%:*}" "$h" "$d" "$f" "$u" "$([ "$d" = "$f" ] && echo yes || echo NO)"
done <"$WORK/single.dmodk" 3<"$WORK/single.ftree" 4<"$WORK/single.updn"
echo "ftree scores as D-Mod-K on $SAME of $i jobs"
[ "$i" = ${#SINGLE[@]} ] || fail "qft score --batch scored $i of ${#SINGLE[@]} jobs"
echo "every host-to-host path, hop by hop (tables are per destination LID, so a path is fixed by"
echo "the source's leaf switch and the destination): OpenSM ftree's dump vs qft lft's D-Mod-K tables"
python3 - "$FAB" "$FTREE" "$DMODK" <<'PY'
import collections, json, re, sys
fab = json.load(open(sys.argv[1]))
sw = {int(s["guid"], 16): s for s in fab["switches"]}
hosts = [h["lid"] for h in fab["hosts"]]
peer = {}
for a, pa, b, pb, *_ in fab["links"]:
    peer[(int(a, 16), pa)] = int(b, 16)
    peer[(int(b, 16), pb)] = int(a, 16)
def load(path):
    t = collections.defaultdict(dict)
    g = None
    for line in open(path):
        if line.startswith("Unicast"):
            g = int(re.search(r"guid (0x[0-9a-fA-F]+)", line).group(1), 16)
            continue
        m = re.match(r"(0x[0-9a-fA-F]+) (\d+)", line)
        if m:
            t[g][int(m.group(1), 16)] = int(m.group(2))
    return t
ft, dm = load(sys.argv[2]), load(sys.argv[3])
def path(t, s, lid):
    hops = []
    while s in sw and len(hops) < 8:
        p = t[s][lid]
        hops.append((s, p))
        s = peer[(s, p)]
    return hops
leaves = [g for g, s in sw.items() if s["level"] == 1]
same = cable = other = 0
for leaf in leaves:
    for lid in hosts:
        a, b = path(ft, leaf, lid), path(dm, leaf, lid)
        if a == b:
            same += 1
        elif [x[0] for x in a] == [x[0] for x in b]:
            cable += 1
        else:
            other += 1
entries = sum(1 for g in dm for l in hosts if ft[g].get(l) != dm[g].get(l))
used = set()
for leaf in leaves:
    for lid in hosts:
        used.update((s, lid) for s, _ in path(dm, leaf, lid))
unused_diff = sum(1 for g in dm for l in hosts if ft[g].get(l) != dm[g].get(l) and (g, l) not in used)
print("  (leaf, host) paths: %d identical, %d through the same switches on another parallel cable, %d through other switches"
      % (same, cable, other))
print("  (switch, host LID) entries: %d of %d differ; %d of those are on no host-to-host path"
      % (entries, len(dm) * len(hosts), unused_diff))
if cable == other == 0:
    print("  => on this fabric ftree's tables route every host pair exactly as D-Mod-K: every job and"
          " every pattern scores the same under both; the entries that differ are never used")
PY

# ============================================================ summary
section "summary"
echo "predictions vs qft score --lft: $MISMATCH mismatches"
[ -n "$FOUND" ] && echo "ranking differs: -N $FIRST, then -N $SECOND: dmodk $PD, updn $PL (slurmctld: ${SEQ_DMODK:-?}, ${SEQ_LFT:-?})"
echo "failed checks: $FAILS; wall time $((SECONDS - T0)) s"
[ "$FAILS" = 0 ]
