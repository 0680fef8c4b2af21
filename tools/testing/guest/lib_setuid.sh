#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The interposer in /etc/ld.so.preload runs inside setuid programs too. An
# ordinary user running a setuid-root program with STACKINFO_PRELOAD_STATS
# naming a root-owned place must not make it create or append to anything
# there (glibc's AT_SECURE: the variable is ignored); and in the user's own
# programs the statistics file is never reached through a symlink. The
# interposer still answers there (checked against a run without it).
. "$(dirname "$0")/../testlib.sh"
pre=/usr/lib/libstackinfo-preload.so
[ -e /etc/ld.so.preload ] && { echo "an /etc/ld.so.preload is there already"; exit 1; }
suid=/tmp/suid-getattr-print
cp /usr/bin/getattr-print $suid
chown root:root $suid
chmod 4755 $suid
new=/root/stats.new		# /root is root's, 0700: the user cannot create there
old=/root/stats.old
rm -f $new
echo "root's line" >$old
chmod 644 $old
ulink=/tmp/stats.link utarget=/tmp/stats.target
rm -f $ulink $utarget

trap 'rm -f /etc/ld.so.preload' EXIT
echo $pre >/etc/ld.so.preload

su user -c "STACKINFO_PRELOAD_STATS=$new $suid" >/tmp/suid.out 2>&1
check "setuid run works" grep -q '^main: stack' /tmp/suid.out
check "setuid: $new not created" [ ! -e $new ]
su user -c "STACKINFO_PRELOAD_STATS=$old $suid" >/dev/null 2>&1
check "setuid: $old not appended to" [ "$(cat $old)" = "root's line" ]
su user -c "STACKINFO_PRELOAD_STATS=1 $suid" >/tmp/suid.out 2>&1
check "setuid: nothing on stderr either" [ -z "$(grep stackinfo-preload /tmp/suid.out)" ]

# the user's own program: statistics wanted, but not through a symlink
su user -c "echo user >$utarget && ln -s $utarget $ulink"
su user -c "STACKINFO_PRELOAD_STATS=$ulink getattr-print" >/dev/null 2>&1
check "own program: not written through a symlink" [ "$(cat $utarget)" = user ]
su user -c "STACKINFO_PRELOAD_STATS=1 getattr-print" >/tmp/suid.out 2>&1
check "own program: the interposer is there (statistics on stderr)" \
	grep -q '^stackinfo-preload: pid' /tmp/suid.out
rm -f /etc/ld.so.preload $suid $old $ulink $utarget
exit $fail
