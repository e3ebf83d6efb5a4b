#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# spank/qft_lid (contribs/spank) in real slurmd and slurmstepd (--real-nodes,
# 2 nodes; 22.05: Debian's, 24.11: contribs/slurm/slurm-2411.sh real's):
# --qft-lid=MODE reaches slurmctld as QFT_LID=MODE
# in the job's SPANK environment (slurmd's Prolog sees SPANK_QFT_LID), a bad
# MODE fails the submission, and every mode puts into the tasks' environment
# what contribs/spank/README.md says: the batch step, a plain srun step and
# an srun --qft-lid=off step of each job record theirs; a table a node
# cannot read, or whose digest is not QFT_LID_DIGEST, stops the tasks
# there with one line (the job fails). select/rlft is not
# needed: each job sets what select/rlft would (QFT_LID_CHOICE,
# QFT_LID_TABLE, QFT_LID_PATH_BITS) with sbatch --export; cons_tres places.
# The interposer is a stand-in (an empty library).
#   QFT_SPANK_BUILD  where spank_qft_lid.so is
#                    (default $QFT_PLUGIN_BUILD/../../contribs/spank)
TEST_NAME=test-spank
. "$(dirname "$0")/lib.sh"

SPANK=${QFT_SPANK_BUILD:-$QFT_PLUGIN_BUILD/../../contribs/spank}/spank_qft_lid.so
[ -f "$SPANK" ] || { bad "no $SPANK: build with the Slurm source (make builds it)"; finish; }
SPANK=$(cd "$(dirname "$SPANK")" && pwd)/spank_qft_lid.so
T=$ROOT/spank
rm -rf "$T"
mkdir -p "$T/conf" "$T/out" "$T/prolog"
LID=$T/libqft-lid.so
OTHER=$T/libother.so
if ! echo 'int qft_lid_stand_in;' | ${CC:-cc} -shared -fPIC -o "$LID" -x c - ||
	! echo 'int other_stand_in;' | ${CC:-cc} -shared -fPIC -o "$OTHER" -x c -; then
	bad "cannot build the stand-in libraries with ${CC:-cc}"
	finish
fi
echo "optional $SPANK interposer=$LID" >"$T/conf/plugstack.conf"
cat >"$T/pair.lid" <<'EOF'
# two nodes, LMC 2
qft-lid 1
lmc 2
choice pair
hosts 2
host n0001 0x0004 1
host n0002 0x0008 0
pairs
01
20
end
EOF
sed '/^choice/s/pair/dest/; /^pairs/,/^20/d' "$T/pair.lid" >"$T/dest.lid"
# slurmd's Prolog: the job's SPANK environment as slurmctld sent it
cat >"$T/prolog.sh" <<EOF
#!/bin/sh
env | sort >"$T/prolog/\$SLURM_JOB_ID.\$SLURMD_NODENAME.env"
EOF
# the batch step, a plain step and a --qft-lid=off step write their
# environments to $QFT_SPANK_OUT/<job name>.{batch,step.N,off.N}.env
cat >"$T/job.sh" <<'EOF'
#!/bin/sh
o=$QFT_SPANK_OUT/$SLURM_JOB_NAME
env | sort >"$o.batch.env"
srun sh -c 'env | sort >"$0.step.$SLURM_PROCID.env"' "$o"
srun --qft-lid=off sh -c 'env | sort >"$0.off.$SLURM_PROCID.env"' "$o"
EOF
chmod +x "$T/prolog.sh" "$T/job.sh"
export QFT_SPANK_OUT=$T/out

W=$T/c
# SlurmctldDebug=debug3: slurmctld logs each job request's spank_job_env
start_cluster "$W" --real-nodes -n 2 --node-attrs CPUs=2 -c "$T/conf/plugstack.conf" \
	-e "Prolog=$T/prolog.sh" -e "SlurmctldDebug=debug3" ||
	{ cat "$W.start.out"; bad "real-node cluster with the plugin did not start"; finish; }
