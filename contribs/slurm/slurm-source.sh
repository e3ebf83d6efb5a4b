#!/bin/bash
# slurm-source.sh: fetch Debian's Slurm source (the exact version of the
# slurmctld package) and configure it with Debian's flags so that config.h
# and slurm/slurm_version.h exist for building plugins out of Slurm's tree.
#
# Idempotent: each step leaves a stamp in $QFT_SLURM_DIR/stamps and is
# skipped when its stamp exists.  Needs root on the first run (apt-get).
#
# Environment:
#   QFT_SLURM_DIR     cache dir (default <repo>/build/slurm; for 24.11
#                     <repo>/build/slurm-24.11)
#   QFT_JOBS          make -j (default nproc)
#   QFT_SLURM_SERIES  22.05 (default) or 24.11: then slurm-2411.sh source
#                     fetches trixie's Slurm tarball (verified) and
#                     configures it --enable-front-end
#
# Prints, at the end, QFT_SLURM_SRC=<source dir> and QFT_SLURM_BUILD=<build
# dir>; the same lines are in $QFT_SLURM_DIR/slurm-paths.sh.
#
# Copyright (C) 2025 slurm-qft authors. SPDX-License-Identifier: GPL-2.0-or-later

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=contribs/slurm/common.sh
. "$HERE/common.sh"
# Slurm 24.11: Debian 13's upstream tarball, configured (slurm-2411.sh)
if [ "$QFT_SLURM_SERIES" = 24.11 ]; then exec "$HERE/slurm-2411.sh" source; fi

T0=$SECONDS
mkdir -p "$QFT_SLURM_DIR" "$QFT_LOGS"
# keep values written by the other script (fe paths)
# shellcheck disable=SC1091
[ -f "$QFT_SLURM_DIR/slurm-paths.sh" ] && . "$QFT_SLURM_DIR/slurm-paths.sh"

# Minimal packages that let autoreconf, Debian's configure (with
# --with-munge and --with-pmix=<dir>, both of which fail when missing) and
# the make targets in src/common, src/api and src/slurmctld succeed.
# dpkg-dev gives apt-get source / dpkg-source / dpkg-buildflags; pkg-config
# gives pkg.m4 (PKG_CHECK_MODULES) to autoreconf.
QFT_SLURM_BUILD_DEPS=(build-essential dpkg-dev pkg-config autoconf automake
                      libtool perl libmunge-dev libpmix-dev)

# 1. apt: deb-src entry + lists
if ! command -v apt-get >/dev/null; then qft_die "needs Debian's apt-get"; fi
qft_apt_ready

# 2. build dependencies
qft_apt_install "${QFT_SLURM_BUILD_DEPS[@]}"

# 3. source, the exact Debian version of slurmctld
QFT_SLURM_VERSION=$(qft_slurm_version)
UPSTREAM=${QFT_SLURM_VERSION#*:}
UPSTREAM=${UPSTREAM%-*}
case $UPSTREAM in
    22.05.*) ;;
    *) qft_die "slurmctld is $QFT_SLURM_VERSION; this project targets 22.05.x" ;;
esac
SRC_PARENT=$QFT_SLURM_DIR/src
QFT_SLURM_SRC=$SRC_PARENT/slurm-wlm-$UPSTREAM
if qft_stamp_ok "source-$QFT_SLURM_VERSION" && [ -x "$QFT_SLURM_SRC/configure" ]; then
    qft_log "source $QFT_SLURM_VERSION already in $QFT_SLURM_SRC"
else
    rm -rf "$SRC_PARENT"
    mkdir -p "$SRC_PARENT"
    # apt downloads as user _apt when it can write the directory
    chown _apt "$SRC_PARENT" 2>/dev/null || true
    qft_timed "apt-get source slurm-wlm=$QFT_SLURM_VERSION" \
        bash -c "cd '$SRC_PARENT' && apt-get source -q 'slurm-wlm=$QFT_SLURM_VERSION' \
                 > '$QFT_LOGS/apt-get-source.log' 2>&1" ||
        { tail -20 "$QFT_LOGS/apt-get-source.log" >&2; qft_die "apt-get source failed"; }
    chown -R root: "$SRC_PARENT" 2>/dev/null || true
    [ -x "$QFT_SLURM_SRC/configure" ] || qft_die "no configure in $QFT_SLURM_SRC"
    # Debian's patches change configure.ac and auxdir/slurm.m4 (package
    # name slurm-wlm, hence pkglibdir .../slurm-wlm, the default PluginDir
    # and the RUNPATH); Debian's build regenerates configure with
    # dh_autoreconf (autoreconf -f -i).  Do the same, with stand-ins for
    # the GTK+ macros (sview only) instead of libgtk2.0-dev.
    cp "$HERE/m4/qft-gtk-stubs.m4" "$QFT_SLURM_SRC/auxdir/"
    qft_timed "autoreconf -f -i (as dh_autoreconf)" \
        bash -c "cd '$QFT_SLURM_SRC' && autoreconf -f -i > '$QFT_LOGS/autoreconf.log' 2>&1" ||
        { tail -20 "$QFT_LOGS/autoreconf.log" >&2; qft_die "autoreconf failed"; }
    grep -q "^PACKAGE_NAME='slurm-wlm'" "$QFT_SLURM_SRC/configure" ||
        qft_die "regenerated configure does not name the package slurm-wlm"
    qft_stamp "source-$QFT_SLURM_VERSION"
fi

# 4. plain configure (no --enable-front-end): config.h matching Debian's
#    non-front-end plugins.
QFT_SLURM_BUILD=$QFT_SLURM_DIR/build
FLAGS_HASH=$(qft_debian_configure_flags | md5sum | cut -c1-8)
STAMP="configure-$QFT_SLURM_VERSION-$FLAGS_HASH"
# a re-fetched source invalidates the configure
if [ "$QFT_STAMPS/source-$QFT_SLURM_VERSION" -nt "$QFT_STAMPS/$STAMP" ]; then
    rm -f "$QFT_STAMPS/$STAMP"
fi
if qft_stamp_ok "$STAMP" && [ -f "$QFT_SLURM_BUILD/config.h" ]; then
    qft_log "plain configure already done in $QFT_SLURM_BUILD"
else
    rm -rf "$QFT_SLURM_BUILD"
    qft_timed "configure (plain)" \
        qft_configure "$QFT_SLURM_SRC" "$QFT_SLURM_BUILD" "$QFT_LOGS/configure-plain.log"
    grep -q '^#define SLURM_VERSION_NUMBER' "$QFT_SLURM_BUILD/slurm/slurm_version.h" ||
        qft_die "no slurm/slurm_version.h in $QFT_SLURM_BUILD"
    if grep -q '^#define HAVE_FRONT_END' "$QFT_SLURM_BUILD/config.h"; then
        qft_die "plain config.h has HAVE_FRONT_END"
    fi
    qft_stamp "$STAMP"
fi

qft_write_paths
qft_log "slurm-source.sh finished in $((SECONDS - T0)) s"
echo "QFT_SLURM_VERSION=$QFT_SLURM_VERSION"
echo "QFT_SLURM_SRC=$QFT_SLURM_SRC"
echo "QFT_SLURM_BUILD=$QFT_SLURM_BUILD"
