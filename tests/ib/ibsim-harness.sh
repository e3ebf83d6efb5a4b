#!/bin/bash
# ibsim-harness.sh: a simulated InfiniBand fabric (ibsim + libumad2sim) on
# this host, with the real OpenSM and infiniband-diags tools running on it.
#
#   ibsim-harness.sh deps
#         installs ibsim-utils libumad2sim0 infiniband-diags opensm with
#         apt-get if any is missing (root only); start/run/opensm call it
#   ibsim-harness.sh start NETFILE WORKDIR [IBSIM-ARGS...]
#         starts ibsim on NETFILE in the background and waits until its
#         sockets are up; -N/-S/-P are raised from the counts in NETFILE
#         unless IBSIM-ARGS give them
#   ibsim-harness.sh stop WORKDIR
#         stops the ibsim (and an opensm left running) of WORKDIR, by PID
#   ibsim-harness.sh status WORKDIR
#         exit 0 if the ibsim of WORKDIR runs
#   ibsim-harness.sh run WORKDIR CMD [ARGS...]
#         runs CMD under the umad2sim preload in WORKDIR/scratch (each
#         preloaded process makes ./sys-<pid> there; leftovers are removed)
#   ibsim-harness.sh opensm WORKDIR ROUTING [LMC] [OPENSM-ARGS...]
#         configures the subnet once (opensm -o -R ROUTING -l LMC), writes
#         the dumps (opensm-lfts.dump, opensm-subnet.lst, opensm.fdbs,
#         guid2lid, ...) into WORKDIR/dump and the log into
#         WORKDIR/opensm-ROUTING-lmcLMC.log, and prints the routing time
#   ibsim-harness.sh console WORKDIR LINE
#         sends one command line to the ibsim console (e.g. "Dump",
#         "Unlink \"S-...\"[3]"); its answer goes to WORKDIR/ibsim.log
#   ibsim-harness.sh env WORKDIR
#         prints shell lines (IBSIM_SOCKNAME, LD_PRELOAD) to use the
#         fabric from your own shell or program
#
# Each WORKDIR gets its own ibsim socket name (IBSIM_SOCKNAME, an abstract
# unix socket), so several fabrics can run side by side.  A preloaded
# program blocks forever while no ibsim answers on its socket name, so
# 'run' and 'opensm' check first and stop commands after a time limit.
#
# Environment:
#   QFT_IB_TIMEOUT      seconds for one 'run' or 'opensm' (default 900)
#   QFT_IBSIM_START_TIMEOUT  seconds to wait for ibsim (default 300)
#   QFT_IBSIM_SOCKNAME  socket name (default: derived from WORKDIR)
#   QFT_UMAD2SIM        path of libumad2sim.so (default: from the package)
#   QFT_OPENSM_DEBUG    OpenSM -D flags (default 0x47: error, info,
#                       verbose (needed for the timing lines), routing
#                       dumps); 0x43 drops the verbose lines
#   QFT_OPENSM_STRICT   1: exit 3 when OpenSM configured the tables with
#                       another engine than the one asked for (fallback)
#
# Copyright (C) 2025 slurm-qft authors. SPDX-License-Identifier: GPL-2.0-or-later

set -euo pipefail

PROG=ibsim-harness
PKGS="ibsim-utils libumad2sim0 infiniband-diags opensm"
IBSIM_DEF_NODES=2048
IBSIM_DEF_SWITCHES=256
IBSIM_DEF_PORTS=13312

die() { printf '%s: ERROR: %s\n' "$PROG" "$*" >&2; exit 1; }
warn() { printf '%s: WARNING: %s\n' "$PROG" "$*" >&2; }
log() { printf '[%s %s] %s\n' "$PROG" "$(date +%H:%M:%S)" "$*" >&2; }
usage() { sed -n '2,48p' "$0" | sed 's/^# \{0,1\}//'; }

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# ------------------------------------------------------------- packages
missing_pkgs() {
	local p out=""
	for p in $PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || out="$out $p"
	done
	echo "$out"
}

