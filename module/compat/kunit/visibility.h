/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stackinfo: a stand-in for <kunit/visibility.h> (6.1.y and 6.2+) on
 * kernels without it (5.10), where Kbuild puts this directory on the
 * include path: what the suites reach is exported, in the namespace they
 * import, where the kernel has KUnit (the debug kernel), and static where
 * it has not (Debian's).
 */
#ifndef _STACKINFO_COMPAT_KUNIT_VISIBILITY_H
#define _STACKINFO_COMPAT_KUNIT_VISIBILITY_H

#if IS_ENABLED(CONFIG_KUNIT)
#define VISIBLE_IF_KUNIT
#define EXPORT_SYMBOL_IF_KUNIT(symbol) \
	EXPORT_SYMBOL_NS(symbol, EXPORTED_FOR_KUNIT_TESTING)
#else
#define VISIBLE_IF_KUNIT static
#define EXPORT_SYMBOL_IF_KUNIT(symbol)
#endif

#endif
