#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Slurm 24.11 packages (contribs/deb/build.sh 24.11) installed with apt
# in a Debian 13 root (contribs/deb/debian13-root.sh: debootstrap from
# Debian's archive, reused when there) and loaded by Debian 13's own
# daemons there (slurmctld-wlm, slurmd-wlm of trixie's slurmctld and slurmd
# packages, through harness.sh --real-nodes), not a build of ours. In the
# root:
#   1. apt installs the four packages; slurm-qft-plugins depends on exactly
#      the root's slurm-wlm; apt refuses the 22.05 package (Debian 12's)
#      there, by that dependency.
#   2. Debian 13's slurmctld and 4 slurmd with PluginDir=the package's
#      directory, topology/qft, select/rlft and spank/qft_lid: a 2-node job
#      runs, placed by select/rlft, with its QFT_* variables; scontrol show
#      topology lists the plugin's switches; Debian 13's sbatch offers the
#      SPANK plugin's options; the packaged qft scores the job's nodes.
#   3. Debian 13's slurmctld refuses the 22.05 package's plugins with
#      Slurm's message naming their version (skipped without
#      build/deb-22.05).
#   4. apt removes slurm-qft-plugins: slurmctld no longer starts, with
#      Slurm's own error naming select/rlft; Debian's Slurm is untouched
#      and the tools package stays.
# Then on this Debian 12 machine:
#   5. apt refuses the 24.11 package, by its dependency on Debian 13's
#      slurm-wlm.
# Needs root. QFT_DEB_DIR: the 24.11 packages (default build/deb-24.11);
# QFT_DEB_DIR_2205: the 22.05 ones (default build/deb-22.05).
TEST_NAME=test-deb-2411
# the packaged tool; no plugin build: the plugins are the package's
export QFT=${QFT:-/usr/bin/qft} QFT_PLUGIN_BUILD=${QFT_PLUGIN_BUILD:-/nonexistent}
# in the root: Debian's daemons, as harness.sh runs Debian 12's (its
# --series 24.11 would be our build of 24.11), in a test dir of their own
unset QFT_SLURM_SERIES
[ "${QFT_DEB_IN_ROOT:-0}" = 1 ] && export QFT_TEST_ROOT=${QFT_TEST_ROOT_DEB13:-$(cd "$(dirname "$0")/../.." && pwd)/build/slurm-tests-deb13}
. "$(dirname "$0")/../slurm/lib.sh"

DEBS=${QFT_DEB_DIR:-$REPO/build/deb-24.11}
DEBS_2205=${QFT_DEB_DIR_2205:-$REPO/build/deb-22.05}
export QFT_DEB_DIR=$DEBS QFT_DEB_DIR_2205=$DEBS_2205

