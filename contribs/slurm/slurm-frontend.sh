#!/bin/bash
# slurm-frontend.sh: what the front-end (emulator) test cluster needs.
#
#  - Debian's runtime packages: slurmctld slurmd slurm-client munge
#    slurm-wlm-emulator slurm-client-emulator (services are not started).
#  - From the same Debian source as slurm-source.sh, a second build dir
#    configured with --enable-front-end, giving
#      * libslurmfull.so built with front-end support (Debian's emulator
#        binaries load the non-front-end one and die on FrontendName), and
#      * slurmctld with patches/step-dealloc-frontend.patch (22.05.8 in
#        front-end mode crashes when a batch job ends).
#    Both are installed into $QFT_SLURM_DIR/fe/{lib,sbin}.
#
# Idempotent (stamps in $QFT_SLURM_DIR/stamps).  Needs root on the first run.
# Environment: QFT_SLURM_DIR (default <repo>/build/slurm), QFT_JOBS,
# QFT_SLURM_SERIES (22.05, default, or 24.11: runs slurm-2411.sh frontend,
# which builds and installs the whole of Slurm 24.11 in front-end mode).
#
# Copyright (C) 2025 slurm-qft authors. SPDX-License-Identifier: GPL-2.0-or-later

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=contribs/slurm/common.sh
. "$HERE/common.sh"
# Slurm 24.11: everything is built from source (slurm-2411.sh)
if [ "$QFT_SLURM_SERIES" = 24.11 ]; then exec "$HERE/slurm-2411.sh" frontend; fi

T0=$SECONDS
QFT_RUNTIME_PKGS=(slurmctld slurmd slurm-client munge
                  slurm-wlm-emulator slurm-client-emulator)
PATCHES=("$HERE/patches/step-dealloc-frontend.patch")

# 1. runtime packages first, so that the source matches the installed
#    slurmctld.  Keep package scripts from starting services.
qft_apt_ready
install_runtime() {
    # pin every slurm package to the slurmctld candidate version
    local v
    v=$(qft_slurm_version)
    local pkgs=() p
    for p in "${QFT_RUNTIME_PKGS[@]}"; do
        case $p in munge) pkgs+=("$p") ;; *) pkgs+=("$p=$v") ;; esac
    done
    qft_no_services qft_apt_install "${pkgs[@]}"
}
install_runtime

# 2. source + plain configure (also writes slurm-paths.sh)
"$HERE/slurm-source.sh" > /dev/null
# shellcheck disable=SC1091
. "$QFT_SLURM_DIR/slurm-paths.sh"
INSTALLED=$(dpkg-query -W -f='${Version}' slurmctld)
[ "$INSTALLED" = "$QFT_SLURM_VERSION" ] ||
    qft_die "installed slurmctld $INSTALLED != source $QFT_SLURM_VERSION; remove $QFT_SLURM_DIR/stamps and rerun"
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
for f in /usr/sbin/slurmd-wlm-emulator /usr/sbin/slurmstepd-wlm-emulator \
         /usr/bin/sinfo-emulator /usr/sbin/munged; do
    [ -x "$f" ] || qft_die "missing $f after installing packages"
done

# 3. front-end configure
QFT_SLURM_FE_BUILD=$QFT_SLURM_DIR/fe-build
QFT_SLURM_FE_PREFIX=$QFT_SLURM_DIR/fe
FLAGS_HASH=$( (qft_debian_configure_flags; echo --enable-front-end) | md5sum | cut -c1-8)
CONF_STAMP="fe-configure-$QFT_SLURM_VERSION-$FLAGS_HASH"
# a re-fetched source invalidates the configure
if [ "$QFT_STAMPS/source-$QFT_SLURM_VERSION" -nt "$QFT_STAMPS/$CONF_STAMP" ]; then
    rm -f "$QFT_STAMPS/$CONF_STAMP"
fi
if qft_stamp_ok "$CONF_STAMP" && [ -f "$QFT_SLURM_FE_BUILD/config.h" ]; then
    qft_log "front-end configure already done in $QFT_SLURM_FE_BUILD"
else
    rm -rf "$QFT_SLURM_FE_BUILD"
    rm -f "$QFT_STAMPS"/fe-build-* "$QFT_STAMPS"/fe-install-*
    qft_timed "configure --enable-front-end" \
        qft_configure "$QFT_SLURM_SRC" "$QFT_SLURM_FE_BUILD" \
        "$QFT_LOGS/configure-fe.log" --enable-front-end
    grep -q '^#define HAVE_FRONT_END 1' "$QFT_SLURM_FE_BUILD/config.h" ||
        qft_die "front-end config.h lacks HAVE_FRONT_END"
    qft_stamp "$CONF_STAMP"
