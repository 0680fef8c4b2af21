#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The interposer on each glibc the tests carry, natively: Debian's glibc
# 2.31 (bullseye), 2.36 (bookworm), 2.41 (trixie) and sid's, each fetched
# by tools/testing/glibcs/fetch (cached under $STACKINFO_CACHE/glibcs) and
# each program run by that glibc's own loader; tools/testing/glibcs/run
# says what must hold (every field of the answer glibc's, at 0 and 3 000
# mappings, the library answering, faster than that glibc). A C library
# that cannot be fetched fails: the test needs all four.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
preload=$top/build/lib/libstackinfo-preload.so
log=$(mktemp)
trap 'rm -f "$log"' EXIT

if ! "$top/tools/testing/glibcs/pack" >/dev/null 2>"$log"; then
	echo "FAIL: tools/testing/glibcs/pack: $(tail -n 3 "$log")"
	exit 1
fi
# on a kernel with PROCMAP_QUERY (the library's backend here, in a process
# of one thread) at least 10x that glibc at 3 000 mappings
speedup=0
"$top/build/bin/stackinfo" --backend procmap_query >/dev/null 2>&1 && speedup=10
"$top/build/glibcs/root/usr/lib/stackinfo-glibcs/run" --speedup "$speedup" "$preload"
