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

# only_on "KERNEL..." WHAT: WHAT runs on the kernels named only (vm-run's
# names; vm-run tells the guest its own in STACKINFO_KERNEL), for the time
# budget: README's Testing says what runs where. Elsewhere exit 77, saying
# so; run by hand outside vm-run, it runs.
only_on() {
	[ -n "${STACKINFO_KERNEL:-}" ] || return 0
	for k in $1; do
		[ "$k" = "$STACKINFO_KERNEL" ] && return 0
	done
	echo "SKIP: $2: on $1 only (time budget; this is $STACKINFO_KERNEL)"
	exit 77
}
