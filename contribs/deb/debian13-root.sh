#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# debian13-root.sh: a Debian 13 (trixie) root made with debootstrap from
# Debian's archive, for building and testing the Slurm 24.11 packages on a
# Debian 12 machine (contribs/deb/build.sh 24.11, tests/deb/test-deb-2411.sh).
#
#   debian13-root.sh make          make the root, or bring the one there up
#                                  to date: debootstrap (minbase), apt
#                                  sources (deb and deb-src of trixie,
#                                  trixie-updates, trixie-security), the
#                                  packages the build and the test need
#                                  (Debian 13's slurmctld, slurmd,
#                                  slurm-client and munge among them; no
#                                  service started)
#   debian13-root.sh run CMD...    run CMD in the root as root, with /proc,
#                                  /sys, /dev and this checkout (at the same
#                                  path) mounted; unmounted when CMD ends,
#                                  however it ends. One run at a time per
#                                  root (a lock); the environment is reset
#                                  but for QFT_* and DEB_BUILD_OPTIONS.
#   debian13-root.sh path          print the root's directory
#
# QFT_DEB13_ROOT: the root (default <repo>/build/debian13-root), reused
# when there: each step leaves a stamp in <root>/.qft/; to start again,
# rm -r --one-file-system the root while no run uses it.
# QFT_DEBIAN_MIRROR: default http://deb.debian.org/debian (security
# updates from the same host's debian-security). Needs root.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
ROOT=${QFT_DEB13_ROOT:-$top/build/debian13-root}
MIRROR=${QFT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUITE=trixie
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
STAMPS=$ROOT/.qft
say() { printf '[deb13-root %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'debian13-root.sh: %s\n' "$*" >&2; exit 1; }

# What the root holds besides minbase: the package build (debhelper,
# lintian and slurm-qft's Build-Depends), the configure of Debian's Slurm
# source (the libraries its configure flags insist on), the test (Debian
# 13's Slurm daemons and clients, munge, what tests/slurm/lib.sh and
# contribs/slurm/harness.sh call).
PACKAGES=(
	build-essential dpkg-dev debhelper lintian fakeroot
	autoconf automake libtool pkg-config g++ python3
	libjansson-dev libibnetdisc-dev libibmad-dev libibumad-dev
	libibverbs-dev libopensm-dev libcmocka-dev
	perl libmunge-dev libpmix-dev libpam0g-dev
	slurmctld slurmd slurm-client munge procps man-db
)

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mount)"

# in_root CMD...: CMD in the root, mounts already in place
in_root() {
	env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" "${passed[@]}" \
		chroot "$ROOT" "$@"
}

mounted=()
unmount_all() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount -R "${mounted[$i]}" 2>/dev/null || umount -l -R "${mounted[$i]}" 2>/dev/null || true
	done
	mounted=()
}
# mount_all: /proc, /sys (with /sys/fs/cgroup), /dev (with /dev/pts and
# /dev/shm) and the checkout
mount_all() {
	trap unmount_all EXIT
	trap 'exit 130' INT TERM HUP
	mount -t proc proc "$ROOT/proc" || die "cannot mount $ROOT/proc"
	mounted+=("$ROOT/proc")
	# /sys and /dev with what is mounted below them (Slurm 24.11's slurmd
	# needs /sys/fs/cgroup); rslave: unmounting the copies never reaches
	# the host's
	local d
	for d in sys dev; do
		mount --rbind "/$d" "$ROOT/$d" || die "cannot mount $ROOT/$d"
		mounted+=("$ROOT/$d")
		mount --make-rslave "$ROOT/$d"
	done
	mkdir -p "$ROOT$top"
	mount --bind "$top" "$ROOT$top" || die "cannot mount $ROOT$top"
	mounted+=("$ROOT$top")
	# the host's name and resolver: harness.sh names this host in slurm.conf
	cp /etc/hosts /etc/resolv.conf "$ROOT/etc/"
}

