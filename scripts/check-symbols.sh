#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# check-symbols.sh LIB.so MAP VERSION [ABI_DIR]: the library's exports
# against its map, its release and the releases recorded in ABI_DIR
# (tools/lib/abi/RELEASE/symbols: symbol@@node for a default version,
# symbol@node for a compat one; docs/abi.md). Fails the build when:
#  - LIB exports other symbols than MAP's globals, each under the node that
#    lists it (default version or not);
#  - MAP's newest (last) node is not STACKINFO_<major>.<minor> of VERSION
#    (the header's LIBSTACKINFO_VERSION);
#  - a recorded release's symbol@node is no longer exported under that node
#    (every binary linked against that release would fail to load);
#  - a node some release recorded has a symbol that its first release did
#    not, unless a later release recorded it there and LIB exports it as a
#    non-default (compat) version: a binary linked against it would pass
#    the loader's version check on the first release and fail at the call;
#  - a record's map and its symbols disagree;
#  - a name some release exported has no default version (symbol@@node):
#    dlsym() and the bindings that look a symbol up by name alone (ctypes,
#    purego, libloading) find only a default version, never a compat one.
# The newest node, until its release is recorded, is open for additions.
set -euo pipefail
so=$1 map=$2 version=$3 abi=${4:-}
node=STACKINFO_$(cut -d. -f1,2 <<<"$version")
fail=0
say() {
	echo "check-symbols: $*" >&2
	fail=1
}

# "symbol@NODE" for each global of a map
map_globals() {
	awk '
		/^[A-Za-z_][A-Za-z0-9_.]* *\{/ { n = $1; sub(/\{.*/, "", n); g = 0; next }
		/global:/ { g = 1; next }
		/local:/ { g = 0; next }
		/^\}/ { n = ""; next }
		g && n != "" { s = $1; sub(/;.*/, "", s); if (s != "") print s "@" n }
	' "$1" | sort
}

newest=$(grep -o '^[A-Za-z_][A-Za-z0-9_.]* *{' "$map" | tr -d ' {' | tail -n 1)
[ "$newest" = "$node" ] ||
	say "$map's newest node is ${newest:-none}, version $version wants $node"

# symbol@@node or symbol@node, as the dynamic symbol table has them
exports=$(${NM:-nm} -D --defined-only "$so" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }' |
	grep -v '^STACKINFO_' | sort)
# symbol@node, default or not
exported=$(sed 's/@@/@/' <<<"$exports" | sort)
want=$(map_globals "$map")
if [ "$want" != "$exported" ]; then
	say "$so exports differ from $map (symbol@node; < map, > library):"
	diff <(echo "$want") <(echo "$exported") >&2 || true
fi

[ -n "$abi" ] || exit $fail
releases=$(find "$abi" -mindepth 2 -maxdepth 2 -name symbols -printf '%h\n' | xargs -rn1 basename |
	sort -V)
[ -n "$releases" ] || say "no release recorded in $abi"
declare -A first=()	# node -> the first release that recorded it
for r in $releases; do
	rec=$abi/$r/symbols
	if [ "$(sed 's/@@/@/' "$rec" | sort)" != "$(map_globals "$abi/$r/libstackinfo.map")" ]; then
		say "release $r: its symbols and its libstackinfo.map disagree"
	fi
	while IFS= read -r s; do
		[ -n "$s" ] || continue
		grep -qxF "$(sed 's/@@/@/' <<<"$s")" <<<"$exported" ||
			say "release $r's $s is not exported under its node"
		n=${s##*@}
		[ -n "${first[$n]:-}" ] || first[$n]=$r
	done <"$rec"
done
while IFS= read -r s; do
	n=${s##*@} sym=${s%%@*}
	r=${first[$n]:-}
	[ -n "$r" ] || continue	# a node no release has recorded yet
	grep -qE "^$sym@@?$n\$" "$abi/$r/symbols" && continue
	late=$(grep -lE "^$sym@@?$n\$" "$abi"/*/symbols || true)
	if [ -z "$late" ]; then
		say "$sym@$n: added to node $n, which release $r recorded without it"
	elif [[ $s == *@@* ]]; then
		late=$(basename "$(dirname "$(head -n 1 <<<"$late")")")
		say "$sym@@$n: added to release $r's node by $late, so only a compat (non-default) version may stay there"
	fi
done <<<"$exports"
names=$(for r in $releases; do sed 's/@.*//' "$abi/$r/symbols"; done | sort -u)
while IFS= read -r sym; do
	[ -n "$sym" ] || continue
	grep -qE "^$sym@@" <<<"$exports" ||
		say "$sym: a release exported it, and it has no default version: a lookup by name alone (dlsym(), ctypes) finds nothing"
done <<<"$names"
exit $fail
