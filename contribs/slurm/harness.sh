#!/bin/bash
# harness.sh: a private Slurm 22.05 cluster on this host, in front-end mode
# (default) or with one real slurmd per node (--real-nodes); or the same
# two with Slurm 24.11 (--series 24.11). Shared by the Slurm tests
# (tests/slurm), the simulator (contribs/sim) and the benchmarks
# (contribs/bench).
#
#   harness.sh start   [options]  munged + slurmctld + one front-end slurmd,
#                                 waits until every node is idle
#   harness.sh start --real-nodes [options]   the same with Debian's normal
#                                 daemons (24.11: ours, built without front
#                                 end): one slurmd per node (1..4 nodes, own
#                                 port each)
#   harness.sh restart [-w DIR] [--kill]   stops slurmctld only (SIGTERM, or
#                                 SIGKILL with --kill), starts it again on
#                                 the same slurm.conf and state, waits for
#                                 ping; prints RESTART_SECS=<seconds>
#   harness.sh stop    [-w DIR]   stops them (by PID), and any slurmstepd
#                                 they left
#   harness.sh status  [-w DIR]   what runs; exit 0 only if all of it does
#   harness.sh env     [-w DIR]   prints shell lines to use the clients
#
# Everything lives under the work dir: slurm.conf, munge key and socket,
# state, spool, logs, pid files and client wrappers (<workdir>/bin/sinfo,
# sbatch, srun, scontrol, squeue, ...: they set SLURM_CONF and
# LD_LIBRARY_PATH; with --real-nodes they unset LD_LIBRARY_PATH), except
# the munge socket and slurmd's spool of a work dir too deep for a Unix
# socket's path: those go to /tmp/qft-munge-* and /tmp/qft-spool-*.
# /etc/slurm and the system munged are never used.
#
# Options of start (each also has an environment variable):
#   -w, --workdir DIR      QFT_WORKDIR        default <repo>/build/harness
#   -n, --nodes N          QFT_NODES          default 36 (names n0001..)
#       --node-file FILE   QFT_NODE_FILE      node names, one per line
#                                             (instead of --nodes)
#       --node-attrs STR   QFT_NODE_ATTRS     default "CPUs=1"
#   -p, --plugin-dir DIR   QFT_PLUGIN_DIRS    colon-separated; put before
#                                             Debian's plugin dir
#   -t, --topology TYPE    QFT_TOPOLOGY       default topology/none
#   -s, --select TYPE      QFT_SELECT         default select/cons_tres
#   -e, --extra LINE       QFT_EXTRA_CONF     extra slurm.conf lines
#                                             (newline-separated), last
#       --extra-file FILE  QFT_EXTRA_CONF_FILE  appended too
#   -c, --conf-file FILE   QFT_CONF_FILES     copied beside slurm.conf
#                                             (repeatable; env: space-separated)
#       --port BASE        QFT_PORT_BASE      slurmctld port; slurmd BASE+1
#                                             (real nodes: BASE+1..BASE+N)
#                                             default: a free one in 20000-32767
#       --timeout SECS     QFT_START_TIMEOUT  default 300 (restart too)
#       --real-nodes       QFT_REAL_NODES=1   no front end: Debian's
#                                             /usr/sbin/slurmctld-wlm, one
#                                             slurmd-wlm -N <node> per node,
#                                             /usr/bin clients, system
#                                             libslurmfull (24.11: the same
#                                             from slurm-2411.sh real's
#                                             prefix); 1..4 nodes
#       --configless       QFT_CONFIGLESS=1   with --real-nodes: slurmctld
#                                             serves the configs
#                                             (enable_configless), each
#                                             slurmd fetches them with
#                                             --conf-server; slurmd runs
#                                             in its own mount namespace
#                                             with a private /run whose
#                                             munge socket is ours
#       --slurmctld PATH   QFT_SLURMCTLD      default <fe prefix>/sbin/slurmctld
#                                             (real: /usr/sbin/slurmctld-wlm)
#       --slurmd PATH      QFT_SLURMD         default /usr/sbin/slurmd-wlm-emulator
#                                             (real: /usr/sbin/slurmd-wlm)
#       --slurmstepd PATH  QFT_SLURMSTEPD     default /usr/sbin/slurmstepd-wlm-emulator
#                                             (real: /usr/sbin/slurmstepd-wlm)
#       --libdir DIR       QFT_FE_LIBDIR      default <fe prefix>/lib
#                                             (not used with --real-nodes)
#       --series S         QFT_SLURM_SERIES   22.05 (default) or 24.11: every
#                                             daemon, client and plugin from
#                                             the prefix that QFT_SLURM_SERIES=24.11
#                                             contribs/slurm/slurm-frontend.sh
#                                             builds (<prefix>/sbin, /bin,
#                                             /lib/slurm, also the --libdir
#                                             default); with --real-nodes
#                                             from the one that
#                                             contribs/slurm/slurm-2411.sh real
#                                             builds (no front end; its
#                                             binaries find their
#                                             libslurmfull by RUNPATH); the
#                                             client wrappers put
#                                             <workdir>/bin first in PATH (a
#                                             job's srun is 24.11's too)
# Option of restart:
#       --kill                                SIGKILL instead of SIGTERM
#                                             (a crash: no final state save)
# QFT_SLURM_DIR locates build/slurm (contribs/slurm/slurm-frontend.sh),
# for 24.11 build/slurm-24.11.
#
# Runs as root (slurmd must), also in a container without systemd.
# Several real slurmd on one host work because Debian builds Slurm with
# --enable-multiple-slurmd (NodeName ... Port=<own port>, slurmd -N <node>).
#
# Copyright (C) 2025 slurm-qft authors. SPDX-License-Identifier: GPL-2.0-or-later

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
MA=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
DEBIAN_PLUGIN_DIR=/usr/lib/$MA/slurm-wlm
CLIENTS="sinfo sbatch srun salloc scontrol squeue scancel sacct sacctmgr
         sattach sbcast sdiag sprio sreport sshare sstat strigger"

