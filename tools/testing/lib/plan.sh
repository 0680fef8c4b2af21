# SPDX-License-Identifier: LGPL-2.1-or-later
#
# plan_reason PLAN KERNEL NAME: when PLAN (tools/testing/guest-plan) keeps
# the test NAME off KERNEL, print the rule's reason and return 0; else
# return 1. The first rule that decides wins. plan_never PLAN NAME: when
# a "never" rule says NAME is no run of any kernel, print its reason and
# return 0. Sourced by the guest's run-tests, by guest-results and by
# check.
# shellcheck shell=sh

# _plan_match WORD PATTERNS: WORD matches one of the comma-separated
# shell patterns (split by hand: no pathname expansion of a pattern)
_plan_match() {
	_plan_rest=$2,
	while [ -n "$_plan_rest" ]; do
		_plan_p=${_plan_rest%%,*}
		_plan_rest=${_plan_rest#*,}
		# shellcheck disable=SC2254
		case $1 in $_plan_p) return 0 ;; esac
	done
	return 1
}

plan_reason() {
	while read -r _plan_verb _plan_kernels _plan_tests _plan_reason; do
		case $_plan_verb in
		also) # TESTS on KERNELS, whatever a later rule says
			_plan_match "$3" "$_plan_tests" &&
				_plan_match "$2" "$_plan_kernels" && return 1
			continue ;;
		never) # TESTS nowhere (no such run)
			_plan_match "$3" "$_plan_tests" || continue ;;
		not) # TESTS not on KERNELS
			_plan_match "$3" "$_plan_tests" &&
				_plan_match "$2" "$_plan_kernels" || continue ;;
		only) # TESTS on KERNELS and nowhere else
			_plan_match "$3" "$_plan_tests" &&
				! _plan_match "$2" "$_plan_kernels" || continue ;;
		solely) # KERNELS run TESTS and nothing else
			_plan_match "$2" "$_plan_kernels" &&
				! _plan_match "$3" "$_plan_tests" || continue ;;
		*) continue ;;
		esac
		echo "$_plan_reason"
		return 0
	done <"$1"
	return 1
}

plan_never() {
	while read -r _plan_verb _plan_kernels _plan_tests _plan_reason; do
		[ "$_plan_verb" = never ] && _plan_match "$2" "$_plan_tests" || continue
		echo "$_plan_reason"
		return 0
	done <"$1"
	return 1
}
