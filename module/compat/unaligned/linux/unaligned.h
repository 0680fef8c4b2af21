/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Before 6.12 the unaligned accessors are <asm/unaligned.h>'s (6.12 moved
 * them to <linux/unaligned.h>); Kbuild puts this directory on the include
 * path only where the kernel has no <linux/unaligned.h>.
 */
#ifndef _STACKINFO_COMPAT_LINUX_UNALIGNED_H
#define _STACKINFO_COMPAT_LINUX_UNALIGNED_H
#include <asm/unaligned.h>
#endif
