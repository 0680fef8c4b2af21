#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# build-debug-kernel.sh [--built] VERSION: build (once) a debug kernel for
# KUnit, KASAN and lockdep from kunit/debug.config and print its build
# tree's path. VERSION is one of
#   6.1    Debian 12's linux-source-6.1
#   6.12   Debian 12's linux-source-6.12
#   7.2    Debian unstable's linux-source-7.2 (scripts/fetch-sid-source.sh;
#          fetched once and kept: delete $STACKINFO_CACHE/sid-linux-source-7.2
#          to take a newer one)
# Trees are cached outside the checkout under $STACKINFO_CACHE (default
# /var/cache/stackinfo), each keyed by VERSION, the source package's version
# and the fragment; a tree is rebuilt only when one of them changes.
# With --built, only print the path, and exit 1 if it is not built yet.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
frag=$top/kunit/debug.config
cache=${STACKINFO_CACHE:-/var/cache/stackinfo}

built_only=0
if [ "${1:-}" = --built ]; then
	built_only=1
	shift
fi
version=${1:?usage: build-debug-kernel.sh [--built] 6.1|6.12|7.2}
case $version in
6.1 | 6.12 | 7.2) ;;
*) echo "build-debug-kernel: unknown version '$version' (known: 6.1 6.12 7.2)" >&2; exit 2 ;;
esac
pkg=linux-source-$version
sid=$cache/sid-$pkg

# srcver: the source package's version, empty when it is not there yet
srcver() {
	if [ "$version" = 7.2 ]; then
		cat "$sid/version" 2>/dev/null || true
	else
		dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true
	fi
}

tree_path() {	# SRCVER
	local key
	key=$( { echo "$version $1"; cat "$frag"; } | sha256sum | cut -c1-16)
	echo "$cache/debug-$version-$key"
}

if [ $built_only = 1 ]; then
	v=$(srcver)
	[ -n "$v" ] || exit 1
	tree=$(tree_path "$v")
	[ -e "$tree/.stackinfo-built" ] || exit 1
	echo "$tree"
	exit 0
fi

"$top/scripts/deps.sh" base debug >&2
mkdir -p "$cache"
exec 8>"$cache/debug-$version.lock"
flock 8

if [ "$version" = 7.2 ]; then
	if [ ! -s "$sid/version" ]; then
		echo "build-debug-kernel: fetching $pkg from Debian unstable" >&2
		rm -rf "$sid.tmp"
		mkdir -p "$sid.tmp"
		"$top/scripts/fetch-sid-source.sh" "$pkg" "$sid.tmp" >"$sid.tmp/version"
		rm -rf "$sid.tmp/apt" "$sid.tmp/deb" "$sid"
		mv "$sid.tmp" "$sid"
	fi
	tarball=$(ls "$sid/root/usr/src/$pkg.tar."* 2>/dev/null | head -n 1)
else
	tarball=$(ls "/usr/src/$pkg.tar."* 2>/dev/null | head -n 1)
fi
[ -n "$tarball" ] || { echo "build-debug-kernel: no $pkg tarball" >&2; exit 1; }
srcver=$(srcver)
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
(
	cd "$tree.tmp"
	make tinyconfig
	scripts/kconfig/merge_config.sh -m .config "$frag"
	make olddefconfig
) >"$log" 2>&1 || { tail -n 30 "$log" >&2; exit 1; }

# Every line of the fragment must have survived olddefconfig. "is not set"
# holds where the option is off, also where this version lacks the symbol
# (6.1 has no SLUB_TINY).
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
done <"$frag"
[ $missing = 0 ] || exit 1

# `modules` writes Module.symvers, which out-of-tree modules need
if ! make -C "$tree.tmp" -j"$(nproc)" bzImage modules >>"$log" 2>&1; then
	tail -n 30 "$log" >&2
	exit 1
fi
mv "$tree.tmp" "$tree"
touch "$tree/.stackinfo-built"
echo "build-debug-kernel: built in $(( $(date +%s) - start )) s" >&2
echo "$tree"
