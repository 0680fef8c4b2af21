#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The Python bindings in the guest, installed as python3-stackinfo puts
# them (vm-run): bindings_test.py holds them against the C library's
# answers in one process on every backend this kernel has (the module's
# and the in-tree file's only exist here), and python3 -m stackinfo PID
# prints what stackinfo -p PID --json prints, byte for byte, with the
# same messages and exit status, on each backend, with --addr too (the
# classes only the module and the in-tree file give); as an ordinary user
# too, on another user's process (refused: exit 3 both). And 0.2.0's own
# package, recorded (tools/lib/abi/0.2.0/python), imports and answers
# against this library (release_0_2_0_test.py).
. "$(dirname "$0")/../testlib.sh"
lib=/usr/lib/stackinfo

check "python3 runs" python3 -c 'import stackinfo'
check "bindings against the C library" \
	python3 "$lib/bindings_test.py" /usr/bin/stackinfo-layout /usr/bin/stackinfo \
	/usr/bin/thread-sleeper
check "0.2.0's Python package against this library" \
	env PYTHONPATH="$lib/abi-0.2.0" python3 "$lib/release_0_2_0_test.py"

thread-sleeper 3 >/tmp/pysleeper.out &
sleeper=$!
i=0
while ! grep -qs ready /tmp/pysleeper.out && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
# another thread's SP is answered only while it blocks: until all of the
# sleeper's threads do, two answers could differ by it
i=0
while grep -qs '^running' /proc/$sleeper/task/*/syscall && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done

# same CASE ARGS...: python3 -m stackinfo and the CLI's --json say the same
# (check() keeps its description in $what: this names its own $case)
same() {
	case=$1
	shift
	stackinfo "$@" --json >/tmp/c.out 2>/tmp/c.err
	crc=$?
	python3 -m stackinfo "$@" >/tmp/p.out 2>/tmp/p.err
	prc=$?
	check "$case: exit $crc both" [ "$crc" = "$prc" ]
	check "$case: stdout byte for byte" cmp /tmp/c.out /tmp/p.out
	check "$case: stderr" cmp /tmp/c.err /tmp/p.err
	# a backend this kernel lacks (exit 4), bad usage (2): refused before any JSON
	case $crc in 2 | 4) [ ! -s /tmp/c.out ] && return ;; esac
	check "$case: parsed equal" python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
sys.exit(a != b)' /tmp/c.out /tmp/p.out
}
same "-p PID" -p $sleeper
check "-p PID: four threads" [ "$(grep -c '"tid": ' /tmp/p.out)" = 4 ]
tid=$(ls /proc/$sleeper/task | grep -v "^$sleeper\$" | head -n 1)
same "-p PID -t TID" -p $sleeper -t "$tid"
same "-t TID" -t "$tid"
for b in proc module procmap_query maps; do
	same "--backend $b" -p $sleeper --backend $b
done
same "no such process" -p 999999
# --addr: the main thread's SP, a worker's guard, an unmapped page, on
# each backend (the module and the in-tree file classify, the others say
# they cannot)
sp=$(python3 -c 'import stackinfo, sys; print("%x" % stackinfo.thread(int(sys.argv[1])).sp)' $sleeper)
guard=$(python3 -c 'import stackinfo, sys; print("%x" % stackinfo.thread(int(sys.argv[1])).guard.start)' "$tid")
for b in proc module procmap_query maps; do
	for a in "$sp" "$guard" 1000; do
		same "--backend $b --addr $a" -p $sleeper --backend $b --addr "$a"
	done
done
same "--addr, bad" -p $sleeper --addr zz
# PID as the only argument, as python3 -m stackinfo also takes it
python3 -m stackinfo $sleeper >/tmp/p2.out 2>/dev/null
stackinfo -p $sleeper --json >/tmp/c2.out 2>/dev/null
check "PID alone equals the CLI's -p" cmp /tmp/p2.out /tmp/c2.out

# refused: an ordinary user on root's process
su user -c "stackinfo -p $sleeper --json" >/tmp/c.out 2>/tmp/c.err
crc=$?
su user -c "python3 -m stackinfo -p $sleeper" >/tmp/p.out 2>/tmp/p.err
prc=$?
check "refused: exit 3 both ($crc $prc)" [ "$crc" = 3 ] && [ "$prc" = 3 ]
check "refused: stdout" cmp /tmp/c.out /tmp/p.out
check "refused: stderr" cmp /tmp/c.err /tmp/p.err

kill $sleeper
wait $sleeper 2>/dev/null
exit $fail
