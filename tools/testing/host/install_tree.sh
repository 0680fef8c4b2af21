#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# make install into a DESTDIR puts every piece where it belongs; a program
# built with `pkg-config --cflags --libs libstackinfo` against that tree
# runs, and so does the Python package, from where python3-stackinfo puts
# it (with gdb's command file beside, as the package has it); with
# PREFIX=/usr/local the package goes to a directory on Debian's python3's
# path; make uninstall removes it all again.
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
version=$(sed -n 's/^#define LIBSTACKINFO_VERSION\t*"\(.*\)"/\1/p' "$top/tools/lib/libstackinfo.h")
for f in "lib/modules/$kver/updates/stackinfo.ko" "usr/lib/libstackinfo.so.$version" \
	usr/lib/libstackinfo.a usr/lib/libstackinfo-preload.so \
	usr/lib/pkgconfig/libstackinfo.pc usr/include/libstackinfo.h \
	usr/include/linux/stackinfo.h usr/bin/stackinfo usr/share/man/man1/stackinfo.1 \
	usr/share/man/man3/libstackinfo.3 usr/share/man/man3/pthread_getstack_np.3 \
	usr/share/man/man4/stackinfo.4 \
	usr/lib/python3/dist-packages/stackinfo/__init__.py \
	usr/lib/python3/dist-packages/stackinfo/__main__.py \
	usr/lib/python3/dist-packages/stackinfo/gdb_command.py \
	usr/share/gdb/python/gdb/command/stackinfo.py; do
	[ -f "$dest/$f" ] || say "not installed: $f"
done
[ "$(readlink "$dest/usr/lib/libstackinfo.so.0")" = "libstackinfo.so.$version" ] || say "soname link"
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

# the installed package, on the installed library: the backend the C program named
pyout=$(cd / && PYTHONPATH="$dest/usr/lib/python3/dist-packages" LD_LIBRARY_PATH="$dest/usr/lib" \
	/usr/bin/python3 -c 'import stackinfo; print(stackinfo.__file__, stackinfo.backend(), len(stackinfo.process()))' 2>&1)
[ "$pyout" = "$dest/usr/lib/python3/dist-packages/stackinfo/__init__.py ${out%% *} 1" ] ||
	say "the installed Python package said: $pyout"
cmp -s "$top/python/gdb/stackinfo.py" "$dest/usr/share/gdb/python/gdb/command/stackinfo.py" ||
	say "gdb's command file"

make -s -C "$top" uninstall DESTDIR="$dest" PREFIX=/usr >/dev/null 2>&1 || say "uninstall"
left=$(cd "$dest" && find . -type f ! -name 'prog*' ! -path './prog*')
[ -z "$left" ] || say "left after uninstall: $left"

# PREFIX=/usr/local: the package where Debian's python3 looks for /usr/local
local=$(mktemp -d)
make -s -C "$top" install-tools DESTDIR="$local" PREFIX=/usr/local >/dev/null 2>&1 ||
	say "install-tools PREFIX=/usr/local"
init=$(cd "$local" && find . -path '*/stackinfo/__init__.py' | sed 's|^\.||')
pydir=${init%/stackinfo/__init__.py}
/usr/bin/python3 -c 'import sys; sys.exit(sys.argv[1] not in sys.path)' "$pydir" ||
	say "PREFIX=/usr/local put the package in '$pydir', not on Debian's python3's path"
[ -f "$local/usr/local/share/gdb/python/gdb/command/stackinfo.py" ] ||
	say "PREFIX=/usr/local: gdb's command file"
make -s -C "$top" uninstall DESTDIR="$local" PREFIX=/usr/local >/dev/null 2>&1 || say "uninstall /usr/local"
left=$(cd "$local" && find . -type f)
[ -z "$left" ] || say "left after uninstall (/usr/local): $left"
rm -rf "$local"
exit $fail
