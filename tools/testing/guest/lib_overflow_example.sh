#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# libstackinfo-dev's example stack-overflow-check (tools/examples/): its
# SIGSEGV handler, on a sigaltstack, calls a recursion without end on the
# main thread (under a 2 MiB RLIMIT_STACK) and on a worker a stack overflow
# of that thread, and a read through NULL not one; each run then dies of
# the SIGSEGV (status 139), as without the handler. Once as the kernel
# offers (the main thread's stack whole where the module, the in-tree file
# or PROCMAP_QUERY answers), once with the maps backend (its base alone:
# the handler judges by the stack pointer).
. "$(dirname "$0")/../testlib.sh"

# run BACKEND CASE: the example's line in /tmp/ov.out, its pid in $pid, its status in $rc
run() {
	sh -c 'ulimit -s 2048; echo $$ >/tmp/ov.pid; STACKINFO_BACKEND=$0 exec stack-overflow-check $1' \
		"$1" "$2" 2>/tmp/ov.out
	rc=$?
	pid=$(cat /tmp/ov.pid)
	sed "s|^|    $1 $2: |" /tmp/ov.out
}

for backend in "" maps; do
	b=${backend:-default}
	run "$backend" main
	check "$b main: status 139" [ "$rc" = 139 ]
	check "$b main: the main thread's overflow" \
		grep -q "^stack overflow of thread $pid (the main thread): fault at 0x" /tmp/ov.out
	run "$backend" thread
	check "$b thread: status 139" [ "$rc" = 139 ]
	check "$b thread: a worker's overflow" \
		grep -q "^stack overflow of thread [0-9]* (a worker): fault at 0x" /tmp/ov.out
	check "$b thread: not the main thread" \
		[ "$(sed -n 's/^stack overflow of thread \([0-9]*\) .*/\1/p' /tmp/ov.out)" != "$pid" ]
	run "$backend" null
	check "$b null: status 139" [ "$rc" = 139 ]
	check "$b null: no overflow" \
		grep -q "^SIGSEGV in thread $pid: not a stack overflow: fault at 0x0," /tmp/ov.out
done
# the whole stack where a kernel source answers, its base alone with maps
if [ -e /proc/stackinfo ] || [ -e /proc/self/stackinfo ]; then
	run "" main
	check "default: the whole stack" grep -q ", stack 0x[0-9a-f]*-0x" /tmp/ov.out
fi
run maps main
check "maps: the base alone" grep -q ", stack base 0x" /tmp/ov.out
exit $fail
