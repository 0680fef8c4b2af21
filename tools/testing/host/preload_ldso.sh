#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The interposer in a program started by running the dynamic linker
# itself (ld-linux-x86-64.so.2 PROGRAM, as a program built for another C
# library is run with that library's own loader): the kernel then loads
# no interpreter and AT_BASE is 0, as in a static program, yet the
# interposer must still find glibc's pthread_getattr_np() through the
# dynamic linker. getattr-print, run so, asks about the main thread from
# the main thread (the first call: glibc's own) and from a second (the
# library's, once it agreed with glibc): exit 0, the interposer counted a
# main-thread call answered by the library (STACKINFO_PRELOAD_STATS), and
# the two answers are equal, field for field.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
prog=$top/build/bin/getattr-print
preload=$top/build/lib/libstackinfo-preload.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ldso=$(readelf -l "$prog" | sed -n 's/.*Requesting program interpreter: \(.*\)\]$/\1/p')
if [ -z "$ldso" ] || [ ! -x "$ldso" ]; then
	echo "FAIL: $prog names no program interpreter that can be run ('$ldso')"
	exit 1
fi
env -u STACKINFO_CHECK LD_PRELOAD="$preload" STACKINFO_PRELOAD_STATS="$tmp/stats" \
	"$ldso" "$prog" >"$tmp/out" 2>&1
rc=$?
lib=$(sed -n 's/.* main [0-9]* (library \([0-9]*\), glibc [0-9]*).*/\1/p' "$tmp/stats" 2>/dev/null)
glibc_says=$(sed -n 's/^main: //p' "$tmp/out")
lib_says=$(sed -n 's/^other: //p' "$tmp/out")
if [ $rc != 0 ]; then
	echo "FAIL: $ldso $prog with the interposer: exit $rc:"
	cat "$tmp/out"
elif [ "${lib:-0}" -lt 1 ]; then
	echo "FAIL: $ldso $prog: the library answered no main-thread call: $(cat "$tmp/stats" 2>/dev/null)"
elif [ -z "$glibc_says" ] || [ "$glibc_says" != "$lib_says" ]; then
	echo "FAIL: $ldso $prog: glibc says '$glibc_says', the library '$lib_says'"
else
	echo "info: $ldso $prog: $lib_says; $(sed 's/^stackinfo-preload: pid [0-9]*: //' "$tmp/stats")"
	exit 0
fi
exit 1
