#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# vm-run refuses bad usage and unsupported kernels clearly (exit 2, a
# message naming the problem) without booting anything.
top=$(cd "$(dirname "$0")/../.." && pwd)
vmrun=$top/tools/testing/vm-run
fail=0

expect() {	# WANT_RC PATTERN ARGS...
	local want=$1 pat=$2 out rc
	shift 2
	out=$("$vmrun" "$@" 2>&1)
	rc=$?
	if [ "$rc" != "$want" ] || ! grep -q -- "$pat" <<<"$out"; then
		echo "FAIL: vm-run $*: exit $rc, want $want and /$pat/; said: $out"
		fail=1
	fi
}

expect 2 "no command" --kernel debian-6.12
expect 2 "unknown argument" --bogus -- true
expect 2 "unknown kernel 'nosuch'" --kernel nosuch -- true
expect 2 "unknown kernel 'debian-4.19'" --kernel debian-4.19 -- true
expect 2 "no such file" --file /nonexistent/file -- true
exit $fail
