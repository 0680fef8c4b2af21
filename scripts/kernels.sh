#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Where a guest kernel's pieces are. Sourced by vm-run and the Makefile's
# helpers; `scripts/kernels.sh NAME` prints "KVER VMLINUZ KDIR".
#
#   debian-6.12  Debian 12's linux-image-6.12-amd64 and its headers
#   debian-6.1   Debian 12's 6.1 LTS (issue 7: not supported yet)
#   debug        our KUnit/KASAN/lockdep kernel (issue 3: not supported yet)

# kernel_find NAME: set KVER, VMLINUZ, KDIR; return 1 if not installed,
# 2 if NAME is not a kernel this project supports (yet).
kernel_find() {
	local pattern kver
	case "$1" in
	debian-6.12) pattern='6.12.*-amd64' ;;
	debian-6.1 | debug)
		echo "kernel '$1' is not supported yet" >&2
		return 2 ;;
	*)
		echo "unknown kernel '$1' (known: debian-6.12, debian-6.1, debug)" >&2
		return 2 ;;
	esac
	KVER= VMLINUZ= KDIR=
	for kver in $(cd /lib/modules 2>/dev/null && ls -d $pattern 2>/dev/null | sort -rV); do
		if [ -r "/boot/vmlinuz-$kver" ] && [ -d "/usr/src/linux-headers-$kver" ]; then
			KVER=$kver
			VMLINUZ=/boot/vmlinuz-$kver
			KDIR=/usr/src/linux-headers-$kver
			return 0
		fi
	done
	return 1
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -eu
	kernel_find "${1:?usage: kernels.sh NAME}" || exit $?
	echo "$KVER $VMLINUZ $KDIR"
fi
