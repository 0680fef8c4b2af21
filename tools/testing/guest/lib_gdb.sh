#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# gdb's `info stackinfo`, auto-loaded from gdb's data directory as
# python3-stackinfo installs it (vm-run): Debian's gdb runs stack-overflow,
# whose worker thread recurses into its guard page and stops on SIGSEGV;
# `info stackinfo` names that thread (by its LWP) and only it as a stack
# overflow, with its stack and guard equal to lines of the kernel's
# /proc/<pid>/maps read while gdb holds the process, and the main thread's
# stack equal to maps' [stack]; the SIGSEGV address is $_siginfo's. Then
# the main thread recursing until RLIMIT_STACK stops its growth: an
# overflow below the stack, which is maps' [stack]. On a core file of the
# same process and with no process it says it cannot ask the kernel, and
# it takes no arguments.
. "$(dirname "$0")/../testlib.sh"
out=/tmp/gdb.out
rm -f /tmp/so.core

gdb -batch -ex run -ex 'info stackinfo' \
	-ex 'printf "siginfo-addr %lx\n", $_siginfo._sifields._sigfault.si_addr' \
	-ex 'python print("maps-of", gdb.selected_inferior().pid)' \
	-ex 'python print(open("/proc/%d/maps" % gdb.selected_inferior().pid).read())' \
	-ex 'generate-core-file /tmp/so.core' -ex kill \
	/usr/bin/stack-overflow >$out 2>&1
check "gdb ran" grep -q 'received signal SIGSEGV' $out
worker=$(sed -n 's/^worker \([0-9]*\)$/\1/p' $out)
pid=$(sed -n 's/^maps-of \([0-9]*\)$/\1/p' $out)
check "worker and process known ($worker $pid)" [ -n "$worker" ] && [ -n "$pid" ]
check "one line per thread" [ "$(grep -c '^LWP [0-9]* thread [0-9]*: ' $out)" = 2 ]
check "one overflow" [ "$(grep -c ': stack overflow (SIGSEGV at ' $out)" = 1 ]
line=$(grep "^LWP $worker thread [0-9]*: " $out)
echo "worker: $line"
check "the worker overflowed" eval 'echo "$line" | grep -q ": stack overflow (SIGSEGV at 0x[0-9a-f]*, in the guard)$"'

# maps' lines as "start-end perms", without the 0x
maps_has() { grep -q "^$1 $2 " $out; }
stack=$(echo "$line" | sed -n 's/.* stack 0x\([0-9a-f]*\)-0x\([0-9a-f]*\) \(....\) .*/\1-\2 \3/p')
guard=$(echo "$line" | sed -n 's/.* guard 0x\([0-9a-f]*\)-0x\([0-9a-f]*\) .*/\1-\2/p')
check "worker's stack is a maps line ($stack)" eval 'maps_has ${stack% *} ${stack#* }'
check "worker's guard is a ---p maps line ($guard)" maps_has "$guard" ---p
addr=$(echo "$line" | sed -n 's/.*SIGSEGV at 0x\([0-9a-f]*\),.*/\1/p')
check "the address is \$_siginfo's ($addr)" grep -q "^siginfo-addr $addr\$" $out
lo=${guard%-*} hi=${guard#*-}
check "the address is in the guard" [ "$((0x$lo <= 0x$addr && 0x$addr < 0x$hi))" = 1 ]
sp=$(echo "$line" | sed -n 's/.* sp 0x\([0-9a-f]*\) .*/\1/p')
check "the SP is in the stack" [ "$((0x${stack%%-*} <= 0x$sp))" = 1 ]

main=$(grep "^LWP $pid thread [0-9]*: " $out)
echo "main: $main"
mstack=$(echo "$main" | sed -n 's/.* stack 0x\([0-9a-f]*\)-0x\([0-9a-f]*\) .*/\1-\2/p')
check "main's stack is maps' [stack] ($mstack)" grep -q "^$mstack rw-p .*\[stack\]\$" $out
check "main: no overflow" eval 'echo "$main" | grep -vq overflow'

# the main thread, to the end of RLIMIT_STACK
gdb -batch -ex run -ex 'info stackinfo' \
	-ex 'printf "siginfo-addr %lx\n", $_siginfo._sifields._sigfault.si_addr' \
	-ex 'python print(open("/proc/%d/maps" % gdb.selected_inferior().pid).read())' \
	-ex kill --args /usr/bin/stack-overflow main >/tmp/gdb.main 2>&1
main=$(grep '^LWP [0-9]* thread 1: ' /tmp/gdb.main)
echo "main overflow: $main"
check "main overflowed below its stack" eval 'echo "$main" | grep -q ": stack overflow (SIGSEGV at 0x[0-9a-f]*, below the stack, where it may not grow"'
mstack=$(echo "$main" | sed -n 's/.* stack 0x\([0-9a-f]*\)-0x\([0-9a-f]*\) .*/\1-\2/p')
check "main: its stack is maps' [stack] ($mstack)" grep -q "^$mstack rw-p .*\[stack\]\$" /tmp/gdb.main
addr=$(echo "$main" | sed -n 's/.*SIGSEGV at 0x\([0-9a-f]*\),.*/\1/p')
check "main: the address is \$_siginfo's ($addr)" grep -q "^siginfo-addr $addr\$" /tmp/gdb.main
check "main: the address is below the stack" [ "$((0x$addr < 0x${mstack%-*}))" = 1 ]
[ $fail = 0 ] || cat /tmp/gdb.main

check "core written" [ -s /tmp/so.core ]
gdb -batch -ex 'info stackinfo' /usr/bin/stack-overflow /tmp/so.core >/tmp/gdb.core 2>&1
check "core file: cannot ask the kernel" grep -q 'a core file has no live threads: stackinfo cannot ask the kernel' /tmp/gdb.core
check "core file: no thread lines" eval '! grep -q "^LWP " /tmp/gdb.core'
gdb -batch -ex 'info stackinfo' >/tmp/gdb.none 2>&1
check "no process: said" grep -q '^info stackinfo: no process' /tmp/gdb.none
gdb -batch -ex 'info stackinfo now' >/tmp/gdb.arg 2>&1
check "an argument: refused" grep -q 'takes no arguments' /tmp/gdb.arg
check "help names it" eval 'gdb -batch -ex "help info stackinfo" 2>&1 | grep -q "Stack bounds"'
[ $fail = 0 ] || cat $out /tmp/gdb.core
rm -f /tmp/so.core
exit $fail