cmd_deps() {
	local miss
	miss=$(missing_pkgs)
	[ -z "${miss// /}" ] && return 0
	[ "$(id -u)" = 0 ] ||
		die "packages missing:$miss (run as root, or: apt-get install$miss)"
	log "installing:$miss"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q $miss >/dev/null 2>&1 || {
		apt-get update -q >/dev/null 2>&1 || true
		apt-get install -y -q $miss >/dev/null ||
			die "apt-get install$miss failed"
	}
	miss=$(missing_pkgs)
	[ -z "${miss// /}" ] || die "still missing after apt-get:$miss"
}

umad2sim_path() {
	if [ -n "${QFT_UMAD2SIM:-}" ]; then
		[ -f "$QFT_UMAD2SIM" ] || die "QFT_UMAD2SIM=$QFT_UMAD2SIM: no such file"
		echo "$QFT_UMAD2SIM"; return
	fi
	local p
	p=$(dpkg -L libumad2sim0 2>/dev/null | grep '/libumad2sim\.so$' | head -n1)
	[ -n "$p" ] && [ -f "$p" ] || die "libumad2sim.so not found (package libumad2sim0)"
	echo "$p"
}

# ------------------------------------------------------------- work dir
# Sets WD (absolute), SOCK, PIDF, LOGF, FIFO, SCRATCH.
setup_wd() {
	local d=$1 create=${2:-0}
	[ -n "$d" ] || die "WORKDIR missing"
	if [ "$create" = 1 ]; then
		mkdir -p "$d" || die "cannot create $d"
	fi
	[ -d "$d" ] || die "work dir $d does not exist"
	WD=$(cd "$d" && pwd -P)
	if [ -n "${QFT_IBSIM_SOCKNAME:-}" ]; then
		SOCK=$QFT_IBSIM_SOCKNAME
	elif [ -f "$WD/ibsim.sockname" ]; then
		SOCK=$(cat "$WD/ibsim.sockname")
	else
		SOCK=qft-$(printf '%s' "$WD" | md5sum | cut -c1-12)
	fi
	PIDF=$WD/ibsim.pid
	LOGF=$WD/ibsim.log
	FIFO=$WD/ibsim.console
	SCRATCH=$WD/scratch
}

child_named() { # PPID COMM: PID of a child process named COMM (no procps)
	local f st
	for f in /proc/[0-9]*/stat; do
		st=$(cat "$f" 2>/dev/null) || continue
		# "pid (comm) state ppid ..."; comm has no ')' here
		case $st in *"($2) "?" $1 "*) f=${f#/proc/}; echo "${f%/stat}"; return 0 ;; esac
	done
	return 1
}