log() { printf '[harness %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'harness: ERROR: %s\n' "$*" >&2; exit 1; }

# the comment block at the top, up to the copyright line
usage() {
    awk 'NR == 1 { next } !/^#/ || /^# Copyright/ { exit }
         { sub(/^# ?/, ""); print }' "$0"
}

# ---------------------------------------------------------------- options
CMD=${1:-}
[ -n "$CMD" ] || { usage; exit 2; }
shift

WORKDIR=${QFT_WORKDIR:-$REPO/build/harness}
NODES=${QFT_NODES:-36}
NODE_FILE=${QFT_NODE_FILE:-}
NODE_ATTRS=${QFT_NODE_ATTRS:-CPUs=1}
PLUGIN_DIRS=${QFT_PLUGIN_DIRS:-}
TOPOLOGY=${QFT_TOPOLOGY:-topology/none}
SELECT=${QFT_SELECT:-select/cons_tres}
EXTRA_CONF=${QFT_EXTRA_CONF:-}
EXTRA_CONF_FILE=${QFT_EXTRA_CONF_FILE:-}
CONF_FILES=${QFT_CONF_FILES:-}
PORT_BASE=${QFT_PORT_BASE:-}
TIMEOUT=${QFT_START_TIMEOUT:-300}
SLURMCTLD=${QFT_SLURMCTLD:-}
# empty: chosen by the mode in resolve_binaries
SLURMD=${QFT_SLURMD:-}
SLURMSTEPD=${QFT_SLURMSTEPD:-}
FE_LIBDIR=${QFT_FE_LIBDIR:-}
REAL_NODES=${QFT_REAL_NODES:-0}
CONFIGLESS=${QFT_CONFIGLESS:-0}
SERIES=${QFT_SLURM_SERIES:-22.05}
REAL_MAX_NODES=4
RESTART_SIG=TERM

while [ $# -gt 0 ]; do
    case $1 in
        -w|--workdir) WORKDIR=$2; shift 2 ;;
        -n|--nodes) NODES=$2; NODE_FILE=; shift 2 ;;
        -c|--conf-file) CONF_FILES+=" $2"; shift 2 ;;
        --node-file) NODE_FILE=$2; shift 2 ;;
        --node-attrs) NODE_ATTRS=$2; shift 2 ;;
        -p|--plugin-dir) PLUGIN_DIRS=${PLUGIN_DIRS:+$PLUGIN_DIRS:}$2; shift 2 ;;
        -t|--topology) TOPOLOGY=$2; shift 2 ;;
        -s|--select) SELECT=$2; shift 2 ;;
        -e|--extra) EXTRA_CONF=${EXTRA_CONF:+$EXTRA_CONF$'\n'}$2; shift 2 ;;
        --extra-file) EXTRA_CONF_FILE=$2; shift 2 ;;
        --port) PORT_BASE=$2; shift 2 ;;
        --timeout) TIMEOUT=$2; shift 2 ;;
        --slurmctld) SLURMCTLD=$2; shift 2 ;;
        --slurmd) SLURMD=$2; shift 2 ;;
        --slurmstepd) SLURMSTEPD=$2; shift 2 ;;
        --libdir) FE_LIBDIR=$2; shift 2 ;;
        --real-nodes) REAL_NODES=1; shift ;;
        --series) SERIES=$2; shift 2 ;;
        --configless) CONFIGLESS=1; shift ;;
        --kill) RESTART_SIG=KILL; shift ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown option $1 (see $0 --help)" ;;
    esac
done

case $SERIES in
    22.05) QFT_SLURM_DIR=${QFT_SLURM_DIR:-$REPO/build/slurm} ;;
    24.11) QFT_SLURM_DIR=${QFT_SLURM_DIR:-$REPO/build/slurm-24.11} ;;
    *) die "Slurm series $SERIES (--series, QFT_SLURM_SERIES): expected 22.05 or 24.11" ;;
esac
# PluginDir ends with it; the front-end clients are <CLIENT_DIR>/<name>
BASE_PLUGIN_DIR=$DEBIAN_PLUGIN_DIR
CLIENT_DIR=

mkdir -p "$WORKDIR"
W=$(cd "$WORKDIR" && pwd)
ETC=$W/etc
RUN=$W/run
LOGDIR=$W/log
BIN=$W/bin
STATE_FILE=$W/harness.env       # what start decided; read by stop/status
case $REAL_NODES in
    1|yes|true) HARNESS_MODE=real ;;
    *) HARNESS_MODE=frontend ;;
esac

# ---------------------------------------------------------------- helpers
# alive = exists and is not a zombie
pid_alive() {
    [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null || return 1
    local st
    st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null || true)
    [ "$st" != Z ] && [ -n "$st" ]
}
read_pid() { if [ -f "$RUN/$1.pid" ]; then cat "$RUN/$1.pid"; fi; }

