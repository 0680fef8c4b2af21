# SPDX-License-Identifier: LGPL-2.1-or-later
"""The stackinfo Python package (pybuild builds python3-stackinfo from it).

Its version is the library's (LIBSTACKINFO_VERSION in libstackinfo.h): the
bindings follow that library's ABI and nothing else. gdb's command file,
python/gdb/stackinfo.py, is installed by the Debian package under gdb's
data directory; it is no part of the Python distribution.
"""
import os
import re

from setuptools import setup

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "..", "tools", "lib", "libstackinfo.h")) as f:
    version = re.search(r'#define LIBSTACKINFO_VERSION\s+"([^"]+)"', f.read()).group(1)

setup(
    name="stackinfo",
    version=version,
    description="Thread stack bounds from libstackinfo (ctypes bindings) and gdb's info stackinfo",
    license="LGPL-2.1-or-later",
    packages=["stackinfo"],
    python_requires=">=3.9",
)
