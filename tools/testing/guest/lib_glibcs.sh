#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The interposer on each glibc the tests carry, in the guest: Debian's
# glibc 2.31, 2.36, 2.41 and sid's with their own loaders and getattr-print
# (tools/testing/glibcs/pack, given to vm-run with --file), held by
# tools/testing/glibcs/run: every field of the interposed answer that
# glibc's own, at 0 and 3 000 mappings, the library answering (its stats
# line); with the module the library reads its text, and must be at least
# 10 times faster than each glibc at 3 000 mappings (70-250x measured);
# without it (nomod-) PROCMAP_QUERY or the maps parse, whose speed-up is
# printed. Skips (77) when the guest has none of them.
dir=/usr/lib/stackinfo-glibcs

if [ ! -e "$dir/run" ]; then
	for t in /extra/glibcs-*.tar; do
		[ -e "$t" ] && tar -xf "$t" -C /
	done
fi
if [ ! -e "$dir/run" ]; then
	echo "no C libraries in this guest (vm-run --file \$(tools/testing/glibcs/pack))"
	exit 77
fi
echo "kernel $(uname -r), /proc/stackinfo $([ -e /proc/stackinfo ] && echo present || echo absent)"
# where the module or PROCMAP_QUERY answers (the latter in a process of
# one thread, as getattr-print is), at least 10x that glibc at 3 000
# mappings; the maps parse alone saves only what its parse saves
speedup=0
if [ -e /proc/stackinfo ] || stackinfo --backend procmap_query >/dev/null 2>&1; then
	speedup=10
fi
exec "$dir/run" --speedup "$speedup" /usr/lib/libstackinfo-preload.so
