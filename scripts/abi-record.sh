#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# abi-record.sh VERSION COMMIT: record libstackinfo VERSION, as COMMIT
# builds it, under tools/lib/abi/VERSION/ (docs/abi.md):
#   libstackinfo.abi   abidw's description of the library (symbols, types)
#   symbols            its exports, symbol@@node (default) or symbol@node
#   libstackinfo.map   the version script it was linked with
#   include/           its public headers (libstackinfo.h, linux/stackinfo.h)
#   python/stackinfo/  its Python package, which a later library must still
#                      serve (lib_python, python_bindings)
# The library is built in a scratch clone of this repository, never in the
# tree, with the Makefile's default flags (-O2 -g: abidw needs DWARF). COMMIT
# must say LIBSTACKINFO_VERSION VERSION. An existing record is refused: a
# release, once recorded, is what later builds are held against (the
# release's abidiff.suppr, written by hand, may be there already).
set -euo pipefail
[ $# = 2 ] || { echo "usage: abi-record.sh VERSION COMMIT" >&2; exit 2; }
version=$1 commit=$2
top=$(cd "$(dirname "$0")/.." && pwd)
dest=$top/tools/lib/abi/$version
for f in libstackinfo.abi symbols libstackinfo.map include python; do
	[ ! -e "$dest/$f" ] || { echo "abi-record: $dest/$f exists" >&2; exit 1; }
done
"$top/scripts/deps.sh" abi base >/dev/null

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git clone -q "$top" "$tmp/src"
git -C "$tmp/src" checkout -q "$commit"
have=$(sed -n 's/^#define LIBSTACKINFO_VERSION\t*"\(.*\)"/\1/p' "$tmp/src/tools/lib/libstackinfo.h")
[ "$have" = "$version" ] || {
	echo "abi-record: $commit is libstackinfo $have, not $version" >&2
	exit 1
}
so=build/lib/libstackinfo.so.$version
make -s -C "$tmp/src" "$so" >&2

mkdir -p "$dest/include/linux"
abidw --no-corpus-path --no-comp-dir-path --out-file "$dest/libstackinfo.abi" "$tmp/src/$so"
nm -D --defined-only "$tmp/src/$so" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }' | sort >"$dest/symbols"
git -C "$tmp/src" show "$commit:tools/lib/libstackinfo.map" >"$dest/libstackinfo.map"
git -C "$tmp/src" show "$commit:tools/lib/libstackinfo.h" >"$dest/include/libstackinfo.h"
git -C "$tmp/src" show "$commit:include/uapi/linux/stackinfo.h" >"$dest/include/linux/stackinfo.h"
mkdir -p "$dest/python/stackinfo"
for f in $(git -C "$tmp/src" ls-tree --name-only "$commit" python/stackinfo/); do
	git -C "$tmp/src" show "$commit:$f" >"$dest/$f"
done
echo "abi-record: libstackinfo $version ($commit) in ${dest#"$top"/}"
