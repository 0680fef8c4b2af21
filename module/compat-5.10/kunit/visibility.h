/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stackinfo: a stand-in for <kunit/visibility.h> (6.1.y and 6.2+) on
 * kernels without it (5.10), where Kbuild puts this directory on the
 * include path. KUnit's suites do not build there (kunit/ needs 6.1's
 * KUnit), so the functions they reach stay static and unexported.
 */
#ifndef _STACKINFO_COMPAT_KUNIT_VISIBILITY_H
#define _STACKINFO_COMPAT_KUNIT_VISIBILITY_H

#define VISIBLE_IF_KUNIT static
#define EXPORT_SYMBOL_IF_KUNIT(symbol)

#endif
