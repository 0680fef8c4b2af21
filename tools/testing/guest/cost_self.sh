#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The rows make check holds against its ceilings (stackinfo-cost --check:
# the known loop, getppid, the procfs floor, the self ioctl at 0, 3 000
# and 60 000 extra mappings), marked for the cost meter; the kernel's text
# symbols passed to it. Under vm-run --cost (tools/testing/check) the
# plugin counts them and tools/testing/cost-results judges the counts on
# the host; here the test only has to run. Its lines go out as "info: "
# lines, which run-tests shows for a pass and cost-results reads.
if ! command -v stackinfo-cost >/dev/null; then
	echo "no stackinfo-cost here: the cost meter is x86's (QEMU's x86 TCG plugin)"
	exit 77
fi
start=$(date +%s)
out=$(stackinfo-cost --check 2>&1)
rc=$?
echo "$out" | sed 's/^/info: /'
echo "info: cost-seconds $(($(date +%s) - start))"
exit $rc
