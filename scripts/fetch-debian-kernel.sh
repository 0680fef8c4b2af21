#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# fetch-debian-kernel.sh SUITE FLAVOUR DIR: the kernel a Debian release
# ships as linux-image-FLAVOUR (bullseye's amd64, the 5.10 LTS; bookworm's
# rt-amd64 and 6.12-rt-amd64, its PREEMPT_RT kernels), its image and the
# headers a module builds against, unpacked under DIR/root without
# installing anything (scripts/fetch-debian.sh): such kernels are booted
# in guests only, and installed beside the machine's own they would also
# answer to the stock kernels' names. DIR/kver names it. Run again, it
# fetches nothing when DIR/kver is there.
#
# The unpacked headers are made to build from where they are: their
# Makefile includes the common half by its installed path, which becomes
# DIR's, and they name the release's compiler (bullseye's gcc-10), which
# becomes this machine's gcc (gcc 12 builds a 5.10 module).
set -euo pipefail
usage="usage: fetch-debian-kernel.sh SUITE FLAVOUR DIR"
suite=${1:?$usage}
flavour=${2:?$usage}
dir=${3:?$usage}
top=$(cd "$(dirname "$0")/.." && pwd)
fetch=$top/scripts/fetch-debian.sh

[ -s "$dir/kver" ] && exit 0
mkdir -p "$dir"
first_dep() {	# PACKAGE: the names its Depends lists, one a line
	"$fetch" --suite "$suite" --field Depends "$1" "$dir" |
		tr ',' '\n' | sed 's/^ *//; s/[ |].*//' | grep .
}
image=$(first_dep "linux-image-$flavour" | head -n 1)
kver=${image#linux-image-}
headers=linux-headers-$kver
# the arch headers depend on their common half and on linux-kbuild; the
# compiler and the rest are what an installation needs, not a build
pkgs=("$image" "$headers" $(first_dep "$headers" | grep -E '^linux-(headers|kbuild)-'))
echo "fetch-debian-kernel: $suite's ${pkgs[*]}" >&2
"$fetch" --suite "$suite" "${pkgs[@]}" "$dir" >/dev/null
src=$dir/root/usr/src
sed -i "s|^include /usr/src/|include $src/|" "$src/$headers/Makefile"
sed -i 's/\$(CROSS_COMPILE)gcc-[0-9]*$/$(CROSS_COMPILE)gcc/' "$src/$headers/.kernelvariables"
[ -r "$dir/root/boot/vmlinuz-$kver" ] || { echo "fetch-debian-kernel: no vmlinuz-$kver in $image" >&2; exit 1; }
# the guests load no module of the image's own: only vmlinuz is booted
rm -rf "$dir/deb" "$dir/apt" "$dir/root/lib/modules/$kver/kernel"
echo "$kver" >"$dir/kver"
