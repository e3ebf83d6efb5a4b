#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Configures and builds slurm-qft in build/<name> (default build/release).
# Usage: contribs/scripts/build.sh [NAME [CONFIGURE-ARGS...]]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
name=${1:-release}
shift || true
cd "$top"
[ -x configure ] && [ configure -nt configure.ac ] && [ Makefile.in -nt Makefile.am ] ||
	autoreconf -fi >/dev/null
mkdir -p "build/$name"
cd "build/$name"
# Reconfigure when configure changed or the Slurm source appeared since.
# QFT_SLURM_SERIES=24.11 builds the plugins for Slurm 24.11 (configure.ac).
case ${QFT_SLURM_SERIES:-22.05} in
24.11) paths=${QFT_SLURM_DIR:-$top/build/slurm-24.11}/slurm-paths.sh ;;
*) paths=${QFT_SLURM_DIR:-$top/build/slurm}/slurm-paths.sh ;;
esac
if [ ! -f Makefile ] || [ "$top/configure" -nt Makefile ] ||
	{ [ -f "$paths" ] && [ "$paths" -nt Makefile ]; }; then
	"$top/configure" -q "$@"
fi
make -s -j"$(nproc)" >/dev/null
echo "$top/build/$name"
