// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libstackinfo-preload.so: LD_PRELOAD it and pthread_getattr_np() on the
 * main thread is answered by libstackinfo (one ioctl with the module,
 * PROCMAP_QUERY or a maps parse without it); every other call, and any
 * case the library does not recognise, goes to glibc's own.
 */
#define _GNU_SOURCE
#include <pthread.h>

#include "libstackinfo.h"

__attribute__((visibility("default")))
int pthread_getattr_np(pthread_t thread, pthread_attr_t *attr)
{
	return stackinfo_pthread_getattr_np(thread, attr);
}
