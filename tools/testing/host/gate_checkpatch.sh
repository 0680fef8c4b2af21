#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Gate: the kernel's checkpatch.pl --strict, from Debian's linux-source-6.12,
# finds nothing in module/, kunit/ and the uapi header. Exceptions, each
# with its reason, would go in tools/testing/checkpatch-exceptions (the
# --ignore list); there are none.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cp=$("$top/scripts/kernel-tools.sh")
ignore=
[ -f "$top/tools/testing/checkpatch-exceptions" ] &&
	ignore="--ignore $(grep -v '^#' "$top/tools/testing/checkpatch-exceptions" | cut -d' ' -f1 | paste -sd,)"
cd "$top"
out=$("$cp/scripts/checkpatch.pl" --no-tree --strict --terse $ignore -f \
	module/*.c module/*.h kunit/*.c kunit/*.h include/uapi/linux/stackinfo.h 2>&1 || true)
if grep -qE ': (ERROR|WARNING|CHECK):' <<<"$out"; then
	echo "$out"
	exit 1
fi
