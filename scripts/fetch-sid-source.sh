#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# fetch-sid-source.sh PACKAGE DIR: fetch one architecture-independent source
# package (e.g. linux-source-7.2) from Debian unstable and unpack it under
# DIR; print the package's version. The mirror is the one this machine's
# own apt configuration already uses for its release (found at run time,
# never written down here); apt runs with a private sources list, state
# and cache under DIR, so the system's apt setup is neither read for
# packages nor changed. Nothing is installed: the .deb is only unpacked.
# With --version, print the version unstable has now and fetch nothing.
set -euo pipefail

only_version=0
if [ "${1:-}" = --version ]; then
	only_version=1
	shift
fi
pkg=${1:?usage: fetch-sid-source.sh [--version] PACKAGE DIR}
dir=${2:?usage: fetch-sid-source.sh [--version] PACKAGE DIR}

# shellcheck source=/dev/null
. /etc/os-release
uri=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 2>/dev/null |
	awk -v rel="${VERSION_CODENAME:-}" '$2 == rel && $3 == "main" { print $1; exit }')
if [ -z "$uri" ]; then
	# apt has no lists yet (a fresh machine): read them once
	apt-get update -q >/dev/null 2>&1 || true
	uri=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 2>/dev/null |
		awk -v rel="${VERSION_CODENAME:-}" '$2 == rel && $3 == "main" { print $1; exit }')
fi
[ -n "$uri" ] || { echo "fetch-sid-source: no Debian mirror in this machine's apt configuration" >&2; exit 1; }

state=$dir/apt
mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$dir/deb"
echo "deb $uri sid main" >"$state/sources.list"
apt_opts=(-o "Dir::Etc::sourcelist=$state/sources.list"
	-o Dir::Etc::sourceparts=/dev/null
	-o "Dir::State::Lists=$state/lists"
	-o "Dir::Cache=$state/cache"
	-o "Dir::State::status=/dev/null"
	-o APT::Architecture=amd64 -o APT::Architectures=amd64)

log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! apt-get "${apt_opts[@]}" update >"$log" 2>&1; then
	tail -n 20 "$log" >&2
	echo "fetch-sid-source: apt-get update of unstable failed" >&2
	exit 1
fi
ver=$(apt-cache "${apt_opts[@]}" show "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -n 1)
[ -n "$ver" ] || { echo "fetch-sid-source: unstable has no $pkg" >&2; exit 1; }
if [ $only_version = 1 ]; then
	echo "$ver"
	exit 0
fi
if ! (cd "$dir/deb" && apt-get "${apt_opts[@]}" download "$pkg=$ver") >"$log" 2>&1; then
	tail -n 20 "$log" >&2
	echo "fetch-sid-source: download of $pkg $ver failed" >&2
	exit 1
fi
deb=$(ls "$dir/deb/${pkg}_"*.deb | head -n 1)
rm -rf "$dir/root"
dpkg -x "$deb" "$dir/root"
echo "$ver"