BIN=$W/bin
CTLD=$W/log/slurmctld.log
ok "2 real slurmd with spank/qft_lid in plugstack.conf"

# val FILE NAME: the value of NAME in an env dump (empty if unset)
val() { sed -n "s/^$2=//p" "$1" 2>/dev/null | head -1; }
# files NAME KIND: the env dumps of job NAME (KIND batch, step or off)
files() { ls "$T/out/$1.$2".*env 2>/dev/null; }
# each NAME KIND WHAT VAR WANT: VAR is WANT in every dump of that kind
each() {
	local f got n=0 bad_one=''
	for f in $(files "$1" "$2"); do
		n=$((n + 1))
		got=$(val "$f" "$4")
		[ "$got" = "$5" ] || bad_one="${f##*/}: $4='$got'"
	done
	if [ "$n" = 0 ]; then
		bad "$1 $2: $3: no environment recorded"
	elif [ -n "$bad_one" ]; then
		bad "$1 $2: $3: $bad_one, wanted '$5'"
	else
		ok "$1 $2 ($n): $3: $4='$5'"
	fi
}
# none NAME KIND REGEX: no variable of any dump of that kind matches
none() {
	local f hit='' n=0
	for f in $(files "$1" "$2"); do
		n=$((n + 1))
		[ -n "$hit" ] || hit=$(grep -E "$3" "$f" | head -1 | sed "s|^|${f##*/}: |")
	done
	if [ "$n" = 0 ]; then
		bad "$1 $2: no environment recorded"
	elif [ -n "$hit" ]; then
		bad "$1 $2: wanted no $3, found $hit"
	else
		ok "$1 $2 ($n): no $3"
	fi
}
# batch NAME SBATCH-ARGS...: runs job.sh on both nodes as job NAME, waits;
# sets JOB (its id) and CTLD_FROM (slurmctld.log's line count before it)
batch() {
	local name=$1
	shift
	CTLD_FROM=$(wc -l <"$CTLD")
	JOB=$(cd "$W" && "$BIN/sbatch" --parsable -N2 -n2 -J "$name" -o "$T/out/$name.out" "$@" "$T/job.sh")
	expect_eq "$name: job $JOB" "$(wait_job "$BIN" "$JOB")" COMPLETED
}
# ctld_got / ctld_lacks WHAT NEEDLE: slurmctld logged NEEDLE since CTLD_FROM / did not
ctld_got() { check "$1" sh -c "tail -n +$((CTLD_FROM + 1)) '$CTLD' | grep -qF -- '$2'"; }
ctld_lacks() { check "$1" sh -c "! tail -n +$((CTLD_FROM + 1)) '$CTLD' | grep -qF -- '$2'"; }
# stepd_said WHAT NEEDLE COUNT: the slurmd logs hold NEEDLE COUNT times
stepd_said() { expect_eq "$1" "$(cat "$W"/log/slurmd.*.log | grep -cF -- "$2")" "$3"; }

# a slurmstepd that dies (the plugin runs in it) logs nothing: each step
# slurmd launched must have logged its "done with job" (24.11: "done with
# step")
# shellcheck disable=SC2317 # called through check
stepds_ended() {
	local logs=("$W"/log/slurmd.*.log) started ended
	started=$({
		grep -ho 'launch task StepId=[0-9.]*' "${logs[@]}" | sed 's/.*=//'
		grep -ho 'Launching batch job [0-9]*' "${logs[@]}" | sed 's/.* \([0-9]*\)$/\1.batch/'
	} | sort -u)
	# 24.11 says "stepd_cleanup: done with step (rc[...]...)" for a step
	# whose tasks failed
	ended=$(grep -hoE '\[[0-9a-z.]*\] (stepd_cleanup: )?done with (job|step)( \(rc.*)?$' "${logs[@]}" |
		sed 's/^\[\([^]]*\)\].*/\1/' | sort -u)
	[ -n "$started" ] && [ -z "$(comm -23 <(echo "$started") <(echo "$ended"))" ]
}