# state_get KEY: a value that start wrote to harness.env (KEY='value')
state_get() {
    [ -f "$STATE_FILE" ] || return 0
    sed -n "s/^$1='\(.*\)'\$/\1/p" "$STATE_FILE" | tail -1
}
# state_set KEY VALUE: replace or append a line of harness.env
state_set() {
    local tmp=$STATE_FILE.tmp
    grep -v "^$1=" "$STATE_FILE" > "$tmp" || true
    printf "%s='%s'\n" "$1" "$2" >> "$tmp"
    mv "$tmp" "$STATE_FILE"
}
# the mode of the running harness (old harness.env files: front end)
load_mode() {
    local m
    m=$(state_get HARNESS_MODE)
    HARNESS_MODE=${m:-frontend}
    NODE_NAMES=$(state_get NODE_NAMES)
}
# names of the slurmd daemons start is to run (pid files run/<name>.pid)
slurmd_names() {
    local n
    if [ "$HARNESS_MODE" = real ]; then
        for n in $NODE_NAMES; do echo "slurmd.$n"; done
    else
        echo slurmd
    fi
}
# names of the slurmd daemons that have a pid file (either mode)
slurmd_pidfile_names() {
    local f
    for f in "$RUN"/slurmd.pid "$RUN"/slurmd.*.pid; do
        [ -f "$f" ] || continue
        f=${f##*/}; echo "${f%.pid}"
    done
}

# A PID file we wrote holds the daemon's PID; check it still is that
# program (PIDs get reused) through /proc/<pid>/exe.
daemon_pid() { # daemon_pid NAME [TRIES]: TRIES for a 24.11 slurmctld
    local name=$1 pid exe want
    pid=$(read_pid "$name")
    if [ "$name" = slurmctld ] && [ "$(state_get SLURMCTLD_DAEMON)" = 1 ]; then
        pid=$(ctld_daemon_pid "${2:-10}") || return 1
    fi
    pid_alive "$pid" || return 1
    want=$(cat "$RUN/$name.exe" 2>/dev/null || true)
    exe=$(readlink -f "/proc/$pid/exe" 2>/dev/null || true)
    [ -z "$want" ] || [ "$exe" = "$want" ] || return 1
    echo "$pid"
}

# Slurm 24.11's slurmctld runs as a daemon (no -D), as under systemd: then
# `scontrol reconfigure` forks and execs a new slurmctld that takes over
# once it is up, and the old one carries on if the new one dies (a bad
# config). With -D it would exec itself in place, and die with a bad
# config. Its PID is what it writes to SlurmctldPidFile; the new process
# rewrites that file a moment after the old one exits, hence the retries:
# 1 s (TRIES 10), or as many tenths as asked: restart waits up to 10 s, as
# one in test-lid (24.11, 2 cores busy with three tests) found no live pid
# in 1 s a few seconds after a reconfigure. run/slurmctld.pid follows it.
ctld_daemon_pid() {
    local pid _
    for _ in $(seq 1 "${1:-10}"); do
        pid=$(tr -cd '0-9' 2>/dev/null < "$RUN/slurmctld.slurmpid" || true)
        if pid_alive "$pid"; then
            [ "$(read_pid slurmctld)" = "$pid" ] || echo "$pid" > "$RUN/slurmctld.pid"
            echo "$pid"
            return 0
        fi
        sleep 0.1
    done
    return 1
}

start_slurmctld() {
    if [ "$(state_get SLURMCTLD_DAEMON)" != 1 ]; then
        start_daemon slurmctld "$SLURMCTLD" -D
        return
    fi
    rm -f "$RUN/slurmctld.slurmpid"
    start_daemon slurmctld "$SLURMCTLD"
    # the launcher forks the daemon and exits; the daemon writes its pid file
    local launcher n=0 deadline=$(( $(date +%s) + TIMEOUT ))
    launcher=$(read_pid slurmctld)
    until [ -s "$RUN/slurmctld.slurmpid" ]; do
        if ! pid_alive "$launcher"; then
            n=$((n + 1))
            [ $n -lt 100 ] || fail_start "slurmctld died while starting"
        fi
        [ "$(date +%s)" -lt "$deadline" ] ||
            fail_start "slurmctld wrote no $RUN/slurmctld.slurmpid in ${TIMEOUT} s"
        sleep 0.05
    done
}

# Processes that belong to this work dir, besides the PID files:
#  - daemons carry QFT_HARNESS_WORKDIR=$W in their environment;
#  - slurmstepd rewrites its environment area (process title), but keeps
#    the slurmd log under $LOGDIR open;
#  - job tasks have SLURM_CONF=<our slurm.conf> and SLURMD_NODENAME set;
#  - srun/salloc/sattach/sbcast run through our wrappers (SLURM_CONF=ours)
#    would wait for the stopped controller.
harness_pids() {
    local d pid env fd exe
    for d in /proc/[0-9]*; do
        pid=${d#/proc/}
        [ "$pid" = $$ ] && continue
        env=$(tr '\0' '\n' 2>/dev/null < "$d/environ" || true)
        if grep -qxF "QFT_HARNESS_WORKDIR=$W" <<<"$env"; then
            echo "$pid"; continue
        fi
        if grep -qxF "SLURM_CONF=$ETC/slurm.conf" <<<"$env"; then
            exe=$(readlink "$d/exe" 2>/dev/null || true)
            case ${exe##*/} in
                srun*|salloc*|sattach*|sbcast*) echo "$pid"; continue ;;
            esac
            if grep -q '^SLURMD_NODENAME=' <<<"$env"; then
                echo "$pid"; continue
            fi
        fi
        for fd in "$d"/fd/*; do
            case $(readlink "$fd" 2>/dev/null) in
                "$LOGDIR"/*) echo "$pid"; break ;;
            esac
        done
    done
}

# SIGTERM to all, SIGKILL to whatever is left after 5 s
stop_pids() {
    local pids=("$@") p _ left
    [ ${#pids[@]} -gt 0 ] || return 0
    log "stopping leftover processes: ${pids[*]}"
    kill -TERM "${pids[@]}" 2>/dev/null || true
    for _ in $(seq 1 25); do
        left=()
        for p in "${pids[@]}"; do pid_alive "$p" && left+=("$p"); done
        [ ${#left[@]} -gt 0 ] || return 0
        sleep 0.2
    done
    log "SIGKILL to ${left[*]}"
    kill -KILL "${left[@]}" 2>/dev/null || true
}

stop_pid() {
    local name=$1 pid=$2 _
    pid_alive "$pid" || return 0
    log "stopping $name (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do
        pid_alive "$pid" || return 0
        sleep 0.2
    done
    log "$name (pid $pid) ignored SIGTERM for 20 s, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    sleep 0.2
}

port_free() {
    # nothing listening on 127.0.0.1:$1
    ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# pick_ports [COUNT]: COUNT (default 2) free ports from PORT_BASE on:
# slurmctld, then the front-end slurmd or one slurmd per real node
pick_ports() {
    if [ -n "$PORT_BASE" ]; then return; fi
    local count=${1:-2} step base tries=0 i ok
    step=$(( (count + 3) / 4 * 4 ))
    # a per-workdir start point, so parallel harnesses rarely collide, below
    # the kernel's ephemeral range (srun and slurmstepd bind random ports
    # there, which could take ours between this check and slurmctld's bind)
    base=$(( 20000 + $(printf '%s' "$W" | cksum | cut -d' ' -f1) % 12000 ))
    base=$(( base - base % step ))
    while [ $tries -lt 200 ]; do
        ok=1
        for ((i = 0; i < count; i++)); do
            port_free $((base + i)) || { ok=0; break; }
        done
        if [ $ok = 1 ]; then PORT_BASE=$base; return; fi
        base=$((base + step)); tries=$((tries + 1))
        [ $base -lt 32000 ] || base=20000
    done
    [ "$count" = 2 ] && die "no free port pair found"
    die "no $count free ports in a row found"
}

node_spec_lines() {
    # NodeName lines for slurm.conf
    if [ -n "$NODE_FILE" ]; then
        [ -f "$NODE_FILE" ] || die "node file $NODE_FILE not found"
        # one NodeName line per 64 names keeps lines short
        grep -v '^[[:space:]]*\(#\|$\)' "$NODE_FILE" | awk '{print $1}' |
            paste -sd, - | tr ',' '\n' |
            awk -v attrs="$NODE_ATTRS" '
                { names[n++] = $1 }
                END {
                    for (i = 0; i < n; i += 64) {
                        s = names[i]
                        for (j = i + 1; j < n && j < i + 64; j++) s = s "," names[j]
                        printf "NodeName=%s %s State=UNKNOWN\n", s, attrs
                    }
                }'
    else
        if ! [[ $NODES =~ ^[0-9]+$ ]] || [ "$NODES" -lt 1 ]; then
            die "bad node count $NODES"
        fi
        printf 'NodeName=%s %s State=UNKNOWN\n' "$(node_range)" "$NODE_ATTRS"
    fi
}

# --real-nodes: the node names, one per line (n0001.. for --nodes; the
# first word of each line of --node-file, hostlist expressions expanded)
real_node_names() {
    if [ -n "$NODE_FILE" ]; then
        [ -f "$NODE_FILE" ] || die "node file $NODE_FILE not found"
        local e tmp
        tmp=$(mktemp)
        printf 'ClusterName=x\nSlurmctldHost=localhost\n' > "$tmp"
        grep -v '^[[:space:]]*\(#\|$\)' "$NODE_FILE" | awk '{print $1}' |
            while read -r e; do
                case $e in
                    *[\[,]*) SLURM_CONF=$tmp /usr/bin/scontrol show hostnames "$e" ||
                                  echo "?bad:$e" ;;
                    *) echo "$e" ;;
                esac
            done
        rm -f "$tmp"
    else
        if ! [[ $NODES =~ ^[0-9]+$ ]] || [ "$NODES" -lt 1 ]; then
            die "bad node count $NODES"
        fi
        local w i
        w=$(node_width)
        for ((i = 1; i <= NODES; i++)); do printf 'n%0*d\n' "$w" "$i"; done
    fi
}

# sets REAL_NODE_LIST (array) and NODE_NAMES (space-separated); checks them
set_real_nodes() {
    local names n
    names=$(real_node_names) || exit 1
    REAL_NODE_LIST=()
    for n in $names; do
        case $n in
            \?bad:*) die "bad hostlist ${n#?bad:} in $NODE_FILE" ;;
        esac
        [[ $n =~ ^[A-Za-z0-9_-]+$ ]] || die "bad node name '$n'"
        case " ${REAL_NODE_LIST[*]:-} " in
            *" $n "*) die "node $n listed twice" ;;
        esac
        REAL_NODE_LIST+=("$n")
    done
    [ ${#REAL_NODE_LIST[@]} -ge 1 ] || die "no nodes"
    [ ${#REAL_NODE_LIST[@]} -le $REAL_MAX_NODES ] ||
        die "--real-nodes runs one slurmd per node: at most $REAL_MAX_NODES nodes, not ${#REAL_NODE_LIST[@]}"
    NODE_NAMES="${REAL_NODE_LIST[*]}"
}

# --real-nodes: NodeHostname of every node: this host's short name if it
# resolves, else localhost (all nodes share it: multiple-slurmd build)
real_node_host() {
    local h
    h=$(hostname -s 2>/dev/null || true)
    if [ -n "$h" ] && getent hosts "$h" > /dev/null 2>&1; then
        echo "$h"
    else
        echo localhost
    fi
}

real_node_lines() {
    local i host
    host=$(real_node_host)
    for ((i = 0; i < ${#REAL_NODE_LIST[@]}; i++)); do
        printf 'NodeName=%s NodeHostname=%s NodeAddr=127.0.0.1 Port=%d %s State=UNKNOWN\n' \
            "${REAL_NODE_LIST[$i]}" "$host" $((PORT_BASE + 1 + i)) "$NODE_ATTRS"
    done
}

node_width() { local w=${#NODES}; [ "$w" -ge 4 ] || w=4; echo "$w"; }
node_range() {
    local w; w=$(node_width)
    if [ "$NODES" = 1 ]; then printf 'n%0*d' "$w" 1
    else printf 'n[%0*d-%0*d]' "$w" 1 "$w" "$NODES"; fi
}
node_count() {
    if [ "$HARNESS_MODE" = real ]; then
        echo "${#REAL_NODE_LIST[@]}"
    elif [ -n "$NODE_FILE" ]; then
        grep -cv '^[[:space:]]*\(#\|$\)' "$NODE_FILE"
    else
        echo "$NODES"
    fi
}

# ---------------------------------------------------------------- start
# Debian's normal (non-emulator) daemon NAME: /usr/sbin/NAME-wlm.  Not
# /usr/sbin/NAME: slurm-wlm-emulator points that alternative at itself.
real_daemon() {
    local name=$1 p
    for p in "/usr/sbin/$name-wlm" $(update-alternatives --list "$name" 2>/dev/null); do
        case $p in *emulator*) continue ;; esac
        [ -x "$p" ] && { echo "$p"; return 0; }
    done
    echo "/usr/sbin/$name-wlm"
}

resolve_real_binaries() {
    SLURMCTLD=${SLURMCTLD:-$(real_daemon slurmctld)}
    SLURMD=${SLURMD:-$(real_daemon slurmd)}
    SLURMSTEPD=${SLURMSTEPD:-$(real_daemon slurmstepd)}
    FE_LIBDIR=
    local b
    for b in "$SLURMCTLD" "$SLURMD" "$SLURMSTEPD"; do
        [ -x "$b" ] || die "no $b: apt-get install slurmctld slurmd"
    done
    command -v munged >/dev/null || die "no munged: apt-get install munge"
    local c
    for c in $CLIENTS; do
        [ -x "/usr/bin/$c" ] || die "no /usr/bin/$c: apt-get install slurm-client"
        case $(readlink -f "/usr/bin/$c") in
            *emulator*) die "/usr/bin/$c is the emulator's (front-end) client" ;;
        esac
    done
}

# Slurm 24.11 with --real-nodes: all of it from the prefix of our build
# without front end (slurm-2411.sh real); RUNPATH finds its libslurmfull
resolve_2411_real_binaries() {
    local rs=$QFT_SLURM_DIR/rs
    local build="contribs/slurm/slurm-2411.sh real"
    SLURMCTLD=${SLURMCTLD:-$rs/sbin/slurmctld}
    SLURMD=${SLURMD:-$rs/sbin/slurmd}
    SLURMSTEPD=${SLURMSTEPD:-$rs/sbin/slurmstepd}
    FE_LIBDIR=
    BASE_PLUGIN_DIR=$rs/lib/slurm
    CLIENT_DIR=$rs/bin
    [ -d "$rs" ] || die "--real-nodes --series 24.11 needs Slurm 24.11 built without front end in $rs: run $build"
    local b
    for b in "$SLURMCTLD" "$SLURMD" "$SLURMSTEPD"; do
        [ -x "$b" ] || die "no $b: run $build"
    done
    [ -f "$BASE_PLUGIN_DIR/libslurmfull.so" ] || die "no $BASE_PLUGIN_DIR/libslurmfull.so: run $build"
    command -v munged >/dev/null || die "no munged: apt-get install munge"
    local c
    for c in $CLIENTS; do
        [ -x "$CLIENT_DIR/$c" ] || die "no $CLIENT_DIR/$c: run $build"
    done
}

# Slurm 24.11: all of it from the prefix of our front-end build
resolve_2411_binaries() {
    if [ "$HARNESS_MODE" = real ]; then resolve_2411_real_binaries; return; fi
    local paths=$QFT_SLURM_DIR/slurm-paths.sh
    local build="QFT_SLURM_SERIES=24.11 contribs/slurm/slurm-frontend.sh"
    [ -f "$paths" ] || die "no $paths: run $build"
    # shellcheck disable=SC1090
    . "$paths"
    local fe=${QFT_SLURM_FE_PREFIX:-$QFT_SLURM_DIR/fe}
    SLURMCTLD=${SLURMCTLD:-$fe/sbin/slurmctld}
    SLURMD=${SLURMD:-$fe/sbin/slurmd}
    SLURMSTEPD=${SLURMSTEPD:-$fe/sbin/slurmstepd}
    FE_LIBDIR=${FE_LIBDIR:-$fe/lib/slurm}
    BASE_PLUGIN_DIR=$fe/lib/slurm
    CLIENT_DIR=$fe/bin
    local b
    for b in "$SLURMCTLD" "$SLURMD" "$SLURMSTEPD"; do
        [ -x "$b" ] || die "no $b: run $build"
    done
    [ -f "$FE_LIBDIR/libslurmfull.so" ] || die "no $FE_LIBDIR/libslurmfull.so: run $build"
    command -v munged >/dev/null || die "no munged: apt-get install munge"
    local c
    for c in $CLIENTS; do
        [ -x "$CLIENT_DIR/$c" ] || die "no $CLIENT_DIR/$c: run $build"
    done
}

resolve_binaries() {
    if [ "$SERIES" = 24.11 ]; then resolve_2411_binaries; return; fi
    if [ "$HARNESS_MODE" = real ]; then resolve_real_binaries; return; fi
    SLURMD=${SLURMD:-/usr/sbin/slurmd-wlm-emulator}
    SLURMSTEPD=${SLURMSTEPD:-/usr/sbin/slurmstepd-wlm-emulator}
    if [ -f "$QFT_SLURM_DIR/slurm-paths.sh" ]; then
        # shellcheck disable=SC1091
        . "$QFT_SLURM_DIR/slurm-paths.sh"
    fi
    local fe=${QFT_SLURM_FE_PREFIX:-$QFT_SLURM_DIR/fe}
    SLURMCTLD=${SLURMCTLD:-$fe/sbin/slurmctld}
    FE_LIBDIR=${FE_LIBDIR:-$fe/lib}
    [ -x "$SLURMCTLD" ] || die "no slurmctld at $SLURMCTLD: run contribs/slurm/slurm-frontend.sh"
    [ -f "$FE_LIBDIR/libslurmfull.so" ] || die "no $FE_LIBDIR/libslurmfull.so: run contribs/slurm/slurm-frontend.sh"
    [ -x "$SLURMD" ] || die "no $SLURMD: apt-get install slurm-wlm-emulator"
    [ -x "$SLURMSTEPD" ] || die "no $SLURMSTEPD: apt-get install slurm-wlm-emulator"
    command -v munged >/dev/null || die "no munged: apt-get install munge"
    local c
    for c in $CLIENTS; do
        [ -x "/usr/bin/$c-emulator" ] || [ -x "/usr/bin/$c" ] ||
            die "no /usr/bin/$c-emulator: apt-get install slurm-client-emulator"
    done
}

write_wrappers() {
    mkdir -p "$BIN"
    local c target
    # 24.11: jobs inherit the client's PATH, so that the srun in a batch
    # script is 24.11's (Debian's /usr/bin/srun is 22.05's)
    local path_line=
    if [ -n "$CLIENT_DIR" ]; then
        path_line="case :\$PATH: in *:'$BIN':*) ;; *) PATH='$BIN':\$PATH; export PATH ;; esac"
    fi
    if [ "$HARNESS_MODE" = real ]; then
        # Debian's normal clients (24.11: ours), with the libslurmfull
        # their RUNPATH names
        for c in $CLIENTS; do
            cat > "$BIN/$c" <<EOF
#!/bin/sh
# generated by contribs/slurm/harness.sh --real-nodes for $W
SLURM_CONF='$ETC/slurm.conf'
export SLURM_CONF
unset LD_LIBRARY_PATH${path_line:+
$path_line}
exec '${CLIENT_DIR:-/usr/bin}/$c' "\$@"
EOF
            chmod 755 "$BIN/$c"
        done
    fi
    for c in $CLIENTS; do
        [ "$HARNESS_MODE" != real ] || break
        if [ -n "$CLIENT_DIR" ]; then
            target=$CLIENT_DIR/$c
        else
            target=/usr/bin/$c-emulator
            [ -x "$target" ] || target=/usr/bin/$c
        fi
        cat > "$BIN/$c" <<EOF
#!/bin/sh
# generated by contribs/slurm/harness.sh for $W
SLURM_CONF='$ETC/slurm.conf'
LD_LIBRARY_PATH='$FE_LIBDIR'\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
export SLURM_CONF LD_LIBRARY_PATH${path_line:+
$path_line}
exec '$target' "\$@"
EOF
        chmod 755 "$BIN/$c"
    done
    cat > "$W/env.sh" <<EOF
# source me: the harness's clients first in PATH
export SLURM_CONF='$ETC/slurm.conf'
export PATH='$BIN':\$PATH
EOF
}

# set_spool: SPOOL, slurmd's spool dir. slurmstepd makes a socket there,
# <SPOOL>/slurmd.<node>/<node>_<job>.<step>, whose path must fit in
# sun_path (107 characters, with a job id up to 8 digits and a step id up
# to 10): a deeper work dir gets one under /tmp, as munged's socket does.
set_spool() {
    local n longest=5 # qftfe
    for n in "${REAL_NODE_LIST[@]}"; do [ ${#n} -le $longest ] || longest=${#n}; done
    SPOOL=$W/spool
    if [ $(( ${#SPOOL} + 8 + 2 * longest + 2 + 8 + 1 + 10 )) -gt 107 ]; then
        SPOOL=/tmp/qft-spool-$(printf '%s' "$W" | cksum | cut -d' ' -f1)
    fi
}

setup_munge() {
    MUNGE_DIR=$W/munge
    # the socket path must fit in sun_path (108 bytes)
    if [ ${#MUNGE_DIR} -gt 80 ]; then
        MUNGE_DIR=/tmp/qft-munge-$(printf '%s' "$W" | cksum | cut -d' ' -f1)
    fi
    MUNGE_SOCKET=$MUNGE_DIR/munge.socket.2
    MUNGE_USER=$(id -un)
    if [ "$(id -u)" = 0 ] && id munge >/dev/null 2>&1; then
        MUNGE_USER=munge
    fi
    rm -rf "$MUNGE_DIR"
    mkdir -p "$MUNGE_DIR"
    chmod 0700 "$MUNGE_DIR"
    if command -v mungekey >/dev/null; then
        mungekey --create --keyfile="$MUNGE_DIR/munge.key" --force
    else
        dd if=/dev/urandom of="$MUNGE_DIR/munge.key" bs=1024 count=1 status=none
    fi
    chmod 0600 "$MUNGE_DIR/munge.key"
    if [ "$MUNGE_USER" != "$(id -un)" ]; then
        chown -R "$MUNGE_USER": "$MUNGE_DIR"
        runuser -u "$MUNGE_USER" -- test -x "$MUNGE_DIR" ||
            die "user $MUNGE_USER cannot reach $MUNGE_DIR (a parent dir is not searchable)"
    fi
}

start_munged() {
    local cmd=(munged --foreground --force
               --socket="$MUNGE_SOCKET"
               --key-file="$MUNGE_DIR/munge.key"
               --pid-file="$MUNGE_DIR/munged.pid"
               --log-file="$MUNGE_DIR/munged.log"
               --seed-file="$MUNGE_DIR/munged.seed"
               --num-threads=4)
    if [ "$MUNGE_USER" != "$(id -un)" ]; then
        cmd=(setpriv --reuid="$MUNGE_USER" --regid="$MUNGE_USER" --init-groups -- "${cmd[@]}")
    fi
    log "starting munged as $MUNGE_USER (socket $MUNGE_SOCKET)"
    QFT_HARNESS_WORKDIR=$W setsid "${cmd[@]}" \
        > "$LOGDIR/munged.out" 2>&1 < /dev/null &
    echo $! > "$RUN/munged.pid"
    readlink -f "$(command -v munged)" > "$RUN/munged.exe"
    local _
    for _ in $(seq 1 100); do
        if [ -S "$MUNGE_SOCKET" ] &&
                munge -n -S "$MUNGE_SOCKET" 2>/dev/null |
                unmunge -S "$MUNGE_SOCKET" > /dev/null 2>&1; then
            return 0
        fi
        daemon_pid munged > /dev/null || break
        sleep 0.1
    done
    cat "$LOGDIR/munged.out" "$MUNGE_DIR/munged.log" 2>/dev/null | tail -20 >&2
    die "munged did not come up"
}

write_conf() {
    local plugindir="" d dirs=()
    IFS=: read -r -a dirs <<< "$PLUGIN_DIRS"
    for d in "${dirs[@]}"; do
        [ -n "$d" ] || continue
        [ -d "$d" ] || die "plugin dir $d does not exist"
        plugindir+="$(cd "$d" && pwd):"
    done
    plugindir+=$BASE_PLUGIN_DIR
    local host
    host=$(hostname -s)
    # slurmd's spool dir (%n is the front-end name) must exist before it
    # starts, or it logs errors about its socket dir and hwloc file
    mkdir -p "$ETC" "$W/state"
    [ "$SPOOL" = "$W/spool" ] || log "slurmd spool dir $SPOOL: $W is too deep for slurmstepd's socket paths"
    if [ "$HARNESS_MODE" = real ]; then
        local n
        for n in "${REAL_NODE_LIST[@]}"; do mkdir -p "$SPOOL/slurmd.$n"; done
    else
        mkdir -p "$SPOOL/slurmd.qftfe"
    fi
    : > "$ETC/plugstack.conf"
    local f
    for f in $CONF_FILES; do
        [ -f "$f" ] || die "no $f (--conf-file)"
        cp "$f" "$ETC/"
    done
    {
        cat <<EOF
# generated by contribs/slurm/harness.sh $(date -Is)
ClusterName=qft
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$PORT_BASE
SlurmdPort=$((PORT_BASE + 1))
SlurmUser=$(id -un)
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
PluginDir=$plugindir
PlugStackConfig=$ETC/plugstack.conf
StateSaveLocation=$W/state
SlurmdSpoolDir=$SPOOL/slurmd.%n
SlurmctldPidFile=$RUN/slurmctld.slurmpid
SlurmdPidFile=$RUN/slurmd.%n.slurmpid
SlurmctldLogFile=$LOGDIR/slurmctld.log
SlurmdLogFile=$LOGDIR/slurmd.%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MailProg=/bin/true
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=$SELECT
TopologyPlugin=$TOPOLOGY
SlurmctldTimeout=30
SlurmdTimeout=300
InactiveLimit=0
MinJobAge=30
KillWait=5
Waittime=0
EOF
        if [ "$HARNESS_MODE" = real ]; then
            echo "# one slurmd per node (slurmd -N <name>), each on its own Port"
            real_node_lines
        else
            echo "FrontendName=qftfe FrontendAddr=127.0.0.1 Port=$((PORT_BASE + 1))"
            node_spec_lines
        fi
        echo "PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO"
        if [ "$CONFIGLESS" = 1 ]; then echo "SlurmctldParameters=enable_configless"; fi
        if [ -n "$EXTRA_CONF" ]; then
            echo "# extra lines (QFT_EXTRA_CONF / --extra)"
            printf '%s\n' "$EXTRA_CONF"
        fi
        if [ -n "$EXTRA_CONF_FILE" ]; then
            [ -f "$EXTRA_CONF_FILE" ] || die "no $EXTRA_CONF_FILE"
            echo "# from $EXTRA_CONF_FILE"
            cat "$EXTRA_CONF_FILE"
        fi
    } > "$ETC/slurm.conf"
}

DAEMON_OUT_APPEND=0     # restart: append to log/<name>.out
start_daemon() {
    # start_daemon NAME BINARY ARGS...: setsid'ed, foreground (-D) daemon
    local name=$1; shift
    local out=$LOGDIR/$name.out
    if [ "$DAEMON_OUT_APPEND" = 1 ]; then
        echo "---- restart $(date -Is)" >> "$out"
    else
        : > "$out"
    fi
    if [ "$HARNESS_MODE" = real ]; then
        # Debian's binaries find the system libslurmfull by RUNPATH
        env -u LD_LIBRARY_PATH QFT_HARNESS_WORKDIR="$W" SLURM_CONF="$ETC/slurm.conf" \
            setsid "$@" >> "$out" 2>&1 < /dev/null &
    else
        QFT_HARNESS_WORKDIR=$W SLURM_CONF=$ETC/slurm.conf \
            LD_LIBRARY_PATH=$FE_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
            setsid "$@" >> "$out" 2>&1 < /dev/null &
    fi
    echo $! > "$RUN/$name.pid"
    readlink -f "${DAEMON_EXE:-$1}" > "$RUN/$name.exe"
}

fail_start() {
    local f
    for f in "$LOGDIR"/slurmctld.out "$LOGDIR"/slurmctld.log "$LOGDIR"/slurmd*.out "$LOGDIR"/slurmd*.log; do
        [ -s "$f" ] || continue
        echo "---- tail of $f" >&2
        tail -15 "$f" >&2
    done
    # a failed restart leaves slurmd and munged to the caller
    [ "${RESTARTING:-0}" = 1 ] || do_stop >&2 || true
    die "$*"
}

wait_ping() {
    local t0=$1 deadline=$(( $(date +%s) + TIMEOUT ))
    while :; do
        if "$BIN/scontrol" ping 2>/dev/null | grep -q 'is UP'; then
            PING_SECS=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}')
            return 0
        fi
        daemon_pid slurmctld > /dev/null || fail_start "slurmctld died while starting"
        [ "$(date +%s)" -lt "$deadline" ] || fail_start "slurmctld did not answer ping in ${TIMEOUT} s"
        sleep 0.2
    done
}

idle_count() {
    # sum of idle nodes (sinfo -o '%D %t' prints one line per state)
    "$BIN/sinfo" -h -o '%D %t' 2>/dev/null | awk '$2 == "idle" {n += $1} END {print n + 0}'
}

wait_idle() {
    local want=$1 t0=$2 deadline=$(( $(date +%s) + TIMEOUT )) n=0 d
    while :; do
        n=$(idle_count)
        if [ "$n" -ge "$want" ]; then
            IDLE_SECS=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}')
            return 0
        fi
        daemon_pid slurmctld > /dev/null || fail_start "slurmctld died"
        for d in $(slurmd_names); do
            daemon_pid "$d" > /dev/null || fail_start "${d/./ } died"
        done
        [ "$(date +%s)" -lt "$deadline" ] ||
            fail_start "only $n of $want nodes idle after ${TIMEOUT} s"
        sleep 0.5
    done
}

do_start() {
    [ "$(id -u)" = 0 ] || die "start needs root (slurmd runs as root)"
    local d running=0
    for d in slurmctld munged $(slurmd_pidfile_names); do
        if daemon_pid "$d" > /dev/null; then running=1; fi
    done
    if [ -f "$STATE_FILE" ] && [ $running = 1 ]; then
        die "a harness already runs in $W: '$0 stop -w $W' first"
    fi
    [ "$CONFIGLESS" != 1 ] || [ "$HARNESS_MODE" = real ] || die "--configless needs --real-nodes"
    resolve_binaries
    if [ "$HARNESS_MODE" = real ]; then set_real_nodes; fi
    local t0 tstart
    tstart=$(date +%s.%N)
    # fresh state, logs and pid files every start
    set_spool
    rm -rf "$W/state" "$W/spool" "$SPOOL" "$LOGDIR" "$RUN" "$ETC" "$BIN"
    mkdir -p "$LOGDIR" "$RUN"
    if [ "$HARNESS_MODE" = real ]; then
        pick_ports $(( 1 + ${#REAL_NODE_LIST[@]} ))
    else
        pick_ports
    fi
    setup_munge
    write_conf
    write_wrappers
    {
        echo "W='$W'"
        echo "MUNGE_DIR='$MUNGE_DIR'"
        echo "MUNGE_SOCKET='$MUNGE_SOCKET'"
        echo "PORT_BASE='$PORT_BASE'"
        echo "FE_LIBDIR='$FE_LIBDIR'"
        echo "SLURMCTLD='$SLURMCTLD'"
        echo "SLURMD='$SLURMD'"
        if [ "$HARNESS_MODE" = real ]; then
            echo "SLURMSTEPD='$SLURMSTEPD'"
            echo "HARNESS_MODE='real'"
            echo "NODE_NAMES='$NODE_NAMES'"
        fi
        if [ "$SERIES" != 22.05 ]; then
            echo "SERIES='$SERIES'"
            echo "SLURMCTLD_DAEMON='1'"
        fi
    } > "$STATE_FILE"
    local nodes
    nodes=$(node_count)
    if [ "$HARNESS_MODE" = real ]; then
        local ports=$((PORT_BASE + 1))
        [ "$nodes" = 1 ] || ports+="-$((PORT_BASE + nodes))"
        log "work dir $W: real nodes $NODE_NAMES, $TOPOLOGY, $SELECT," \
            "ports $PORT_BASE (slurmctld), $ports (slurmd)${CLIENT_DIR:+ (Slurm $SERIES)}"
    else
        log "work dir $W: $nodes nodes, $TOPOLOGY, $SELECT, ports $PORT_BASE/$((PORT_BASE + 1))${CLIENT_DIR:+ (Slurm $SERIES)}"
    fi
    start_munged

    log "starting slurmctld ($SLURMCTLD)"
    t0=$(date +%s.%N)
    start_slurmctld
    wait_ping "$t0"
    log "slurmctld answers ping after $PING_SECS s"

    t0=$(date +%s.%N)
    if [ "$HARNESS_MODE" = real ]; then
        local i
        for ((i = 0; i < nodes; i++)); do
            log "starting slurmd ${REAL_NODE_LIST[$i]} on port $((PORT_BASE + 1 + i)) ($SLURMD)"
            if [ "$CONFIGLESS" = 1 ]; then
                # slurmd fetches the configs before it knows AuthInfo, so
                # from munge's default socket: a private /run (tmpfs, in
                # its own mount namespace) links it to our munged; it also
                # keeps slurmd's /run/slurm/conf link private. The
                # wrappers exec: the pid stays slurmd's.
                DAEMON_EXE=$SLURMD start_daemon "slurmd.${REAL_NODE_LIST[$i]}" \
                    unshare -m --propagation private sh -c \
                    'mount -t tmpfs -o mode=0755 qft-run /run && mkdir -p /run/munge &&
                     ln -s "$0" /run/munge/munge.socket.2 && exec "$@"' "$MUNGE_SOCKET" \
                    "$SLURMD" -D -N "${REAL_NODE_LIST[$i]}" -d "$SLURMSTEPD" \
                    --conf-server "127.0.0.1:$PORT_BASE"
            else
                start_daemon "slurmd.${REAL_NODE_LIST[$i]}" "$SLURMD" -D \
                    -N "${REAL_NODE_LIST[$i]}" -d "$SLURMSTEPD"
            fi
        done
    else
        log "starting front-end slurmd ($SLURMD)"
        start_daemon slurmd "$SLURMD" -D -N qftfe -d "$SLURMSTEPD"
    fi
    wait_idle "$nodes" "$t0"
    log "all $nodes nodes idle $IDLE_SECS s after slurmd start"
    {
        echo "PING_SECS='$PING_SECS'"
        echo "IDLE_SECS='$IDLE_SECS'"
    } >> "$STATE_FILE"
    log "up in $(awk -v a="$tstart" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s;" \
        "clients: $BIN (or: . $W/env.sh)"
    echo "QFT_HARNESS_BIN=$BIN"
    echo "SLURM_CONF=$ETC/slurm.conf"
}

# ---------------------------------------------------------------- stop
do_stop() {
    local pid name p
    # slurmd first (it would otherwise try to reach slurmctld), then
    # slurmctld, then whatever else was started for this work dir
    # (slurmstepd, job tasks), then munged, which the others need to the end
    for name in $(slurmd_pidfile_names) slurmctld; do
        if pid=$(daemon_pid "$name"); then stop_pid "${name/./ }" "$pid"; fi
        rm -f "$RUN/$name.pid"
    done
    local munged_pid left=()
    munged_pid=$(read_pid munged)
    for p in $(harness_pids); do
        [ "$p" = "$munged_pid" ] || ! pid_alive "$p" || left+=("$p")
    done
    stop_pids "${left[@]}"
    if pid=$(daemon_pid munged); then stop_pid munged "$pid"; fi
    rm -f "$RUN/munged.pid"
    log "stopped ($W)"
}

# ---------------------------------------------------------------- status
do_status() {
    local rc=0 name pid
    [ -f "$STATE_FILE" ] || { echo "no harness in $W"; return 1; }
    load_mode
    for name in munged slurmctld $(slurmd_names); do
        if pid=$(daemon_pid "$name"); then
            echo "${name/./ }: running (pid $pid)"
        else
            echo "${name/./ }: not running"; rc=1
        fi
    done
    if [ $rc = 0 ]; then
        "$BIN/scontrol" ping || rc=1
        "$BIN/sinfo" -o '%P %a %D %t' || rc=1
    fi
    return $rc
}

# ---------------------------------------------------------------- restart
# slurmctld only: SIGTERM (it saves its state) or SIGKILL (--kill, a crash),
# wait until it is gone, start it again on the same slurm.conf and
# StateSaveLocation, wait for ping.  slurmd and munged keep running.
do_restart() {
    [ "$(id -u)" = 0 ] || die "restart needs root"
    [ -f "$STATE_FILE" ] || die "no harness in $W"
    load_mode
    SLURMCTLD=$(state_get SLURMCTLD)
    FE_LIBDIR=$(state_get FE_LIBDIR)
    PORT_BASE=$(state_get PORT_BASE)
    [ -x "$SLURMCTLD" ] || die "no slurmctld recorded in $STATE_FILE"
    daemon_pid munged > /dev/null || die "munged does not run in $W"
    local pid t0 t1 deadline stop_secs
    pid=$(daemon_pid slurmctld 100) ||
        die "slurmctld does not run in $W (pid files: $(cat "$RUN/slurmctld.pid" \
            "$RUN/slurmctld.slurmpid" 2>/dev/null | tr '\n' ' '))"
    t0=$(date +%s.%N)
    log "restart: SIG$RESTART_SIG to slurmctld (pid $pid)"
    kill "-$RESTART_SIG" "$pid"
    deadline=$(( $(date +%s) + TIMEOUT ))
    while pid_alive "$pid"; do
        [ "$(date +%s)" -lt "$deadline" ] ||
            die "slurmctld (pid $pid) still runs ${TIMEOUT} s after SIG$RESTART_SIG"
        sleep 0.1
    done
    rm -f "$RUN/slurmctld.pid"
    t1=$(date +%s.%N)
    stop_secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')
    log "slurmctld gone after $stop_secs s; starting it again ($SLURMCTLD)"
    RESTARTING=1
    DAEMON_OUT_APPEND=1
    start_slurmctld
    wait_ping "$t1"
    RESTART_SECS=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}')
    log "slurmctld answers ping $PING_SECS s after its start;" \
        "restart took $RESTART_SECS s (stop $stop_secs s)"
    state_set RESTART_SECS "$RESTART_SECS"
    state_set RESTART_PING_SECS "$PING_SECS"
    echo "RESTART_SECS=$RESTART_SECS"
}

case $CMD in
    start) do_start ;;
    restart) do_restart ;;
    stop) do_stop ;;
    status) do_status ;;
    env) [ -f "$W/env.sh" ] || die "no harness in $W"; cat "$W/env.sh" ;;
    -h|--help|help) usage ;;
    *) die "unknown command $CMD (start|restart|stop|status|env)" ;;
esac
