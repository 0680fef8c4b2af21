#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# /proc mounted with hidepid=2 (invisible): an ordinary user still sees its
# own processes, and `stackinfo -p` on its own other process must answer
# as the kernel's /proc/<pid>/maps shows it to that user (whatever the
# module's policy says; the library falls back to what /proc grants), and
# on root's process say no such process (exit 1), as /proc does.
. "$(dirname "$0")/../testlib.sh"
rc_of() { "$@" >/tmp/hp.out 2>/tmp/hp.err; echo $?; }

thread-sleeper 1 >/tmp/hp.root &
rootpid=$!
rm -f /tmp/hp.user
su user -c 'thread-sleeper 2 >/tmp/hp.user' &
i=0
while ! grep -qs ready /tmp/hp.user && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
upid=$(sed -n 's/^ready //p' /tmp/hp.user)
check "user's sleeper started" [ -n "$upid" ]

trap 'mount -o remount,hidepid=0 /proc' EXIT
mount -o remount,hidepid=2 /proc || { echo "no hidepid here"; exit 77; }

check "user, own process under hidepid: exit 0" \
	[ "$(rc_of su user -c "stackinfo -p $upid")" = 0 ]
cat /tmp/hp.err
check "user, own process: three threads" [ "$(grep -c "^ *[0-9]* *$upid " /tmp/hp.out)" = 3 ]
# the main thread's stack, as the user's own read of maps shows it
stack=$(awk 'NR > 1 && $3 == "yes" { print $4 }' /tmp/hp.out)
su user -c "cat /proc/$upid/maps" >/tmp/hp.maps
check "user, own process: main stack $stack is a line of its maps" \
	grep -q "^$stack " /tmp/hp.maps
check "user, root's process: hidden, exit 1" \
	[ "$(rc_of su user -c "stackinfo -p $rootpid")" = 1 ]
kill "$upid" $rootpid 2>/dev/null
exit $fail
