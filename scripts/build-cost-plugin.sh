#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# build-cost-plugin.sh: build (once) the cost meter's QEMU plugin
# (tools/cost/plugin.c) against the plugin API of the qemu-system-x86 this
# machine has installed, taken from that very version's Debian source
# package, and print the plugin's path.
#
# The source (qemu, about 24 MB) comes through a private apt state with
# deb-src lines for this machine's release: the mirrors are the ones the
# machine's own apt configuration uses for that release (found at run
# time, never written down here), the system's apt setup is neither read
# for packages nor changed. dpkg-source unpacks it with Debian's patches;
# include/qemu/qemu-plugin.h and the example plugins (tests/plugin,
# contrib/plugins, for reading) are kept under
# $STACKINFO_CACHE/qemu-source-VERSION, the rest is deleted. The plugin is
# cached under $STACKINFO_CACHE/cost-plugin-KEY, KEY the installed QEMU's
# version and a hash of the plugin's sources: rebuilt only when one
# changes.
#
# With --source, print the kept source directory instead (fetching it if
# need be).
#
# Exit 3: the installed version's source cannot be had (no mirror in the
# apt configuration, or the mirror no longer carries that version: a newer
# qemu-system-x86 is out and this machine has not installed it); any other
# failure exits 1.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${STACKINFO_CACHE:-/var/cache/stackinfo}
mode=plugin
[ "${1:-}" != --source ] || mode=source

"$top/scripts/deps.sh" base cost >&2
binver=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null) || binver=
[ -n "$binver" ] || { echo "build-cost-plugin: qemu-system-x86 is not installed" >&2; exit 1; }
srcpkg=$(dpkg-query -W -f='${source:Package}' qemu-system-x86)
srcver=$(dpkg-query -W -f='${source:Version}' qemu-system-x86)
srcdir=$cache/qemu-source-${srcver#*:}
sources=("$top/tools/cost/plugin.c" "$top/tools/cost/marker.h")
key=$( { echo "$binver $srcver"; cat "${sources[@]}"; } | sha256sum | cut -c1-16)
out=$cache/cost-plugin-$key
so=$out/stackinfo-cost.so

mkdir -p "$cache"
exec 9>"$cache/cost-plugin.lock"
flock 9
if [ $mode = plugin ] && [ -e "$so" ]; then
	echo "$so"
	exit 0
fi

if [ ! -e "$srcdir/include/qemu/qemu-plugin.h" ]; then
	echo "build-cost-plugin: fetching $srcpkg $srcver's source" >&2
	start=$(date +%s)
	# shellcheck source=/dev/null
	. /etc/os-release
	rel=${VERSION_CODENAME:?}
	# every suite of this release the machine's apt reads (main, updates,
	# security), with its URI: the source may be in any of them
	suites() {
		# shellcheck disable=SC2016 # apt's own $(FIELD)s, not the shell's
		apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 2>/dev/null |
			awk -v rel="$rel" '$3 == "main" && ($2 == rel || index($2, rel "-") == 1) { print $1, $2 }' |
			sort -u
	}
	[ -n "$(suites)" ] || apt-get update -q >/dev/null 2>&1 || true
	[ -n "$(suites)" ] || { echo "build-cost-plugin: no Debian mirror in this machine's apt configuration" >&2; exit 3; }
	tmp=$(mktemp -d "$cache/qemu-source.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/apt/lists/partial" "$tmp/apt/cache/archives/partial" "$tmp/dl"
	suites | while read -r uri suite; do echo "deb-src $uri $suite main"; done >"$tmp/apt/sources.list"
	apt_opts=(-o "Dir::Etc::sourcelist=$tmp/apt/sources.list"
		-o Dir::Etc::sourceparts=/dev/null
		-o "Dir::State::Lists=$tmp/apt/lists"
		-o "Dir::Cache=$tmp/apt/cache"
		-o "Dir::State::status=/dev/null")
	log=$tmp/log
	if ! apt-get "${apt_opts[@]}" update >"$log" 2>&1 ||
		! (cd "$tmp/dl" && apt-get "${apt_opts[@]}" source --download-only "$srcpkg=$srcver") >>"$log" 2>&1; then
		tail -n 20 "$log" >&2
		echo "build-cost-plugin: cannot fetch $srcpkg $srcver's source" >&2
		exit 3
	fi
	dsc=$(ls "$tmp"/dl/*.dsc)
	if ! dpkg-source -x "$dsc" "$tmp/src" >>"$log" 2>&1; then
		tail -n 20 "$log" >&2
		echo "build-cost-plugin: dpkg-source -x failed" >&2
		exit 1
	fi
	rm -rf "$srcdir.tmp" "$srcdir"
	mkdir -p "$srcdir.tmp/include/qemu" "$srcdir.tmp/tests/plugin" "$srcdir.tmp/contrib/plugins"
	cp "$tmp/src/include/qemu/qemu-plugin.h" "$srcdir.tmp/include/qemu/"
	cp "$tmp"/src/tests/plugin/*.c "$srcdir.tmp/tests/plugin/"
	cp "$tmp"/src/contrib/plugins/*.c "$srcdir.tmp/contrib/plugins/"
	cp "$tmp/src/COPYING" "$srcdir.tmp/"
	echo "$srcver" >"$srcdir.tmp/version"
	mv "$srcdir.tmp" "$srcdir"
	rm -rf "$tmp"
	trap - EXIT
	echo "build-cost-plugin: source fetched and unpacked in $(( $(date +%s) - start )) s" >&2
fi
if [ $mode = source ]; then
	echo "$srcdir"
	exit 0
fi

rm -rf "$out.tmp"
mkdir -p "$out.tmp"
${CC:-cc} -Wall -Wextra -Werror -O2 -g -fPIC -shared -fvisibility=hidden \
	-I"$srcdir/include/qemu" -I"$top/tools/cost" \
	-o "$out.tmp/stackinfo-cost.so" "$top/tools/cost/plugin.c" -lpthread
echo "$binver $srcver" >"$out.tmp/qemu-version"
rm -rf "$out"
mv "$out.tmp" "$out"
echo "$so"
