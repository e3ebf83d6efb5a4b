#!/bin/bash
# slurm-2411.sh: Slurm 24.11 as in Debian 13 (trixie), built from the
# upstream tarball that Debian's slurm-wlm source package is made of, in
# front-end mode.  Run through the series switch:
#
#   QFT_SLURM_SERIES=24.11 contribs/slurm/slurm-source.sh     (= source)
#   QFT_SLURM_SERIES=24.11 contribs/slurm/slurm-frontend.sh   (= frontend)
#
#   slurm-2411.sh source    1. build deps from Debian 12 (apt-get)
#                           2. trixie's InRelease, verified with gpgv and
#                              debian-archive-keyring; Sources.xz checked
#                              against its SHA256 list; the slurm-wlm
#                              stanza's orig.tar.gz fetched and checked
#                           3. unpacked into src/
#                           4. configure --enable-front-end in fe-build/
#                              (config.h, slurm/slurm_version.h: what the
#                              plugins compile against)
#   slurm-2411.sh frontend  the same, then 5. make and 6. make install of src/
#                           into fe/ (every daemon, client and plugin; no
#                           manual pages, nothing the tests do not run)
#   slurm-2411.sh real      steps 1-4, then the same source configured
#                           without --enable-front-end (and with
#                           --enable-multiple-slurmd) in rs-build/, made
#                           and installed into rs/: the daemons and
#                           clients of harness.sh --real-nodes --series
#                           24.11 (one slurmd per node).  Only when asked
#                           (tests/slurm/run.sh asks on 24.11); the time of
#                           each step is logged
#
# Layout of the cache (QFT_SLURM_DIR, default <repo>/build/slurm-24.11):
#   dl/          InRelease, Release (verified text), Sources.xz, the tarball
#   src/<top>/   the unpacked upstream source         ($QFT_SLURM_SRC)
#   fe-build/    the configured build dir             ($QFT_SLURM_BUILD,
#                                                      $QFT_SLURM_FE_BUILD)
#   fe/          the installed prefix                 ($QFT_SLURM_FE_PREFIX)
#   rs-build/ rs/   the same for real slurmd (real)
#   stamps/ logs/ slurm-paths.sh                      as for 22.05
#
# Idempotent: each step leaves a stamp and is skipped when its stamp is
# there (no network then); rm -r $QFT_SLURM_DIR/stamps to fetch again.
# Environment: QFT_SLURM_DIR, QFT_JOBS (make -j, default nproc),
# QFT_DEBIAN_MIRROR (default http://deb.debian.org/debian).
#
# Copyright (C) 2025 slurm-qft authors. SPDX-License-Identifier: GPL-2.0-or-later

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
QFT_SLURM_SERIES=24.11
# shellcheck source=contribs/slurm/common.sh
. "$HERE/common.sh"

WHAT=${1:-frontend}
case $WHAT in
    source|frontend|real) ;;
    *) qft_die "usage: $0 source|frontend|real" ;;
esac

