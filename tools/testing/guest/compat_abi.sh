#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The ABI from a 32-bit process, through the module's compat_ioctl
# (tools/testing/guest-m32/compat_abi.c, built -m32 -static); a SKIP where
# the kernel runs no 32-bit programs (no IA32_EMULATION: no __ia32_sys_*).
if ! grep -q ' __ia32_sys_ioctl$' /proc/kallsyms; then
	echo "SKIP: the kernel runs no 32-bit programs (CONFIG_IA32_EMULATION)"
	exit 77
fi
exec "$(dirname "$0")/../m32/compat_abi"