# --- pair: the interposer first in LD_PRELOAD, the user's preload kept ----
batch pair --qft-lid=pair \
	--export="ALL,QFT_LID_CHOICE=pair,QFT_LID_TABLE=$T/pair.lid,QFT_LID_HSD_AVG=1.5,LD_PRELOAD=$OTHER"
ctld_got "pair: slurmctld got QFT_LID=pair in the job's spank_job_env" \
	"spank_job_env=_SLURM_SPANK_OPTION_qft_lid_qft_lid=pair,QFT_LID=pair"
expect_eq "pair: slurmd's Prolog sees SPANK_QFT_LID=pair on both nodes" \
	"$(cat "$T/prolog/$JOB".*.env 2>/dev/null | grep -cx SPANK_QFT_LID=pair)" 2
each pair batch "sbatch exports the mode" SLURM_SPANK_QFT_LID pair
for k in batch step; do
	each pair $k "interposer first, the user's kept" LD_PRELOAD "$LID:$OTHER"
	each pair $k "DevX off" UCX_IB_MLX5_DEVX n
	each pair $k "table kept" QFT_LID_TABLE "$T/pair.lid"
done
none pair off '^QFT_LID_'
each pair off "the user's preload alone" LD_PRELOAD "$OTHER"
none pair off '^UCX_IB_MLX5_DEVX='
# A job's stderr without srun's own words when a step waited for the
# previous one's resources to be released (loaded machines: "Job N step
# creation temporarily disabled, retrying", "Step created for ..."): they
# say nothing about the plugin. Prints the path of the filtered copy.
job_stderr() {
	grep -Ev '^srun: (Job [0-9]+ step creation (temporarily|still) disabled|Step created for )' \
		"$1" >"$1.own" || true
	echo "$1.own"
}
expect_empty "pair: nothing on the job's stderr" "$(job_stderr "$T/out/pair.out")"

# --- pair asked, a dest table (slurmctld could not give pair) ------------
batch pair-dest --qft-lid=pair --export="ALL,QFT_LID_CHOICE=dest,QFT_LID_TABLE=$T/dest.lid"
each pair-dest step "the dest table applied" LD_PRELOAD "$LID"
stepd_said "pair-dest: said once per step and node that the table holds dest" \
	"[$JOB.0] spank/qft_lid: --qft-lid=pair, but the LID table $T/dest.lid holds \"dest\" offsets (slurmctld could not give pair): using the table" 2

# --- auto: follows QFT_LID_CHOICE; the user's UCX_IB_MLX5_DEVX kept --------
batch auto-pair --export="ALL,QFT_LID_CHOICE=pair,QFT_LID_TABLE=$T/pair.lid,UCX_IB_MLX5_DEVX=y"
each auto-pair step "QFT_LID_CHOICE=pair: interposer" LD_PRELOAD "$LID"
each auto-pair step "the user's DevX setting kept" UCX_IB_MLX5_DEVX y
each auto-pair off "the user's DevX setting kept by off" UCX_IB_MLX5_DEVX y
ctld_lacks "auto: no spank_job_env sent without --qft-lid" "spank_job_env="

# --- job: one offset, UCX_IB_LID_PATH_BITS = QFT_LID_PATH_BITS -------------
batch job --qft-lid=job --export="ALL,QFT_LID_CHOICE=job,QFT_LID_PATH_BITS=2"
ctld_got "job: slurmctld got QFT_LID=job" "spank_job_env=_SLURM_SPANK_OPTION_qft_lid_qft_lid=job,QFT_LID=job"
for k in batch step; do
	each job $k "UCX_IB_LID_PATH_BITS = QFT_LID_PATH_BITS" UCX_IB_LID_PATH_BITS 2
	none job $k '^LD_PRELOAD='
done
none job off '^UCX_IB_LID_PATH_BITS='

