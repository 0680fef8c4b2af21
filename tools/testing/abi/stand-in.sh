#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# stand-in.sh MAP SONAME OUT: a library with release MAP's symbol versions
# (tools/lib/abi/<version>/libstackinfo.map) under SONAME, each global a
# function that says it is a stand-in and exits 125. Binaries of a release
# are linked against it, so that they need exactly that release's versions;
# the loader's check against a release is tried on it. $CC builds it.
set -euo pipefail
map=$1 soname=$2 out=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
syms=$(awk '
	/global:/ { g = 1; next }
	/local:/ || /^\}/ { g = 0; next }
	g { s = $1; sub(/;.*/, "", s); if (s != "") print s }
' "$map")
[ -n "$syms" ] || { echo "stand-in: no global symbol in $map" >&2; exit 1; }
{
	echo '#include <unistd.h>'
	for s in $syms; do
		msg="stand-in of $map: $s called\\n"
		printf 'int %s(void);\nint %s(void)\n{\n\tif (write(2, "%s", %d)) {}\n\t_exit(125);\n}\n' \
			"$s" "$s" "$msg" $(( ${#msg} - 1 ))
	done
} >"$tmp/stand-in.c"
mkdir -p "$(dirname "$out")"
${CC:-cc} -Wall -Wextra -Werror -fPIC -shared -Wl,-soname,"$soname" \
	-Wl,--version-script="$map" -o "$out" "$tmp/stand-in.c"
