/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The glibc symbol versions the shared objects (libstackinfo.so, the
 * interposer) and the programs of the glibc tests bind, forced (-include)
 * into each of their objects: the oldest glibc that has each symbol, so
 * that what is built on a newer glibc loads on 2.31 (Debian 11, Ubuntu
 * 20.04). Built on 2.34 or later, the linker takes each symbol's default
 * version: pthread_create@GLIBC_2.34, pthread_getattr_np@GLIBC_2.32 and so
 * on (glibc 2.32 and 2.34 moved libpthread's and libdl's functions into
 * libc.so.6 under new versions, keeping the old ones as compatibility
 * symbols of the same code). The old version is what a program built on
 * 2.31 binds and every later glibc keeps. On 2.31 these functions live in
 * libpthread.so.0 and libdl.so.2, which the shared objects therefore name
 * as DT_NEEDED (the Makefile's GLIBC_NEEDED; on 2.34 and later those two
 * are empty stubs); a versioned reference is found in whichever loaded
 * object defines that version of the symbol.
 *
 * x86_64 only (GLIBC_2.2.5 is its first version; the arm64 build binds
 * what it finds). Not for a static link, which has no symbol versions:
 * libstackinfo.a's objects are built without this file. Host test
 * glibc_symbols fails on any reference to a glibc version newer than
 * 2.31, a symbol used here and missing from this list included.
 */
#ifndef SI_GLIBC_SYMVER_H
#define SI_GLIBC_SYMVER_H

#if defined(__x86_64__) && !defined(__ILP32__)
#define SI_SYMVER(name, version) __asm__(".symver " #name "," #name "@" #version)
/* libpthread.so.0 on 2.31 */
SI_SYMVER(pthread_create, GLIBC_2.2.5);
#ifndef SI_DEFINES_PTHREAD_GETATTR_NP	/* the interposer's own, unversioned */
SI_SYMVER(pthread_getattr_np, GLIBC_2.2.5);
#endif
SI_SYMVER(pthread_attr_getstack, GLIBC_2.2.5);
SI_SYMVER(pthread_attr_setstack, GLIBC_2.2.5);
SI_SYMVER(pthread_attr_getguardsize, GLIBC_2.2.5);
SI_SYMVER(pthread_attr_setguardsize, GLIBC_2.2.5);
SI_SYMVER(pthread_getaffinity_np, GLIBC_2.3.4);
SI_SYMVER(pthread_attr_setaffinity_np, GLIBC_2.3.4);
SI_SYMVER(pthread_attr_getaffinity_np, GLIBC_2.3.4);
SI_SYMVER(pthread_join, GLIBC_2.2.5);
/* libdl.so.2 on 2.31 */
SI_SYMVER(dlsym, GLIBC_2.2.5);
SI_SYMVER(dlerror, GLIBC_2.2.5);
#undef SI_SYMVER
#endif

#endif
