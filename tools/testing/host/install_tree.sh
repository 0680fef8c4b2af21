#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# make install into a DESTDIR puts every piece where it belongs; a program
# built with `pkg-config --cflags --libs libstackinfo` against that tree
# runs; make uninstall removes it all again.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
"$top/scripts/deps.sh" install >/dev/null || exit 1
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }

if ! make -s -C "$top" install DESTDIR="$dest" PREFIX=/usr >"$dest.log" 2>&1; then
	cat "$dest.log"; rm -f "$dest.log"
	exit 1
fi
rm -f "$dest.log"
kver=$(make -s -C "$top" --no-print-directory -f - <<<'include Makefile
print-kver: ; @echo $(KVER)' print-kver)
for f in "lib/modules/$kver/updates/stackinfo.ko" usr/lib/libstackinfo.so.0.2.0 \
	usr/lib/libstackinfo.a usr/lib/libstackinfo-preload.so \
	usr/lib/pkgconfig/libstackinfo.pc usr/include/libstackinfo.h \
	usr/include/linux/stackinfo.h usr/bin/stackinfo usr/share/man/man1/stackinfo.1 \
	usr/share/man/man3/libstackinfo.3 usr/share/man/man4/stackinfo.4; do
	[ -f "$dest/$f" ] || say "not installed: $f"
done
[ "$(readlink "$dest/usr/lib/libstackinfo.so.0")" = libstackinfo.so.0.2.0 ] || say "soname link"
[ "$(readlink "$dest/usr/lib/libstackinfo.so")" = libstackinfo.so.0 ] || say "dev link"
grep -q '^prefix=/usr$' "$dest/usr/lib/pkgconfig/libstackinfo.pc" || say "pc prefix"

cat >"$dest/prog.c" <<'PROG'
#include <stdio.h>
#include <libstackinfo.h>
int main(void)
{
	struct stackinfo_query q;
	int b = stackinfo_backend(), err = stackinfo_query_thread(0, 0, &q);

	printf("%s %d %d\n", stackinfo_backend_name(b), err, !!(q.valid & STACKINFO_VALID_MAIN_VMA));
	return b < 0 || err;
}
PROG
flags=$(PKG_CONFIG_PATH="$dest/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest" \
	pkg-config --cflags --libs libstackinfo) || say "pkg-config"
# shellcheck disable=SC2086
if cc -Wall -Werror -o "$dest/prog" "$dest/prog.c" $flags; then
	out=$(LD_LIBRARY_PATH="$dest/usr/lib" "$dest/prog") || say "program failed: $out"
	grep -qE '^(module|procmap_query|maps) 0 1$' <<<"$out" || say "program said: $out"
else
	say "build against the installed tree ($flags)"
fi

make -s -C "$top" uninstall DESTDIR="$dest" PREFIX=/usr >/dev/null 2>&1 || say "uninstall"
left=$(cd "$dest" && find . -type f ! -name 'prog*' ! -path './prog*')
[ -z "$left" ] || say "left after uninstall: $left"
exit $fail
