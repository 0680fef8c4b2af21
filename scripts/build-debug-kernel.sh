#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# build-debug-kernel.sh [--built|--source] VERSION: build (once) a debug
# kernel for KUnit, KASAN and lockdep from kunit/debug.config (with
# kunit/debug-VERSION.config where there is one; and, where
# the in-tree series is written for VERSION, with it applied and
# kunit/debug-intree.config) and print its build tree's path. VERSION is
# one of
#   6.1    Debian 12's linux-source-6.1
#   6.12   Debian 12's linux-source-6.12
#   7.2    Debian unstable's linux-source-7.2 (scripts/fetch-debian.sh;
#          fetched once and kept: delete $STACKINFO_CACHE/sid-linux-source-7.2
#          to take a newer one)
#   5.10   Debian 11's linux-source-5.10 (bullseye, fetched the same way into
#          $STACKINFO_CACHE/bullseye-linux-source-5.10)
#   7.2-rt the same with PREEMPT_RT (kunit/debug-rt.config)
#   6.12-arm64  linux-source-6.12 cross-built for arm64 with clang (ARCH=arm64
#          LLVM=1; kunit/debug-arm64.config),
#          without the in-tree series; the image is arch/arm64/boot/Image
# Every kernel merges its architecture's fragment (kunit/debug-x86.config,
# kunit/debug-arm64.config) after the version's.
# Trees are cached outside the checkout under $STACKINFO_CACHE (default
# /var/cache/stackinfo), each keyed by VERSION, the source package's version
# and the fragment; a tree is rebuilt only when one of them changes.
# With --built, only print the path, and exit 1 if it is not built yet;
# with --source, fetch the source if need be and print "SRCVER TARBALL".
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
frag=$top/kunit/debug.config
cache=${STACKINFO_CACHE:-/var/cache/stackinfo}

mode=build
case ${1:-} in
--built) mode=built; shift ;;
--source) mode=source; shift ;;
esac
version=${1:?usage: build-debug-kernel.sh [--built|--source] 6.1|6.12|7.2|7.2-rt|5.10}
case $version in
6.1 | 6.12 | 7.2 | 7.2-rt | 6.12-arm64 | 5.10) ;;
*) echo "build-debug-kernel: unknown version '$version' (known: 6.1 6.12 7.2 7.2-rt 6.12-arm64 5.10)" >&2; exit 2 ;;
esac
# VERSION-arm64: VERSION's source and fragments, kunit/debug-arm64.config,
# cross-built with clang; make's ARCH and LLVM and the image it builds
arch=x86 arch_make=() image=bzImage
case $version in
*-arm64)
	arch=arm64
	arch_make=(ARCH=arm64 LLVM=1)
	image=Image
	version_base=${version%-arm64} ;;
*) version_base=$version ;;
esac
frag_arch=$top/kunit/debug-$arch.config
# VERSION-rt: VERSION's source and fragments, and kunit/debug-rt.config
base=${version_base%-rt}
frag_rt=
[ "$base" = "$version_base" ] || frag_rt=$top/kunit/debug-rt.config
pkg=linux-source-$base
# the sources that are not the machine's own release's: another suite's,
# fetched with a private apt state and kept under $cache/SUITE-PACKAGE
case $base in
7.2) suite=sid ;;
5.10) suite=bullseye ;;
*) suite= ;;
esac
fetched=$cache/$suite-$pkg

# srcver: the source package's version, empty when it is not there yet
srcver() {
	if [ -n "$suite" ]; then
		cat "$fetched/version" 2>/dev/null || true
	else
		dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true
	fi
}

