#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Where a guest kernel's pieces are. Sourced by vm-run and the Makefile's
# helpers; `scripts/kernels.sh NAME` prints "KVER VMLINUZ KDIR".
#
#   debian-6.12  Debian 12's linux-image-6.12-amd64 and its headers
#   debian-6.1   Debian 12's 6.1 LTS: linux-image-amd64 and its headers
#   debian-6.12-rt, debian-6.1-rt
#                their PREEMPT_RT flavours (linux-image-6.12-rt-amd64,
#                linux-image-rt-amd64 and their headers)
#   debian-5.10  Debian 11's 5.10 LTS (linux-image-amd64 of bullseye)
#                these three unpacked under $STACKINFO_CACHE/NAME, not
#                installed (scripts/fetch-debian-kernel.sh)
#   debug-6.1    our KUnit/KASAN/lockdep kernels (build-debug-kernel.sh),
#   debug-6.12   from Debian 12's linux-source-6.1 and -6.12, Debian
#   debug-7.2    unstable's linux-source-7.2 and Debian 11's
#   debug-5.10   linux-source-5.10
#   debug-7.2-rt debug-7.2 with PREEMPT_RT (kunit/debug-rt.config)
#   debug-6.12-arm64
#                debug-6.12's source and fragments cross-built for arm64
#                (kunit/debug-arm64.config), booted by qemu-system-aarch64
#   debug        debug-6.12

_kernels_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KERNELS_KNOWN="debian-6.12 debian-6.1 debian-6.12-rt debian-6.1-rt debian-5.10 debug-6.1 debug-6.12 debug-7.2 debug-7.2-rt debug-5.10 debug-6.12-arm64 debug"
_kernels_cache=${STACKINFO_CACHE:-/var/cache/stackinfo}
# what make check runs (tools/testing/check, and gate_kbuild builds against
# each), and what it leaves out for its cold time budget (docs/testing.md:
# What it costs): make check-extra runs KERNELS_EXTRA, make check-arm64 the arm64 one
# shellcheck disable=SC2034 # for the scripts that source this
KERNELS_CHECK="debian-6.12 debian-6.1 debian-6.12-rt debian-6.1-rt debian-5.10 debug-6.12 debug-7.2 debug-7.2-rt debug-5.10"
# shellcheck disable=SC2034
KERNELS_EXTRA="debug-6.1"

# kernel_find NAME: set KVER, VMLINUZ, KDIR; return 1 if not installed or
# built yet (kernel_provide does that), 2 if NAME is not a kernel this
# project supports (yet).
kernel_find() {
	local pattern kver tree
	case "$1" in
	debian-6.12) pattern='6.12.*-amd64' ;;
	debian-6.1) pattern='6.1.0-*-amd64' ;;
	debian-6.12-rt | debian-6.1-rt | debian-5.10)
		tree=$_kernels_cache/$1
		[ -s "$tree/kver" ] || return 1
		KVER=$(cat "$tree/kver")
		VMLINUZ=$tree/root/boot/vmlinuz-$KVER
		KDIR=$tree/root/usr/src/linux-headers-$KVER
		return 0 ;;
	debug | debug-6.1 | debug-6.12 | debug-7.2 | debug-7.2-rt | debug-5.10 | debug-6.12-arm64)
		tree=$("$_kernels_top/scripts/build-debug-kernel.sh" --built \
			"$(kernel_debug_version "$1")") || return 1
		KVER=$(cat "$tree/include/config/kernel.release")
		case $(kernel_arch "$1") in
		arm64) VMLINUZ=$tree/arch/arm64/boot/Image ;;
		*) VMLINUZ=$tree/arch/x86/boot/bzImage ;;
		esac
		KDIR=$tree
		return 0 ;;
	*)
		echo "unknown kernel '$1' (known: $KERNELS_KNOWN)" >&2
		return 2 ;;
	esac
	KVER= VMLINUZ= KDIR=
	for kver in $(cd /lib/modules 2>/dev/null && ls -d $pattern 2>/dev/null | sort -rV); do
		# an rt flavour installed by hand answers to no stock name
		case $kver in *-rt-amd64) continue ;; esac
		if [ -r "/boot/vmlinuz-$kver" ] && [ -d "/usr/src/linux-headers-$kver" ]; then
			KVER=$kver
			VMLINUZ=/boot/vmlinuz-$kver
			KDIR=/usr/src/linux-headers-$kver
			return 0
		fi
	done
	return 1
}

# kernel_arch NAME: the architecture a kernel's guest runs, as Kbuild's
# ARCH names it (x86_64 for every kernel but the -arm64 ones)
kernel_arch() {
	case "$1" in
	*-arm64) echo arm64 ;;
	*) echo x86_64 ;;
	esac
}

# kernel_debug_version NAME: the source version of a debug kernel's name
kernel_debug_version() {
	case "$1" in
	debug) echo 6.12 ;;
	*) echo "${1#debug-}" ;;
	esac
}

_kernel_fetch() {	# SUITE FLAVOUR NAME
	"$_kernels_top/scripts/deps.sh" base &&
		"$_kernels_top/scripts/fetch-debian-kernel.sh" "$1" "$2" "$_kernels_cache/$3"
}

# kernel_provide NAME: install, fetch or build it.
kernel_provide() {
	case "$1" in
	debug*) "$_kernels_top/scripts/build-debug-kernel.sh" "$(kernel_debug_version "$1")" >/dev/null ;;
	debian-6.1) "$_kernels_top/scripts/deps.sh" base lts ;;
	debian-6.12-rt) _kernel_fetch bookworm 6.12-rt-amd64 "$1" ;;
	debian-6.1-rt) _kernel_fetch bookworm rt-amd64 "$1" ;;
	debian-5.10) _kernel_fetch bullseye amd64 "$1" ;;
	*) "$_kernels_top/scripts/deps.sh" base ;;
	esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -eu
	kernel_find "${1:?usage: kernels.sh NAME}" || exit $?
	echo "$KVER $VMLINUZ $KDIR"
fi