# --- auto, QFT_LID_CHOICE=job, the user's own UCX_IB_LID_PATH_BITS ----------
batch job-user --export="ALL,QFT_LID_CHOICE=job,QFT_LID_PATH_BITS=3,UCX_IB_LID_PATH_BITS=1"
each job-user step "the user's UCX_IB_LID_PATH_BITS kept" UCX_IB_LID_PATH_BITS 1
each job-user off "and kept by off" UCX_IB_LID_PATH_BITS 1
stepd_said "job-user: said once per step and node that it is the user's" \
	"[$JOB.0] spank/qft_lid: UCX_IB_LID_PATH_BITS=1 is the user's: kept, QFT_LID_PATH_BITS=3 not applied" 2

# --- off: nothing of QFT_LID_*, no interposer, in every step ---------------
batch off --qft-lid=off \
	--export="ALL,QFT_LID_CHOICE=pair,QFT_LID_TABLE=$T/pair.lid,QFT_LID_OFFSETS=1,QFT_LID_PATH_BITS=1,QFT_LID_HSD_MAX=2"
ctld_got "off: slurmctld got QFT_LID=off" "spank_job_env=_SLURM_SPANK_OPTION_qft_lid_qft_lid=off,QFT_LID=off"
for k in batch step off; do
	none off $k '^QFT_LID_'
	none off $k '^LD_PRELOAD='
	none off $k '^UCX_IB_'
done

# --- a table this node cannot apply: its tasks stop, one line why ---------
# (all or nothing: the other nodes would apply it; docs/lid-table.md)
# failing NAME WHAT SBATCH-ARGS...: job.sh as job NAME fails at its batch
# task, whose stderr says WHAT once; no step ran
failing() {
	local name=$1 what=$2
	shift 2
	JOB=$(cd "$W" && "$BIN/sbatch" --parsable -N2 -n2 -J "$name" -o "$T/out/$name.out" "$@" "$T/job.sh")
	expect_eq "$name: job $JOB" "$(wait_job "$BIN" "$JOB")" FAILED
	expect_eq "$name: the job's stderr says why, once" \
		"$(grep -cF "spank/qft_lid: $what; task stopped (exit 78): the job's other nodes apply the table, and a connection rewritten at one end only fails" "$T/out/$name.out")" 1
	expect_eq "$name: and nothing else" "$(wc -l <"$T/out/$name.out")" 1
	check "$name: no step ran" test -z "$(files "$name" step)"
}
failing no-table "LID table $T/missing.lid: No such file or directory" \
	--qft-lid=pair --export="ALL,QFT_LID_CHOICE=pair,QFT_LID_TABLE=$T/missing.lid"