# The in-tree series (kernel/patches/VERSION, scripts/gen-series.sh) goes
# into the kernels of the bases it is written for, with
# kunit/debug-intree.config; the other kernels stay as Debian ships them.
# Only the patches that change the kernel itself are applied (and keyed):
# one that touches nothing but tools/ and MAINTAINERS (the selftest's)
# changes nothing the build reads, and rebuilds nothing when it changes.
series=$top/kernel/patches/$base
frag_intree=$top/kunit/debug-intree.config
kernel_patches() {
	local p
	[ -d "$series" ] || return 0
	# not (yet) into the arm64 kernel: its key then does not change with
	# the module's sources, and the module is what runs there
	[ $arch = x86 ] || return 0
	for p in "$series"/0*.patch; do
		case ${p##*/} in 0000-*) continue ;; esac
		grep '^diff --git a/' "$p" | grep -qvE '^diff --git a/(tools/|MAINTAINERS )' && echo "$p"
	done
	return 0
}
# kunit/debug-VERSION.config, where there is one: what only that version
# has (the buddy hard-lockup detector is 6.6's)
frag_version=$top/kunit/debug-$base.config
fragments() {
	echo "$frag"
	[ ! -e "$frag_version" ] || echo "$frag_version"
	[ -z "$(kernel_patches)" ] || echo "$frag_intree"
	[ -z "$frag_rt" ] || echo "$frag_rt"
	echo "$frag_arch"
}

tree_path() {	# SRCVER
	local key
	key=$( { echo "$version $1"; cat $(fragments) $(kernel_patches); } |
		sha256sum | cut -c1-16)
	echo "$cache/debug-$version-$key"
}

if [ $mode = built ]; then
	v=$(srcver)
	[ -n "$v" ] || exit 1
	tree=$(tree_path "$v")
	[ -e "$tree/.stackinfo-built" ] || exit 1
	echo "$tree"
	exit 0
fi

"$top/scripts/deps.sh" base debug >&2
[ $arch = x86 ] || "$top/scripts/deps.sh" arm64 >&2
mkdir -p "$cache"
# one lock for the source (a fetch), another for the build: gen-series.sh
# takes the source while a kernel of that version builds
exec 9>"$cache/source-$base.lock"
flock 9
if [ -n "$suite" ]; then
	if [ ! -s "$fetched/version" ]; then
		echo "build-debug-kernel: fetching $pkg from Debian's $suite" >&2
		rm -rf "$fetched.tmp"
		mkdir -p "$fetched.tmp"
		"$top/scripts/fetch-debian.sh" --suite "$suite" "$pkg" "$fetched.tmp" >"$fetched.tmp/version"
		rm -rf "$fetched.tmp/apt" "$fetched.tmp/deb" "$fetched"
		mv "$fetched.tmp" "$fetched"
	fi
	tarball=$(ls "$fetched/root/usr/src/$pkg.tar."* 2>/dev/null | head -n 1)
else
	tarball=$(ls "/usr/src/$pkg.tar."* 2>/dev/null | head -n 1)
fi
[ -n "$tarball" ] || { echo "build-debug-kernel: no $pkg tarball" >&2; exit 1; }
srcver=$(srcver)
exec 9>&-
if [ $mode = source ]; then
	echo "$srcver $tarball"
	exit 0
fi
exec 8>"$cache/debug-$version.lock"
flock 8
tree=$(tree_path "$srcver")
if [ -e "$tree/.stackinfo-built" ]; then
	echo "$tree"
	exit 0
fi

echo "build-debug-kernel: building $pkg $srcver with kunit/debug.config in $tree (a few minutes)" >&2
start=$(date +%s)
rm -rf "$tree" "$tree.tmp"
mkdir -p "$tree.tmp"
tar -xf "$tarball" -C "$tree.tmp" --strip-components=1
log=$tree.tmp/stackinfo-build.log
for p in $(kernel_patches); do
	patch -d "$tree.tmp" -p1 --forward --quiet <"$p" >>"$log" 2>&1 ||
		{ echo "build-debug-kernel: ${p#$top/} does not apply:" >&2; tail -n 20 "$log" >&2; exit 1; }
done
(
	cd "$tree.tmp"
	make "${arch_make[@]}" tinyconfig
	scripts/kconfig/merge_config.sh -m .config $(fragments)
	make "${arch_make[@]}" olddefconfig
) >"$log" 2>&1 || { tail -n 30 "$log" >&2; exit 1; }

# Every line of the fragments must have survived olddefconfig, the last
# fragment's line for an option where two name it (merge_config's rule:
# debug-rt.config turns KASAN off). "is not set" holds where the option is
# off, also where this version lacks the symbol (6.1 has no SLUB_TINY).
missing=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qx -- "$line" "$tree.tmp/.config" ||
			{ echo "build-debug-kernel: not set: $line" >&2; missing=1; } ;;
	"# CONFIG_"*" is not set")
		sym=${line#\# }
		sym=${sym%% *}
		! grep -q -- "^$sym=" "$tree.tmp/.config" ||
			{ echo "build-debug-kernel: not unset: $line" >&2; missing=1; } ;;
	esac
done < <(cat $(fragments) | awk '
	/^CONFIG_[A-Za-z0-9_]+=/ { sym = $0; sub(/=.*/, "", sym) }
	/^# CONFIG_[A-Za-z0-9_]+ is not set$/ { sym = $2 }
	sym != "" { if (!(sym in line)) order[++n] = sym; line[sym] = $0; sym = "" }
	END { for (i = 1; i <= n; i++) print line[order[i]] }')
[ $missing = 0 ] || exit 1

# `modules` writes Module.symvers, which out-of-tree modules need
if ! make -C "$tree.tmp" -j"$(nproc)" "${arch_make[@]}" "$image" modules >>"$log" 2>&1; then
	tail -n 30 "$log" >&2
	exit 1
fi
mv "$tree.tmp" "$tree"
touch "$tree/.stackinfo-built"
echo "build-debug-kernel: built in $(( $(date +%s) - start )) s" >&2
echo "$tree"
