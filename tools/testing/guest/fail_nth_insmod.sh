#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The module's load under fault injection, each fault point in turn
# (fail_nth --insmod): a load that fails leaves nothing behind, the next
# load works, a load that succeeds works in full.
. "$(dirname "$0")/../testlib.sh"
exec "$(dirname "$0")/fail_nth" --insmod /stackinfo/stackinfo.ko
