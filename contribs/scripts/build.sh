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
paths=$top/build/slurm/slurm-paths.sh
if [ ! -f Makefile ] || [ "$top/configure" -nt Makefile ] ||
	{ [ -f "$paths" ] && [ "$paths" -nt Makefile ]; }; then
	"$top/configure" -q "$@"
fi
make -s -j"$(nproc)" >/dev/null
echo "$top/build/$name"