T0=$SECONDS
MIRROR=${QFT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUITE=trixie
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
DL=$QFT_SLURM_DIR/dl
QFT_SLURM_FE_BUILD=$QFT_SLURM_DIR/fe-build
QFT_SLURM_BUILD=$QFT_SLURM_FE_BUILD
QFT_SLURM_FE_PREFIX=$QFT_SLURM_DIR/fe
# The front end needs munge only; configure finds the optional libraries
# that happen to be installed (hwloc, yaml, readline, ...) and builds the
# plugins that use them, none of which the harness needs.
BUILD_DEPS=(build-essential pkg-config libmunge-dev munge
            curl ca-certificates xz-utils gpgv debian-archive-keyring)
CONFIGURE_FLAGS=(--prefix="$QFT_SLURM_FE_PREFIX"
                 --sysconfdir="$QFT_SLURM_FE_PREFIX/etc"
                 --enable-front-end --with-munge
                 --disable-static --without-rpath --disable-debug)
# real: no front end; several slurmd on one host (NodeName ... Port=,
# slurmd -N) need multiple-slurmd, as Debian builds it
QFT_SLURM_RS_BUILD=$QFT_SLURM_DIR/rs-build
QFT_SLURM_RS_PREFIX=$QFT_SLURM_DIR/rs
RS_CONFIGURE_FLAGS=(--prefix="$QFT_SLURM_RS_PREFIX"
                    --sysconfdir="$QFT_SLURM_RS_PREFIX/etc"
                    --enable-multiple-slurmd --with-munge
                    --disable-static --without-rpath --disable-debug)
mkdir -p "$QFT_SLURM_DIR" "$QFT_LOGS" "$DL"

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# check_sha256 FILE WANT: die naming the file and both sums on a mismatch
check_sha256() {
    local got
    got=$(sha256_of "$1")
    [ "$got" = "$2" ] ||
        qft_die "checksum mismatch for $1: expected sha256 $2, got $got"
    qft_log "sha256 ok: ${1##*/}"
}

download() {
    local url=$1 out=$2
    curl -fsSL --retry 3 -o "$out.part" "$url" ||
        qft_die "download of $url failed (curl exit $?)"
    mv "$out.part" "$out"
}

# 1. build dependencies; apt-get update first if apt knows no candidate for
#    a missing one (a fresh machine); munge's scripts start no service
install_deps() {
    local p
    for p in "${BUILD_DEPS[@]}"; do
        [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ] ||
            continue
        if ! apt-cache policy "$p" 2>/dev/null | grep -q 'Candidate: [^(]'; then
            qft_need_root
            qft_timed "apt-get update" apt-get update -q >&2
            break
        fi
    done
    qft_no_services qft_apt_install "${BUILD_DEPS[@]}"
}

# 2. InRelease -> Sources.xz -> slurm-wlm stanza -> orig.tar.gz.  Writes
#    dl/slurm.info (DEBIAN_VERSION, ORIG, ORIG_SHA256) from verified metadata.
fetch_verified() {
    local base=$MIRROR/dists/$SUITE
    rm -f "$DL/Release"
    download "$base/InRelease" "$DL/InRelease"
    # gpgv writes the signed text only: nothing outside the signature is read
    if ! gpgv --keyring "$KEYRING" --output "$DL/Release" "$DL/InRelease" \
            > "$QFT_LOGS/gpgv.log" 2>&1; then
        cat "$QFT_LOGS/gpgv.log" >&2
        qft_die "gpgv could not verify $base/InRelease with $KEYRING"
    fi
    grep 'Good signature' "$QFT_LOGS/gpgv.log" | sed 's/^gpgv: */  /' >&2
    grep -qx "Codename: $SUITE" "$DL/Release" ||
        qft_die "$DL/Release is not $SUITE's ($(grep '^Codename:' "$DL/Release"))"
    local want
    want=$(awk '/^SHA256:/ { s = 1; next } /^[^ ]/ { s = 0 }
                s && $3 == "main/source/Sources.xz" { print $1 }' "$DL/Release")
    [[ $want =~ ^[0-9a-f]{64}$ ]] ||
        qft_die "no sha256 of main/source/Sources.xz in $DL/Release"
    download "$base/main/source/Sources.xz" "$DL/Sources.xz"
    check_sha256 "$DL/Sources.xz" "$want"

    # the slurm-wlm paragraph: Version, Directory, the orig.tar.gz line of
    # Checksums-Sha256 (" <sha256> <size> <name>")
    local stanza version dir sha orig
    stanza=$(xz -dc "$DL/Sources.xz" | awk -v RS= '/(^|\n)Package: slurm-wlm(\n|$)/')
    [ -n "$stanza" ] || qft_die "no slurm-wlm in $SUITE's Sources.xz"
    [ "$(grep -c '^Package: slurm-wlm$' <<<"$stanza")" = 1 ] ||
        qft_die "several slurm-wlm stanzas in $SUITE's Sources.xz"
    version=$(sed -n 's/^Version: //p' <<<"$stanza")
    dir=$(sed -n 's/^Directory: //p' <<<"$stanza")
    read -r sha orig < <(awk '/^Checksums-Sha256:/ { s = 1; next } /^[^ ]/ { s = 0 }
        s && $3 ~ /^slurm-wlm_.*\.orig\.tar\.(gz|xz|bz2)$/ { print $1, $3 }' <<<"$stanza") ||
        true
    if ! [[ ${sha:-} =~ ^[0-9a-f]{64}$ ]] || [ -z "$dir" ]; then
        qft_die "no orig tarball sha256 or Directory in the slurm-wlm stanza"
    fi
    case $version in
        24.11.*) ;;
        *) qft_die "$SUITE has slurm-wlm $version, not 24.11.x" ;;
    esac
    qft_log "slurm-wlm $version in $SUITE: $dir/$orig"
    download "$MIRROR/$dir/$orig" "$DL/$orig"
    check_sha256 "$DL/$orig" "$sha"
    printf "DEBIAN_VERSION='%s'\nORIG='%s'\nORIG_SHA256='%s'\n" \
        "$version" "$orig" "$sha" > "$DL/slurm.info"
}

if qft_stamp_ok fetch && [ -f "$DL/slurm.info" ]; then
    qft_log "Debian packages: checking"
    install_deps
else
    qft_timed "build dependencies" install_deps
    qft_timed "fetch and verify (InRelease, Sources.xz, orig tarball)" fetch_verified
    qft_stamp fetch
fi
DEBIAN_VERSION='' ORIG='' ORIG_SHA256=''
# shellcheck disable=SC1091
. "$DL/slurm.info"
# the tarball is checked again on every run (a few ms)
if [ "$(sha256_of "$DL/$ORIG")" != "$ORIG_SHA256" ]; then
    qft_log "$DL/$ORIG changed since it was fetched; rm -r $QFT_STAMPS to fetch again"
fi
check_sha256 "$DL/$ORIG" "$ORIG_SHA256"
QFT_SLURM_VERSION=${DEBIAN_VERSION#*:}
QFT_SLURM_VERSION=${QFT_SLURM_VERSION%-*}

# 3. unpack: the tarball has one top dir (slurm-slurm-24-11-5-1)
unpack() {
    rm -rf "$QFT_SLURM_DIR/src"
    mkdir -p "$QFT_SLURM_DIR/src"
    tar -xf "$DL/$ORIG" -C "$QFT_SLURM_DIR/src" ||
        qft_die "tar could not unpack $DL/$ORIG"
}
top_dir() {
    local d=("$QFT_SLURM_DIR"/src/*/)
    if [ ${#d[@]} != 1 ] || [ ! -d "${d[0]}" ]; then
        qft_die "$DL/$ORIG did not unpack to one directory in $QFT_SLURM_DIR/src"
    fi
    echo "${d[0]%/}"
}
if qft_stamp_ok "unpack-$ORIG_SHA256" &&
        compgen -G "$QFT_SLURM_DIR/src/*/configure" > /dev/null; then
    qft_log "source already unpacked"
else
    qft_timed "unpack $ORIG" unpack
    QFT_SLURM_SRC=$(top_dir)
    [ -x "$QFT_SLURM_SRC/configure" ] || qft_die "no configure in $QFT_SLURM_SRC"
    qft_stamp "unpack-$ORIG_SHA256"
fi
QFT_SLURM_SRC=$(top_dir)

# 4. configure (front end)
run_configure() {
    (cd "$QFT_SLURM_BUILD" && "$QFT_SLURM_SRC/configure" "${CONFIGURE_FLAGS[@]}") \
        > "$QFT_LOGS/configure.log" 2>&1 && return 0
    tail -30 "$QFT_LOGS/configure.log" >&2
    qft_die "configure failed in $QFT_SLURM_BUILD, see $QFT_LOGS/configure.log"
}
FLAGS_HASH=$(printf '%s\n' "${CONFIGURE_FLAGS[@]}" | md5sum | cut -c1-8)
CONF_STAMP="configure-$ORIG_SHA256-$FLAGS_HASH"
if qft_stamp_ok "$CONF_STAMP" && [ -f "$QFT_SLURM_BUILD/config.h" ]; then
    qft_log "configure already done in $QFT_SLURM_BUILD"
else
    rm -rf "$QFT_SLURM_BUILD"
    rm -f "$QFT_STAMPS"/configure-* "$QFT_STAMPS"/make-* "$QFT_STAMPS"/install-*
    mkdir -p "$QFT_SLURM_BUILD"
    qft_log "configure ${CONFIGURE_FLAGS[*]} (log: $QFT_LOGS/configure.log)"
    qft_timed "configure --enable-front-end" run_configure
    grep -q '^#define HAVE_FRONT_END 1' "$QFT_SLURM_BUILD/config.h" ||
        qft_die "$QFT_SLURM_BUILD/config.h lacks HAVE_FRONT_END"
    # plugin_version must equal this number
    IFS=. read -r a b c <<<"$QFT_SLURM_VERSION"
    num=$(printf '0x%02x%02x%02x' "$a" "$b" "$c")
    grep -q "^#define SLURM_VERSION_NUMBER $num\$" "$QFT_SLURM_BUILD/slurm/slurm_version.h" ||
        qft_die "$QFT_SLURM_BUILD/slurm/slurm_version.h lacks SLURM_VERSION_NUMBER $num ($QFT_SLURM_VERSION)"
    qft_stamp "$CONF_STAMP"
fi
# real leaves slurm-paths.sh alone: build.sh reconfigures the plugins when
# it is newer than their Makefile
if [ "$WHAT" != real ] || [ ! -f "$QFT_SLURM_DIR/slurm-paths.sh" ]; then
    qft_write_paths
fi

# 5. make, 6. make install (frontend only)
run_make() {
    local log=$1; shift
    if ! make "$@" > "$log" 2>&1; then
        grep -E 'error|Error' "$log" | tail -20 >&2
        qft_die "make $* failed in $QFT_SLURM_BUILD, see $log"
    fi
}
if [ "$WHAT" = frontend ]; then
    if qft_stamp_ok "make-$FLAGS_HASH"; then
        qft_log "make already done"
    else
        qft_timed "make -j$QFT_JOBS" \
            run_make "$QFT_LOGS/make.log" -C "$QFT_SLURM_BUILD/src" -j"$QFT_JOBS"
        qft_stamp "make-$FLAGS_HASH"
    fi
    if qft_stamp_ok "install-$FLAGS_HASH" && [ -x "$QFT_SLURM_FE_PREFIX/sbin/slurmctld" ]; then
        qft_log "already installed in $QFT_SLURM_FE_PREFIX"
    else
        rm -rf "$QFT_SLURM_FE_PREFIX"
        qft_timed "make install" \
            run_make "$QFT_LOGS/install.log" -C "$QFT_SLURM_BUILD/src" -j"$QFT_JOBS" install
        for f in sbin/slurmctld sbin/slurmd sbin/slurmstepd bin/sbatch bin/scontrol \
                 lib/slurm/libslurmfull.so lib/slurm/topology_tree.so; do
            [ -e "$QFT_SLURM_FE_PREFIX/$f" ] || qft_die "make install left no $QFT_SLURM_FE_PREFIX/$f"
        done
        qft_stamp "install-$FLAGS_HASH"
    fi
fi

# 7. real: configure, make, make install without the front end
if [ "$WHAT" = real ]; then
    run_rs_configure() {
        (cd "$QFT_SLURM_RS_BUILD" && "$QFT_SLURM_SRC/configure" "${RS_CONFIGURE_FLAGS[@]}") \
            > "$QFT_LOGS/rs-configure.log" 2>&1 && return 0
        tail -30 "$QFT_LOGS/rs-configure.log" >&2
        qft_die "configure failed in $QFT_SLURM_RS_BUILD, see $QFT_LOGS/rs-configure.log"
    }
    RS_HASH=$(printf '%s\n' "${RS_CONFIGURE_FLAGS[@]}" | md5sum | cut -c1-8)
    if qft_stamp_ok "rs-configure-$ORIG_SHA256-$RS_HASH" && [ -f "$QFT_SLURM_RS_BUILD/config.h" ]; then
        qft_log "configure already done in $QFT_SLURM_RS_BUILD"
    else
        rm -rf "$QFT_SLURM_RS_BUILD"
        rm -f "$QFT_STAMPS"/rs-*
        mkdir -p "$QFT_SLURM_RS_BUILD"
        qft_log "configure ${RS_CONFIGURE_FLAGS[*]} (log: $QFT_LOGS/rs-configure.log)"
        qft_timed "configure (real slurmd, no front end)" run_rs_configure
        ! grep -q '^#define HAVE_FRONT_END 1' "$QFT_SLURM_RS_BUILD/config.h" ||
            qft_die "$QFT_SLURM_RS_BUILD/config.h has HAVE_FRONT_END"
        grep -q '^#define MULTIPLE_SLURMD 1' "$QFT_SLURM_RS_BUILD/config.h" ||
            qft_die "$QFT_SLURM_RS_BUILD/config.h lacks MULTIPLE_SLURMD"
        qft_stamp "rs-configure-$ORIG_SHA256-$RS_HASH"
    fi
    QFT_SLURM_BUILD=$QFT_SLURM_RS_BUILD     # named by run_make's errors
    if qft_stamp_ok "rs-make-$RS_HASH"; then
        qft_log "make already done in $QFT_SLURM_RS_BUILD"
    else
        qft_timed "make -j$QFT_JOBS (real slurmd)" \
            run_make "$QFT_LOGS/rs-make.log" -C "$QFT_SLURM_RS_BUILD/src" -j"$QFT_JOBS"
        qft_stamp "rs-make-$RS_HASH"
    fi
    if qft_stamp_ok "rs-install-$RS_HASH" && [ -x "$QFT_SLURM_RS_PREFIX/sbin/slurmd" ]; then
        qft_log "already installed in $QFT_SLURM_RS_PREFIX"
    else
        rm -rf "$QFT_SLURM_RS_PREFIX"
        qft_timed "make install (real slurmd)" \
            run_make "$QFT_LOGS/rs-install.log" -C "$QFT_SLURM_RS_BUILD/src" -j"$QFT_JOBS" install
        for f in sbin/slurmctld sbin/slurmd sbin/slurmstepd bin/sbatch bin/srun \
                 bin/scontrol lib/slurm/libslurmfull.so lib/slurm/topology_tree.so; do
            [ -e "$QFT_SLURM_RS_PREFIX/$f" ] || qft_die "make install left no $QFT_SLURM_RS_PREFIX/$f"
        done
        qft_stamp "rs-install-$RS_HASH"
    fi
    QFT_SLURM_BUILD=$QFT_SLURM_FE_BUILD
fi

qft_log "slurm-2411.sh $WHAT finished in $((SECONDS - T0)) s"
echo "QFT_SLURM_VERSION=$QFT_SLURM_VERSION (Debian $DEBIAN_VERSION)"
echo "QFT_SLURM_SRC=$QFT_SLURM_SRC"
echo "QFT_SLURM_BUILD=$QFT_SLURM_BUILD"
if [ "$WHAT" = frontend ]; then
    echo "QFT_SLURM_FE_PREFIX=$QFT_SLURM_FE_PREFIX"
fi
if [ "$WHAT" = real ]; then
    echo "QFT_SLURM_RS_PREFIX=$QFT_SLURM_RS_PREFIX"
fi
