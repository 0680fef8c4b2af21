#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# build-deb.sh OUTDIR: the Debian packages (debian/) built with
# dpkg-buildpackage -us -uc -b, left in OUTDIR with their .changes and
# .buildinfo. dpkg-buildpackage writes its results into the parent of the
# tree it builds, so it builds a copy of the checkout under OUTDIR/src
# (the files git knows, committed or not, that are not ignored), and
# nothing is written outside OUTDIR.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
"$top/scripts/deps.sh" deb

ver=$(cd "$top" && dpkg-parsechangelog -SVersion)
upstream=${ver%-*}
# one version everywhere: the changelog's upstream part, the library's,
# and the one DKMS registers the module under
lib=$(sed -n 's/^#define LIBSTACKINFO_VERSION\t*"\(.*\)"/\1/p' "$top/tools/lib/libstackinfo.h")
dkms=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
if [ "$upstream" != "$lib" ] || [ "$upstream" != "$dkms" ]; then
	echo "build-deb: versions differ: debian/changelog $upstream, libstackinfo.h $lib, dkms.conf $dkms" >&2
	exit 1
fi

rm -rf "$out/src" "$out"/*.deb "$out"/*.ddeb "$out"/*.changes "$out"/*.buildinfo
src=$out/src/stackinfo-$upstream
mkdir -p "$src"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		tar --null -T - -cf -) | tar -xf - -C "$src"
else
	(cd "$top" && tar --exclude=./build --exclude=./.git -cf - .) | tar -xf - -C "$src"
fi

log=$out/build.log
if ! (cd "$src" && dpkg-buildpackage -us -uc -b) >"$log" 2>&1; then
	tail -n 40 "$log" >&2
	echo "build-deb: dpkg-buildpackage failed (full log: $log)" >&2
	exit 1
fi
mv "$out"/src/*.deb "$out"/src/*.changes "$out"/src/*.buildinfo "$out/"
mv "$out"/src/*.ddeb "$out/" 2>/dev/null || true
rm -rf "$out/src"
ls -l "$out"/*.deb
