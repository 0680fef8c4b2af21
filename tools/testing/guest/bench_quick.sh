#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# make bench's smoke test: every method of stackinfo-bench answers, the
# library's answer on each backend equals glibc's, and the interposed child
# runs. Measures nothing that is asserted.
out=$(stackinfo-bench --quick 2>&1)
rc=$?
echo "$out"
[ $rc = 0 ] && echo "$out" | grep -q '^ok: every method answered$'
