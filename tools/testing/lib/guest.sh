# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Sourced by the guest's shell tests (installed as
# /usr/lib/stackinfo/testlib.sh, beside tests/): a failure flag, and
# check DESCRIPTION COMMAND...: the command must succeed, else "FAIL:
# DESCRIPTION" and the test fails (exit $fail at its end).
# shellcheck shell=sh
fail=0
check() {
	what=$1
	shift
	if ! "$@"; then
		echo "FAIL: $what"
		fail=1
	fi
}
