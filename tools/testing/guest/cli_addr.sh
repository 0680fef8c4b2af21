#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# stackinfo -p PID --addr ADDR from another process, against that
# process's /proc/PID/maps and limits: a thread stack's guard page; just
# below the main stack (growth room); above the mapping below it, within
# stack_guard_gap (guard gap); further below the stack than RLIMIT_STACK
# (beyond the limit); the executable (mapped); page 1 (unmapped). Every
# thread of the process gets the same class for these (none is on its
# sigaltstack), and the ALTSTACK column says none.
. "$(dirname "$0")/../testlib.sh"

thread-sleeper 1 >/tmp/addr-sleeper.out &
pid=$!
i=0
while ! grep -qs ready /tmp/addr-sleeper.out && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done

maps=/proc/$pid/maps
# "start end" of the [stack] line, of the line below it, of a guard
# (---p right below a mapping starting where it ends), of the first line
# (the perms hold dashes too: split the range alone)
set -- $(awk '{ split($1, r, "-") } /\[stack\]/ { print r[1], r[2], pe; exit } { pe = r[2] }' $maps)
stack_start=$((0x$1)) stack_end=$((0x$2)) below_end=$((0x$3))
set -- $(awk '{ split($1, r, "-") } p && r[1] == pe { print ps, pe; exit }
	{ p = ($2 == "---p"); ps = r[1]; pe = r[2] }' $maps)
guard_start=$((0x$1)) guard_end=$((0x$2))
exe=$((0x$(awk -F- 'NR == 1 { print $1 }' $maps)))
rlim=$(awk '/^Max stack size/ { print $4 }' /proc/$pid/limits)
gap=$(stackinfo --json | sed -n 's/.*"guard_gap": \([0-9]*\).*/\1/p')
page=4096

# classify ADDR WANT: every thread's row says WANT
classify() {
	addr=$(printf '%x' "$1")
	stackinfo -p $pid --addr "$addr" >/tmp/addr.out 2>/tmp/addr.err
	rc=$?
	check "$2 at $addr: exit 0 (rc $rc: $(cat /tmp/addr.err))" [ "$rc" = 0 ]
	check "$2 at $addr: two threads" [ "$(awk 'NR > 1' /tmp/addr.out | wc -l)" = 2 ]
	check "$2 at $addr: $(awk 'NR > 1 { print $4 }' /tmp/addr.out | tr '\n' ' ')" \
		[ "$(awk -v w="$2" 'NR > 1 && $4 != w' /tmp/addr.out | wc -l)" = 0 ]
}

check "found a guard in $maps" [ "$guard_start" -gt 0 ]
check "guard gap known ($gap)" [ -n "$gap" ]
check "rlimit a number ($rlim)" [ "$rlim" -gt 0 ]
check "room below the stack" [ $((stack_start - below_end)) -gt $((rlim + gap + page)) ]

classify $((guard_start + 8)) guard
check "guard: the guard's VMA" \
	awk -v r="$(printf '%x-%x' $guard_start $guard_end)" 'NR > 1 && $5 != r { bad = 1 } END { exit bad }' /tmp/addr.out
classify $((stack_start - page)) growth
classify $((stack_start + page)) stack
classify $((below_end + page)) guard-gap
classify $((stack_end - rlim - 2 * page)) beyond-limit
classify $exe mapped
classify $page unmapped

stackinfo -p $pid --addr "$(printf '%x' $guard_start)" --json >/tmp/addr.json
check "--json: class" grep -q '"class": "guard"' /tmp/addr.json
check "--json: addr_vma" grep -q "\"addr_vma\": {\"start\": \"0x$(printf '%x' $guard_start)\"" /tmp/addr.json
check "--json: altstack off" grep -q '"altstack": {"ss_sp": "0x0", "ss_size": 0, "disabled": true' /tmp/addr.json
stackinfo -p $pid >/tmp/addr.out
check "ALTSTACK column: none" [ "$(awk 'NR > 1 && $9 != "none"' /tmp/addr.out | wc -l)" = 0 ]
check "bad address: usage" [ "$(stackinfo -p $pid --addr zz >/dev/null 2>&1; echo $?)" = 2 ]

kill $pid
wait $pid 2>/dev/null
exit $fail
