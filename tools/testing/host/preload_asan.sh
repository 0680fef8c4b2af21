#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The interposer in a program built with -fsanitize=address,undefined and
# the runtimes linked as shared libraries (gcc's default):
# getattr-print-asan, which asks pthread_getattr_np() about the main
# thread from the main thread (the first call: glibc's own) and from a
# second (the library's, once it agreed with glibc). As libstackinfo(3)
# says ("Preloading the interposer into a sanitized program"):
# - LD_PRELOAD=libstackinfo-preload.so alone: ASan refuses to start;
# - each command the page gives (its examples naming $preload and ./prog,
#   run as they are written, with this build's interposer and program):
#   exit 0, the interposer counted a main-thread call answered by the
#   library (STACKINFO_PRELOAD_STATS), and the library's answer is
#   glibc's, field for field.
# Skips (77) where the program has no shared ASan runtime (a compiler
# that links it statically needs none of this).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
prog=$top/build/san/getattr-print-asan
preload=$top/build/lib/libstackinfo-preload.so
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

asan=$(ldd "$prog" | awk '$1 ~ /^libasan\.so/ { print $3 }')
if [ -z "$asan" ]; then
	echo "$prog has no shared ASan runtime (ldd): nothing to preload ahead of"
	exit 77
fi
gcc_asan=$(gcc -print-file-name=libasan.so)
if [ "$(readlink -f "$gcc_asan")" != "$(readlink -f "$asan")" ]; then
	echo "FAIL: gcc -print-file-name=libasan.so ($gcc_asan) is not the program's runtime ($asan)"
	fail=1
fi

# run NAME [ENV...] CMD...: under env, its output in $tmp/NAME
run() {
	local name=$1
	shift
	env -u STACKINFO_CHECK STACKINFO_PRELOAD_STATS="$tmp/$name.stats" "$@" >"$tmp/$name" 2>&1
}

run alone LD_PRELOAD="$preload" "$prog"
rc=$?
if [ $rc = 0 ] || ! grep -q 'ASan runtime does not come first in initial library list' "$tmp/alone"; then
	echo "FAIL: the interposer alone: ASan did not refuse as libstackinfo(3) says (exit $rc):"
	cat "$tmp/alone"
	fail=1
fi

# answered NAME RC: the run NAME exited 0, the library answered a
# main-thread call, and its answer is glibc's
answered() {
	local out=$tmp/$1 lib glibc_says lib_says
	# "stackinfo-preload: pid N: glibc V: pthread_getattr_np main M (library L, glibc G) other O"
	lib=$(sed -n 's/.* main [0-9]* (library \([0-9]*\), glibc [0-9]*).*/\1/p' "$out.stats" 2>/dev/null)
	glibc_says=$(sed -n 's/^main: //p' "$out")
	lib_says=$(sed -n 's/^other: //p' "$out")
	if [ "$2" != 0 ]; then
		echo "FAIL: $1: exit $2:"
		cat "$out"
	elif [ "${lib:-0}" -lt 1 ]; then
		echo "FAIL: $1: the library answered no main-thread call: $(cat "$out.stats" 2>/dev/null)"
	elif [ -z "$glibc_says" ] || [ "$glibc_says" != "$lib_says" ]; then
		echo "FAIL: $1: glibc says '$glibc_says', the library '$lib_says'"
	else
		echo "info: $1: $lib_says; $(sed 's/^stackinfo-preload: pid [0-9]*: //' "$out.stats")"
		return 0
	fi
	fail=1
}

# the page's commands, roff's escapes undone
doc=$top/man/libstackinfo.3
mapfile -t cmds < <(sed -n '/^\.SS "Preloading the interposer into a sanitized program"/,/^\.S[HS] /p' "$doc" |
	sed -n '/^\.EX/,/^\.EE/p' | grep -F '$preload' | grep -F './prog' |
	sed -e 's/\\-/-/g' -e "s/\\\\(aq/'/g")
if [ ${#cmds[@]} = 0 ]; then
	echo "FAIL: libstackinfo(3) gives no command to preload the interposer into an ASan program"
	fail=1
fi
n=0
for cmd in "${cmds[@]}"; do
	n=$((n + 1))
	echo "info: command $n: $cmd"
	run "command$n" preload="$preload" prog="$prog" sh -c "${cmd//.\/prog/\"\$prog\"}"
	answered "command$n" $?
done
exit $fail
