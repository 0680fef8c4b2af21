#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# check-symbols.sh LIB.so MAP VERSION: the library exports exactly the
# map's global symbols, each under the version node that lists it, and the
# map's newest (last) node is STACKINFO_<major>.<minor> of VERSION (the
# header's LIBSTACKINFO_VERSION). Old nodes stay as they were released: a
# symbol of 0.1 keeps STACKINFO_0.1 when 0.2 adds a node (inheriting 0.1)
# for its new symbols, or every binary linked against 0.1 breaks. Fails the
# build when the map, the code and the release version drift apart.
set -euo pipefail
so=$1 map=$2 version=$3
node=STACKINFO_$(cut -d. -f1,2 <<<"$version")
fail=0

# "NODE symbol" for each global of the map, in the map's order
listed=$(awk '
	/^[A-Za-z_][A-Za-z0-9_.]* *\{/ { n = $1; sub(/\{.*/, "", n); g = 0; next }
	/global:/ { g = 1; next }
	/local:/ { g = 0; next }
	/^\}/ { n = ""; next }
	g && n != "" { s = $1; sub(/;.*/, "", s); if (s != "") print n, s }
' "$map")
newest=$(grep -o '^[A-Za-z_][A-Za-z0-9_.]* *{' "$map" | tr -d ' {' | tail -n 1)
if [ "$newest" != "$node" ]; then
	echo "check-symbols: $map's newest node is ${newest:-none}, version $version wants $node" >&2
	fail=1
fi
want=$(awk '{ print $2 "@" $1 }' <<<"$listed" | sort)
got=$(${NM:-nm} -D --defined-only "$so" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }' |
	grep -v '^STACKINFO_' | sed 's/@@/@/' | sort)
if [ "$want" != "$got" ]; then
	echo "check-symbols: $so exports differ from $map (symbol@node; < map, > library):" >&2
	diff <(echo "$want") <(echo "$got") >&2 || true
	fail=1
fi
exit $fail
