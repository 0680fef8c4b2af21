#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The Python package (python/): pyflakes finds nothing (a checker that
# crashes fails too), and tools/testing/python/bindings_test.py holds the
# bindings against the C library in one process, on this host's backends,
# and python3 -m stackinfo against the CLI; release_0_2_0_test.py holds
# 0.2.0's recorded package (tools/lib/abi/0.2.0/python) against this
# library. Debian's own python3.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
"$top/scripts/deps.sh" python >/dev/null || exit 1
py=/usr/bin/python3
fail=0

out=$(cd "$top" && "$py" -m pyflakes python tools/testing/python 2>&1)
rc=$?
if [ $rc != 0 ] || [ -n "$out" ]; then
	echo "FAIL: pyflakes (exit $rc):"
	echo "$out"
	fail=1
fi
PYTHONPATH=$top/python LD_LIBRARY_PATH=$top/build/lib \
	"$py" "$top/tools/testing/python/bindings_test.py" "$top/build/bin/stackinfo-layout" \
	"$top/build/bin/stackinfo" "$top/build/bin/thread-sleeper" || fail=1
PYTHONPATH=$top/tools/lib/abi/0.2.0/python LD_LIBRARY_PATH=$top/build/lib \
	"$py" "$top/tools/testing/python/release_0_2_0_test.py" || fail=1
exit $fail