# no_services CMD...: CMD with package scripts kept from starting daemons
no_services() {
	printf '#!/bin/sh\n# debian13-root.sh: no service starts in this root\nexit 101\n' \
		>"$ROOT/usr/sbin/policy-rc.d"
	chmod 755 "$ROOT/usr/sbin/policy-rc.d"
	"$@"
}

make_root() {
	command -v debootstrap >/dev/null || "$top/contribs/scripts/deps.sh" debootstrap
	local t0=$SECONDS
	if [ ! -f "$STAMPS/debootstrap" ]; then
		say "debootstrap --variant=minbase $SUITE $ROOT $MIRROR"
		# never through a mount (the checkout is one while a run goes on)
		! grep -q " $ROOT/" /proc/mounts || die "something is mounted in $ROOT: unmount it first"
		rm -rf --one-file-system "$ROOT"
		mkdir -p "$(dirname "$ROOT")"
		if ! nice -n 19 debootstrap --variant=minbase --keyring="$KEYRING" \
			"$SUITE" "$ROOT" "$MIRROR" >"$ROOT.debootstrap.log" 2>&1; then
			tail -20 "$ROOT.debootstrap.log" >&2
			die "debootstrap failed (log: $ROOT.debootstrap.log)"
		fi
		mkdir -p "$STAMPS"
		date >"$STAMPS/debootstrap"
		say "debootstrap done in $((SECONDS - t0)) s"
	fi
	# deb and deb-src (apt-get source of Debian's Slurm)
	local security=${MIRROR%/debian}/debian-security
	cat >"$ROOT/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb deb-src
URIs: $MIRROR
Suites: $SUITE $SUITE-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb deb-src
URIs: $security
Suites: $SUITE-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
	rm -f "$ROOT/etc/apt/sources.list"
	# the packages, once per list (a longer list installs what it adds)
	local sum
	sum=$(printf '%s\n' "${PACKAGES[@]}" | md5sum | cut -c1-8)
	if [ ! -f "$STAMPS/packages-$sum" ]; then
		mount_all
		t0=$SECONDS
		say "apt-get install in the root: ${PACKAGES[*]}"
		if ! no_services in_root sh -c "apt-get update -q &&
			DEBIAN_FRONTEND=noninteractive nice -n 19 apt-get install -y -q \
			--no-install-recommends $(printf '%q ' "${PACKAGES[@]}")" \
			>"$ROOT.apt.log" 2>&1; then
			tail -20 "$ROOT.apt.log" >&2
			die "apt-get install in the root failed (log: $ROOT.apt.log)"
		fi
		unmount_all
		rm -f "$STAMPS"/packages-*
		date >"$STAMPS/packages-$sum"
		say "packages done in $((SECONDS - t0)) s"
	fi
	# shellcheck disable=SC2016 # a dpkg-query format
	say "Debian 13 root $ROOT: $(cat "$ROOT/etc/debian_version"), slurmctld $(in_root dpkg-query -W -f='${Version}' slurmctld)"
}

passed=()
for v in $(compgen -e); do
	case $v in QFT_* | DEB_BUILD_OPTIONS) passed+=("$v=${!v}") ;; esac
done

case ${1:-} in
make)
	exec 9>"$ROOT.lock"
	flock 9
	make_root
	;;
path) echo "$ROOT" ;;
run)
	shift
	[ $# -gt 0 ] || die "usage: $0 run CMD..."
	[ -f "$STAMPS/debootstrap" ] || die "no root at $ROOT: $0 make first"
	exec 9>"$ROOT.lock"
	flock 9
	mount_all
	rc=0
	# the lock's descriptor stays here: a daemon left running in the root
	# must not hold it
	in_root "$@" 9>&- || rc=$?
	exit $rc
	;;
*)
	echo "usage: $0 make|run CMD...|path" >&2
	exit 2
	;;
esac
