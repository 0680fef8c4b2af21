#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The in-tree series' kselftest (kernel/selftests/proc-stackinfo.c, built
# into ../kselftest/proc-stackinfo) as a guest test: SKIP (77) where the
# kernel has no /proc/self/stackinfo; where it has, every test must run and
# pass (the harness exits 0 for skipped tests too, and every skip it has
# means the file is missing).
bin=$(dirname "$0")/../kselftest/proc-stackinfo
if [ ! -e /proc/self/stackinfo ]; then
	echo "no /proc/self/stackinfo: the kernel has no in-tree stackinfo (CONFIG_PROC_STACKINFO)"
	exit 77
fi
out=$("$bin" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ $rc != 0 ]; then
	echo "intree_selftest: the kselftest exited $rc"
	exit 1
fi
if printf '%s\n' "$out" | grep -q '^ok .* # SKIP'; then
	echo "intree_selftest: a test skipped though /proc/self/stackinfo exists"
	exit 1
fi
exit 0
