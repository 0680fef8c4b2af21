#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# stackinfo and python3 -m stackinfo on this host's kernel (PROCMAP_QUERY
# or the maps parse answers): one argument grammar, refusal for refusal
# (tools/testing/python/cli_args.py), and the same failure, exit 5, when
# their output cannot be written (cli_output.py). Debian's own python3;
# the guest's cli_parity runs the same with the module answering.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
"$top/scripts/deps.sh" python >/dev/null || exit 1
export PYTHONPATH=$top/python LD_LIBRARY_PATH=$top/build/lib
fail=0
/usr/bin/python3 "$top/tools/testing/python/cli_args.py" "$top/build/bin/stackinfo" \
	"$top/build/bin/thread-sleeper" || fail=1
/usr/bin/python3 "$top/tools/testing/python/cli_output.py" "$top/build/bin/stackinfo" || fail=1
exit $fail
