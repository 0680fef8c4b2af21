#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/testing/log-filter.awk drops the kernel's own KCSAN reports and
# nothing else, in the host's awk and in busybox's (the guest's): a
# report naming a stackinfo function in its title or only in a frame
# stays, whole; one naming none goes, said on standard error without
# "BUG:" (which a splat pattern would count); the lines around, another
# report among them, stay; a report never closed by its line of '='s ends
# after 60 lines, and what follows is kept.
top=$(cd "$(dirname "$0")/../.." && pwd)
filter=$top/tools/testing/log-filter.awk
splat=$(paste -sd'|' "$top/tools/testing/splat-patterns") || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bar================================================================

{
	echo before
	echo "$bar"
	echo "BUG: KCSAN: data-race in process_scheduled_works+0x209/0x844"
	echo
	echo "race at unknown origin, with read to 0xffff888000a000e8 of 8 bytes by task 38 on cpu 1:"
	echo " process_scheduled_works+0x209/0x844"
	echo " worker_thread+0x1e7/0x2d3"
	echo "$bar"
	echo between
	echo "$bar"
	echo "BUG: KCSAN: data-race in stackinfo_ioctl [stackinfo] / stackinfo_ioctl [stackinfo]"
	echo
	echo "write to 0xffffffffa0201020 of 8 bytes by task 64 on cpu 0:"
	echo " stackinfo_ioctl+0x35/0x85 [stackinfo]"
	echo "$bar"
	echo "WARNING: CPU: 0 PID: 1 at somewhere"
	echo "$bar"
	echo "BUG: KCSAN: data-race in mas_walk / mas_store_prealloc"
	echo
	echo "read to 0xffff8880 of 8 bytes by task 70 on cpu 1:"
	echo " mas_walk+0x10/0x80"
	echo " stackinfo_query_mm+0x40/0x200 [stackinfo]"
	echo "$bar"
	echo "BUG: KCSAN: data-race in copy_process / do_exit"
	for i in $(seq 70); do echo " frame_$i+0x1/0x2"; done
	echo "after the unclosed one"
	echo "stackinfo: boot kmemleak scan"
	echo "kmemleak: 8 new suspected memory leaks (see /sys/kernel/debug/kmemleak)"
	echo "stackinfo: boot kmemleak scan done"
	echo "kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)"
} >"$tmp/log"

for a in awk "busybox awk"; do
	if ! command -v "${a%% *}" >/dev/null; then
		echo "FAIL: no $a"
		fail=1
		continue
	fi
	$a -f "$filter" "$tmp/log" >"$tmp/out" 2>"$tmp/err"
	has() {		# WHAT FILE LINE: FILE has the line LINE
		grep -qxF -- "$3" "$2" || { echo "FAIL: $a: $1"; fail=1; }
	}
	lacks() {	# WHAT FILE TEXT: no line of FILE holds TEXT
		! grep -qF -- "$3" "$2" || { echo "FAIL: $a: $1"; fail=1; }
	}
	lacks "the kernel's own report dropped" "$tmp/out" process_scheduled_works
	has "the kernel's own report said" "$tmp/err" \
		"log-filter: not counted (no stackinfo function in it): KCSAN: data-race in process_scheduled_works+0x209/0x844"
	! grep -qE "$splat" "$tmp/err" || { echo "FAIL: $a: a dropped report said as a splat"; fail=1; }
	has "the module's report kept" "$tmp/out" \
		"BUG: KCSAN: data-race in stackinfo_ioctl [stackinfo] / stackinfo_ioctl [stackinfo]"
	has "the module's report kept whole" "$tmp/out" " stackinfo_ioctl+0x35/0x85 [stackinfo]"
	has "a report with stackinfo in a frame only kept" "$tmp/out" \
		"BUG: KCSAN: data-race in mas_walk / mas_store_prealloc"
	lacks "the unclosed report dropped" "$tmp/out" copy_process
	for line in before between "WARNING: CPU: 0 PID: 1 at somewhere" "after the unclosed one"; do
		has "'$line' kept" "$tmp/out" "$line"
	done
	lacks "boot's kmemleak line dropped" "$tmp/out" "kmemleak: 8 new"
	has "boot's kmemleak line said" "$tmp/err" \
		"log-filter: not counted (boot's kmemleak scan, before any test): 8 new suspected memory leaks (see /sys/kernel/debug/kmemleak)"
	has "a kmemleak line after the boot scan kept" "$tmp/out" \
		"kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)"
	n=$(grep -cE "$splat" "$tmp/out")
	[ "$n" = 4 ] || { echo "FAIL: $a: $n lines for the splat patterns, want 4 (two reports, the WARNING, the later kmemleak)"; fail=1; }
done
[ $fail = 0 ] && echo "PASS: log-filter.awk in awk and busybox awk"
exit $fail
