#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# kselftest-headers.sh: print a directory laid out as the kernel's
# tools/testing/selftests/ for kernel/selftests/proc-stackinfo.c: the
# harness (kselftest_harness.h, kselftest.h) from Debian's linux-source-6.12,
# taken once into build/kselftest, and an empty proc/ below it, so that
# -I<dir>/proc finds the test's "../kselftest_harness.h" as in the tree.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/build/kselftest
src=linux-source-6.12/tools/testing/selftests
if [ ! -e "$dir/kselftest_harness.h" ] || [ ! -e "$dir/kselftest.h" ]; then
	"$top/scripts/deps.sh" kselftest >&2
	mkdir -p "$dir"
	tar -xf /usr/src/linux-source-6.12.tar.xz -C "$dir" --strip-components=4 \
		"$src/kselftest_harness.h" "$src/kselftest.h"
fi
mkdir -p "$dir/proc"
echo "$dir"
