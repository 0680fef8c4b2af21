#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The Debian packages, as README tells an administrator to use them:
# make deb builds them, lintian-clean; apt installs them on this host, and
# DKMS builds the module for Debian's 6.12 and 6.1 headers; a program built
# with `pkg-config libstackinfo` against libstackinfo-dev runs, and
# dpkg-shlibdeps gives it a dependency on libstackinfo0; in a 6.12 guest
# the DKMS-built module loads and the installed CLI, library and interposer
# answer through it; python3-stackinfo's module, run by Debian's python3
# from the installed tree, prints what the installed CLI's --json prints
# and gdb loads its info stackinfo from gdb's data directory; purge leaves
# none of the packages' files, no module and no DKMS entry. The packages
# are purged whatever happens.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/kernels.sh"
"$top/scripts/deps.sh" deb base lts python >/dev/null || exit 1
pkgs=(stackinfo-dkms libstackinfo0 libstackinfo-dev stackinfo python3-stackinfo)
ver=$(cd "$top" && dpkg-parsechangelog -SVersion)
upstream=${ver%-*}
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
export DEBIAN_FRONTEND=noninteractive
apt_get() { apt-get -q -y -o DPkg::Lock::Timeout=300 "$@"; }

# DKMS and /usr/src are the machine's: one test at a time touches them
# (dkms_build.sh takes the same lock)
exec 8>/run/lock/stackinfo-dkms.lock
flock -w 600 8 || { echo "FAIL: DKMS lock busy for 10 minutes"; exit 1; }
for p in "${pkgs[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
	if [ -n "$st" ] && [ "$st" != not-installed ]; then
		echo "SKIP: $p is installed ($st) on this machine; this test would purge it"
		exit 77
	fi
done
if [ -n "$(dkms status -m stackinfo 2>/dev/null)" ] || [ -e "/usr/src/stackinfo-$upstream" ]; then
	echo "SKIP: stackinfo is registered with DKMS outside the packages (make dkms-uninstall)"
	exit 77
fi

