#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The cost meter's plugin, built from Debian's qemu source for the
# installed qemu-system-x86 (scripts/build-cost-plugin.sh: on a fresh
# machine this fetches and unpacks the source), counts exactly: QEMU boots
# the bare known loop (tools/cost/loop.S, build/cost/loop.elf) with the
# plugin, and each of its marked regions must have exactly the count its
# text says, every time (one count a tag, nothing lost), and the bytes its
# data marker passes must arrive as they were sent. No kernel, no guest:
# about a second once the plugin is built.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
loop=$top/build/cost/loop.elf
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -e "$loop" ] || { echo "FAIL: no $loop (make tools builds it)"; exit 1; }
if ! plugin=$("$top/scripts/build-cost-plugin.sh" 2>"$tmp/build.log"); then
	sed 's/^/    /' "$tmp/build.log"
	echo "FAIL: the plugin does not build"
	exit 1
fi
sed 's/^/    /' "$tmp/build.log"

timeout 120 qemu-system-x86_64 -accel tcg -cpu max -m 32 -display none -monitor none \
	-serial none -no-reboot -kernel "$loop" \
	-device isa-debug-exit,iobase=0xf4,iosize=4 \
	-plugin "$plugin,out=$tmp/out" >"$tmp/qemu.log" 2>&1
rc=$?
# isa-debug-exit: QEMU exits with (0 << 1) | 1 when the loop has run
if [ $rc != 1 ]; then
	sed 's/^/    /' "$tmp/qemu.log"
	echo "FAIL: QEMU exited $rc, not through the loop's isa-debug-exit (1)"
	exit 1
fi
fail=0
printf 'hist 1 2001 5\nhist 2 3 1\nhist 3 300001 1\n' >"$tmp/want"
grep -a -E '^(hist|lost) ' "$tmp/out" >"$tmp/got"
if ! cmp -s "$tmp/want" "$tmp/got"; then
	echo "FAIL: the plugin's counts (want, then got):"
	sed 's/^/    /' "$tmp/want"
	sed 's/^/    /' "$tmp/got"
	fail=1
fi
printf 'data 11\nknown loop\n' >"$tmp/want"
sed -n '/^data /,$p' "$tmp/out" >"$tmp/got"
if ! cmp -s "$tmp/want" "$tmp/got"; then
	echo "FAIL: the data marker's bytes (want, then got):"
	od -c "$tmp/want" | sed 's/^/    /'
	od -c "$tmp/got" | sed 's/^/    /'
	fail=1
fi
[ $fail = 1 ] || echo "the plugin ($plugin) counted 2001 x5, 3 and 300001 and passed 11 bytes"
exit $fail
