#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Gate: the module builds with W=1 and no warning against Debian's 6.12
# and 6.1 headers, their PREEMPT_RT flavours', Debian 11's 5.10 and the
# four debug kernels make check builds (6.12, 7.2 with and without
# PREEMPT_RT, 5.10; the KUnit module too, where the kernel has KUnit; not
# debug-6.1, make check-extra's, whose 6.1 the module's build against
# Debian's 6.1 headers covers), with sparse (C=2) too against
# one kernel of each side of module/compat/compat.h (6.12 with the KUnit module
# and the in-tree series: debug-6.12; 6.1; 5.10 with the KUnit module and
# kunit/compat.h's 5.10 side: debug-5.10; sparse doubles a build, and the
# rt flavours and the other kernels compile the same lines),
# and modinfo shows
# license, author, description, version, srcversion and the kernel's
# vermagic (Debian 12's sparse is too old for 7.2, whose Makefile then
# builds without it).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/kernels.sh"
fail=0
# the module's version is the package's (dkms.conf)
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
"$top/scripts/deps.sh" gates >/dev/null || exit 1
for k in ${GATE_KERNELS:-$KERNELS_CHECK}; do
	kernel_find "$k" || { kernel_provide "$k" >/dev/null 2>&1; kernel_find "$k"; } || {
		echo "FAIL: $k: headers not installed"
		fail=1
		continue
	}
	# in a tree of its own, from nothing (a warning shows only when its
	# file compiles), and under no lock: while this build held vm-run's
	# build/.lock, every vm-run waited for it (at nice 19 beside a CPU
	# hog, deb_packages' guest and this test ran past the host-test cap)
	out=$top/build/gate-kbuild/$k
	case $k in
	debug-6.12 | debian-6.1 | debug-5.10) sparse=C=2 ;;
	*) sparse= ;;
	esac
	rm -rf "$out"
	log=$("$top/scripts/build-module.sh" "$KDIR" "$out" W=1 $sparse 2>&1)
	if [ $? != 0 ] || grep -qE 'warning:|error:' <<<"$log"; then
		echo "FAIL: $k: W=1 $sparse build"
		echo "$log"
		fail=1
		continue
	fi
	info=$(modinfo "$out/stackinfo.ko")
	for field in license:.*GPL author: description: "version: *${ver//./\\.}\$" srcversion: "vermagic:.*$KVER"; do
		grep -q "^$field" <<<"$info" || { echo "FAIL: $k: modinfo lacks $field"; fail=1; }
	done
done
exit $fail
