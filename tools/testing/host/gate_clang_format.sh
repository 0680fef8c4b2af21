#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Gate: the kernel's .clang-format (linux-source-6.12) leaves the module's
# .c files and the KUnit suites' files (their shared util.h too) as they
# are: formatting is stable.
# Not the module's headers (module/*.h, the uapi header): clang-format 14
# with that file undoes their tab-aligned #define tables, which the
# kernel's own headers keep; checkpatch --strict covers them.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kt=$("$top/scripts/kernel-tools.sh") || exit 1
cd "$top"
fail=0
for f in module/*.c kunit/*.c kunit/*.h; do
	if ! d=$(clang-format --style="file:$kt/.clang-format" "$f" | diff -u "$f" -); then
		echo "FAIL: $f is not as the kernel's .clang-format writes it:"
		echo "$d"
		fail=1
	fi
done
exit $fail
