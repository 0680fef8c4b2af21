#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# build-debug-kernel.sh: build (once) the 6.12 debug kernel for KUnit, KASAN
# and lockdep from Debian's linux-source-6.12 and kunit/debug.config, and
# print the build tree's path. The tree is cached outside the checkout under
# $STACKINFO_CACHE (default /var/cache/stackinfo), keyed by the fragment and
# the source package's version; it is rebuilt only when either changes.
# With --built, only print the path, and exit 1 if it is not built yet.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
frag=$top/kunit/debug.config
cache=${STACKINFO_CACHE:-/var/cache/stackinfo}

tree_path() {
	local srcver key
	srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) || return 1
	key=$( { echo "$srcver"; cat "$frag"; } | sha256sum | cut -c1-16)
	echo "$cache/debug-$key"
}

if [ "${1:-}" = --built ]; then
	tree=$(tree_path) && [ -e "$tree/.stackinfo-built" ] && echo "$tree"
	exit
fi

"$top/scripts/deps.sh" base debug >&2
tarball=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n 1)
[ -n "$tarball" ] || { echo "build-debug-kernel: no linux-source-6.12 tarball" >&2; exit 1; }
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
tree=$(tree_path)
mkdir -p "$cache"

exec 8>"$cache/debug.lock"
flock 8
if [ -e "$tree/.stackinfo-built" ]; then
	echo "$tree"
	exit 0
fi

echo "build-debug-kernel: building $srcver with kunit/debug.config in $tree (a few minutes)" >&2
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

# every line of the fragment must have survived olddefconfig
missing=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) grep -qx -- "$line" "$tree.tmp/.config" || { echo "build-debug-kernel: not set: $line" >&2; missing=1; } ;;
	"# CONFIG_"*" is not set") grep -qx -- "$line" "$tree.tmp/.config" || { echo "build-debug-kernel: not unset: $line" >&2; missing=1; } ;;
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
