#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# kernel-tools.sh: print a directory holding the kernel's checkpatch.pl (and
# the files it reads) and .clang-format, taken once from Debian's
# linux-source-6.12 into build/kernel-tools.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/build/kernel-tools
if [ ! -e "$dir/.clang-format" ] || [ ! -x "$dir/scripts/checkpatch.pl" ]; then
	"$top/scripts/deps.sh" debug gates >&2
	mkdir -p "$dir"
	tar -xf /usr/src/linux-source-6.12.tar.xz -C "$dir" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch' 'linux-source-6.12/.clang-format'
fi
echo "$dir"
