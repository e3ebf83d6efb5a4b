#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian packages (contribs/deb/build.sh) installed with apt on this
# Debian 12 machine and loaded by Debian's own daemons (slurmctld-wlm,
# slurmd-wlm of the slurmctld and slurmd packages: harness.sh --real-nodes),
# not a build of ours:
#   1. apt installs the four packages; slurm-qft-plugins depends on exactly
#      the installed slurm-wlm; dpkg refuses the same package made to
#      depend on another Slurm.
#   2. Debian's slurmctld and 2 slurmd with PluginDir=the package's
#      directory, topology/qft, select/rlft and spank/qft_lid: a 2-node job
#      runs, placed by select/rlft, with its QFT_* variables; scontrol show
#      topology lists the plugin's switches; the packaged qft scores the
#      job's nodes; man qft.conf is there.
#   3. apt removes slurm-qft-plugins: slurmctld no longer starts, with
#      Slurm's own error naming select/rlft; Debian's Slurm is untouched
#      (slurmctld --version runs), and the tools package stays.
#   4. With Slurm 24.11's daemons built for the tests
#      (contribs/slurm/slurm-2411.sh real; skipped when absent), the 22.05
#      plugins are refused by Slurm with a message naming the version.
# Needs root. QFT_DEB_DIR: the packages (default build/deb-22.05).
TEST_NAME=test-deb
# the packaged tool; no plugin build: the plugins are the package's
export QFT=${QFT:-/usr/bin/qft} QFT_PLUGIN_BUILD=${QFT_PLUGIN_BUILD:-/nonexistent}
. "$(dirname "$0")/../slurm/lib.sh"

DEBS=${QFT_DEB_DIR:-$REPO/build/deb-22.05}
ls "$DEBS"/slurm-qft-plugins_*.deb >/dev/null 2>&1 ||
	{ bad "no packages in $DEBS: run contribs/deb/build.sh"; finish; }
T=$ROOT/deb
rm -rf "$T"
mkdir -p "$T/jobs"
MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
PLUGINS=/usr/lib/$MULTIARCH/slurm-qft
SLURM_DEB=$(dpkg-query -W -f='${Version}' slurmctld)

# --- 1. apt ---------------------------------------------------------------------
apt-get remove -y -q slurm-qft-plugins slurm-qft-tools slurm-qft-verbs opensm-qft-event \
	>/dev/null 2>&1 || true
if DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$DEBS"/slurm-qft-plugins_*.deb \
	"$DEBS"/slurm-qft-tools_*.deb "$DEBS"/slurm-qft-verbs_*.deb \
	"$DEBS"/opensm-qft-event_*.deb >"$T/apt-install.log" 2>&1; then
	ok "apt installs the four packages"
else
	tail -20 "$T/apt-install.log"
	bad "apt install failed"
	finish
fi
for p in slurm-qft-plugins slurm-qft-tools slurm-qft-verbs opensm-qft-event; do
	say "$p $(dpkg-query -W -f='${Version}; Depends: ${Depends}' "$p")"
done
check "slurm-qft-plugins depends on exactly this Slurm ($SLURM_DEB)" \
	sh -c "dpkg-query -W -f='\${Depends}' slurm-qft-plugins | grep -qF 'slurm-wlm-basic-plugins (= $SLURM_DEB)'"
for f in topology_qft.so select_rlft.so spank_qft_lid.so; do
	check "$PLUGINS/$f installed" test -f "$PLUGINS/$f"
done
check "man qft.conf is installed" test -f /usr/share/man/man5/qft.conf.5.gz
# the same package, made to depend on another Slurm: dpkg refuses it
mkdir -p "$T/other"
dpkg-deb -R "$DEBS"/slurm-qft-plugins_*.deb "$T/other/pkg"
sed -i "s/slurm-wlm-basic-plugins (= [^)]*)/slurm-wlm-basic-plugins (= 24.11.5-4+deb13u1)/" \
	"$T/other/pkg/DEBIAN/control"
dpkg-deb -b "$T/other/pkg" "$T/other/plugins-other.deb" >/dev/null
if dpkg -i "$T/other/plugins-other.deb" >"$T/other/dpkg.log" 2>&1; then
	bad "dpkg installed plugins built for another Slurm"
else
	ok "dpkg refuses plugins for another Slurm: $(grep -m1 'depends on slurm-wlm-basic-plugins' "$T/other/dpkg.log" | sed 's/^ *//')"
fi
# dpkg -i leaves the refused package unpacked over the installed one: back
dpkg -i "$DEBS"/slurm-qft-plugins_*.deb >>"$T/apt-install.log" 2>&1
check "the right package is back" \
	sh -c "dpkg-query -W -f='\${Status}' slurm-qft-plugins | grep -q 'install ok installed'"

# --- 2. Debian's daemons with the installed plugins ------------------------------
"$QFT" gen pgft "2;2,2;1,2;1,1" -o "$T/fabric.json" 2>/dev/null
printf 'FabricFile=fabric.json\n' >"$T/qft.conf"
echo "optional $PLUGINS/spank_qft_lid.so" >"$T/plugstack.conf"
printf 'n000%s\n' 1 2 3 4 >"$T/nodes"
W=$T/c
if ! start_cluster "$W" --real-nodes --node-file "$T/nodes" --node-attrs CPUs=1 \
	-p "$PLUGINS" -t topology/qft -s select/rlft -c "$T/qft.conf" -c "$T/fabric.json" \
	-c "$T/plugstack.conf" -e SlurmctldDebug=verbose; then
	cat "$W.start.out"
	bad "Debian's slurmctld and slurmd with the installed plugins did not start"
	finish
