#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Gate: the kernel's checkpatch.pl --strict, from Debian's linux-source-6.12,
# finds nothing in module/, kunit/ and the uapi header. Exceptions, each
# with its reason, would go in tools/testing/checkpatch-exceptions (the
# --ignore list); there are none.
#
# Silence from checkpatch is only "no complaints" when checkpatch ran to
# the end: a canary file with one known fault (a doubled semicolon,
# ONE_SEMICOLON) is checked last, and its warning must be there; the exit
# status must be checkpatch's own (0 clean, 1 complaints), and nothing may
# go to stderr (a perl error or warning is checkpatch failing, not a pass).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cp=$("$top/scripts/kernel-tools.sh")
ignore=()
[ -f "$top/tools/testing/checkpatch-exceptions" ] &&
	ignore=(--ignore "$(grep -v '^#' "$top/tools/testing/checkpatch-exceptions" | cut -d' ' -f1 | paste -sd,)")
if [ ! -x "$cp/scripts/checkpatch.pl" ]; then
	echo "gate_checkpatch: no checkpatch at $cp/scripts/checkpatch.pl"
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
canary=$tmp/canary.c
printf '%s\n' '// SPDX-License-Identifier: GPL-2.0' 'int canary(void)' '{' \
	'	int x = 1;;' '' '	return x;' '}' >"$canary"
cd "$top"
rc=0
"$cp/scripts/checkpatch.pl" --no-tree --strict --terse "${ignore[@]}" -f \
	module/*.c module/*.h kunit/*.c kunit/*.h include/uapi/linux/stackinfo.h \
	"$canary" >"$tmp/out" 2>"$tmp/err" || rc=$?
if [ -s "$tmp/err" ] || { [ "$rc" != 0 ] && [ "$rc" != 1 ]; }; then
	echo "gate_checkpatch: checkpatch failed (exit $rc):"
	cat "$tmp/err" "$tmp/out"
	exit 1
fi
if [ "$rc" != 1 ] || ! grep -q "^$canary:4: WARNING: " "$tmp/out"; then
	echo "gate_checkpatch: checkpatch did not report the canary's fault (exit $rc); its output:"
	cat "$tmp/out"
	exit 1
fi
out=$(grep -v -e "^$canary:" -e '^total: ' "$tmp/out" || true)
if grep -qE ': (ERROR|WARNING|CHECK):' <<<"$out"; then
	echo "$out"
	exit 1
fi
