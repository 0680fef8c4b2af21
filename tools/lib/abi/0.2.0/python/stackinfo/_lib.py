# SPDX-License-Identifier: LGPL-2.1-or-later
"""libstackinfo.so.0 through ctypes: the calls, with their C types.

Loaded once, by soname, so the dynamic linker finds it as it would for a C
program (LD_LIBRARY_PATH included). Every call returns what the C function
returns: 0 or a negative errno.
"""
import ctypes

from . import _abi

_so = ctypes.CDLL("libstackinfo.so.0")

backend = _so.stackinfo_backend
backend.argtypes = []
backend.restype = ctypes.c_int

backend_name = _so.stackinfo_backend_name
backend_name.argtypes = [ctypes.c_int]
backend_name.restype = ctypes.c_char_p

set_backend = _so.stackinfo_set_backend
set_backend.argtypes = [ctypes.c_int]
set_backend.restype = ctypes.c_int

query_thread = _so.stackinfo_query_thread
query_thread.argtypes = [ctypes.c_int, ctypes.c_uint64, ctypes.POINTER(_abi.Query)]
query_thread.restype = ctypes.c_int

classify_addr = _so.stackinfo_classify_addr
classify_addr.argtypes = [ctypes.c_int, ctypes.c_uint64, ctypes.c_uint64,
                          ctypes.POINTER(_abi.Query)]
classify_addr.restype = ctypes.c_int

# libstackinfo 0.2 (STACKINFO_0.2): the batch
query_process = _so.stackinfo_query_process
query_process.argtypes = [ctypes.c_int, ctypes.c_uint64, ctypes.POINTER(_abi.Query),
                          ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)]
query_process.restype = ctypes.c_int
