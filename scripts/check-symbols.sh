#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# check-symbols.sh LIB.so MAP VERSION: the library exports exactly the
# map's global symbols, all under the node STACKINFO_<major>.<minor> that
# VERSION (the header's LIBSTACKINFO_VERSION) names. Fails the build when
# the map, the code and the release version drift apart.
set -euo pipefail
so=$1 map=$2 version=$3
node=STACKINFO_$(cut -d. -f1,2 <<<"$version")
fail=0

grep -q "^$node {" "$map" || {
	echo "check-symbols: $map has no node $node for version $version" >&2
	fail=1
}
want=$(sed -n '/global:/,/local:/p' "$map" | grep -o '^[[:space:]]*[a-z_0-9]*;' | tr -d ' \t;' | sort)
got=$(nm -D --defined-only "$so" | awk '$2 == "T" { print $3 }' | sort)
if [ "$want" != "$(sed 's/@.*//' <<<"$got" | sort -u)" ]; then
	echo "check-symbols: $so exports differ from $map:" >&2
	diff <(echo "$want") <(sed 's/@.*//' <<<"$got" | sort -u) >&2 || true
	fail=1
fi
if grep -v "@@$node\$" <<<"$got" | grep -q .; then
	echo "check-symbols: symbols outside $node:" >&2
	grep -v "@@$node\$" <<<"$got" >&2
	fail=1
fi
exit $fail
