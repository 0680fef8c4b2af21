#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# abi-diff.sh NEW [VERSION...]: abidiff of each recorded release
# (tools/lib/abi/VERSION/libstackinfo.abi; all of them unless named)
# against NEW, a libstackinfo.so built with DWARF (-g) or abidw's XML of
# one (docs/abi.md). Added symbols are allowed; a removed symbol, or a
# changed type of any function or variable, fails, except what
# tools/lib/abi/growth.suppr and the release's abidiff.suppr say, each
# with its reason. Exits 1 and prints abidiff's report on a change.
#
# Both sides are read with every symbol version as non-default:
# libabigail 2.2 pairs a release's default version (symbol@@NODE) with the
# compat (non-default) version of the same symbol@NODE in NEW without
# comparing their types, so a compat symbol's changed struct would pass
# unreported. Which version is the default is check-symbols.sh's concern.
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: abi-diff.sh NEW [VERSION...]" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
abi=$top/tools/lib/abi
new=$1
shift
"$top/scripts/deps.sh" abi >/dev/null || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

normalize() {	# XML OUT
	sed -e "s/is-default-version='yes'/is-default-version='no'/" \
		-e "s/\(elf-symbol-id='[^']*\)@@/\1@/" "$1" >"$2"
}

case $new in
*.abi) cp "$new" "$tmp/new.xml" ;;
*) abidw --no-corpus-path --no-comp-dir-path --out-file "$tmp/new.xml" "$new" || exit 1 ;;
esac
if ! grep -q '<function-decl ' "$tmp/new.xml"; then
	echo "abi-diff: $new has no debug info (build it with -g)" >&2
	exit 1
fi
normalize "$tmp/new.xml" "$tmp/new.abi"

versions=${*:-$(ls "$abi" | grep '^[0-9]' | sort -V)}
for v in $versions; do
	rec=$abi/$v/libstackinfo.abi
	[ -f "$rec" ] || { echo "abi-diff: no release $v recorded" >&2; fail=1; continue; }
	normalize "$rec" "$tmp/$v.abi"
	supp=(--suppr "$abi/growth.suppr")
	[ ! -f "$abi/$v/abidiff.suppr" ] || supp+=(--suppr "$abi/$v/abidiff.suppr")
	abidiff --no-added-syms "${supp[@]}" "$tmp/$v.abi" "$tmp/new.abi" >"$tmp/out" 2>&1
	rc=$?
	if [ $rc != 0 ]; then
		echo "abi-diff: release $v against $new: abidiff exit $rc"
		cat "$tmp/out"
		fail=1
	fi
done
exit $fail
