#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# stackinfo and python3 -m stackinfo (installed as python3-stackinfo puts
# it) in the guest, the module answering: one argument grammar, refusal
# for refusal (cli_args.py), and the same failure, exit 5, when their
# output cannot be written (cli_output.py). The host's cli_parity runs
# the same on the host's backend.
lib=/usr/lib/stackinfo
fail=0
python3 "$lib/cli_args.py" /usr/bin/stackinfo /usr/bin/thread-sleeper || fail=1
python3 "$lib/cli_output.py" /usr/bin/stackinfo || fail=1
exit $fail
