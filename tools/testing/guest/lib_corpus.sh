#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Real programs under the interposer: each program of the corpus
# (tools/testing/corpus/programs, packed by tools/testing/corpus/pack and
# given to vm-run with --file) runs with its workload plain, then with
# LD_PRELOAD=libstackinfo-preload.so as it comes (the main thread's first
# call is glibc's, the library answers from the second), then with
# STACKINFO_CHECK=first (the library answers from the first call, so a
# program that asks once gets the library's answer). Fails on any
# difference in output (stdout and stderr) or exit status, on any new
# kernel log line (but the clock's, on a busy host), when a program asked
# nothing of pthread_getattr_np (it would prove nothing), and when with
# STACKINFO_CHECK=first the library answered none of the main thread's
# calls. A process whose stats line says the library is off ("library
# off: REASON": no descriptor layout it can read, or a check that
# differed) must have every main-thread call handed to glibc instead, and
# fails if the library answered one; one without (every glibc from 2.31
# to 2.43, sid's under CPython 3.14 too) must have the library answering
# with STACKINFO_CHECK=first. Prints, a program a line, the calls the
# interposer counted (main thread: answered by the library / by glibc;
# other threads) and the C libraries they ran on. Skips (77) when the
# guest has no corpus. Named lib_* so that run-tests runs it again without
# the module: 6.12 then takes PROCMAP_QUERY, 6.1 the maps parse.
dir=/usr/lib/stackinfo-corpus
preload=/usr/lib/libstackinfo-preload.so
stats=/tmp/corpus.stats
kmsg=/usr/lib/stackinfo/kmsg-since
failed=0

if [ ! -e "$dir/programs" ]; then
	for t in /extra/corpus-*.tar; do
		[ -e "$t" ] && tar -xf "$t" -C /
	done
fi
if [ ! -e "$dir/programs" ]; then
	echo "no corpus in this guest (vm-run --file \$(tools/testing/corpus/pack))"
	exit 77
fi
cd "$dir" || exit 1
echo "kernel $(uname -r), /proc/stackinfo $([ -e /proc/stackinfo ] && echo present || echo absent)"
# a program the corpus could not take (pack: cpython-embed without
# Debian unstable's CPython), named with the reason
[ ! -e not-packed ] || sed 's/^\([^\t]*\)\t/info: \1: not packed: /' not-packed

# sum FIELD [read|unread]: the stats lines' FIELD (1 library, 2 glibc,
# 3 other) summed (a program may be several processes), of the processes
# whose glibc descriptor the library reads (no "library off") or does
# not, or of all
stats_lines() {
	line="s/.*: glibc \([0-9]*\)\.\([0-9]*\)[^:]*: pthread_getattr_np main [0-9]* (library \([0-9]*\), glibc \([0-9]*\)) other \([0-9]*\)"
	sed -n -e "$line\$/\1 \2 \3 \4 \5 0/p" -e "$line; library off: .*/\1 \2 \3 \4 \5 1/p" \
		"$stats" 2>/dev/null
}
sum() {
	stats_lines | awk -v f="$1" -v which="${2:-all}" '{
		read = $6 == 0
		if (which == "all" || (which == "read") == read)
			s += $(f + 2)
	} END { print s + 0 }'
}
# the glibc versions of the processes that asked anything
versions() {
	stats_lines | awk '$3 + $4 + $5 > 0 { print $1 "." $2 }' | sort -u | paste -sd, -
}

# What the timekeeping watchdog says when the host stalls the guest's
# vCPUs (a TCG guest on a busy machine: "clocksource: timekeeping
# watchdog on CPU0: hpet wd-wd read-back delay of 4083840ns"), and the
# clocksource switch it may make then: the host's load, not a program's
clock_noise='^clocksource: |^tsc: Marking TSC unstable|^hrtimer: interrupt took'
tab=$(printf '\t')
grep -v '^#' programs >/tmp/corpus.list
while IFS="$tab" read -r name pkg cmd; do
	before=$("$kmsg")
	sh -c "$cmd" >/tmp/corpus.plain 2>&1 </dev/null
	rc_plain=$?
	rm -f "$stats"
	LD_PRELOAD=$preload STACKINFO_PRELOAD_STATS=$stats sh -c "$cmd" \
		>/tmp/corpus.pre 2>&1 </dev/null
	rc_pre=$?
	lib=$(sum 1) glibc=$(sum 2) other=$(sum 3) lib_unread=$(sum 1 unread)
	libcs=$(versions)
	rm -f "$stats"
	LD_PRELOAD=$preload STACKINFO_PRELOAD_STATS=$stats STACKINFO_CHECK=first \
		sh -c "$cmd" >/tmp/corpus.first 2>&1 </dev/null
	rc_first=$?
	lib_first=$(sum 1) glibc_first=$(sum 2)
	asked_read=$(( $(sum 1 read) + $(sum 2 read) )) lib_first_read=$(sum 1 read)
	lib_unread=$((lib_unread + $(sum 1 unread)))
	# the kernel's lines since, but a TCG guest's clock on a busy host
	"$kmsg" "$before" | grep -Ev "$clock_noise" >/tmp/corpus.kmsg
	new_lines=$(wc -l </tmp/corpus.kmsg)
	result=same
	if [ "$rc_plain" != "$rc_pre" ] || [ "$rc_plain" != "$rc_first" ]; then
		result="exit $rc_plain plain, $rc_pre interposed, $rc_first checked first"
	elif ! cmp -s /tmp/corpus.plain /tmp/corpus.pre; then
		result="output differs interposed"
	elif ! cmp -s /tmp/corpus.plain /tmp/corpus.first; then
		result="output differs with STACKINFO_CHECK=first"
	elif [ "$new_lines" != 0 ]; then
		result="$new_lines new kernel log lines: $(head -n 3 /tmp/corpus.kmsg | paste -sd'|' -)"
	elif [ $((lib + glibc + other)) = 0 ]; then
		result="no pthread_getattr_np call counted"
	elif [ "$lib_unread" != 0 ]; then
		result="the library answered $lib_unread main-thread calls where it said it was off"
	elif [ "$asked_read" -gt 0 ] && [ "$lib_first_read" = 0 ]; then
		result="STACKINFO_CHECK=first: the library answered no main-thread call"
	fi
	echo "$name: $result; exit $rc_plain; pthread_getattr_np main $((lib + glibc)) (library $lib, glibc $glibc) other $other; STACKINFO_CHECK=first: library $lib_first, glibc $glibc_first; glibc ${libcs:-none}"
	if [ "$result" != same ]; then
		failed=1
		for v in plain pre first; do
			echo "--- $v"
			cat /tmp/corpus.$v
		done
		"$kmsg" "$before"
	fi
done </tmp/corpus.list
exit $failed
