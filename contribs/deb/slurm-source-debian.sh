#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slurm-source-debian.sh: Debian's Slurm source of exactly the version of
# this system's slurmctld package, configured as Debian's own build
# configures it, for building the plugins of the Debian packages
# (contribs/deb/build.sh 24.11 runs it inside the Debian 13 root that
# contribs/deb/debian13-root.sh makes). Slurm installs no headers for its
# plugin interface, so the plugins build against this tree.
#
#   1. apt-get source slurm-wlm=VERSION (deb-src entries are the root's).
#      When the mirror lacks a file of the source package (here: the .dsc
#      of a security update), each deb-src suite is tried in turn, and
#      without a .dsc the source is unpacked by hand: the orig tarball,
#      debian/, then debian/patches in the order of their series (the 3.0
#      (quilt) format). Every file is checked against the SHA-256 sums of
#      the signed Sources index first.
#   2. apt-get build-dep slurm-wlm=VERSION: the libraries Debian's build
#      has, so that configure finds what it found there (config.h).
#   3. dh_autoreconf, as Debian's build (Debian's patches change
#      configure.ac: the package name slurm-wlm, hence the plugin dir).
#   4. the configure of Debian's normal build (not the emulator's), read
#      from debian/rules (its override_dh_auto_configure, with the
#      DEB_BUILD_MAINT_OPTIONS it exports) and run by dh_auto_configure in
#      obj-<gnu type>, where Debian builds.
#
# Idempotent per version (stamps). QFT_DEB_SLURM_DIR: the cache (default
# /var/cache/qft-slurm). Prints, and writes to <dir>/slurm-paths.sh,
# QFT_SLURM_VERSION, QFT_SLURM_SRC and QFT_SLURM_BUILD. Needs root.
set -euo pipefail
DIR=${QFT_DEB_SLURM_DIR:-/var/cache/qft-slurm}
say() { printf '[slurm-source %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'slurm-source-debian.sh: %s\n' "$*" >&2; exit 1; }
timed() { # timed WHAT LOG CMD...: CMD's output to LOG, its wall time said
	local what=$1 log=$2 t0=$SECONDS
	shift 2
	say "$what (log: $log)"
	if ! "$@" >"$log" 2>&1; then
		tail -25 "$log" >&2
		die "$what failed, see $log"
	fi
	say "$what: $((SECONDS - t0)) s"
}

VERSION=$(dpkg-query -W -f='${Status} ${Version}\n' slurmctld 2>/dev/null |
	awk '$3 == "installed" {print $4}')
[ -n "$VERSION" ] || die "slurmctld is not installed: its version decides the source"
UPSTREAM=${VERSION#*:}
UPSTREAM=${UPSTREAM%-*}
SRC_PARENT=$DIR/src
SRC=$SRC_PARENT/slurm-wlm-$UPSTREAM
GNU_TYPE=$(dpkg-architecture -qDEB_BUILD_GNU_TYPE)
BUILD=$SRC/obj-$GNU_TYPE
LOGS=$DIR/logs
STAMPS=$DIR/stamps
mkdir -p "$LOGS" "$STAMPS"
export DEBIAN_FRONTEND=noninteractive

# the source record of VERSION: its files' SHA-256 sums and its format
src_record() {
	apt-cache showsrc slurm-wlm | awk -v v="$VERSION" '
		/^Package:/ {keep = 0} $0 == "Version: " v {keep = 1; n++}
		keep && n == 1 {print}'
}
sha_list() { # "sum size name" lines of the record's Checksums-Sha256
	src_record | awk '/^Checksums-Sha256:/ {on = 1; next} /^[^ ]/ {on = 0}
		on {print $1, $2, $3}'
}

fetch() {
	rm -rf "$SRC_PARENT"
	mkdir -p "$SRC_PARENT"
	# apt downloads as _apt where _apt may write
	chown _apt "$SRC_PARENT" 2>/dev/null || true
	cd "$SRC_PARENT"
	if apt-get source -q "slurm-wlm=$VERSION" >"$LOGS/apt-get-source.log" 2>&1; then
		say "apt-get source slurm-wlm=$VERSION: unpacked by dpkg-source"
	else
		grep '^E:' "$LOGS/apt-get-source.log" >&2 || true
		say "apt-get source did not get every file: each deb-src suite in turn"
		local f
		# one suite at a time: a deb-src file per (URIs, suite) of the stanzas
		awk -v d="$SRC_PARENT" 'BEGIN {RS = ""; FS = "\n"}
			{u = c = s = ""; m = 0
			for (i = 1; i <= NF; i++)
				if ($i ~ /^URIs:/) u = $i
				else if ($i ~ /^Components:/) c = $i
				else if ($i ~ /^Signed-By:/) s = $i
				else if ($i ~ /^Suites:/) m = split(substr($i, 8), q, " ")
			for (j = 1; j <= m; j++) {
				f = sprintf("%s/.suite%d.sources", d, ++k)
				printf "Types: deb-src\n%s\nSuites: %s\n%s\n%s\n", u, q[j], c, s > f
				close(f)
			}}' /etc/apt/sources.list.d/*.sources
		for f in "$SRC_PARENT"/.suite*.sources; do
			apt-get source -q --download-only -o Dir::Etc::SourceList="$f" \
				-o Dir::Etc::SourceParts=/nonexistent "slurm-wlm=$VERSION" \
				>>"$LOGS/apt-get-source.log" 2>&1 || true
		done
		rm -f "$SRC_PARENT"/.suite*.sources
	fi
	chown -R root: "$SRC_PARENT"
	# every file of the record that is here: its SHA-256 as the index says
	local sum name missing=()
	while read -r sum _ name; do
		if [ ! -f "$name" ]; then
			missing+=("$name")
			continue
		fi
		[ "$(sha256sum "$name" | cut -d' ' -f1)" = "$sum" ] ||
			die "$name: SHA-256 differs from the Sources index"
		say "$name: SHA-256 as in the signed Sources index"
	done < <(sha_list)
	[ -d "$SRC" ] && return 0
	case " ${missing[*]} " in *".dsc "*) ;; *) [ ${#missing[@]} = 0 ] || die "missing: ${missing[*]}" ;; esac
	[ ${#missing[@]} -le 1 ] || die "the mirror lacks ${missing[*]}"
	src_record | grep -q '^Format: 3.0 (quilt)' || die "not a 3.0 (quilt) source: unpacking needs its .dsc"
	say "no .dsc on the mirror: the orig tarball, debian/ and its patches by hand"
	local orig deb p
	orig=$(ls slurm-wlm_"$UPSTREAM".orig.tar.*)
	deb=$(ls slurm-wlm_"${VERSION#*:}".debian.tar.*)
	mkdir "$SRC"
	tar xf "$orig" -C "$SRC" --strip-components=1
	tar xf "$deb" -C "$SRC"
	while read -r p _; do
		case $p in "" | \#*) continue ;; esac
		patch -d "$SRC" -p1 -s -N -F0 <"$SRC/debian/patches/$p" >>"$LOGS/patches.log" 2>&1 ||
			die "debian/patches/$p does not apply"
	done <"$SRC/debian/patches/series"
	say "applied $(grep -cv '^\s*\(#\|$\)' "$SRC/debian/patches/series") patches of debian/patches/series"
}

T0=$SECONDS
if [ -f "$STAMPS/source-$VERSION" ] && [ -f "$SRC/debian/rules" ]; then
	say "source $VERSION already in $SRC"
else
	rm -f "$STAMPS"/*
	fetch
	date >"$STAMPS/source-$VERSION"
fi

if [ ! -f "$STAMPS/build-dep-$VERSION" ]; then
	timed "apt-get build-dep slurm-wlm=$VERSION" "$LOGS/build-dep.log" \
		nice -n 19 apt-get build-dep -y -q --no-install-recommends "slurm-wlm=$VERSION"
	date >"$STAMPS/build-dep-$VERSION"
fi

if [ -f "$STAMPS/configure-$VERSION" ] && [ -f "$BUILD/config.h" ]; then
	say "configured already in $BUILD"
else
	cd "$SRC"
	rm -rf "$BUILD"
	timed "dh_autoreconf" "$LOGS/autoreconf.log" nice -n 19 dh_autoreconf
	grep -q "^PACKAGE_NAME='slurm-wlm'" configure ||
		die "the regenerated configure does not name the package slurm-wlm"
	# Debian's normal build: the first dh_auto_configure of the override
	# (the second is the emulator's, --builddirectory build-emulator)
	line=$(make -s -n -f debian/rules override_dh_auto_configure | grep '^dh_auto_configure' | head -1)
	case $line in *build-emulator* | "") die "no configure line of Debian's normal build in debian/rules" ;; esac
	# shellcheck disable=SC2016 # a make expression
	maint=$(make -s -f debian/rules --eval 'qft-maint: ; @echo $(DEB_BUILD_MAINT_OPTIONS)' qft-maint)
	say "debian/rules: DEB_BUILD_MAINT_OPTIONS=$maint; $line"
	timed "configure (dh_auto_configure in obj-$GNU_TYPE)" "$LOGS/configure.log" \
		env DEB_BUILD_MAINT_OPTIONS="$maint" nice -n 19 \
		sh -c "${line/dh_auto_configure/dh_auto_configure --builddirectory=obj-$GNU_TYPE}"
	grep -q '^#define SLURM_VERSION_NUMBER' "$BUILD/slurm/slurm_version.h" ||
		die "no slurm/slurm_version.h in $BUILD"
	! grep -q '^#define HAVE_FRONT_END' "$BUILD/config.h" || die "config.h has HAVE_FRONT_END"
	date >"$STAMPS/configure-$VERSION"
fi
say "the configure command (config.log): $(sed -n 's/^  \$ //p' "$BUILD/config.log" | head -1)"
{
	echo "# generated by contribs/deb/slurm-source-debian.sh; source it"
	echo "QFT_SLURM_VERSION='$VERSION'"
	echo "QFT_SLURM_SRC='$SRC'"
	echo "QFT_SLURM_BUILD='$BUILD'"
} >"$DIR/slurm-paths.sh"
say "done in $((SECONDS - T0)) s"
grep -v '^#' "$DIR/slurm-paths.sh"