digest=$(python3 -c 'import sys
h = 0xcbf29ce484222325
for b in open(sys.argv[1], "rb").read():
    h = ((h ^ b) * 0x100000001b3) % (1 << 64)
print("fnv1a64:%016x" % h)' "$T/pair.lid")
failing digest-differs "LID table $T/pair.lid: digest $digest, expected QFT_LID_DIGEST=fnv1a64:0123456789abcdef (the table select/rlft wrote for the job)" \
	--export="ALL,QFT_LID_CHOICE=pair,QFT_LID_TABLE=$T/pair.lid,QFT_LID_DIGEST=fnv1a64:0123456789abcdef"
batch digest-same --export="ALL,QFT_LID_CHOICE=pair,QFT_LID_TABLE=$T/pair.lid,QFT_LID_DIGEST=$digest"
each digest-same step "the table of the digest: interposer" LD_PRELOAD "$LID"
batch no-choice --qft-lid=dest
none no-choice step '^LD_PRELOAD='
stepd_said "no-choice: said once per step and node" \
	"[$JOB.0] spank/qft_lid: mode dest (--qft-lid) but no QFT_LID_CHOICE in the job environment" 2
batch choice-none --qft-lid=pair --export="ALL,QFT_LID_CHOICE=none,QFT_LID_OFFSETS=0"
none choice-none step '^LD_PRELOAD='
stepd_said "choice-none: said once per step and node" \
	"[$JOB.0] spank/qft_lid: mode pair (--qft-lid) but select/rlft chose no LID offsets (QFT_LID_CHOICE=none), nothing applied" 2
expect_empty "choice-none: nothing on the job's stderr" "$(job_stderr "$T/out/choice-none.out")"

# --- srun and salloc (local and allocator context) -------------------------
# shellcheck disable=SC2016 # the tasks expand them
dump='env | sort >"$QFT_SPANK_OUT/$0.step.$SLURM_PROCID.env"'
CTLD_FROM=$(wc -l <"$CTLD")
(cd "$W" && QFT_LID_CHOICE=dest QFT_LID_TABLE=$T/dest.lid timeout 60 "$BIN/srun" -N2 -n2 \
	--qft-lid=dest sh -c "$dump" srun)
ctld_got "srun: slurmctld got QFT_LID=dest" "spank_job_env=_SLURM_SPANK_OPTION_qft_lid_qft_lid=dest,QFT_LID=dest"
each srun step "interposer" LD_PRELOAD "$LID"
CTLD_FROM=$(wc -l <"$CTLD")
(cd "$W" && QFT_LID_CHOICE=job QFT_LID_PATH_BITS=1 timeout 60 "$BIN/salloc" -N2 -n2 \
	--qft-lid=job "$BIN/srun" sh -c "$dump" salloc) \
	>/dev/null 2>&1
ctld_got "salloc: slurmctld got QFT_LID=job" "spank_job_env=_SLURM_SPANK_OPTION_qft_lid_qft_lid=job,QFT_LID=job"
each salloc step "UCX_IB_LID_PATH_BITS" UCX_IB_LID_PATH_BITS 1

# --- bad values -----------------------------------------------------------
allowed="expected auto, pair, dest, job or off"
for c in sbatch srun salloc; do
	case $c in
		sbatch) args=(--wrap true) ;;
		*) args=(true) ;;
	esac
	out=$(cd "$W" && timeout 60 "$BIN/$c" --qft-lid=fast "${args[@]}" 2>&1)
	rc=$?
	check "$c --qft-lid=fast fails" test "$rc" != 0
	check "  and says: --qft-lid=fast: $allowed" \
		grep -qF "$c: error: spank/qft_lid: --qft-lid=fast: $allowed" <<<"$out"
done

# --- plugstack.conf arguments (the clients read it at every start) ---------
cp "$W/etc/plugstack.conf" "$T/plugstack.good"
echo "optional $SPANK interposer=$LID bogus=1 interposer=lib.so dir=hosts wait=501" >"$W/etc/plugstack.conf"
out=$(cd "$W" && "$BIN/sbatch" --test-only --qft-lid=pair --wrap true 2>&1)
check "an unknown plugstack.conf argument is named" \
	grep -qF 'spank/qft_lid: plugstack.conf: unknown argument "bogus=1" (interposer=PATH, dir=PATH, wait=SECONDS)' <<<"$out"
check "a relative dir= is refused" \
	grep -qF "spank/qft_lid: plugstack.conf: dir=hosts: expected an absolute path (qft.conf's HostFileDir=)" <<<"$out"
check "wait= above 500 is refused" \
	grep -qF 'spank/qft_lid: plugstack.conf: wait=501: expected seconds, 0 to 500' <<<"$out"
check "a relative interposer= is refused" \
	grep -qF 'spank/qft_lid: plugstack.conf: interposer=lib.so: expected an absolute path' <<<"$out"
echo "required $SPANK bogus" >"$W/etc/plugstack.conf"
check "a required line with a bad argument stops sbatch" \
	sh -c "! (cd '$W' && '$BIN/sbatch' --test-only --wrap true) 2>/dev/null"
cp "$T/plugstack.good" "$W/etc/plugstack.conf"

check "every slurmstepd ran to its end" stepds_ended
expect_eq "both nodes idle at the end" "$("$BIN/sinfo" -h -N -o %t | sort | uniq -c | awk '{print $1, $2}' | paste -sd,)" "2 idle"
check "every daemon still runs" sh -c "'$HARNESS' status -w '$W' >/dev/null 2>&1"
"$HARNESS" stop -w "$W" >/dev/null 2>&1
finish
