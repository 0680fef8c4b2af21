/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The part of the kernel's PROCMAP_QUERY ABI (Linux 6.11,
 * include/uapi/linux/fs.h) that libstackinfo uses, for C libraries whose
 * kernel headers predate it (Debian 12 ships 6.1's). The kernel takes any
 * size from the first three fields up, so a prefix of the struct is a
 * valid request; the command number carries the full struct's size (104).
 */
#ifndef LIBSTACKINFO_COMPAT_H
#define LIBSTACKINFO_COMPAT_H

#include <linux/ioctl.h>
#include <linux/types.h>

struct si_procmap_query {
	__u64 size;
	__u64 query_flags;
	__u64 query_addr;
	__u64 vma_start;
	__u64 vma_end;
	__u64 vma_flags;
};

#define SI_PROCMAP_VMA_READABLE			0x01
#define SI_PROCMAP_VMA_WRITABLE			0x02
#define SI_PROCMAP_VMA_EXECUTABLE		0x04
#define SI_PROCMAP_VMA_SHARED			0x08

#define SI_PROCMAP_QUERY_FULL_SIZE		104
#define SI_PROCMAP_QUERY			\
	_IOC(_IOC_READ | _IOC_WRITE, 'f', 17, SI_PROCMAP_QUERY_FULL_SIZE)
#define SI_PROCMAP_COVERING_OR_NEXT_VMA		0x10

#endif
