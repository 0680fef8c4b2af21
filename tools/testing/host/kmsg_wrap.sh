#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A kernel log ring that wraps cannot hide a report: a guest writes twice
# its ring's size of filler records to /dev/kmsg (log level 7, not on the
# console; devkmsg's rate limit off). Then run-tests' per-test scan
# (kmsg-since SEQ, from the number the test started at) must say
# "kmsg-since: N records lost" and exit 1, and so must vm-run's scan of
# the whole run, which then exits 125 naming that line. One boot of
# debian-6.12 without the module.
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the ring's size from the command line vm-run gives the kernel
cat >"$tmp/flood.sh" <<'FLOOD'
k=/usr/lib/stackinfo/kmsg-since
before=$($k)
len=$(sed -n 's/.*log_buf_len=\([0-9]*\)M.*/\1/p' /proc/cmdline)
[ -n "$len" ] || { echo "no log_buf_len= on the command line"; exit 1; }
pad=$(printf '%0900d' 0)
n=$((2 * len * 1024 * 1024 / 900))
echo on >/proc/sys/kernel/printk_devkmsg
exec 3>/dev/kmsg
i=0
while [ $i -lt $n ]; do
	echo "<7>kmsg_wrap filler $i $pad" >&3
	i=$((i + 1))
done
exec 3>&-
echo ratelimit >/proc/sys/kernel/printk_devkmsg
echo "wrote $n records of 900 bytes into a ring of $len MiB"
$k "$before" >/tmp/scan
echo "scan since $before: exit $?"
grep 'records lost$' /tmp/scan
FLOOD

out=$("$top/tools/testing/vm-run" --no-module --file "$tmp/flood.sh" -- sh /extra/flood.sh 2>&1)
rc=$?
fail=0
if ! grep -q 'scan since [0-9]*: exit 1$' <<<"$out" ||
	! grep -qE '^kmsg-since: [0-9]+ records lost$' <<<"$out"; then
	echo "FAIL: run-tests' scan (kmsg-since SEQ) did not report the wrap"
	fail=1
fi
if [ $rc != 125 ] || ! grep -qE '^  kmsg-since: [0-9]+ records lost$' <<<"$out"; then
	echo "FAIL: vm-run exited $rc, not 125 for the wrapped ring"
	fail=1
fi
[ $fail = 0 ] || { echo "vm-run said:"; echo "$out" | tail -n 20; exit 1; }
grep -E '^wrote |records lost' <<<"$out" | sed 's/^ */kmsg_wrap: /'
exit 0
