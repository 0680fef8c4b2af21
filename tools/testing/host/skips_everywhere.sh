#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# skips-everywhere fails a make check in which a test skips on every
# kernel, naming it and the kernels, and only then: planted results where
# one test skips on each kernel and another runs on one of them; a KUnit
# case the same; what it does not count (a host test's SKIP, a kernel
# left out, a kernel's cost row) and bad usage.
top=$(cd "$(dirname "$0")/../.." && pwd)
script=$top/tools/testing/skips-everywhere
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# expect WANT_RC PATTERN WHAT: the last run's status and a line of its output
expect() {
	if [ "$rc" != "$1" ] || ! grep -qE -- "$2" "$tmp/out"; then
		echo "FAIL: $3: exit $rc, want $1 and /$2/; said:"
		sed 's/^/    /' "$tmp/out"
		fail=1
	fi
}
# absent PATTERN WHAT: no line of the last run's output matches
absent() {
	if grep -qE -- "$1" "$tmp/out"; then
		echo "FAIL: $2: said:"
		sed 's/^/    /' "$tmp/out"
		fail=1
	fi
}
run() {	# RESULTS KERNEL...
	"$script" "$@" >"$tmp/out" 2>&1
	rc=$?
}

cat >"$tmp/good" <<'EOF'
PASS host/abi_layout
SKIP host/cost_plugin
PASS ka/query_truth
PASS kb/query_truth
SKIP ka/fail_nth
PASS kb/fail_nth
SKIP ka/kunit/lockfree_matches_locked
PASS kb/kunit/lockfree_matches_locked
FAIL kb/harness_race
SKIP ka/harness_race
SKIP ka/cost
SKIP kb/cost
SKIP kc/only_on_kc
SKIP kc
EOF
run "$tmp/good" ka kb
expect 0 '^PASS: every-test-runs \(4 tests, 3 of them skipped somewhere\)$' \
	"every test run somewhere (a FAIL is a run)"
absent 'cost|cost_plugin|only_on_kc' "what is not counted"

{ cat "$tmp/good"; echo "SKIP ka/lib_proc"; echo "SKIP kb/lib_proc"; } >"$tmp/bad"
run "$tmp/bad" ka kb
expect 1 '^FAIL: every-test-runs/lib_proc \(skipped on every kernel: ka kb\)$' \
	"a test skipped on both kernels"
absent '^PASS' "a PASS line beside a FAIL"
absent 'fail_nth|query_truth' "a test that runs somewhere named"

{ cat "$tmp/good"; echo "SKIP ka/kunit/intree_kthread"; echo "SKIP kb/kunit/intree_kthread"; } \
	>"$tmp/bad"
run "$tmp/bad" ka kb
expect 1 '^FAIL: every-test-runs/kunit/intree_kthread ' "a KUnit case skipped on both"

# skipped on the kernels named, run only on one that is not
{ cat "$tmp/good"; echo "SKIP ka/uffd_copy"; echo "PASS kc/uffd_copy"; } >"$tmp/bad"
run "$tmp/bad" ka kb
expect 1 '^FAIL: every-test-runs/uffd_copy \(skipped on every kernel: ka\)$' \
	"a run on a kernel not named does not count"

run "$tmp/good"
expect 2 'usage' "no kernel named"
run "$tmp/nothing" ka
expect 2 'cannot read' "no results file"
exit $fail
