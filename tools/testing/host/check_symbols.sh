#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# scripts/check-symbols.sh keeps old version nodes: a library whose map has
# STACKINFO_0.1 and a newer STACKINFO_0.2 (inheriting it) passes when each
# symbol is exported under the node that lists it and the newest node is
# the release's; it fails when a symbol moved to another node than the
# map's (what would break every binary linked against 0.1), when the
# release's node is missing, and when an export is not in the map.
# Against recorded releases (ABI_DIR/<version>/symbols and its map): it
# fails when a recorded symbol@node is gone, when a symbol is added to a
# node a release recorded without it (0.2.0's classify_addr in 0.1.0's
# STACKINFO_0.1), when such a late addition that a later release recorded
# stays the default version rather than a compat one, and when a record's
# map and symbols disagree, and when a released name has only compat
# versions (a lookup by name alone, dlsym() or ctypes, finds nothing); it
# passes the late addition as a compat symbol with a default version in
# the open node, and this project's library against tools/lib/abi.
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

# ---- against recorded releases ----
record() {	# DIR VERSION MAP SYMBOL@@NODE...
	local d=$1/$2 map=$3
	shift 3
	mkdir -p "$d"
	cp "$map" "$d/libstackinfo.map"
	printf '%s\n' "$@" | sort >"$d/symbols"
}
# 0.1 released with old_one and old_two; 0.2 added new_one and, like
# libstackinfo 0.2.0, "late" to the released node
sed '/new_one;/d; /^STACKINFO_0.2/,$d' "$tmp/two.map" >"$tmp/one.map"
sed 's/old_two;/old_two;\n\t\tlate;/' "$tmp/two.map" >"$tmp/late.map"
record "$tmp/rec1" 0.1.0 "$tmp/one.map" old_one@@STACKINFO_0.1 old_two@@STACKINFO_0.1
cp -r "$tmp/rec1" "$tmp/rec2"
record "$tmp/rec2" 0.2.0 "$tmp/late.map" old_one@@STACKINFO_0.1 old_two@@STACKINFO_0.1 \
	late@@STACKINFO_0.1 new_one@@STACKINFO_0.2
echo 'int late(void) { return 4; }' >>"$tmp/a.c"
build "$tmp/late.map" "$tmp/late.so" || exit 1
# late kept as a compat symbol, as libstackinfo keeps classify_addr@STACKINFO_0.1
cp "$tmp/a.c" "$tmp/a-default.c"
sed -i 's/^int late(void).*/__attribute__((visibility("default"))) int late_0_2(void) { return 4; }\n__asm__(".symver late_0_2, late@STACKINFO_0.1");/' \
	"$tmp/a.c"
build "$tmp/late.map" "$tmp/late-compat.so" || exit 1
build "$tmp/two.map" "$tmp/two-plus.so" || exit 1	# also defines late_0_2 (local)

expect 0 "records: the release's own library" "$tmp/two.so" "$tmp/two.map" 0.2.0 "$tmp/rec1"
expect 1 "records: a symbol added to 0.1.0's node, no release recorded it" \
	"$tmp/late.so" "$tmp/late.map" 0.2.0 "$tmp/rec1"
expect 1 "records: the late addition as a default version, 0.2.0 recorded it" \
	"$tmp/late.so" "$tmp/late.map" 0.2.0 "$tmp/rec2"
expect 1 "records: the late addition as a compat symbol alone, unfound by name" \
	"$tmp/late-compat.so" "$tmp/late.map" 0.2.0 "$tmp/rec2"
# and with its default version in the open node, as libstackinfo's
# abi-names.c gives each released name
printf '%s\n' '' 'STACKINFO_0.3 {' '	global:' '		late;' '} STACKINFO_0.2;' \
	>"$tmp/late3.map"
cat "$tmp/late.map" "$tmp/late3.map" >"$tmp/three.map"
cp "$tmp/a.c" "$tmp/a-compat.c"
printf '%s\n' '__attribute__((visibility("default"))) int late_0_3(void) { return 5; }' \
	'__asm__(".symver late_0_3, late@@STACKINFO_0.3");' >>"$tmp/a.c"
build "$tmp/three.map" "$tmp/late-named.so" || exit 1
cp "$tmp/a-compat.c" "$tmp/a.c"
expect 0 "records: the late addition as a compat symbol, its name in the open node" \
	"$tmp/late-named.so" "$tmp/three.map" 0.3.0 "$tmp/rec2"
expect 1 "records: 0.2.0's late gone" "$tmp/two-plus.so" "$tmp/two.map" 0.2.0 "$tmp/rec2"
sed '/old_two;/d' "$tmp/two.map" >"$tmp/no-two.map"
cp "$tmp/a-default.c" "$tmp/a.c"
build "$tmp/no-two.map" "$tmp/no-two.so" || exit 1
expect 1 "records: 0.1.0's old_two gone" "$tmp/no-two.so" "$tmp/no-two.map" 0.2.0 "$tmp/rec1"
cp -r "$tmp/rec2" "$tmp/rec3"
sed -i '/late/d' "$tmp/rec3/0.2.0/symbols"
expect 1 "records: a record's symbols and map disagree" \
	"$tmp/late-compat.so" "$tmp/late.map" 0.2.0 "$tmp/rec3"

# the project's own library, as the build checks it
version=$(sed -n 's/^#define LIBSTACKINFO_VERSION\t*"\(.*\)"/\1/p' "$top/tools/lib/libstackinfo.h")
so=$top/build/lib/libstackinfo.so.$version	# the header's, not an older build's
if [ ! -e "$so" ]; then
	echo "FAIL: no build/lib/libstackinfo.so (make tools)"
	fail=1
else
	expect 0 "libstackinfo itself" "$so" "$top/tools/lib/libstackinfo.map" "$version" \
		"$top/tools/lib/abi"
fi
exit $fail
