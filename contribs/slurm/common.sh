# shellcheck shell=bash
# Shared helpers for contribs/slurm/*.sh.  Sourced, not executed.
#
# Two Slurm series (QFT_SLURM_SERIES):
#   22.05 (default)  Debian 12's packages and source (this layout, below)
#   24.11            Debian 13's upstream tarball, built whole in front-end
#                    mode by slurm-2411.sh (layout there); cache dir
#                    default <repo>/build/slurm-24.11
#
# Layout of the Slurm cache (QFT_SLURM_DIR, default <repo>/build/slurm):
#   src/                   apt-get source output (.dsc, tarballs)
#   src/slurm-wlm-<ver>/   Debian-patched Slurm source     ($QFT_SLURM_SRC)
#   build/                 plain configure (config.h)      ($QFT_SLURM_BUILD)
#   fe-build/              configure --enable-front-end    ($QFT_SLURM_FE_BUILD)
#   fe/{lib,sbin}          front-end libslurmfull.so and patched slurmctld
#   stamps/                idempotence stamps
#   logs/                  configure/make logs
#   slurm-paths.sh         the variables above, for other scripts to source

set -euo pipefail

QFT_REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
QFT_SLURM_SERIES=${QFT_SLURM_SERIES:-22.05}
case $QFT_SLURM_SERIES in
    22.05) QFT_SLURM_DIR=${QFT_SLURM_DIR:-$QFT_REPO_ROOT/build/slurm} ;;
    24.11) QFT_SLURM_DIR=${QFT_SLURM_DIR:-$QFT_REPO_ROOT/build/slurm-24.11} ;;
    *) printf 'ERROR: QFT_SLURM_SERIES=%s: expected 22.05 or 24.11\n' \
              "$QFT_SLURM_SERIES" >&2; exit 1 ;;
esac
QFT_STAMPS=$QFT_SLURM_DIR/stamps
QFT_LOGS=$QFT_SLURM_DIR/logs
# dpkg-dev/gcc may not be installed yet on a fresh machine
QFT_MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null ||
                gcc -print-multiarch 2>/dev/null || echo "$(uname -m)-linux-gnu")
QFT_JOBS=${QFT_JOBS:-$(nproc)}

# The Debian Slurm version that the binaries we run come from.
# slurmctld decides: installed version if any, else the candidate.
qft_slurm_version() {
    local v
    v=$(dpkg-query -W -f='${Status} ${Version}\n' slurmctld 2>/dev/null |
        awk '$3 == "installed" {print $4}')
    if [ -z "$v" ]; then
        v=$(apt-cache policy slurmctld | awk '/Candidate:/ {print $2}')
    fi
    if [ -z "$v" ] || [ "$v" = "(none)" ]; then
        qft_die "cannot find the slurmctld package version (apt-get update?)"
    fi
    echo "$v"
}

qft_log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
qft_die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# Run a step, report its wall time.
qft_timed() {
    local what=$1; shift
    local t0=$SECONDS
    local rc=0
    qft_log "$what ..."
    "$@" || rc=$?
    if [ $rc != 0 ]; then
        qft_log "$what FAILED (exit $rc) after $((SECONDS - t0)) s"
        return $rc
    fi
    qft_log "$what done in $((SECONDS - t0)) s"
}

qft_stamp_ok() { [ -f "$QFT_STAMPS/$1" ]; }
qft_stamp() { mkdir -p "$QFT_STAMPS"; date > "$QFT_STAMPS/$1"; }

qft_need_root() {
    [ "$(id -u)" = 0 ] || qft_die "this step runs apt-get and needs root"
}

# Add a deb-src entry mirroring the Debian 'deb' entries if no deb-src
# exists yet.  Returns 0 if something was added (caller runs apt-get update).
QFT_DEBSRC_FILE=/etc/apt/sources.list.d/qft-deb-src.sources
qft_ensure_deb_src() {
    if grep -rqsE '^[[:space:]]*(Types:.*deb-src|deb-src[[:space:]])' \
            /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null; then
        return 1
    fi
    qft_need_root
    local tmp
    tmp=$(mktemp)
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
        # deb822: same stanzas with Types: deb-src
        sed -E 's/^Types:.*/Types: deb-src/' \
            /etc/apt/sources.list.d/debian.sources > "$tmp"
    fi
    if [ -f /etc/apt/sources.list ]; then
        # one-line format: turn each active 'deb' line into a deb822 stanza
        awk '$1 == "deb" {
                opts = ""; i = 2
                if ($2 ~ /^\[/) {
                    while ($i !~ /\]$/) { opts = opts " " $i; i++ }
                    opts = opts " " $i; i++
                }
                printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents:", $i, $(i+1)
                for (j = i + 2; j <= NF; j++) printf " %s", $j
                if (opts ~ /signed-by=/) {
                    match(opts, /signed-by=[^] ]+/)
                    printf "\nSigned-By: %s", substr(opts, RSTART + 10, RLENGTH - 10)
                }
                printf "\n\n"
            }' /etc/apt/sources.list >> "$tmp"
    fi
    if ! grep -q 'deb-src' "$tmp"; then
        rm -f "$tmp"
        qft_die "found no Debian 'deb' entries to mirror as deb-src"
    fi
    qft_log "adding $QFT_DEBSRC_FILE (deb-src entries for apt-get source)"
    install -m 0644 "$tmp" "$QFT_DEBSRC_FILE"
    rm -f "$tmp"
    return 0
}

