#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# scripts/check-symbols.sh keeps old version nodes: a library whose map has
# STACKINFO_0.1 and a newer STACKINFO_0.2 (inheriting it) passes when each
# symbol is exported under the node that lists it and the newest node is
# the release's; it fails when a symbol moved to another node than the
# map's (what would break every binary linked against 0.1), when the
# release's node is missing, and when an export is not in the map.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
[ -x "$top/scripts/check-symbols.sh" ] || top=$(cd "$(dirname "$0")/../../.." && pwd)
script=$top/scripts/check-symbols.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

cat >"$tmp/a.c" <<'C'
int old_one(void) { return 1; }
int old_two(void) { return 2; }
int new_one(void) { return 3; }
C
cat >"$tmp/two.map" <<'MAP'
STACKINFO_0.1 {
	global:
		old_one;
		old_two;
	local:
		*;
};

STACKINFO_0.2 {
	global:
		new_one;
} STACKINFO_0.1;
MAP
# what a careless release would do: everything under the new node
cat >"$tmp/moved.map" <<'MAP'
STACKINFO_0.1 {
	local:
		*;
};

STACKINFO_0.2 {
	global:
		old_one;
		old_two;
		new_one;
} STACKINFO_0.1;
MAP
build() {	# MAP OUT
	cc -shared -fPIC -Wl,--version-script="$1" -o "$2" "$tmp/a.c"
}
expect() {	# WANT(0|1) WHAT SO MAP VERSION
	local want=$1 what=$2 rc
	shift 2
	"$script" "$@" >"$tmp/out" 2>&1
	rc=$?
	if { [ "$want" = 0 ] && [ $rc != 0 ]; } || { [ "$want" = 1 ] && [ $rc = 0 ]; }; then
		echo "FAIL: $what: exit $rc"
		sed 's/^/    /' "$tmp/out"
		fail=1
	fi
}
build "$tmp/two.map" "$tmp/two.so" || exit 1
build "$tmp/moved.map" "$tmp/moved.so" || exit 1
expect 0 "two nodes, each symbol under its own" "$tmp/two.so" "$tmp/two.map" 0.2.0
expect 1 "symbols moved to the new node, checked against the map with both" \
	"$tmp/moved.so" "$tmp/two.map" 0.2.0
expect 1 "the release's node missing" "$tmp/two.so" "$tmp/two.map" 0.3.0
expect 1 "a release older than the newest node" "$tmp/two.so" "$tmp/two.map" 0.1.0
sed '/new_one;/d' "$tmp/two.map" >"$tmp/short.map"
expect 1 "an export the map does not list" "$tmp/two.so" "$tmp/short.map" 0.2.0
# the project's own library, as the build checks it
so=$(ls "$top"/build/lib/libstackinfo.so.*.*.* 2>/dev/null | head -n 1)
version=$(sed -n 's/^#define LIBSTACKINFO_VERSION\t*"\(.*\)"/\1/p' "$top/tools/lib/libstackinfo.h")
[ -n "$so" ] && expect 0 "libstackinfo itself" "$so" "$top/tools/lib/libstackinfo.map" "$version"
exit $fail
