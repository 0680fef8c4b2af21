#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# vm-run boots a guest once more when its kernel died before the
# initramfs's init ran, and never when it died after: a death there may
# be the project's. Both deaths are real panics of debian-6.12 without
# the module: rdinit= naming no file leaves the kernel to mount a root it
# has not got ("VFS: Unable to mount root fs"), before init; sysrq's
# crash is a panic from the command, after it.
top=$(cd "$(dirname "$0")/../.." && pwd)
vmrun=$top/tools/testing/vm-run
fail=0

# one case: its exit status; the panics vm-run showed, its retries and
# all it said
run() {
	said=$("$vmrun" --no-module --timeout 300 "$@" 2>&1)
	local rc=$?
	panics=$(grep -c 'Kernel panic - not syncing' <<<"$said")
	retries=$(grep -c '^vm-run: the kernel died before init ran' <<<"$said")
	return $rc
}

run --append rdinit=/nonexistent -- true
rc=$?
if [ $rc != 124 ] || [ "$retries" != 1 ] || [ "$panics" != 2 ]; then
	echo "FAIL: a panic before init: exit $rc (want 124), $retries retries (want 1), $panics panics shown (want 2)"
	echo "$said" | tail -n 30
	fail=1
fi

run -- sh -c 'echo c >/proc/sysrq-trigger'
rc=$?
if [ $rc != 124 ] || [ "$retries" != 0 ] || [ "$panics" = 0 ]; then
	echo "FAIL: a panic after init: exit $rc (want 124), $retries retries (want 0), $panics panics shown (want some)"
	echo "$said" | tail -n 30
	fail=1
fi
exit $fail
