#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# build.sh [22.05|24.11]: slurm-qft's Debian packages (debian/), with the
# Debian tools (dpkg-buildpackage, debhelper), for the Slurm of a Debian
# slurmctld package, then lintian on them.
#   22.05  Debian 12's, on this machine: installs what it needs
#          (contribs/scripts/deps.sh) and fetches Debian's Slurm source of
#          that exact version, configured with Debian's flags
#          (contribs/slurm/slurm-source.sh)
#   24.11  Debian 13's, in a Debian 13 root that contribs/deb/debian13-root.sh
#          makes with debootstrap (or reuses) under build/: the same steps
#          run there, with trixie's debhelper and lintian, against Debian
#          13's Slurm source of the version of the root's slurmctld package,
#          configured as its debian/rules configures it
#          (contribs/deb/slurm-source-debian.sh)
# Slurm installs no headers for its plugin interface: the plugins build
# against its source tree.
#
#   OUT: build/deb-SERIES/*.deb, *.changes, lintian.txt, packages.txt (each
#   package with its Depends line)
#   QFT_DEB_CHECK=0 skips `make check` in the package build (nocheck)
#
# The packages depend on exactly that slurm-wlm version
# (slurm-wlm-basic-plugins (= VERSION), which slurmctld, slurmd and
# slurm-client depend on exactly too): apt will not pair them with another
# Slurm.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
series=${1:-22.05}
case $series in
22.05 | 24.11) ;;
*)
	echo "build.sh: Slurm $series: 22.05 (Debian 12) or 24.11 (Debian 13)" >&2
	exit 2
	;;
esac
out=$top/build/deb-$series
say() { printf '[deb %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
upstream=$(sed -n 's/^AC_INIT(\[slurm-qft\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")
src=$out/slurm-qft-$upstream
# copy_tree: the tree as git knows it (tracked files and new ones not
# ignored) into $src
copy_tree() {
	rm -rf "$out"
	mkdir -p "$src"
	(cd "$top" && git ls-files -z --cached --others --exclude-standard |
		grep -zv '^build/' | xargs -0 tar cf - --no-recursion) | tar xf - -C "$src"
}

# 24.11 on the host: the root, the tree (git is the host's), then the
# rest of this script in the root
if [ "$series" = 24.11 ] && [ "${QFT_DEB_IN_ROOT:-0}" != 1 ]; then
	say "the Debian 13 root (contribs/deb/debian13-root.sh make)"
	"$top/contribs/deb/debian13-root.sh" make
	copy_tree
	say "into the Debian 13 root"
	QFT_DEB_IN_ROOT=1 exec "$top/contribs/deb/debian13-root.sh" run "$top/contribs/deb/build.sh" 24.11
fi

say "build dependencies"
"$top/contribs/scripts/deps.sh" debhelper lintian fakeroot dpkg-dev >/dev/null
if [ "$series" = 22.05 ]; then
	say "Slurm's source (contribs/slurm/slurm-source.sh)"
	"$top/contribs/slurm/slurm-source.sh" >/dev/null
	# shellcheck disable=SC1091
	. "$top/build/slurm/slurm-paths.sh"
	# shellcheck source=contribs/slurm/common.sh
	. "$top/contribs/slurm/common.sh"
	slurm_deb=$(qft_slurm_version)
else
	say "in Debian $(cat /etc/debian_version); Slurm's source (contribs/deb/slurm-source-debian.sh)"
	"$top/contribs/deb/slurm-source-debian.sh" >/dev/null
	# shellcheck disable=SC1091
	. "${QFT_DEB_SLURM_DIR:-/var/cache/qft-slurm}/slurm-paths.sh"
	slurm_deb=$QFT_SLURM_VERSION
fi
# a native package's version has no hyphen: the Slurm version follows '+'
version="$upstream+slurm$(echo "$slurm_deb" | tr -- '-~:' '...')"
say "slurm-qft $version for slurm-wlm $slurm_deb ($QFT_SLURM_SRC)"

# 24.11: copied on the host already
[ "${QFT_DEB_IN_ROOT:-0}" = 1 ] || copy_tree
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
