#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Binaries of one release against the library of another, on this host's
# backends (PROCMAP_QUERY where the kernel has it, the maps parse):
#  - each released version's binary (lib_abi_<version>: the release's
#    recorded headers, linked against a stand-in of its recorded map,
#    tools/lib/abi/<version>/) needs exactly that release's symbol versions
#    and passes against this library: it checks the bytes around its
#    struct, and its answers against the library's own in the same process
#    (the guests run it again with the module and the in-tree file);
#  - a program of this tree's header calling every query
#    (build/abi/current) needs the map's newest node, every symbol@node it
#    binds is one each release having that node has (0.2.0 put
#    classify_addr into 0.1.0's node: a program calling it passed the
#    loader's check on 0.1.0 and failed at the call with "symbol lookup
#    error"), the loader refuses it on each release's stand-in ("version
#    `STACKINFO_x.y' not found") before main() runs, and it is answered by
#    this library.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
[ -f "$top/tools/lib/libstackinfo.map" ] || top=$(cd "$(dirname "$0")/../../.." && pwd)
fail=0
say() { echo "FAIL: $*"; fail=1; }
show() { sed 's/^/    /' <<<"$1"; }

# the version nodes BINARY needs of libstackinfo.so.0, sorted
needs() {
	readelf -V "$1" | awk '
		/^ *[0-9a-fx]+: Version: [0-9]+ +File: / { f = ($5 ~ /^libstackinfo\.so\./); next }
		f && /Name: / { print $3 }
	' | sort
}

# ---- the releases' binaries against this library ----
ran=0
for src in "$top"/tools/testing/abi/release-*.c; do
	v=${src##*/release-}
	v=${v%.c}
	bin=$top/build/guest/tests/lib_abi_$v
	[ -x "$bin" ] || { say "$v: no $bin (make tools)"; continue; }
	want=$(grep -o '^STACKINFO_[0-9.]*' "$top/tools/lib/abi/$v/libstackinfo.map" | sort)
	got=$(needs "$bin")
	[ -n "$want" ] && [ "$want" = "$got" ] ||
		say "$v's binary needs" $got "; release $v's binaries need" $want
	out=$("$bin" 2>&1) || { say "$v's binary against this library:"; show "$out"; }
	ran=$((ran + 1))
done
[ $ran -ge 2 ] || say "only $ran releases' binaries (0.1.0 and 0.2.0 at least)"

# ---- this tree's program against the releases ----
bin=$top/build/abi/current
newest=$(grep -o '^STACKINFO_[0-9.]*' "$top/tools/lib/libstackinfo.map" | tail -n 1)
needs "$bin" | grep -qx "$newest" || say "the program needs" $(needs "$bin") ", not $newest"
while read -r sym; do
	n=${sym##*@}
	for rec in "$top"/tools/lib/abi/*/symbols; do
		grep -qE "^${sym%%@*}@@?$n\$" "$rec" && continue
		grep -qE "@@?$n\$" "$rec" || continue
		say "the program binds $sym, which release $(basename "$(dirname "$rec")") has not under $n"
	done
done < <(nm -D --undefined-only "$bin" | awk '$2 ~ /^stackinfo_/ { print $2 }')
refused=0
for d in "$top"/build/abi/*/; do
	[ -e "$d/libstackinfo.so.0" ] || continue
	v=$(basename "$d")
	out=$(LD_LIBRARY_PATH=$d "$bin" 2>&1)
	rc=$?
	if [ $rc = 0 ] || grep -q started <<<"$out" ||
	   ! grep -qF "version \`$newest' not found" <<<"$out"; then
		say "on release $v's symbol versions: exit $rc, not the loader's refusal:"
		show "$out"
	fi
	refused=$((refused + 1))
done
[ $refused -ge 2 ] || say "only $refused releases' stand-ins tried"
out=$("$bin" 2>&1)
rc=$?
[ $rc = 0 ] && grep -q answered <<<"$out" || { say "on this library: exit $rc:"; show "$out"; }
exit $fail
