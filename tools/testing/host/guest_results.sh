#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# guest-results cannot go green by accident: against a kernel config with
# every option the manifest names, a guest log with a result for exactly
# what the kernel should run passes, and each way a log can be short or
# long of it fails, naming the test: a test missing, a test the plan
# (tools/testing/guest-plan) keeps off that kernel reporting anyway, a
# result twice, an unknown name, a KTAP marker lost. And the plan is
# followed: what it keeps off a kernel is a SKIP saying "plan:", what it
# keeps on one must report.
top=$(cd "$(dirname "$0")/../.." && pwd)
results=$top/tools/testing/guest-results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

cat >"$tmp/config" <<'EOF'
CONFIG_KUNIT=y
CONFIG_SECURITY_YAMA=y
CONFIG_DEBUG_KMEMLEAK=y
CONFIG_PROC_STACKINFO=y
CONFIG_FAULT_INJECTION=y
CONFIG_IA32_EMULATION=y
CONFIG_KASAN=y
EOF

# run KERNEL LOG: guest-results' output in $tmp/out, its status in $rc
run() {
	"$results" "$2" "$tmp/ktap" "$tmp/config" "$1" >"$tmp/out" 2>&1
	rc=$?
}

# full KERNEL: a log with a PASS for each test KERNEL should run (what an
# empty log is short of), the KTAP markers around nothing
full() {
	: >"$tmp/empty"
	run "$1" "$tmp/empty"
	{
		echo "@@KTAP@@"
		echo "@@KTAP@@"
		sed -n 's/^FAIL: \([^ ]*\) (did not report)$/PASS: \1/p' "$tmp/out"
	} >"$tmp/full.$1"
}

# expect WANT_RC PATTERN WHAT: the last run's status and a line of its output
expect() {
	if [ "$rc" != "$1" ] || ! grep -qE -- "$2" "$tmp/out"; then
		echo "FAIL: $3: exit $rc, want $1 and /$2/; said:"
		sed 's/^/    /' "$tmp/out" | head -n 40
		fail=1
	fi
}

for k in debian-6.12 debug-6.12 debug-7.2 debug-7.2-rt debug-5.10; do
	full "$k"
	grep -q '^PASS: query_truth$' "$tmp/full.$k" ||
		{ echo "FAIL: $k: an empty log is not short of query_truth"; fail=1; }
	run "$k" "$tmp/full.$k"
	expect 0 '^PASS: query_truth$' "$k: a complete log"
	grep -q '^FAIL' "$tmp/out" && { echo "FAIL: $k: a complete log has a FAIL line"; fail=1; }

	grep -v '^PASS: query_truth$' "$tmp/full.$k" >"$tmp/log"
	run "$k" "$tmp/log"
	expect 1 '^FAIL: query_truth \(did not report\)$' "$k: query_truth missing"

	{ cat "$tmp/full.$k"; echo "PASS: query_truth"; } >"$tmp/log"
	run "$k" "$tmp/log"
	expect 1 '^FAIL: query_truth \(reported 2 times\)$' "$k: a result twice"

	{ cat "$tmp/full.$k"; echo "PASS: no_such_test"; } >"$tmp/log"
	run "$k" "$tmp/log"
	expect 1 '^FAIL: no_such_test \(reported, but no guest test' "$k: an unknown name"

	sed '2d' "$tmp/full.$k" >"$tmp/log"
	run "$k" "$tmp/log"
	expect 1 '^FAIL: kunit-ktap ' "$k: a KTAP marker lost"
done

# the plan: Python on debian-6.12 only, the library's tests on one debug
# kernel, nothing without the module on a debug kernel
grep -q '^PASS: lib_python$' "$tmp/full.debian-6.12" ||
	{ echo "FAIL: debian-6.12 should run lib_python"; fail=1; }
grep -q '^PASS: nomod-lib_api$' "$tmp/full.debian-6.12" ||
	{ echo "FAIL: debian-6.12 should run nomod-lib_api"; fail=1; }
