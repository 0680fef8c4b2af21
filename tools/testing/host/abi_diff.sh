#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The library as built against every recorded release's ABI
# (scripts/abi-diff.sh: abidiff of tools/lib/abi/<version>/libstackinfo.abi,
# added symbols allowed, the documented changes suppressed with their
# reasons). And the check can fail: the same comparison of 0.2.0's recorded
# ABI against 0.1.0's reports what 0.2.0 broke, stackinfo_query_thread's
# struct grown from 168 to 240 bytes under the same symbol version.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
[ -x "$top/scripts/abi-diff.sh" ] || top=$(cd "$(dirname "$0")/../../.." && pwd)
fail=0

version=$(sed -n 's/^#define LIBSTACKINFO_VERSION\t*"\(.*\)"/\1/p' "$top/tools/lib/libstackinfo.h")
so=$top/build/lib/libstackinfo.so.$version
if ! out=$("$top/scripts/abi-diff.sh" "$so" 2>&1); then
	echo "FAIL: $so against the recorded releases:"
	sed 's/^/    /' <<<"$out"
	fail=1
fi

out=$("$top/scripts/abi-diff.sh" "$top/tools/lib/abi/0.2.0/libstackinfo.abi" 0.1.0 2>&1)
rc=$?
if [ $rc = 0 ] || ! grep -q "'function int stackinfo_query_thread(" <<<"$out" ||
   ! grep -q 'type size changed from 1344 to 1920' <<<"$out"; then
	echo "FAIL: 0.2.0's break of 0.1.0 not reported (exit $rc):"
	sed 's/^/    /' <<<"$out"
	fail=1
fi
exit $fail
