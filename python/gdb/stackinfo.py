# SPDX-License-Identifier: LGPL-2.1-or-later
# gdb's `info stackinfo`, registered at gdb's start: installed as
# /usr/share/gdb/python/gdb/command/stackinfo.py, which gdb imports at
# start-up, or loaded by hand with `source` (see stackinfo/gdb_command.py).
import importlib
import sys

try:
    importlib.import_module("stackinfo.gdb_command")
except (ImportError, OSError) as e:  # no package, or no libstackinfo.so.0
    sys.stderr.write(f"info stackinfo not available: {e}\n")