work=$(mktemp -d)
fail=0
say() { echo "FAIL: $*"; fail=1; }
purge() {
	local installed=()
	for p in "${pkgs[@]}"; do
		dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qv '^not-installed$' &&
			installed+=("$p")
	done
	[ ${#installed[@]} -eq 0 ] && return 0
	apt_get purge "${installed[@]}" >>"$work/purge.log" 2>&1 ||
		dpkg --purge "${installed[@]}" >>"$work/purge.log" 2>&1
}
cleanup() {
	purge || { echo "FAIL: purge"; cat "$work/purge.log"; }
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# build, and lintian on every package (overrides carry their reasons)
start=$(date +%s)
lap() { echo "$1: $(( $(date +%s) - start )) s"; start=$(date +%s); }
if ! make -s -C "$top" deb >"$work/deb.log" 2>&1; then
	cat "$work/deb.log"
	echo "FAIL: make deb"
	exit 1
fi
lap "make deb"
debs=()
for p in "${pkgs[@]}"; do
	f=$(ls "$top"/build/deb/"$p"_"$ver"_*.deb 2>/dev/null)
	[ -f "$f" ] || { echo "FAIL: make deb made no $p"; exit 1; }
	debs+=("$f")
done
lintian --fail-on error,warning,info -I "$top"/build/deb/stackinfo_"$ver"_*.changes \
	>"$work/lintian.log" 2>&1 || say "lintian"
out=$(grep -v '^running with root privileges' "$work/lintian.log")
[ -z "$out" ] || { echo "lintian says:"; echo "$out"; }
lap lintian

# install as README says; DKMS builds for every kernel with headers
if ! apt_get install --no-install-recommends "${debs[@]}" >"$work/install.log" 2>&1; then
	cat "$work/install.log"
	echo "FAIL: apt-get install"
	exit 1
fi
st=$(dkms status -m stackinfo -v "$upstream" 2>/dev/null)
for k in debian-6.12 debian-6.1; do
	kernel_find "$k" || { say "$k: kernel or headers not installed"; continue; }
	grep -qF "$KVER, $(uname -m): installed" <<<"$st" || say "$k: dkms status: $st"
	ko=$(ls /lib/modules/"$KVER"/updates/dkms/stackinfo.ko* 2>/dev/null | head -n 1)
	[ -n "$ko" ] || { say "$k: no /lib/modules/$KVER/updates/dkms/stackinfo.ko*"; cat "$work/install.log"; continue; }
	grep -q "updates/dkms/stackinfo.ko" "/lib/modules/$KVER/modules.dep" || say "$k: depmod does not know it"
	[ "$k" = debian-6.12 ] && { ko612=$ko; kver612=$KVER; }
done
lap "apt-get install (DKMS builds)"

# a user's program, through pkg-config, against the installed -dev package
cat >"$work/prog.c" <<'PROG'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <libstackinfo.h>
int main(void)
{
	struct stackinfo_query q;
	int b = stackinfo_backend(), err = stackinfo_query_thread(0, 0, &q);
	Dl_info dl;

	if (!dladdr((void *)stackinfo_backend, &dl))
		return 1;
	printf("%s %d %d %s\n", stackinfo_backend_name(b), err,
	       !!(q.valid & STACKINFO_VALID_MAIN_VMA), dl.dli_fname);
	return b < 0 || err;
}
PROG
# (/lib is /usr/lib on a merged-/usr system; ld.so may name either)
lib="(/usr)?/lib/$multiarch/libstackinfo.so.0"
# shellcheck disable=SC2086
if flags=$(pkg-config --cflags --libs libstackinfo) &&
	cc -Wall -Werror -o "$work/prog" "$work/prog.c" $flags; then
	out=$("$work/prog") || say "program failed: $out"
	grep -qE "^(procmap_query|maps) 0 1 $lib\$" <<<"$out" || say "program said: $out"
	mkdir -p "$work/shlibs/debian"
	printf 'Source: user\n\nPackage: user\nArchitecture: any\n' >"$work/shlibs/debian/control"
	# the version the symbols file gives the newest symbol a program uses
	since() { awk -v s="$1@" 'index($1, s) == 1 { print $2 }' "$top/debian/libstackinfo0.symbols"; }
	# the header's stackinfo_query_thread() calls the _sz function of
	# STACKINFO_0.3, which needs the release that added it
	deps=$(cd "$work/shlibs" && dpkg-shlibdeps -O "$work/prog" 2>&1)
	grep -q "libstackinfo0 (>= $(since stackinfo_query_thread_sz))" <<<"$deps" ||
		say "dpkg-shlibdeps: $deps"
	# one calling only what 0.1.0 had runs on 0.1.0
	cat >"$work/prog2.c" <<'PROG'
#include <stdio.h>
#include <libstackinfo.h>
int main(void)
{
	void *addr;
	size_t size;
	int err = stackinfo_main_stack(&addr, &size);

	printf("%d %p %zu\n", err, addr, size);
	return err != 0;
}
PROG
	# shellcheck disable=SC2086
	if cc -Wall -Werror -o "$work/prog2" "$work/prog2.c" $flags; then
		out=$("$work/prog2") || say "0.1.0's call said: $out"
		deps=$(cd "$work/shlibs" && dpkg-shlibdeps -O "$work/prog2" 2>&1)
		grep -q "libstackinfo0 (>= $(since stackinfo_main_stack))" <<<"$deps" ||
			say "dpkg-shlibdeps, STACKINFO_0.1 alone: $deps"
	else
		say "build the program of 0.1.0's call with pkg-config ($flags)"
	fi
else
	say "build with pkg-config ($flags)"
fi

# python3-stackinfo, installed: from / (no checkout on the path), the
# installed library answers it as the installed CLI does
"$top/build/bin/thread-sleeper" 2 >"$work/sleeper.out" &
sleeper=$!
for _ in $(seq 100); do grep -qs ready "$work/sleeper.out" && break; sleep 0.1; done
cli=$(cd / && env -u LD_LIBRARY_PATH /usr/bin/stackinfo -p $sleeper --json 2>&1)
py=$(cd / && env -u PYTHONPATH -u LD_LIBRARY_PATH /usr/bin/python3 -m stackinfo -p $sleeper 2>&1)
[ -n "$cli" ] && [ "$cli" = "$py" ] || say "python3 -m stackinfo: $py; the CLI: $cli"
where=$(cd / && env -u PYTHONPATH -u LD_LIBRARY_PATH /usr/bin/python3 -c 'import stackinfo; print(stackinfo.__file__)' 2>&1)
[ "$where" = /usr/lib/python3/dist-packages/stackinfo/__init__.py ] || say "python3 imports stackinfo from $where"
help=$(cd / && env -u PYTHONPATH -u LD_LIBRARY_PATH gdb -batch -ex 'help info stackinfo' 2>&1)
grep -q 'Stack bounds' <<<"$help" || say "gdb did not load info stackinfo: $help"
kill $sleeper 2>/dev/null
wait $sleeper 2>/dev/null

# a guest of the build's own tree, laid out while the packages are
# installed here, as make check's other guests may be: the build's library
# is the only one in it, and the one its CLI and Python package load
# (before vm-run resolved the build's ELFs in the guest's /usr/lib, the
# installed library came in under /lib/$multiarch and was loaded first)
want="/usr/lib/libstackinfo.so.0 /usr/lib/libstackinfo.so.$upstream#stackinfo $upstream#stackinfo $upstream"
out=$("$top/tools/testing/vm-run" --kernel debian-6.12 --no-module --timeout 300 -- sh -c '
	echo "libs: $(find / -xdev -name "libstackinfo.so*" | sort | tr "\n" " ")"
	echo "cli: $(stackinfo -V)"; echo "python: $(python3 -m stackinfo -V)"' 2>&1)
got="$(sed -n 's/^libs: \(.*\) $/\1/p' <<<"$out")#$(sed -n 's/^cli: //p' <<<"$out")#$(sed -n 's/^python: //p' <<<"$out")"
[ "$got" = "$want" ] || { echo "$out"; say "the build's guest beside the installed packages: $got, not $want"; }
lap "the build's guest"

# in a 6.12 guest: the DKMS-built module, the installed CLI, library and
# interposer (vm-run copies each --file and the libraries it loads, from
# the paths they have here)
if [ -n "${ko612:-}" ]; then
	case $ko612 in
	*.xz) xz -dc "$ko612" >"$work/stackinfo.ko" ;;
	*) cp "$ko612" "$work/stackinfo.ko" ;;
	esac
	cat >"$work/guest.sh" <<GUEST
fail=0
insmod /extra/stackinfo.ko || { echo "FAIL: insmod of DKMS's module"; exit 1; }
grep -q '^stackinfo ' /proc/modules || fail=1
[ "\$(uname -r)" = "$kver612" ] || { echo "FAIL: guest runs \$(uname -r)"; fail=1; }
/extra/stackinfo >/tmp/out 2>/tmp/err || { echo "FAIL: stackinfo"; fail=1; }
[ -s /tmp/err ] && { echo "FAIL: stackinfo said on stderr:"; cat /tmp/err; fail=1; }
/extra/stackinfo --json | grep -q '^{"backend": "module"' || { echo "FAIL: CLI not on the module"; fail=1; }
out=\$(/extra/prog)
echo "\$out" | grep -qE '^module 0 1 $lib\$' || { echo "FAIL: program said: \$out"; fail=1; }
# the installed interposer answers; with no fd left it fails as glibc
# does (it keeps no fd of its own: EMFILE, error 24)
pre=\$(LD_PRELOAD=/extra/libstackinfo-preload.so getattr-print --no-new-fds 1 2>&1)
main=\$(echo "\$pre" | sed -n 's/^main: //p')
again=\$(echo "\$pre" | sed -n 's/^again: //p')
[ -n "\$main" ] && [ "\$again" = "error 24" ] || { echo "FAIL: interposer said: \$pre"; fail=1; }
exit \$fail
GUEST
	if ! out=$("$top/tools/testing/vm-run" --kernel debian-6.12 --no-module --timeout 300 \
		--file "$work/stackinfo.ko" --file /usr/bin/stackinfo --file "$work/prog" \
		--file "/usr/lib/$multiarch/stackinfo/libstackinfo-preload.so" \
		--file "$work/guest.sh" -- sh /extra/guest.sh 2>&1); then
		echo "$out"
		say "guest"
	fi
fi

lap "pkg-config program, guest"

# purge: none of the packages' files, nor DKMS's, are left
for p in "${pkgs[@]}"; do
	dpkg -L "$p" | while IFS= read -r f; do
		[ -d "$f" ] || echo "$f"
	done
done >"$work/files"
ls -d /lib/modules/*/updates/dkms/stackinfo.ko* /var/lib/dkms/stackinfo >>"$work/files" 2>/dev/null
[ "$(wc -l <"$work/files")" -gt 20 ] || say "dpkg -L listed only $(wc -l <"$work/files") files"
purge || { say "purge"; cat "$work/purge.log"; }
lap "purge ($(wc -l <"$work/files") files checked)"
for p in "${pkgs[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
	[ -z "$st" ] || [ "$st" = not-installed ] || say "$p still $st after purge"
done
while IFS= read -r f; do
	[ -e "$f" ] || [ -L "$f" ] && say "left after purge: $f"
done <"$work/files"
[ -e "/usr/src/stackinfo-$upstream" ] && say "left after purge: /usr/src/stackinfo-$upstream"
st=$(dkms status -m stackinfo 2>/dev/null)
[ -z "$st" ] || say "DKMS still has: $st"
grep -ls 'stackinfo' /lib/modules/*/modules.dep && say "modules.dep still names stackinfo"
ldconfig -p | grep -q libstackinfo && say "ld.so.cache still has libstackinfo"
exit $fail
