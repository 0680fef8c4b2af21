#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# DKMS, with Debian's dkms: the module's source registered, then built by
# DKMS for Debian's 6.12 and 6.1 headers (no running kernel of either is
# needed), and for the kernels unpacked rather than installed (the rt
# flavours, 5.10: scripts/fetch-debian-kernel.sh) from their headers' tree
# (--kernelsourcedir), then removed again.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/kernels.sh"
"$top/scripts/deps.sh" install >/dev/null || exit 1
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
src=/usr/src/stackinfo-$ver
fail=0
# DKMS and /usr/src are the machine's: one test at a time (deb_packages.sh
# takes the same lock); never under an installed stackinfo-dkms package
exec 8>/run/lock/stackinfo-dkms.lock
flock -w 600 8 || { echo "FAIL: DKMS lock busy for 10 minutes"; exit 1; }
if dpkg-query -W -f='${db:Status-Status}' stackinfo-dkms 2>/dev/null | grep -qv '^not-installed$'; then
	echo "SKIP: the stackinfo-dkms package is installed; this test would remove its DKMS entry"
	exit 77
fi
cleanup() {
	dkms remove -m stackinfo -v "$ver" --all >/dev/null 2>&1
	rm -rf "$src"
}
cleanup
trap cleanup EXIT
mkdir -p "$src"
cp -r "$top/Kbuild" "$top/dkms.conf" "$top/module" "$top/include" "$top/kunit" "$src/"
dkms add -m stackinfo -v "$ver" >/dev/null || { echo "FAIL: dkms add"; exit 1; }
for k in debian-6.12 debian-6.1 debian-6.12-rt debian-6.1-rt debian-5.10; do
	kernel_find "$k" || { kernel_provide "$k" >/dev/null 2>&1; kernel_find "$k"; } ||
		{ echo "FAIL: $k not installed"; fail=1; continue; }
	srcdir=()
	[ "$KDIR" = "/usr/src/linux-headers-$KVER" ] || srcdir=(--kernelsourcedir "$KDIR")
	if ! out=$(dkms build -m stackinfo -v "$ver" -k "$KVER" "${srcdir[@]}" 2>&1); then
		echo "FAIL: dkms build for $KVER"; echo "$out"; fail=1; continue
	fi
	ls /var/lib/dkms/stackinfo/"$ver"/"$KVER"/*/module/stackinfo.ko* >/dev/null 2>&1 ||
		{ echo "FAIL: no stackinfo.ko from DKMS for $KVER"; fail=1; }
done
exit $fail