grep -q '^PASS: lib_api$' "$tmp/full.debug-6.12" ||
	{ echo "FAIL: debug-6.12 should run lib_api"; fail=1; }
for k in debug-6.12 debug-7.2 debug-7.2-rt; do
	run "$k" "$tmp/full.$k"
	expect 0 '^SKIP: nomod-lib_api \(plan: ' "$k: nomod-lib_api planned off"
	expect 0 '^SKIP: lib_python \(plan: ' "$k: lib_python planned off"
	{ cat "$tmp/full.$k"; echo "PASS: lib_python"; } >"$tmp/log"
	run "$k" "$tmp/log"
	expect 1 '^FAIL: lib_python \(reported, but .*plan: ' "$k: a planned-off test reporting"
done
run debug-7.2 "$tmp/full.debug-7.2"
expect 0 '^SKIP: lib_api \(plan: ' "debug-7.2: the library's tests planned off"
# debug-7.2-rt runs its list and nothing else: the harness's own tests too
run debug-7.2-rt "$tmp/full.debug-7.2-rt"
expect 0 '^SKIP: cli_addr \(plan: ' "debug-7.2-rt: cli_addr planned off"
expect 0 '^SKIP: access_yama3 \(plan: ' "debug-7.2-rt: access_yama3 planned off"
expect 0 '^PASS: reap_race$' "debug-7.2-rt: reap_race planned on"
expect 0 '^PASS: kunit-load\+kernel-log$' "debug-7.2-rt: KUnit planned on"
# debug-5.10 as debug-6.1: the module's tests, not the library's
run debug-5.10 "$tmp/full.debug-5.10"
expect 0 '^SKIP: lib_api \(plan: ' "debug-5.10: the library's tests planned off"
expect 0 '^SKIP: harness_scale \(plan: ' "debug-5.10: harness_scale planned off"
expect 0 '^PASS: fail_nth$' "debug-5.10: fail_nth planned on"
expect 0 '^PASS: access_yama3$' "debug-5.10: access_yama3 planned on"
expect 0 '^PASS: guard_gap$' "debug-5.10: guard_gap planned on"
expect 0 '^PASS: kunit-load\+kernel-log$' "debug-5.10: KUnit planned on"
grep -q '^PASS: nomod-lib_python$' "$tmp/full.debian-6.12" &&
	{ echo "FAIL: debian-6.12 should not run nomod-lib_python"; fail=1; }
grep -v '^PASS: lib_python$' "$tmp/full.debian-6.12" >"$tmp/log"
run debian-6.12 "$tmp/log"
expect 1 '^FAIL: lib_python \(did not report\)$' "debian-6.12: lib_python missing"
# a "never" rule: no run of any kernel, so neither expected nor a SKIP,
# and a result from it fails; an "also" rule wins over a later "not"
for k in debian-6.12 debug-6.12; do
	run "$k" "$tmp/full.$k"
	grep -q 'nomod-lib_gdb' "$tmp/out" &&
		{ echo "FAIL: $k: nomod-lib_gdb (never) expected or a SKIP"; fail=1; }
	{ cat "$tmp/full.$k"; echo "PASS: nomod-lib_gdb"; } >"$tmp/log"
	run "$k" "$tmp/log"
	expect 1 '^FAIL: nomod-lib_gdb \(reported, but it is no run of any kernel: ' \
		"$k: a never-run reporting"
done
grep -q '^PASS: nomod-lib_proc$' "$tmp/full.debug-6.12" ||
	{ echo "FAIL: debug-6.12 should run nomod-lib_proc (its also rule)"; fail=1; }
grep -q '^PASS: nomod-lib_api$' "$tmp/full.debug-6.12" &&
	{ echo "FAIL: debug-6.12 should not run nomod-lib_api"; fail=1; }
exit $fail
