#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# fetch-debian.sh [--suite SUITE] [--arch ARCH] [--field F] PACKAGE... DIR:
# fetch Debian packages of a suite (default unstable, "sid") and unpack
# them all under DIR/root; print the first package's version. For another
# suite than the machine's own, the mirror is the one this machine's own
# apt configuration already uses for its release (found at run time, never
# written down here), and apt runs with a private sources list, state and
# cache under DIR, so the system's apt setup is neither read for packages
# nor changed; for the machine's own release (its security and updates
# suites included) its apt lists are read as they are. Nothing is
# installed: the .debs are only unpacked (dpkg -x).
# With --field F, print field F (Version, Depends, ...) of the newest
# version the suite has of the first package, and fetch nothing.
set -euo pipefail

suite=sid arch=amd64 field=
while [ $# -gt 0 ]; do
	case $1 in
	--suite) suite=${2:?}; shift 2 ;;
	--arch) arch=${2:?}; shift 2 ;;
	--field) field=${2:?}; shift 2 ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || { echo "usage: fetch-debian.sh [--suite SUITE] [--arch ARCH] [--field F] PACKAGE... DIR" >&2; exit 2; }
dir=${*: -1}
pkgs=("${@:1:$#-1}")

# shellcheck source=/dev/null
. /etc/os-release
mirror() {
	apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 2>/dev/null |
		awk -v rel="${VERSION_CODENAME:-}" '$2 == rel && $3 == "main" { print $1; exit }'
}
uri=$(mirror)
if [ -z "$uri" ]; then
	# apt has no lists yet (a fresh machine): read them once
	apt-get update -q >/dev/null 2>&1 || true
	uri=$(mirror)
fi
[ -n "$uri" ] || { echo "fetch-debian: no Debian mirror in this machine's apt configuration" >&2; exit 1; }

mkdir -p "$dir/deb"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if [ "$suite" = "${VERSION_CODENAME:-}" ] && [ "$arch" = "$(dpkg --print-architecture)" ]; then
	# the machine's own release, with its updates and security suites:
	# its own apt lists say where each package is (read, not changed)
	apt_opts=()
else
	state=$dir/apt
	mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
	echo "deb $uri $suite main" >"$state/sources.list"
	apt_opts=(-o "Dir::Etc::sourcelist=$state/sources.list"
		-o Dir::Etc::sourceparts=/dev/null
		-o "Dir::State::Lists=$state/lists"
		-o "Dir::Cache=$state/cache"
		-o "Dir::State::status=/dev/null"
		-o "APT::Architecture=$arch" -o "APT::Architectures=$arch")
	if ! apt-get "${apt_opts[@]}" update >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		echo "fetch-debian: apt-get update of $suite failed" >&2
		exit 1
	fi
fi
version_of() {	# empty when the suite has no such package
	{ apt-cache "${apt_opts[@]}" show "$1" 2>/dev/null || true; } |
		sed -n 's/^Version: //p' | sort -V | tail -n 1
}
first=
for pkg in "${pkgs[@]}"; do
	ver=$(version_of "$pkg")
	[ -n "$ver" ] || { echo "fetch-debian: $suite has no $pkg" >&2; exit 1; }
	[ -n "$first" ] || first=$ver
	if [ -n "$field" ]; then
		apt-cache "${apt_opts[@]}" show "$pkg=$ver" | sed -n "s/^$field: //p" | head -n 1
		exit 0
	fi
	if ! (cd "$dir/deb" && apt-get "${apt_opts[@]}" download "$pkg=$ver") >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		echo "fetch-debian: download of $pkg $ver failed" >&2
		exit 1
	fi
done
rm -rf "$dir/root"
for pkg in "${pkgs[@]}"; do
	dpkg -x "$(ls "$dir/deb/${pkg}_"*.deb | sort -V | tail -n 1)" "$dir/root"
done
echo "$first"
