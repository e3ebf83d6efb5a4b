#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# build.sh [22.05]: slurm-qft's Debian packages (debian/), for the Slurm of
# this Debian 12 machine's slurmctld package, with the Debian tools
# (dpkg-buildpackage, debhelper), then lintian on them. Installs what it
# needs (contribs/scripts/deps.sh, contribs/slurm/slurm-source.sh: Debian's
# Slurm source of that exact version, configured with Debian's flags; Slurm
# installs no headers for its plugin interface).
#
#   OUT: build/deb-SERIES/*.deb, *.changes, lintian.txt, packages.txt (each
#   package with its Depends line)
#   QFT_DEB_CHECK=0 skips `make check` in the package build (nocheck)
#
# The packages depend on exactly that slurm-wlm version
# (slurm-wlm-basic-plugins (= VERSION), which slurmctld, slurmd and
# slurm-client depend on exactly too): apt will not pair them with another
# Slurm. Slurm 24.11 (Debian 13) is not built here yet.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
series=${1:-22.05}
[ "$series" = 22.05 ] || { echo "build.sh: Slurm $series: only 22.05 (Debian 12) is built here" >&2; exit 2; }
out=$top/build/deb-$series
say() { printf '[deb %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

say "build dependencies"
"$top/contribs/scripts/deps.sh" debhelper lintian fakeroot dpkg-dev >/dev/null
say "Slurm's source (contribs/slurm/slurm-source.sh)"
"$top/contribs/slurm/slurm-source.sh" >/dev/null
# shellcheck disable=SC1091
. "$top/build/slurm/slurm-paths.sh"
# shellcheck source=contribs/slurm/common.sh
. "$top/contribs/slurm/common.sh"
slurm_deb=$(qft_slurm_version)
upstream=$(sed -n 's/^AC_INIT(\[slurm-qft\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")
# a native package's version has no hyphen: the Slurm version follows '+'
version="$upstream+slurm$(echo "$slurm_deb" | tr -- '-~:' '...')"
say "slurm-qft $version for slurm-wlm $slurm_deb ($QFT_SLURM_SRC)"

rm -rf "$out"
src=$out/slurm-qft-$upstream
mkdir -p "$src"
# the tree as git knows it (tracked files and new ones not ignored)
(cd "$top" && git ls-files -z --cached --others --exclude-standard |
	grep -zv '^build/' | xargs -0 tar cf - --no-recursion) | tar xf - -C "$src"
{
	echo "slurm-qft ($version) unstable; urgency=medium"
	echo
	echo "  * Built by contribs/deb/build.sh for slurm-wlm $slurm_deb."
	echo
	echo " -- slurm-qft developers <slurm-qft@lists.invalid>  $(date -R)"
	echo
	cat "$top/debian/changelog"
} >"$src/debian/changelog"

opts="parallel=$(nproc)"
[ "${QFT_DEB_CHECK:-1}" = 0 ] && opts="$opts nocheck"
say "dpkg-buildpackage (DEB_BUILD_OPTIONS=$opts; log: $out/build.log)"
if ! (cd "$src" && DEB_BUILD_OPTIONS=$opts QFT_DEB_SLURM_SRC=$QFT_SLURM_SRC \
	QFT_DEB_SLURM_BUILD=$QFT_SLURM_BUILD QFT_DEB_SLURM_SERIES=$series \
	QFT_DEB_SLURM_VERSION=$slurm_deb dpkg-buildpackage -b -us -uc) >"$out/build.log" 2>&1; then
	tail -30 "$out/build.log"
	echo "build.sh: dpkg-buildpackage failed, see $out/build.log" >&2
	exit 1
fi
for deb in "$out"/*.deb; do
	printf '%s\n  Depends: %s\n' "$(basename "$deb")" "$(dpkg-deb -f "$deb" Depends)"
done | tee "$out/packages.txt"
say "lintian"
lintian --info "$out"/*.changes >"$out/lintian.txt" 2>&1 || true
cat "$out/lintian.txt"
if grep -q '^E: ' "$out/lintian.txt"; then
	echo "build.sh: lintian reports errors" >&2
	exit 1
fi
say "done: $out"