fi

qft_make() {
    local log=$1; shift
    if ! make -j"$QFT_JOBS" "$@" >> "$log" 2>&1; then
        grep -E 'error|Error' "$log" | tail -20 >&2
        qft_die "make $* failed, see $log"
    fi
}

# 4. the patched step_mgr.c lives in the fe build tree (VPATH: a file in
#    the build dir wins over the one in the source dir), so the shared
#    source stays pristine.
PATCH_HASH=$(cat "${PATCHES[@]}" | md5sum | cut -c1-8)
BUILD_STAMP="fe-build-$QFT_SLURM_VERSION-$FLAGS_HASH-$PATCH_HASH"
if qft_stamp_ok "$BUILD_STAMP" && [ -f "$QFT_SLURM_FE_BUILD/src/slurmctld/slurmctld" ]; then
    qft_log "front-end libslurmfull and slurmctld already built"
else
    LOG=$QFT_LOGS/make-fe.log
    : > "$LOG"
    qft_timed "make -C src/common (front-end)" \
        qft_make "$LOG" -C "$QFT_SLURM_FE_BUILD/src/common"
    qft_timed "make -C src/api full_version.map libslurmfull.la (front-end)" \
        qft_make "$LOG" -C "$QFT_SLURM_FE_BUILD/src/api" full_version.map libslurmfull.la
    d=$QFT_SLURM_FE_BUILD/src/slurmctld
    mkdir -p "$d"
    cp "$QFT_SLURM_SRC/src/slurmctld/step_mgr.c" "$d/step_mgr.c"
    for p in "${PATCHES[@]}"; do
        qft_log "applying $(basename "$p") to $d/step_mgr.c"
        patch -s -p1 -d "$QFT_SLURM_FE_BUILD" < "$p" || qft_die "patch $p failed"
    done
    # force a recompile of step_mgr.o when the patch changed
    rm -f "$d/step_mgr.o"
    qft_timed "make -C src/slurmctld slurmctld (front-end, patched)" \
        qft_make "$LOG" -C "$d" slurmctld
    qft_stamp "$BUILD_STAMP"
fi

# 5. install into the prefix
INSTALL_STAMP="fe-install-$QFT_SLURM_VERSION-$FLAGS_HASH-$PATCH_HASH"
if qft_stamp_ok "$INSTALL_STAMP" && [ -x "$QFT_SLURM_FE_PREFIX/sbin/slurmctld" ] &&
        [ -f "$QFT_SLURM_FE_PREFIX/lib/libslurmfull.so" ]; then
    qft_log "front-end files already installed in $QFT_SLURM_FE_PREFIX"
else
    rm -rf "$QFT_SLURM_FE_PREFIX"
    mkdir -p "$QFT_SLURM_FE_PREFIX/lib" "$QFT_SLURM_FE_PREFIX/sbin"
    lib=$QFT_SLURM_FE_BUILD/src/api/.libs/libslurmfull.so
    [ -f "$lib" ] || qft_die "no $lib"
    install -m 0755 "$lib" "$QFT_SLURM_FE_PREFIX/lib/libslurmfull.so"
    ctld=$QFT_SLURM_FE_BUILD/src/slurmctld/slurmctld
    # libtool may leave a wrapper script there and the binary in .libs
    if [ -f "$QFT_SLURM_FE_BUILD/src/slurmctld/.libs/slurmctld" ]; then
        ctld=$QFT_SLURM_FE_BUILD/src/slurmctld/.libs/slurmctld
    fi
    head -c 4 "$ctld" | grep -q ELF || qft_die "$ctld is not an ELF binary"
    install -m 0755 "$ctld" "$QFT_SLURM_FE_PREFIX/sbin/slurmctld"
    qft_stamp "$INSTALL_STAMP"
fi

qft_write_paths
qft_log "slurm-frontend.sh finished in $((SECONDS - T0)) s"
echo "QFT_SLURM_FE_BUILD=$QFT_SLURM_FE_BUILD"
echo "QFT_SLURM_FE_PREFIX=$QFT_SLURM_FE_PREFIX"
echo "front-end libslurmfull: $QFT_SLURM_FE_PREFIX/lib/libslurmfull.so"
echo "patched slurmctld:      $QFT_SLURM_FE_PREFIX/sbin/slurmctld"
echo "slurmd (Debian):        /usr/sbin/slurmd-wlm-emulator"
echo "plugins (Debian):       /usr/lib/$MA/slurm-wlm"