fi
BIN=$W/bin
LOG=$W/log/slurmctld.log
ok "Debian's slurmctld and 4 slurmd with PluginDir=$PLUGINS"
check "Debian's slurmctld-wlm runs" pgrep -f "/usr/sbin/slurmctld-wlm"
check "it loaded select/rlft from the package" grep -q "select/rlft: fabric" "$LOG"
id=$(submit_recording "$W" "$T/jobs" 2)
wait_running "$W" "$id"
expect_eq "a 2-node job runs" "$("$BIN/squeue" -h -j "$id" -o %T)" RUNNING
qv() { sed -n "s/^$1=//p" "$T/jobs/$id.env" 2>/dev/null; }
say "its QFT_*: $(tr '\n' ' ' <"$T/jobs/$id.env" 2>/dev/null | cut -c1-300)"
expect_eq "QFT_RANK_ORDER" "$(qv QFT_RANK_ORDER)" tree
check "QFT_PLACEMENT_KIND is select/rlft's" sh -c "[ -n '$(qv QFT_PLACEMENT_KIND)' ] && [ '$(qv QFT_PLACEMENT_KIND)' != cons_tres ]"
expect_eq "QFT_HOSTS names the job's nodes" "$(qv QFT_HOSTS)" "$(job_nodes "$W" "$id")"
"$BIN/scontrol" show topology >"$T/topology.txt" 2>&1
say "scontrol show topology: $(head -3 "$T/topology.txt" | tr '\n' ' ')"
check "scontrol show topology lists the plugin's switches" grep -q "SwitchName=" "$T/topology.txt"
expect_eq "/usr/bin/qft scores the job's nodes" \
	"$(/usr/bin/qft score --fabric "$T/fabric.json" --hosts "$(qv QFT_HOSTS)" --json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["max_hsd"])')" 1
"$BIN/scancel" "$id"
"$HARNESS" stop -w "$W" >/dev/null 2>&1

# --- 3. removed ------------------------------------------------------------------
DEBIAN_FRONTEND=noninteractive apt-get remove -y -q slurm-qft-plugins >"$T/apt-remove.log" 2>&1
check "apt removes slurm-qft-plugins" sh -c "! test -f '$PLUGINS/select_rlft.so'"
W2=$T/gone
if start_cluster "$W2" --real-nodes --node-file "$T/nodes" --node-attrs CPUs=1 \
	-p "$PLUGINS" -t topology/qft -s select/rlft -c "$T/qft.conf" -c "$T/fabric.json"; then
	bad "slurmctld started without the plugins"
else
	ok "slurmctld does not start without the plugins"
fi
say "slurmctld says: $(grep -m1 -h 'select/rlft\|topology/qft' "$W2"/log/slurmctld.log "$W2"/log/*.out 2>/dev/null)"
check "with Slurm's own error naming the plugin" \
	sh -c "grep -qhE \"(Can't find plugin for|Couldn't find the specified plugin name for) (select/rlft|topology/qft)\" '$W2'/log/slurmctld.log '$W2'/log/*.out"
"$HARNESS" stop -w "$W2" >/dev/null 2>&1
check "Debian's Slurm is untouched: slurmctld-wlm -V" /usr/sbin/slurmctld-wlm -V
check "the tools package stays: qft runs" /usr/bin/qft info --fabric "$T/fabric.json"

# --- 4. the 22.05 plugins under Slurm 24.11 ---------------------------------------
RS=${QFT_SLURM_DIR_2411:-$REPO/build/slurm-24.11}/rs
if [ -x "$RS/sbin/slurmctld" ]; then
	dpkg-deb -x "$DEBS"/slurm-qft-plugins_*.deb "$T/x"
	W3=$T/v2411
	if QFT_SLURM_DIR=$(dirname "$RS") start_cluster "$W3" --real-nodes --series 24.11 --node-file "$T/nodes" \
		--node-attrs CPUs=1 -p "$T/x$PLUGINS" -t topology/qft -s select/rlft \
		-c "$T/qft.conf" -c "$T/fabric.json"; then
		bad "Slurm 24.11 started with plugins built for 22.05"
	else
		ok "Slurm 24.11 refuses the plugins built for 22.05"
	fi
	say "24.11 says: $(grep -m1 -h 'Incompatible' "$W3"/log/*.log "$W3"/log/*.out 2>/dev/null)"
	check "naming the plugin's version" \
		sh -c "grep -qh 'Incompatible Slurm plugin .*version (22.05' '$W3'/log/*.log '$W3'/log/*.out"
	"$HARNESS" stop -w "$W3" >/dev/null 2>&1
else
	skip "no Slurm 24.11 daemons ($RS): the version check under 24.11 not run"
fi
apt-get remove -y -q slurm-qft-tools slurm-qft-verbs opensm-qft-event >/dev/null 2>&1 || true
finish
