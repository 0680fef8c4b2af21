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

# only_on_debug_612 WHAT: a KASAN kernel (a debug kernel, some five times
# slower under TCG) other than 6.12 runs WHAT not (the time budget: README's
# Testing says what runs where); exit 77 there, saying so
only_on_debug_612() {
	grep -q ' kasan_report$' /proc/kallsyms || return 0
	case $(uname -r) in 6.12.*) return 0 ;; esac
	echo "SKIP: $1: on Debian's kernels, and under KASAN on debug-6.12 only (time budget)"
	exit 77
}