pid_alive_as() { # PID COMM: the process lives and is named COMM
	local pid=$1 comm=$2
	[ -n "$pid" ] && [ -d "/proc/$pid" ] || return 1
	[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$comm" ]
}

ibsim_pid() { # prints the PID if the ibsim of WD runs
	local pid
	[ -f "$PIDF" ] || return 1
	pid=$(cat "$PIDF")
	pid_alive_as "$pid" ibsim || return 1
	echo "$pid"
}

sock_bound() { # abstract socket "@NAME" is bound by some process
	# /proc/net/unix shows the NUL padding of the name as trailing '@'
	awk -v n="@$1" '{ p = $NF; sub(/@+$/, "", p) } p == n { f = 1 }
		END { exit !f }' /proc/net/unix 2>/dev/null
}

sock_owner() { # PID of the process holding abstract socket @NAME
	local inode pid fd
	inode=$(awk -v n="@$1" '{ p = $NF; sub(/@+$/, "", p) }
		p == n { print $7; exit }' /proc/net/unix)
	[ -n "$inode" ] || return 1
	for fd in /proc/[0-9]*/fd/*; do
		if [ "$(readlink "$fd" 2>/dev/null)" = "socket:[$inode]" ]; then
			pid=${fd#/proc/}; echo "${pid%%/*}"; return 0
		fi
	done 2>/dev/null
	return 1
}

clean_sysdirs() { # remove ./sys-<pid> left by preloaded processes that died
	local d pid
	[ -d "$SCRATCH" ] || return 0
	for d in "$SCRATCH"/sys-*; do
		[ -d "$d" ] || continue
		pid=${d##*/sys-}
		[ -d "/proc/$pid" ] || rm -rf "$d"
	done
}

require_running() {
	local pid
	pid=$(ibsim_pid) || die "no ibsim runs for $WD (start it first: $0 start NETFILE $WD)"
	sock_bound "$SOCK:ctl" ||
		die "ibsim (pid $pid) runs but its socket @$SOCK:ctl is not bound; see $LOGF"
}

# ------------------------------------------------------------- start
count_net() { # NETFILE -> "nodes switches ports"
	awk '
		/^Switch[ \t]/ { n++; s++; split($0, a, /[ \t]+/); p += a[2] + 1; next }
		/^(Ca|Hca|Rt)[ \t]/ { n++; split($0, a, /[ \t]+/); p += a[2]; next }
		/^include/ { inc = 1 }
		END { print n + 0, s + 0, p + 0, inc + 0 }' "$1"
}

cmd_start() {
	[ $# -ge 2 ] || die "usage: start NETFILE WORKDIR [ibsim args]"
	local net=$1 wd=$2; shift 2
	[ -f "$net" ] && [ -r "$net" ] || die "net file $net not readable"
	net=$(cd "$(dirname "$net")" && pwd -P)/$(basename "$net")
	cmd_deps
	setup_wd "$wd" 1

	local pid owner
	if pid=$(ibsim_pid); then
		die "an ibsim already runs for $WD (pid $pid); stop it first: $0 stop $WD"
	fi
	if [ -f "$PIDF" ]; then
		warn "removing stale pid file $PIDF (pid $(cat "$PIDF") is gone)"
		rm -f "$PIDF"
	fi
	if sock_bound "$SOCK:ctl"; then
		owner=$(sock_owner "$SOCK:ctl" || true)
		die "socket name @$SOCK:ctl is held by another process${owner:+ (pid $owner: $(tr '\0' ' ' <"/proc/$owner/cmdline" 2>/dev/null))}; stop it or set QFT_IBSIM_SOCKNAME"
	fi
	# Abstract sockets vanish with their process, so a name that is not
	# bound is free; only our own leftovers need cleaning.
	rm -f "$FIFO" "$LOGF"
	mkdir -p "$SCRATCH"
	clean_sysdirs
	echo "$SOCK" >"$WD/ibsim.sockname"
	echo "$net" >"$WD/ibsim.netfile"

	# Limits: ibsim panics ("no more nodes/switches/ports") past them.
	local cnt nodes sws ports inc a have_n=0 have_s=0 have_p=0 extra=()
	cnt=$(count_net "$net")
	read -r nodes sws ports inc <<<"$cnt"
	[ "$nodes" -gt 0 ] || die "$net has no Switch/Ca record"
	[ "$inc" = 0 ] || warn "$net uses include: limits are counted from the top file only"
	for a in "$@"; do
		case $a in
		-N*|--Nodes*) have_n=1 ;; -S*|--Switches*) have_s=1 ;;
		-P*|--Ports*) have_p=1 ;;
		esac
	done
	[ $have_n = 1 ] || [ "$nodes" -le $IBSIM_DEF_NODES ] ||
		extra+=(-N $((nodes + nodes / 4 + 16)))
	[ $have_s = 1 ] || [ "$sws" -le $IBSIM_DEF_SWITCHES ] ||
		extra+=(-S $((sws + sws / 4 + 16)))
	[ $have_p = 1 ] || [ "$ports" -le $IBSIM_DEF_PORTS ] ||
		extra+=(-P $((ports + ports / 4 + 64)))

	mkfifo "$FIFO"
	local t0 t1
	t0=$(now)
	# The console reads the FIFO, opened read-write so it never sees EOF.
	# setsid: the simulator outlives this shell and its process group.
	IBSIM_SOCKNAME=$SOCK setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' \
		_ "$PIDF" ibsim -s "${extra[@]}" "$@" "$net" \
		<>"$FIFO" >"$LOGF" 2>&1 &
	local deadline=$(( $(date +%s) + ${QFT_IBSIM_START_TIMEOUT:-300} ))
	pid=
	while :; do
		[ -n "$pid" ] || pid=$(cat "$PIDF" 2>/dev/null || true)
		if [ -n "$pid" ] && ! [ -d "/proc/$pid" ]; then
			grep -v 'parse_port_\(connection_data\|link_width_and_speed\)' "$LOGF" |
				tail -n 20 >&2 || true
			rm -f "$PIDF" "$FIFO"
			die "ibsim exited while starting on $net (log: $LOGF)"
		fi
		if [ -n "$pid" ] && grep -q 'Network simulator ready' "$LOGF" 2>/dev/null &&
			sock_bound "$SOCK:ctl"; then
			break
		fi
		if [ "$(date +%s)" -ge "$deadline" ]; then
			[ -n "$pid" ] && kill "$pid" 2>/dev/null || true
			rm -f "$PIDF" "$FIFO"
			die "ibsim did not come up in ${QFT_IBSIM_START_TIMEOUT:-300} s (log: $LOGF)"
		fi
		sleep 0.05
	done
	t1=$(now)
	local nwarn
	nwarn=$(grep -c 'parse_port_\(connection_data\|link_width_and_speed\)' "$LOGF" || true)
	[ "$nwarn" = 0 ] || log "ibsim printed $nwarn harmless parser warnings (port lines without 'lid N WxSPEED'; links default to 4xSDR)"
	log "ibsim pid $pid up in $(elapsed "$t0" "$t1") s: $nodes nodes, $sws switches, $ports ports${extra[*]:+ (${extra[*]})}, socket @$SOCK"
	echo "ibsim_start_seconds=$(elapsed "$t0" "$t1")"
}

