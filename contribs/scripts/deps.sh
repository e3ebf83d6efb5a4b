#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs the Debian 12 packages slurm-qft builds and tests with.
# Usage: contribs/scripts/deps.sh [EXTRA-PACKAGE...]
set -euo pipefail
pkgs=(build-essential autoconf automake libtool pkg-config
      libjansson-dev libcmocka-dev python3
      libibnetdisc-dev libibmad-dev libibumad-dev libibverbs-dev libopensm-dev "$@")
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