# apt-get update if deb-src was just added or if apt knows no slurm source.
qft_apt_ready() {
    local need_update=0
    if qft_ensure_deb_src; then need_update=1; fi
    local src_versions
    src_versions=$(apt-cache showsrc slurm-wlm 2>/dev/null || true)
    if ! grep -q '^Version:' <<<"$src_versions"; then
        need_update=1
    fi
    if [ $need_update = 1 ]; then
        qft_need_root
        qft_timed "apt-get update" apt-get update -q >&2
    fi
}

# Run CMD with a policy-rc.d that keeps package scripts from starting
# services (munge, slurmctld, ...), unless there is one already.
qft_no_services() {
    local made_policy=0 rc=0
    if [ "$(id -u)" = 0 ] && [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\n# slurm-qft: temporary, do not start services\nexit 101\n' \
            > /usr/sbin/policy-rc.d
        chmod 755 /usr/sbin/policy-rc.d
        made_policy=1
    fi
    "$@" || rc=$?
    if [ $made_policy = 1 ]; then rm -f /usr/sbin/policy-rc.d; fi
    return $rc
}

# Install the packages that are not installed yet.
qft_apt_install() {
    local missing=() p
    for p in "$@"; do
        # strip =version for the check
        if [ "$(dpkg-query -W -f='${Status}' "${p%%=*}" 2>/dev/null)" != \
                "install ok installed" ]; then
            missing+=("$p")
        fi
    done
    if [ ${#missing[@]} -eq 0 ]; then
        qft_log "packages already installed: $*"
        return 0
    fi
    qft_need_root
    qft_timed "apt-get install ${missing[*]}" \
        env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
        --no-install-recommends "${missing[@]}" >&2
}

# Debian's configure flags for slurm-wlm (debian/rules, debhelper compat 11),
# without --enable-front-end.  CFLAGS etc. come from dpkg-buildflags.
qft_debian_configure_flags() {
    local ma=$QFT_MULTIARCH
    # shellcheck disable=SC2016  # ${prefix} is for configure, not the shell
    printf '%s\n' \
        --build="$(dpkg-architecture -qDEB_BUILD_GNU_TYPE)" \
        --prefix=/usr \
        '--includedir=${prefix}/include' \
        '--mandir=${prefix}/share/man' \
        '--infodir=${prefix}/share/info' \
        --sysconfdir=/etc \
        --localstatedir=/var \
        --disable-option-checking \
        --disable-silent-rules \
        "--libdir=\${prefix}/lib/$ma" \
        "--libexecdir=\${prefix}/lib/$ma" \
        --runstatedir=/run \
        --disable-maintainer-mode \
        --disable-dependency-tracking \
        --sysconfdir=/etc/slurm \
        --with-munge \
        --enable-pam \
        --without-rpath \
        --disable-debug \
        --enable-multiple-slurmd \
        "--with-pmix=/usr/lib/$ma/pmix2" \
        SUCMD=/bin/su \
        SLEEP_CMD=/bin/sleep
}

# configure SRC into BUILD with Debian's flags plus extra args.
qft_configure() {
    local src=$1 build=$2 log=$3; shift 3
    local flags=()
    mapfile -t flags < <(qft_debian_configure_flags)
    mkdir -p "$build" "$QFT_LOGS"
    # Debian's compiler flags (hardening=+all,-bindnow as in debian/rules)
    eval "$(cd "$src" && DEB_BUILD_MAINT_OPTIONS=hardening=+all,-bindnow \
        dpkg-buildflags --export=sh)"
    export CFLAGS CPPFLAGS LDFLAGS CXXFLAGS
    qft_log "configure in $build (log: $log)"
    qft_log "  flags: ${flags[*]} --disable-static $*"
    if ! (cd "$build" && "$src/configure" "${flags[@]}" --disable-static "$@") \
            > "$log" 2>&1; then
        tail -30 "$log" >&2
        qft_die "configure failed, see $log"
    fi
}

qft_write_paths() {
    {
        echo "# generated by contribs/slurm/*.sh; source it"
        echo "QFT_SLURM_DIR='$QFT_SLURM_DIR'"
        if [ "$QFT_SLURM_SERIES" != 22.05 ]; then
            echo "QFT_SLURM_SERIES='$QFT_SLURM_SERIES'"
        fi
        echo "QFT_SLURM_VERSION='${QFT_SLURM_VERSION:-}'"
        echo "QFT_SLURM_SRC='${QFT_SLURM_SRC:-}'"
        echo "QFT_SLURM_BUILD='${QFT_SLURM_BUILD:-}'"
        echo "QFT_SLURM_FE_BUILD='${QFT_SLURM_FE_BUILD:-}'"
        echo "QFT_SLURM_FE_PREFIX='${QFT_SLURM_FE_PREFIX:-}'"
    } > "$QFT_SLURM_DIR/slurm-paths.sh.$$"
    # unchanged: left alone, so that its time does not make build.sh
    # reconfigure (tests run side by side may call this at once)
    if cmp -s "$QFT_SLURM_DIR/slurm-paths.sh.$$" "$QFT_SLURM_DIR/slurm-paths.sh"; then
        rm -f "$QFT_SLURM_DIR/slurm-paths.sh.$$"
    else
        mv "$QFT_SLURM_DIR/slurm-paths.sh.$$" "$QFT_SLURM_DIR/slurm-paths.sh"
    fi
}
