#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The guest tests of the library's system calls, natively on this host's
# backends (PROCMAP_QUERY where the kernel has it, the maps parse): every
# call recorded against glibc's own and libstackinfo(3)'s list
# (lib_syscalls), and a kill-on-ioctl filter installed with TSYNC while
# the interposer answers (lib_tsync). The guests run both again with the
# module and the in-tree file.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
[ -d "$top/build/guest/tests" ] || top=$(cd "$(dirname "$0")/../../.." && pwd)
fail=0
for t in lib_syscalls lib_tsync; do
	"$top/build/guest/tests/$t" || { echo "FAIL: $t"; fail=1; }
done
exit $fail
