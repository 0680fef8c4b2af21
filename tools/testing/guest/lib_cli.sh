#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The stackinfo CLI: its table and JSON for itself, a process of four
# threads, one thread; its exit codes for no such process (1), bad usage
# (2) and no permission (3); every backend shows the same stacks; without
# the module it says which backend answered. Where the kernel has the
# in-tree /proc/<pid>/stackinfo the backend column says proc, the default,
# module or not; where it has none, --backend proc is refused.
. "$(dirname "$0")/../testlib.sh"
rc_of() { "$@" >/tmp/cli.out 2>/tmp/cli.err; echo $?; }

module=0
[ -e /proc/stackinfo ] && module=1
intree=0
[ -e /proc/self/stackinfo ] && intree=1
# the backend that answers by default without a word on stderr
quiet=
[ $module = 1 ] && quiet=module
[ $intree = 1 ] && quiet=proc

# itself: a header and one row, the main thread, TID = PID
check "self: exit 0" [ "$(rc_of stackinfo)" = 0 ]
check "self: two lines" [ "$(wc -l </tmp/cli.out)" = 2 ]
check "self: header" grep -q '^ *TID *PID MAIN STACK' /tmp/cli.out
check "self: main row" awk 'NR == 2 && $1 == $2 && $3 == "yes" { ok = 1 } END { exit !ok }' /tmp/cli.out
if [ $intree = 1 ]; then
	check "self --json: exit 0" [ "$(rc_of stackinfo --json)" = 0 ]
	check "self: the in-tree file answers" grep -q '"tid": .*"backend": "proc"' /tmp/cli.out
	check "self: the default is proc" grep -q '^{"backend": "proc", ' /tmp/cli.out
	check "self: nothing said on stderr" [ ! -s /tmp/cli.err ]
else
	echo "proc backend not tested: no /proc/self/stackinfo (a kernel without CONFIG_PROC_STACKINFO)"
fi

thread-sleeper 3 >/tmp/sleeper.out &
sleeper=$!
i=0
while ! grep -qs ready /tmp/sleeper.out && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done

check "-p: exit 0" [ "$(rc_of stackinfo -p $sleeper)" = 0 ]
check "-p: four threads" [ "$(grep -c "^ *[0-9]* *$sleeper " /tmp/cli.out)" = 4 ]
check "-p: three with a guard" [ "$(awk 'NR > 1 && $3 == "no" && $8 != "-"' /tmp/cli.out | wc -l)" = 3 ]
cp /tmp/cli.out /tmp/cli.default
tid=$(awk 'NR > 1 && $3 == "no" { print $1; exit }' /tmp/cli.out)
check "-t: exit 0" [ "$(rc_of stackinfo -t "$tid")" = 0 ]
check "-t: that thread" awk -v t="$tid" 'NR == 2 && $1 == t { ok = 1 } END { exit !ok }' /tmp/cli.out
check "-p -t: exit 0" [ "$(rc_of stackinfo -p $sleeper -t "$tid")" = 0 ]
check "-p 1 -t TID: not its thread" [ "$(rc_of stackinfo -p 1 -t "$tid")" = 1 ]

check "--json: exit 0" [ "$(rc_of stackinfo -p $sleeper --json)" = 0 ]
check "--json: four threads" [ "$(grep -o '"tid": ' /tmp/cli.out | wc -l)" = 4 ]
check "--json: shape" grep -q '^{"backend": "[a-z_]*", "threads": \[$' /tmp/cli.out
check "--json: closed" grep -q '^  \]}$' /tmp/cli.out
if [ -n "$quiet" ]; then
	check "--json: $quiet" [ "$(grep -c "\"backend\": \"$quiet\"" /tmp/cli.out)" = 5 ]
	check "$quiet: nothing said on stderr" [ ! -s /tmp/cli.err ]
else
	check "no module: says which backend" grep -q 'answered by the' /tmp/cli.err
fi

# the same stacks, whatever answers (columns TID..PERM and GUARD)
for b in proc module procmap_query maps; do
	rc=$(rc_of stackinfo -p $sleeper --backend $b)
	# the in-tree file where the kernel has none, the module when
	# unloaded, PROCMAP_QUERY before 6.11: said so, exit 4
	if [ "$rc" = 4 ] && grep -q 'not supported' /tmp/cli.err; then
		[ $b = proc ] && check "--backend proc: refused only without the file" [ $intree = 0 ]
		continue
	fi
	check "--backend $b: exit 0" [ "$rc" = 0 ]
	check "--backend $b: same stacks" [ "$(cut -c1-58 /tmp/cli.out)" = "$(cut -c1-58 /tmp/cli.default)" ]
done

check "no such process: exit 1" [ "$(rc_of stackinfo -p 999999)" = 1 ]
check "no such process: says so" grep -q 'No such process' /tmp/cli.err
check "bad option: exit 2" [ "$(rc_of stackinfo --bogus)" = 2 ]
check "bad pid: exit 2" [ "$(rc_of stackinfo -p abc)" = 2 ]
check "unknown backend: exit 2" [ "$(rc_of stackinfo --backend nope)" = 2 ]
check "no permission: exit 3" [ "$(rc_of su user -c "stackinfo -p $sleeper")" = 3 ]
check "no permission: says so" grep -q 'Permission denied' /tmp/cli.err

# an ordinary user on its own process: answered, SP included, by the
# module through the proof the command opens itself (Yama scope 0 here)
rm -f /tmp/usleeper.out	# a second run (without the module) must not read the first's
su user -c 'thread-sleeper 2 >/tmp/usleeper.out' &
i=0
# su and a start under KASAN on a busy host can take a while
while ! grep -qs ready /tmp/usleeper.out && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
usleeper=$(sed -n 's/^ready //p' /tmp/usleeper.out)
check "user's sleeper started" [ -n "$usleeper" ]
check "user, own process: exit 0" [ "$(rc_of su user -c "stackinfo -p $usleeper --json")" = 0 ]
check "user, own process: three threads" [ "$(grep -c '"tid"' /tmp/cli.out)" = 3 ]
if [ -n "$quiet" ]; then
	check "user, own process: by $quiet" [ "$(grep -c "\"backend\": \"$quiet\"" /tmp/cli.out)" -ge 4 ]
	check "user, own process: SPs" [ "$(grep -o '"sp": "0x' /tmp/cli.out | wc -l)" = 3 ]
fi
kill "$usleeper" 2>/dev/null

kill $sleeper
wait $sleeper 2>/dev/null
exit $fail
