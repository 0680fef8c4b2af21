#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The shared objects load on glibc 2.31 (the oldest glibc the tests run
# them on): libstackinfo.so and libstackinfo-preload.so, as built here,
# need no glibc symbol version newer than GLIBC_2.31 (objdump -T), name
# libpthread.so.0 and libdl.so.2 (2.31's homes of pthread_getattr_np,
# pthread_create, dlsym and the rest: tools/lib/glibc-symver.h), and the
# interposer still exports pthread_getattr_np unversioned, so that it
# interposes every version a program binds. Whether each then loads and
# answers on 2.31 itself is host test preload_glibcs's part.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$(ls "$top"/build/lib/libstackinfo.so.*.*.* 2>/dev/null | head -n 1)
preload=$top/build/lib/libstackinfo-preload.so
fail=0
refs=$(mktemp)
trap 'rm -f "$refs"' EXIT

case $(uname -m) in
x86_64) ;;
*) echo "SKIP: the symbol versions are bound for x86_64 only"; exit 77 ;;
esac
for so in "$lib" "$preload"; do
	if [ ! -e "$so" ]; then
		echo "FAIL: ${so:-libstackinfo.so}: not built"
		fail=1
		continue
	fi
	name=$(basename "$so")
	# the versions of glibc's each undefined symbol binds: "VERSION SYMBOL"
	objdump -T "$so" | awk '$0 ~ /\*UND\*/ && $(NF-1) ~ /GLIBC_/ {
		v = $(NF-1); gsub(/[()]/, "", v); print v, $NF }' >"$refs"
	if [ ! -s "$refs" ]; then
		echo "FAIL: $name: objdump -T shows no glibc reference at all"
		fail=1
	fi
	newer=$(awk '$1 ~ /^GLIBC_[0-9]/ {
		split(substr($1, 7), n, ".")
		if (n[1] > 2 || (n[1] == 2 && n[2] > 31)) print $1 " " $2 }' "$refs")
	if [ -n "$newer" ]; then
		echo "FAIL: $name needs versions newer than glibc 2.31:" $newer
		fail=1
	fi
	for needed in libpthread.so.0 libdl.so.2; do
		readelf -d "$so" | grep -q "(NEEDED).*\[$needed\]" ||
			{ echo "FAIL: $name does not name $needed (glibc 2.31 has its functions there)"; fail=1; }
	done
	echo "info: $name: $(objdump -T "$so" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n 1) the newest glibc version it needs"
done
if [ -e "$preload" ]; then
	sym=$(objdump -T "$preload" | awk '$NF == "pthread_getattr_np" && $0 !~ /\*UND\*/')
	case $sym in
	"") echo "FAIL: the interposer defines no pthread_getattr_np"; fail=1 ;;
	*GLIBC_*) echo "FAIL: the interposer's pthread_getattr_np is versioned: $sym"; fail=1 ;;
	esac
fi
[ $fail = 0 ] && echo "PASS: no glibc version newer than 2.31 needed"
exit $fail
