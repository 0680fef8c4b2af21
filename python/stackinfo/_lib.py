# SPDX-License-Identifier: LGPL-2.1-or-later
"""libstackinfo.so.0 through ctypes: the calls, with their C types.

Loaded once, by soname, so the dynamic linker finds it as it would for a C
program (LD_LIBRARY_PATH included). Every call returns what the C function
returns: 0 or a negative errno.
"""
import ctypes
import os
import threading

from . import _abi

_so = ctypes.CDLL("libstackinfo.so.0")

backend = _so.stackinfo_backend
backend.argtypes = []
backend.restype = ctypes.c_int

backend_name = _so.stackinfo_backend_name
backend_name.argtypes = [ctypes.c_int]
backend_name.restype = ctypes.c_char_p


# The queries by the size of the struct _abi declares (STACKINFO_0.3): the
# library fills that much and no more, whatever its own struct's size. Not
# the names without _sz: by name alone they answer in their first release's
# struct (stackinfo_query_thread in 0.1.0's 168 bytes; libstackinfo(3), ABI).
_QUERY_SIZE = ctypes.sizeof(_abi.Query)
_QUERY_P = ctypes.POINTER(_abi.Query)

# Every query goes through one handle of the library's (STACKINFO_0.3,
# libstackinfo(3), HANDLES): the backend's file kept open, a query its
# ioctl alone. Opened at the first query, in each process (a child of
# fork() closes its parent's and opens its own), and again after
# set_backend(); where it cannot be opened, the calls without a handle.
_handle_open = _so.stackinfo_handle_open
_handle_open.argtypes = [ctypes.c_uint64, ctypes.POINTER(ctypes.c_void_p)]
_handle_open.restype = ctypes.c_int

_handle_close = _so.stackinfo_handle_close
_handle_close.argtypes = [ctypes.c_void_p]
_handle_close.restype = None

_handle_query = _so.stackinfo_handle_query_sz
_handle_query.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint64, _QUERY_P,
                          ctypes.c_size_t]
_handle_query.restype = ctypes.c_int

_handle_classify = _so.stackinfo_handle_classify_addr_sz
_handle_classify.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint64, ctypes.c_uint64,
                             _QUERY_P, ctypes.c_size_t]
_handle_classify.restype = ctypes.c_int

_handle_process = _so.stackinfo_handle_query_process_sz
_handle_process.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint64, _QUERY_P,
                            ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t), ctypes.c_size_t]
_handle_process.restype = ctypes.c_int

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

_lock = threading.Lock()
_handle = None      # ctypes.c_void_p, or None
_handle_pid = None  # the process that opened it


def _drop():
    """Close the handle (the next query opens another)."""
    global _handle, _handle_pid
    with _lock:
        if _handle is not None:
            _handle_close(_handle)
        _handle = _handle_pid = None


def _get():
    """The handle of this process, opened now if needed; None where it cannot be."""
    global _handle, _handle_pid
    with _lock:
        if _handle is not None and _handle_pid == os.getpid():
            return _handle
        if _handle is not None:
            _handle_close(_handle)  # a parent's, in a child: its copy of the fd
        h = ctypes.c_void_p()
        _handle, _handle_pid = (h, os.getpid()) if _handle_open(0, ctypes.byref(h)) == 0 \
            else (None, None)
        return _handle


os.register_at_fork(after_in_child=lambda: _drop())

_backend_set = _so.stackinfo_set_backend
_backend_set.argtypes = [ctypes.c_int]
_backend_set.restype = ctypes.c_int


def set_backend(b):
    """stackinfo_set_backend(), and a new handle for the new backend."""
    err = _backend_set(b)
    if not err:
        _drop()
    return err


def query_thread(tid, flags, q):
    """stackinfo_query_thread(): @q an _abi.Query."""
    h = _get()
    return _handle_query(h, tid, flags, q, _QUERY_SIZE) if h is not None \
        else _query_thread(tid, flags, q, _QUERY_SIZE)


def classify_addr(tid, addr, flags, q):
    """stackinfo_classify_addr(): @q an _abi.Query."""
    h = _get()
    return _handle_classify(h, tid, addr, flags, q, _QUERY_SIZE) if h is not None \
        else _classify_addr(tid, addr, flags, q, _QUERY_SIZE)


def query_process(pid, flags, q, n, count):
    """stackinfo_query_process(): @q an array of @n _abi.Query."""
    h = _get()
    return _handle_process(h, pid, flags, q, n, count, _QUERY_SIZE) if h is not None \
        else _query_process(pid, flags, q, n, count, _QUERY_SIZE)