# ------------------------------------------------------------- stop
stop_pid() { # PID COMM WHAT
	local pid=$1 comm=$2 what=$3
	pid_alive_as "$pid" "$comm" || return 0
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 1 100); do
		pid_alive_as "$pid" "$comm" || { log "stopped $what (pid $pid)"; return 0; }
		sleep 0.1
	done
	warn "$what (pid $pid) did not stop on SIGTERM; sending SIGKILL"
	kill -9 "$pid" 2>/dev/null || true
	sleep 0.2
	! pid_alive_as "$pid" "$comm" || die "cannot stop $what (pid $pid)"
}

cmd_stop() {
	[ $# -eq 1 ] || die "usage: stop WORKDIR"
	[ -d "$1" ] || { log "no work dir $1: nothing runs"; return 0; }
	setup_wd "$1"
	local pid
	if [ -f "$WD/opensm.pid" ]; then
		stop_pid "$(cat "$WD/opensm.pid")" opensm opensm
		rm -f "$WD/opensm.pid"
	fi
	if [ -f "$PIDF" ]; then
		pid=$(cat "$PIDF")
		if pid_alive_as "$pid" ibsim; then
			stop_pid "$pid" ibsim ibsim
		else
			log "ibsim of $WD was not running (stale pid file removed)"
		fi
		rm -f "$PIDF"
	else
		log "ibsim of $WD was not running"
	fi
	rm -f "$FIFO"
	clean_sysdirs
}

cmd_status() {
	[ $# -eq 1 ] || die "usage: status WORKDIR"
	setup_wd "$1"
	local pid
	if pid=$(ibsim_pid) && sock_bound "$SOCK:ctl"; then
		echo "ibsim runs: pid $pid, socket @$SOCK, net $(cat "$WD/ibsim.netfile" 2>/dev/null)"
	else
		echo "ibsim of $WD is not running"; return 1
	fi
}

# ------------------------------------------------------------- run
cmd_env() {
	[ $# -eq 1 ] || die "usage: env WORKDIR"
	setup_wd "$1"
	echo "export IBSIM_SOCKNAME=$SOCK"
	echo "export LD_PRELOAD=$(umad2sim_path)"
	echo "# preloaded programs leave ./sys-<pid>: run them from $SCRATCH"
}

cmd_run() {
	[ $# -ge 2 ] || die "usage: run WORKDIR CMD [ARGS...]"
	setup_wd "$1"; shift
	cmd_deps
	require_running
	local so rc=0
	so=$(umad2sim_path)
	mkdir -p "$SCRATCH"
	(
		cd "$SCRATCH"
		export IBSIM_SOCKNAME=$SOCK
		export LD_PRELOAD=$so${LD_PRELOAD:+:$LD_PRELOAD}
		exec timeout -k 10 "${QFT_IB_TIMEOUT:-900}" "$@"
	) || rc=$?
	clean_sysdirs
	[ $rc != 124 ] || warn "'$*' timed out after ${QFT_IB_TIMEOUT:-900} s"
	return $rc
}

cmd_console() {
	[ $# -ge 2 ] || die "usage: console WORKDIR LINE"
	setup_wd "$1"; shift
	require_running
	[ -p "$FIFO" ] || die "no console FIFO $FIFO"
	local before
	before=$(wc -c <"$LOGF")
	printf '%s\n' "$*" >"$FIFO"
	sleep 0.3
	tail -c +$((before + 1)) "$LOGF"
}

# ------------------------------------------------------------- opensm
# Prints "START END ENGINE CONFIGURED" seconds-of-day from an OpenSM log:
# START: the line before "LID ASSIGNMENT COMPLETE - STARTING SWITCH TABLE
# CONFIG", END: "<engine> tables configured on all switches", CONFIGURED:
# the line before "SWITCHES CONFIGURED FOR UNICAST" (LFT MADs answered).
osm_times() {
	awk '
	function ts(   t, a) {
		# "Nov 23 03:04:56 506405 [tid] 0x04 -> ..."
		split($3, a, ":")
		return a[1] * 3600 + a[2] * 60 + a[3] + $4 / 1e6
	}
	function f(x) { return x == "" ? "-" : sprintf("%.6f", x) }
	/^[A-Z][a-z][a-z] +[0-9]+ [0-9][0-9]:[0-9][0-9]:[0-9][0-9] [0-9]+ / { last = ts() }
	/STARTING SWITCH TABLE CONFIG/ && start == "" { start = last }
	/tables configured on all switches/ && end == "" {
		end = last
		for (i = 1; i <= NF; i++) if ($i == "tables") { eng = $(i - 1); break }
	}
	/SWITCHES CONFIGURED FOR UNICAST/ && conf == "" { conf = last }
	/SUBNET UP/ { up = 1 }
	END {
		printf "%s %s %s %s %d\n", f(start), f(end), (eng == "" ? "-" : eng), f(conf), up
	}' "$1"
}

dsec() { # A B -> B - A (seconds of day, wraps at midnight)
	awk -v a="$1" -v b="$2" 'BEGIN { d = b - a; if (d < 0) d += 86400; printf "%.6f", d }'
}

lft_triples() { # opensm-lfts.dump -> "GUID LID PORT" lines, sorted
	awk '
		/^Unicast lids/ { for (i = 1; i <= NF; i++) if ($i == "guid") g = tolower($(i + 1)); next }
		/^0x[0-9a-fA-F]+ [0-9]+/ { printf "%s %d %d\n", g, strtonum_($1), $2 + 0 }
		function strtonum_(h,   i, c, v) {
			v = 0; h = tolower(substr(h, 3))
			for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
			return v
		}' "$1" | sort
}

lft_unrouted() { # guid2lid opensm-lfts.dump -> "EMPTY_LFTS MISSING_TO_CA MISSING_TO_SWITCH"
	# A (switch, LID) pair is missing when the dump has no line for it:
	# OpenSM leaves out LIDs whose LFT port is 255 (no route).
	awk '
		function hex(h,   i, v) {
			v = 0; h = tolower(substr(h, 3))
			for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
			return v
		}
		FNR == NR { if (NF == 3) for (l = hex($2); l <= hex($3); l++) lid[l] = 1; next }
		/^Unicast lids/ {
			nsw++
			for (i = 1; i <= NF; i++) if ($i == "Lid") swlid[$(i + 1) + 0] = 1
			next
		}
		/^0x[0-9a-fA-F]+ [0-9]+/ { have[nsw, hex($1)] = 1; cnt[nsw]++ }
		END {
			for (s = 1; s <= nsw; s++) {
				if (!cnt[s]) empty++
				for (l in lid) if (!((s, l) in have)) { if (l in swlid) msw++; else mca++ }
			}
			print empty + 0, mca + 0, msw + 0
		}' "$1" "$2"
}

lft_diff() { # A B: entries only in A ("<") or only in B (">")
	diff <(lft_triples "$1") <(lft_triples "$2") | grep '^[<>]' || true
}

cmd_opensm() {
	[ $# -ge 2 ] || die "usage: opensm WORKDIR ROUTING [LMC] [opensm args]"
	setup_wd "$1"; local routing=$2; shift 2
	local lmc=0
	if [ $# -gt 0 ] && [[ $1 =~ ^[0-7]$ ]]; then lmc=$1; shift; fi
	cmd_deps
	require_running
	local so
	so=$(umad2sim_path)
	if [ -f "$WD/opensm.pid" ] && pid_alive_as "$(cat "$WD/opensm.pid")" opensm; then
		die "an opensm already runs for $WD (pid $(cat "$WD/opensm.pid"))"
	fi
	local dump=$WD/dump cache=$WD/cache tag=$routing-lmc$lmc
	local osmlog=$WD/opensm-$tag.log out=$WD/opensm-$tag.out
	mkdir -p "$dump" "$cache" "$SCRATCH"
	# Fresh dumps and cache: LIDs then come from the ports (ibsim keeps
	# the LIDs of the net file or of the previous SM), not an old guid2lid.
	rm -f "$dump"/opensm* "$dump"/guid2lid "$cache"/*
	: >"$WD/opensm.conf"    # keeps /etc/opensm/opensm.conf out

	local t0 t1 rc=0
	t0=$(now)
	(
		cd "$SCRATCH"
		export IBSIM_SOCKNAME=$SOCK OSM_CACHE_DIR=$cache OSM_TMP_DIR=$dump
		export LD_PRELOAD=$so${LD_PRELOAD:+:$LD_PRELOAD}
		exec timeout -k 10 "${QFT_IB_TIMEOUT:-900}" opensm -o -F "$WD/opensm.conf" \
			-R "$routing" -l "$lmc" -D "${QFT_OPENSM_DEBUG:-0x47}" \
			-f "$osmlog" -e --dump_files_dir "$dump" "$@"
	) >"$out" 2>&1 &
	local sub=$!
	# the subshell execs timeout, which forks opensm
	local osmpid=
	for _ in $(seq 1 50); do
		osmpid=$(child_named "$sub" opensm || true)
		[ -z "$osmpid" ] || { echo "$osmpid" >"$WD/opensm.pid"; break; }
		[ -d "/proc/$sub" ] || break
		sleep 0.1
	done
	wait "$sub" || rc=$?
	t1=$(now)
	rm -f "$WD/opensm.pid"
	clean_sysdirs
	[ -f "$cache/guid2lid" ] && cp "$cache/guid2lid" "$dump/guid2lid"

	if [ $rc = 124 ] || [ $rc = 137 ]; then
		die "opensm timed out after ${QFT_IB_TIMEOUT:-900} s (log: $osmlog)"
	fi
	[ -f "$osmlog" ] || { cat "$out" >&2; die "opensm wrote no log (exit $rc)"; }
	local start end eng conf up
	read -r start end eng conf up < <(osm_times "$osmlog")
	if [ $rc != 0 ] || [ "$up" != 1 ]; then
		grep -E ' 0x[08]1 -> |ERR ' "$osmlog" | tail -n 10 >&2 || true
		tail -n 5 "$out" >&2 || true
		die "opensm -R $routing -l $lmc failed (exit $rc, subnet up: $up; log: $osmlog)"
	fi
	local nerr
	nerr=$(grep -cE ' 0x[08]1 -> ' "$osmlog" || true)
	[ "$nerr" = 0 ] || warn "opensm logged $nerr error lines (grep -E ' 0x[08]1 -> ' $osmlog)"
	echo "opensm_routing=$routing"
	echo "opensm_lmc=$lmc"
	echo "opensm_engine_used=$eng"
	if [ "$start" != - ] && [ "$end" != - ]; then
		echo "opensm_route_seconds=$(dsec "$start" "$end")"
	else
		warn "timing lines not in the log (needs -D with 0x04: QFT_OPENSM_DEBUG)"
	fi
	if [ "$start" != - ] && [ "$conf" != - ]; then
		echo "opensm_lft_configured_seconds=$(dsec "$start" "$conf")"
	fi
	echo "opensm_wall_seconds=$(elapsed "$t0" "$t1")"
	echo "opensm_log=$osmlog"
	echo "opensm_dump_dir=$dump"
	# -R file reports success even when it skipped switches of the file
	# ("cannot find switch", at verbose level) or switches are missing
	# from it (their LFT stays empty): compare what it loaded.
	local ufile="" a prev=""
	for a in "$@"; do
		case $prev in -U|--lfts_file) ufile=$a ;; esac
		case $a in --lfts_file=*) ufile=${a#--lfts_file=} ;; esac
		prev=$a
	done
	if [ -n "$ufile" ] && [ "$eng" = file ] && [ -f "$dump/opensm-lfts.dump" ]; then
		local ndiff
		ndiff=$(lft_diff "$ufile" "$dump/opensm-lfts.dump" | wc -l)
		echo "opensm_file_lft_differences=$ndiff"
		[ "$ndiff" = 0 ] || warn "$ndiff LFT entries differ between $ufile and what OpenSM configured (lft_diff)"
		grep -h 'do_ucast_file_load: cannot find switch' "$osmlog" | sed 's/^.*-> /  /' >&2 || true
	fi
	if [ -f "$dump/guid2lid" ] && [ -f "$dump/opensm-lfts.dump" ]; then
		local emp mca msw
		read -r emp mca msw < <(lft_unrouted "$dump/guid2lid" "$dump/opensm-lfts.dump")
		echo "opensm_switches_with_empty_lft=$emp"
		echo "opensm_unrouted_to_ca=$mca"
		echo "opensm_unrouted_to_switch=$msw"
		[ "$emp" = 0 ] && [ "$mca" = 0 ] ||
			warn "$emp switches have an empty LFT; $mca (switch, CA LID) pairs have no route"
	fi
	if [ "$eng" != "$routing" ] && [ "${routing%%,*}" != "$eng" ]; then
		warn "asked for '$routing' but '$eng' configured the tables (fallback; see $osmlog)"
		[ "${QFT_OPENSM_STRICT:-0}" != 1 ] || exit 3
	fi
}

# ------------------------------------------------------------- main
CMD=${1:-}
[ -n "$CMD" ] || { usage; exit 2; }
shift
case $CMD in
deps) cmd_deps ;;
start) cmd_start "$@" ;;
stop) cmd_stop "$@" ;;
status) cmd_status "$@" ;;
run) cmd_run "$@" ;;
opensm) cmd_opensm "$@" ;;
console) cmd_console "$@" ;;
env) cmd_env "$@" ;;
-h|--help|help) usage ;;
*) usage >&2; die "unknown command '$CMD'" ;;
esac
