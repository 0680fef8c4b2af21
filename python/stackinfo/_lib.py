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

# The queries by the size of the struct _abi declares (STACKINFO_0.3): the
# library fills that much and no more, whatever its own struct's size. Not
# the names without _sz: by name alone they answer in their first release's
# struct (stackinfo_query_thread in 0.1.0's 168 bytes; libstackinfo(3), ABI).
_QUERY_SIZE = ctypes.sizeof(_abi.Query)
_QUERY_P = ctypes.POINTER(_abi.Query)

_query_thread = _so.stackinfo_query_thread_sz
_query_thread.argtypes = [ctypes.c_int, ctypes.c_uint64, _QUERY_P, ctypes.c_size_t]
_query_thread.restype = ctypes.c_int

_classify_addr = _so.stackinfo_classify_addr_sz
_classify_addr.argtypes = [ctypes.c_int, ctypes.c_uint64, ctypes.c_uint64, _QUERY_P,
                           ctypes.c_size_t]
_classify_addr.restype = ctypes.c_int

_query_process = _so.stackinfo_query_process_sz
_query_process.argtypes = [ctypes.c_int, ctypes.c_uint64, _QUERY_P, ctypes.c_size_t,
                           ctypes.POINTER(ctypes.c_size_t), ctypes.c_size_t]
_query_process.restype = ctypes.c_int


def query_thread(tid, flags, q):
    """stackinfo_query_thread(): @q an _abi.Query."""
    return _query_thread(tid, flags, q, _QUERY_SIZE)


def classify_addr(tid, addr, flags, q):
    """stackinfo_classify_addr(): @q an _abi.Query."""
    return _classify_addr(tid, addr, flags, q, _QUERY_SIZE)


def query_process(pid, flags, q, n, count):
    """stackinfo_query_process(): @q an array of @n _abi.Query."""
    return _query_process(pid, flags, q, n, count, _QUERY_SIZE)
