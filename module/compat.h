/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stackinfo: kernel API differences between the kernels we build for
 * (Debian's 6.1 LTS and 6.12 LTS). Every version #ifdef lives here.
 */
#ifndef _STACKINFO_COMPAT_H
#define _STACKINFO_COMPAT_H

#include <linux/sched.h>
#include <linux/version.h>

/* PF_USER_WORKER (6.4+) marks kernel workers cloned from user threads. */
#ifndef PF_USER_WORKER
#define PF_USER_WORKER	0
#endif

/* Threads that share a user mm but never run user code: no user SP. */
#define STACKINFO_PF_WORKER	(PF_IO_WORKER | PF_USER_WORKER)

#endif /* _STACKINFO_COMPAT_H */
