#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# fetch-guest-userland.sh ARCH DIR: what a guest of another architecture
# than the machine's runs the project's programs with, from Debian's
# packages of the machine's own release for ARCH (scripts/fetch-debian.sh:
# a private apt state, nothing installed, nothing of the system's apt
# setup changed): busybox-static's /bin/busybox, and libc6's and
# libgcc-s1's /lib (the dynamic loader, libc, libgcc_s, which glibc loads
# to unwind a thread's exit and cancellation). Kept under DIR/root;
# DIR/version names the packages' versions. Run again, it fetches nothing
# when DIR/version is there.
set -euo pipefail
usage="usage: fetch-guest-userland.sh ARCH DIR"
arch=${1:?$usage}
dir=${2:?$usage}
top=$(cd "$(dirname "$0")/.." && pwd)

[ -s "$dir/version" ] && exit 0
# shellcheck source=/dev/null
. /etc/os-release
pkgs=(busybox-static libc6 libgcc-s1)
echo "fetch-guest-userland: ${VERSION_CODENAME:?}'s ${pkgs[*]} for $arch" >&2
rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"
"$top/scripts/fetch-debian.sh" --suite "$VERSION_CODENAME" --arch "$arch" "${pkgs[@]}" "$dir.tmp" >/dev/null
for p in "${pkgs[@]}"; do
	echo "$p $(dpkg-deb -f "$(ls "$dir.tmp/deb/${p}_"*.deb | sort -V | tail -n 1)" Version)"
done >"$dir.tmp/version"
# iconv's modules, the locales' data and the docs: nothing a test loads
rm -rf "$dir.tmp/deb" "$dir.tmp/apt" "$dir.tmp/root/usr" "$dir.tmp/root/etc"
[ -x "$dir.tmp/root/bin/busybox" ] || { echo "fetch-guest-userland: no /bin/busybox in busybox-static" >&2; exit 1; }
rm -rf "$dir"
mv "$dir.tmp" "$dir"
