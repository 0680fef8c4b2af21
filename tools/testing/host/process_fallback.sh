#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# stackinfo_query_process() without the module or the in-tree file: the
# guest test lib_batch (and its ASan/UBSan build) on this host's kernel,
# with --fallbacks: the PROCMAP_QUERY walk where the kernel has it and the
# maps parse, each entry against stackinfo_query_thread() and
# /proc/<pid>/maps (see tools/testing/guest/lib_batch.c).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
fail=0
for t in lib_batch lib_batch_san; do
	out=$("$top/build/guest/tests/$t" --fallbacks 2>&1)
	rc=$?
	if [ $rc != 0 ]; then
		echo "FAIL: $t --fallbacks (exit $rc):"
		echo "$out"
		fail=1
	fi
done
exit $fail
