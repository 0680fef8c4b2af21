#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# stackinfo and python3 -m stackinfo (installed as python3-stackinfo puts
# it) in the guest, the module answering: one argument grammar, refusal
# for refusal (cli_args.py). The host's cli_parity runs the same on the
# host's backend, and the failure when their output cannot be written
# (cli_output.py), which no kernel changes: 22 Python start-ups would add
# half a minute to the guest.
python3 /usr/lib/stackinfo/cli_args.py /usr/bin/stackinfo /usr/bin/thread-sleeper
