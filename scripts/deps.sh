#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Install the Debian packages stackinfo needs, by group:
#   base   build the module and tools (musl-tools: the library's musl build,
#          whose tests run in every x86 guest), boot Debian's 6.12 kernel in QEMU
#   lts    boot Debian 12's 6.1 LTS kernel and build the module for it
#   debug  build the debug kernels (KUnit, KASAN, lockdep) and parse KTAP
#   bench  the benchmark's report and plot
#   install  make install's test (pkg-config) and DKMS
#   gates  static analysis and formatting of the module (sparse, clang-format)
#   kselftest  the kselftest harness headers for the in-tree series' selftest
#   arm64  the arm64 debug kernel, module and guest tests, cross-built with
#          clang and lld (LLVM=1): Debian 12's gcc-aarch64-linux-gnu and
#          gcc-multilib (base, for -m32) conflict, each removes the other;
#          the arm64 libc and libgcc for the tests; qemu-system-aarch64
#   corpus real programs run under the interposer (tools/testing/corpus)
#   python the Python bindings' tests (Debian's python3, pyflakes) and,
#          copied into every guest, python3 and gdb for lib_python/lib_gdb
#   cost   the cost meter's QEMU plugin, built from Debian's qemu source
#          (scripts/build-cost-plugin.sh: dpkg-source unpacks it)
#   abi    the library's ABI held against the recorded releases (abidw,
#          abidiff: tools/lib/abi/, docs/abi.md)
#   deb    make deb (dpkg-buildpackage, debhelper, dh-dkms, dh-python), lintian,
#          and the packages' test (DKMS, pkg-config)
#   all    every group (what `make deps` asks for)
# Idempotent, and silent when everything is already installed.
set -euo pipefail

declare -A group=(
	[base]="gcc gcc-multilib make libc6-dev kmod cpio busybox-static qemu-system-x86
		linux-image-6.12-amd64 linux-headers-6.12-amd64 dwarves musl-tools"
	[lts]="linux-image-amd64 linux-headers-amd64"
	[debug]="linux-source-6.12 linux-source-6.1 flex bison bc libelf-dev libssl-dev dwarves
		xz-utils python3 patch git unifdef"
	[bench]="gnuplot-nox python3"
	[install]="pkgconf dkms"
	[gates]="sparse clang-format"
	[kselftest]="linux-source-6.12 xz-utils"
	[arm64]="clang lld llvm libc6-dev-arm64-cross libgcc-12-dev-arm64-cross qemu-system-arm"
	[corpus]="ruby guile-3.0 guile-3.0-dev pkgconf ripgrep mono-runtime mono-mcs strace"
	[python]="python3 python3-pyflakes gdb"
	[cost]="dpkg-dev xz-utils qemu-system-x86 gcc python3"
	[abi]="abigail-tools"
	[deb]="build-essential dpkg-dev debhelper dh-dkms fakeroot lintian dkms pkgconf xz-utils
		dh-python python3-all python3-setuptools"
)

want=()
for g in "${@:-all}"; do
	if [ "$g" = all ]; then
		for k in "${!group[@]}"; do want+=(${group[$k]}); done
	elif [ -n "${group[$g]:-}" ]; then
		want+=(${group[$g]})
	else
		echo "deps: unknown group '$g' (known: ${!group[*]} all)" >&2
		exit 2
	fi
done

missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q '^install ok installed$' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing ${missing[*]}; run 'make deps' as root" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { apt-get update -q && apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
	tail -n 30 "$log" >&2
	echo "deps: apt-get failed" >&2
	exit 1
fi