# --- on the host: the root, the test in it, then 5. ---------------------------
if [ "${QFT_DEB_IN_ROOT:-0}" != 1 ]; then
	ls "$DEBS"/slurm-qft-plugins_*.deb >/dev/null 2>&1 ||
		{ bad "no packages in $DEBS: run contribs/deb/build.sh 24.11"; finish; }
	"$REPO/contribs/deb/debian13-root.sh" make || { bad "no Debian 13 root"; finish; }
	out=$ROOT/deb-2411.out
	mkdir -p "$ROOT"
	QFT_DEB_IN_ROOT=1 "$REPO/contribs/deb/debian13-root.sh" run bash "$REPO/tests/deb/test-deb-2411.sh" |
		tee "$out"
	counts=$(sed -n "s/^$TEST_NAME (Debian 13 root): \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p" "$out")
	if [ -n "$counts" ]; then
		PASS=$((PASS + ${counts% *}))
		FAIL=$((FAIL + ${counts#* }))
	else
		bad "the test in the Debian 13 root ended without its count"
	fi
	# 5. Debian 12's apt, asked (simulation) to install the 24.11 package
	if apt-get install -s -q "$DEBS"/slurm-qft-plugins_*.deb >"$ROOT/deb-2411-apt12.log" 2>&1; then
		bad "Debian 12's apt would install the plugins built for 24.11"
	else
		ok "Debian 12's apt refuses them: $(grep -m1 -o 'Depends: slurm-wlm-basic-plugins ([^)]*)[^"]*' "$ROOT/deb-2411-apt12.log")"
	fi
	check "by their dependency on Debian 13's slurm-wlm" \
		grep -q 'Depends: slurm-wlm-basic-plugins (= 24\.11' "$ROOT/deb-2411-apt12.log"
	finish
fi

# --- in the Debian 13 root --------------------------------------------------------
finish_root() {
	apt-get remove -y -q slurm-qft-plugins slurm-qft-tools slurm-qft-verbs opensm-qft-event \
		>/dev/null 2>&1 || true
	stop_all
	CLUSTERS=()
	echo "$TEST_NAME (Debian 13 root): $PASS passed, $FAIL failed"
	exit 0
}
# stop_cluster W: harness stop, once (a stop of a stopped cluster takes
# seconds: lib.sh's stop_all at the end is for those not stopped here)
stop_cluster() {
	local w kept=()
	"$HARNESS" stop -w "$1" >/dev/null 2>&1
	for w in "${CLUSTERS[@]}"; do [ "$w" = "$1" ] || kept+=("$w"); done
	CLUSTERS=("${kept[@]}")
}
say "in Debian $(cat /etc/debian_version): $(/usr/sbin/slurmctld-wlm -V) ($(dpkg-query -W -f='${Package} ${Version}' slurmctld))"
T=$ROOT/deb-2411
rm -rf "$T"
mkdir -p "$T/jobs"
MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
PLUGINS=/usr/lib/$MULTIARCH/slurm-qft
SLURM_DEB=$(dpkg-query -W -f='${Version}' slurmctld)
# the daemons by the names Debian's units start them by (slurmctld.service:
# /usr/sbin/slurmctld, the alternative that points at slurmctld-wlm): 24.11
# checks its own name, and as slurmctld-wlm stops at once ("certmgr plugin
# only allowed on slurmctld and slurmd")
DAEMONS=(--slurmctld /usr/sbin/slurmctld --slurmd /usr/sbin/slurmd --slurmstepd /usr/sbin/slurmstepd)

# --- 1. apt -----------------------------------------------------------------------
apt-get remove -y -q slurm-qft-plugins slurm-qft-tools slurm-qft-verbs opensm-qft-event \
	>/dev/null 2>&1 || true
if DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$DEBS"/slurm-qft-plugins_*.deb \
	"$DEBS"/slurm-qft-tools_*.deb "$DEBS"/slurm-qft-verbs_*.deb \
	"$DEBS"/opensm-qft-event_*.deb >"$T/apt-install.log" 2>&1; then
	ok "apt installs the four packages"
else
	tail -20 "$T/apt-install.log"
	bad "apt install failed"
	finish_root
fi
for p in slurm-qft-plugins slurm-qft-tools slurm-qft-verbs opensm-qft-event; do
	say "$p $(dpkg-query -W -f='${Version}; Depends: ${Depends}' "$p")"
done
check "slurm-qft-plugins depends on exactly this Slurm ($SLURM_DEB)" \
	sh -c "dpkg-query -W -f='\${Depends}' slurm-qft-plugins | grep -qF 'slurm-wlm-basic-plugins (= $SLURM_DEB)'"
for f in topology_qft.so select_rlft.so spank_qft_lid.so libqft-lid.so; do
	check "$PLUGINS/$f installed" test -f "$PLUGINS/$f"
done
check "man qft.conf is installed" test -f /usr/share/man/man5/qft.conf.5.gz
if ls "$DEBS_2205"/slurm-qft-plugins_*.deb >/dev/null 2>&1; then
	if apt-get install -s -q "$DEBS_2205"/slurm-qft-plugins_*.deb >"$T/apt-2205.log" 2>&1; then
		bad "apt would install the plugins built for 22.05"
	else
		ok "apt refuses the 22.05 package: $(grep -m1 -o 'Depends: slurm-wlm-basic-plugins ([^)]*)[^"]*' "$T/apt-2205.log")"
	fi
	check "by its dependency on Debian 12's slurm-wlm" \
		grep -q 'Depends: slurm-wlm-basic-plugins (= 22\.05' "$T/apt-2205.log"
else
	skip "no 22.05 packages in $DEBS_2205: apt's refusal of them not tried"
fi

# --- 2. Debian 13's daemons with the installed plugins ----------------------------
"$QFT" gen pgft "2;2,2;1,2;1,1" -o "$T/fabric.json" 2>/dev/null
printf 'FabricFile=fabric.json\n' >"$T/qft.conf"
echo "optional $PLUGINS/spank_qft_lid.so" >"$T/plugstack.conf"
printf 'n000%s\n' 1 2 3 4 >"$T/nodes"
W=$T/c
if ! start_cluster "$W" --real-nodes "${DAEMONS[@]}" --node-file "$T/nodes" --node-attrs CPUs=1 \
	-p "$PLUGINS" -t topology/qft -s select/rlft -c "$T/qft.conf" -c "$T/fabric.json" \
	-c "$T/plugstack.conf" -e SlurmctldDebug=verbose; then
	cat "$W.start.out"
	bad "Debian 13's slurmctld and slurmd with the installed plugins did not start"
	finish_root
fi
BIN=$W/bin
LOG=$W/log/slurmctld.log
ok "Debian 13's slurmctld and 4 slurmd with PluginDir=$PLUGINS"
pid=$(cat "$W/run/slurmctld.pid" 2>/dev/null)
expect_eq "slurmctld runs from" "$(readlink "/proc/$pid/exe" 2>/dev/null)" /usr/sbin/slurmctld-wlm
check "it is Debian 13's, 24.11 (its log)" grep -q 'slurmctld version 24\.11\.[0-9]* started' "$LOG"
check "it loaded select/rlft from the package" grep -q "select/rlft: fabric" "$LOG"
check "Debian 13's sbatch offers spank/qft_lid's --qft-lid" sh -c "'$BIN/sbatch' --help 2>&1 | grep -q -- --qft-lid"
id=$(submit_recording "$W" "$T/jobs" 2)
wait_running "$W" "$id"
expect_eq "a 2-node job runs" "$("$BIN/squeue" -h -j "$id" -o %T)" RUNNING
qv() { sed -n "s/^$1=//p" "$T/jobs/$id.env" 2>/dev/null; }
say "its nodes: $(job_nodes "$W" "$id")"
# the job's own (the test's QFT_* settings reach it through sbatch too)
while IFS='=' read -r name value; do
	[ -z "${!name+x}" ] && say "  $name=$value"
done <"$T/jobs/$id.env"
expect_eq "QFT_RANK_ORDER" "$(qv QFT_RANK_ORDER)" tree
expect_eq "QFT_PLACEMENT (select/rlft's)" "$(qv QFT_PLACEMENT)" "L1-0 blocks 0-1 of 1 (aligned, contiguous)"
expect_eq "QFT_HOSTS names the job's nodes" "$(qv QFT_HOSTS)" "$(job_nodes "$W" "$id")"
"$BIN/scontrol" show topology >"$T/topology.txt" 2>&1
say "scontrol show topology:"
while read -r line; do say "  $line"; done <"$T/topology.txt"
check "scontrol show topology lists the plugin's switches" grep -q "SwitchName=" "$T/topology.txt"
expect_eq "/usr/bin/qft scores the job's nodes" \
	"$(/usr/bin/qft score --fabric "$T/fabric.json" --hosts "$(qv QFT_HOSTS)" --json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["max_hsd"])')" 1
"$BIN/scancel" "$id"
stop_cluster "$W"

# --- 3. the 22.05 plugins under Debian 13's slurmctld -------------------------------
if ls "$DEBS_2205"/slurm-qft-plugins_*.deb >/dev/null 2>&1; then
	dpkg-deb -x "$DEBS_2205"/slurm-qft-plugins_*.deb "$T/x2205"
	W3=$T/v2205
	if start_cluster "$W3" --real-nodes "${DAEMONS[@]}" --node-file "$T/nodes" --node-attrs CPUs=1 \
		-p "$T/x2205$PLUGINS" -t topology/qft -s select/rlft -c "$T/qft.conf" -c "$T/fabric.json"; then
		bad "Debian 13's slurmctld started with plugins built for 22.05"
	else
		ok "Debian 13's slurmctld refuses the plugins built for 22.05"
	fi
	say "it says: $(grep -m1 -h 'Incompatible' "$W3"/log/*.log "$W3"/log/*.out 2>/dev/null)"
	check "naming the plugin's version" \
		sh -c "grep -qh 'Incompatible Slurm plugin .*version (22\.05' '$W3'/log/*.log '$W3'/log/*.out"
	stop_cluster "$W3"
else
	skip "no 22.05 packages in $DEBS_2205: Slurm's refusal of them not tried"
fi

# --- 4. removed ----------------------------------------------------------------------
DEBIAN_FRONTEND=noninteractive apt-get remove -y -q slurm-qft-plugins >"$T/apt-remove.log" 2>&1
check "apt removes slurm-qft-plugins" sh -c "! test -f '$PLUGINS/select_rlft.so'"
W2=$T/gone
if start_cluster "$W2" --real-nodes "${DAEMONS[@]}" --node-file "$T/nodes" --node-attrs CPUs=1 \
	-p "$PLUGINS" -t topology/qft -s select/rlft -c "$T/qft.conf" -c "$T/fabric.json"; then
	bad "slurmctld started without the plugins"
else
	ok "slurmctld does not start without the plugins"
fi
say "slurmctld says: $(grep -m1 -h 'select/rlft\|topology/qft' "$W2"/log/slurmctld.log "$W2"/log/*.out 2>/dev/null)"
check "with Slurm's own error naming the plugin" \
	sh -c "grep -qhE \"(Can't find plugin for|Couldn't find the specified plugin name for) (select/rlft|topology/qft)\" '$W2'/log/slurmctld.log '$W2'/log/*.out"
stop_cluster "$W2"
check "Debian's Slurm is untouched: slurmctld-wlm -V" /usr/sbin/slurmctld-wlm -V
check "the tools package stays: qft runs" sh -c "/usr/bin/qft info --fabric '$T/fabric.json' >/dev/null"
finish_root
