#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# build-module.sh KDIR OUTDIR [KBUILD ARGS...]: build stackinfo.ko against
# KDIR in OUTDIR, a private copy of the module's sources, so that builds
# for several kernels never share objects. Rebuilds only what changed.
set -euo pipefail
kdir=$1 out=$2
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
# -c: copy by content, so mtimes of unchanged files keep make incremental.
sync_sources() {
	local f
	for f in Kbuild $(cd "$top" && find module include kunit -type f \( -name '*.[ch]' -o -name '*.lds' -o -name Kbuild \) 2>/dev/null); do
		mkdir -p "$out/$(dirname "$f")"
		cmp -s "$top/$f" "$out/$f" || cp "$top/$f" "$out/$f"
	done
}
sync_sources
make -s -C "$kdir" M="$out" "$@" modules
