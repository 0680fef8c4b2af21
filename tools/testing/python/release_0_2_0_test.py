# SPDX-License-Identifier: LGPL-2.1-or-later
"""libstackinfo 0.2.0's own Python package against this library.

Run with PYTHONPATH naming the recorded package (tools/lib/abi/0.2.0/python,
in the guest /usr/lib/stackinfo/abi-0.2.0) and this library on the loader's
path, by tools/testing/host/python_bindings.sh and the guest's lib_python:
  release_0_2_0_test.py
The package looks the library's calls up by name alone (ctypes: dlsym()
without a version), stackinfo_query_thread, stackinfo_classify_addr and
stackinfo_query_process among them, with its 240-byte struct. It must
import, and on every backend this kernel has each answer must be what this
library answers in the same process through stackinfo_query_thread_sz()
and the other _sz calls (STACKINFO_0.3) with a larger struct, cut to what
the release's names fill: thread() 0.1.0's 168 bytes (no sigaltstack, no
stack kind: libstackinfo(3), ABI), classify() and process() 0.2.0's 240.
Prints "FAIL: ..." for each failure; exit 1 if any, 0 otherwise.
"""
import ctypes
import dataclasses
import os
import sys
import threading
import time

failed = 0


def check(what, ok, detail=""):
    global failed
    if not ok:
        print(f"FAIL: {what}{': ' + str(detail) if detail else ''}")
        failed = 1


try:
    import stackinfo
    from stackinfo import _abi
except Exception as e:  # the release's package must import: anything else fails
    print(f"FAIL: import of 0.2.0's package: {type(e).__name__}: {e}")
    sys.exit(1)
check("the recorded 0.2.0 package is the one imported",
      "abi" in stackinfo.__file__ and not hasattr(stackinfo._lib, "_QUERY_SIZE"),
      stackinfo.__file__)
check("0.2.0's struct", ctypes.sizeof(_abi.Query) == 240, ctypes.sizeof(_abi.Query))

VER0 = 168
# the valid bits of 0.1.0's struct: each names a field within its 168 bytes
VALID_VER0 = (_abi.VALID_GUARD_GAP << 1) - 1
LARGE = 1024

lib = ctypes.CDLL("libstackinfo.so.0")
for name, args in (("stackinfo_query_thread_sz", [ctypes.c_int, ctypes.c_uint64]),
                   ("stackinfo_classify_addr_sz", [ctypes.c_int, ctypes.c_uint64,
                                                   ctypes.c_uint64])):
    getattr(lib, name).argtypes = args + [ctypes.c_void_p, ctypes.c_size_t]
lib.stackinfo_query_process_sz.argtypes = [ctypes.c_int, ctypes.c_uint64, ctypes.c_void_p,
                                           ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t]


def as_release(buf, size):
    """The library's answer @buf as 0.2.0's struct gets it when @size
    bytes are filled: the rest zero, valid cut to what the bytes hold."""
    q = _abi.Query.from_buffer_copy(bytes(buf[:size]) + bytes(240 - size))
    q.size = size
    if size == VER0:
        q.valid &= VALID_VER0
    return stackinfo._from_query(q)


def unmoved(t):
    """@t without what moves between two calls: the caller's own SP."""
    return dataclasses.replace(t, sp=None, sp_vma=None) if t.is_self else t


def mine_thread(tid):
    buf = ctypes.create_string_buffer(LARGE)
    err = lib.stackinfo_query_thread_sz(tid, 0, buf, LARGE)
    return err, (as_release(buf.raw, VER0) if not err else None)


def mine_classify(tid, addr):
    buf = ctypes.create_string_buffer(LARGE)
    err = lib.stackinfo_classify_addr_sz(tid, addr, 0, buf, LARGE)
    return err, (buf.raw if not err else None)


def mine_process(n=64):
    buf = ctypes.create_string_buffer(LARGE * n)
    count = ctypes.c_size_t(0)
    err = lib.stackinfo_query_process_sz(0, 0, buf, n, ctypes.byref(count), LARGE)
    if err:
        return err, None
    return 0, [as_release(buf.raw[i * LARGE:(i + 1) * LARGE], 240)
               for i in range(count.value)]


def blocked(tid):
    try:
        with open(f"/proc/self/task/{tid}/syscall") as f:
            return f.read().split()[0] not in ("running", "-1")
    except OSError:
        return False


# workers parked in a futex: another thread's SP is read while it blocks,
# and stays the same between two calls
parked = threading.Event()
workers = [threading.Thread(target=parked.wait, daemon=True) for _ in range(2)]
for w in workers:
    w.start()
for _ in range(600):
    if all(blocked(w.native_id) for w in workers):
        break
    time.sleep(0.01)
check("the workers block", all(blocked(w.native_id) for w in workers))
tids = [0, os.getpid()] + [w.native_id for w in workers]

backends = 0
for name in stackinfo.backend_names():
    try:
        stackinfo.set_backend(name)
    except stackinfo.Error:
        continue  # not on this kernel
    except ValueError as e:
        check(f"set_backend({name})", False, e)
        continue
    backends += 1
    check(f"{name}: backend()", stackinfo.backend() == name, stackinfo.backend())
    for tid in tids:
        what = f"{name}: thread({tid})"
        try:
            got = stackinfo.thread(tid)
        except Exception as e:
            check(what, False, f"{type(e).__name__}: {e}")
            continue
        err, want = mine_thread(tid)
        check(f"{what}: the library answers", not err, err)
        if not err:
            check(what, unmoved(got) == unmoved(want), f"{got} != {want}")
        check(f"{what}: 0.1.0's answer, no sigaltstack nor stack kind",
              got.altstack is None and got.stack_kind is None)

    local = ctypes.create_string_buffer(64)
    for tid, addr in ((workers[0].native_id, ctypes.addressof(local)), (0, 4096)):
        what = f"{name}: classify({addr:#x}, {tid})"
        try:
            got = stackinfo.classify(addr, tid)
        except Exception as e:
            check(what, False, f"{type(e).__name__}: {e}")
            continue
        err, raw = mine_classify(tid, addr)
        check(f"{what}: the library answers", not err, err)
        if err:
            continue
        q = _abi.Query.from_buffer_copy(raw[:240])
        check(f"{what}: the class", got.addr_class == (
            _abi.ADDR_CLASS_NAMES.get(q.addr_class, "?") if q.valid & _abi.VALID_ADDR
            else None), f"{got.addr_class} ({q.addr_class}, valid {q.valid:#x})")
        want = as_release(raw, 240)
        check(f"{what}: the thread", unmoved(got.thread) == unmoved(want),
              f"{got.thread} != {want}")

    what = f"{name}: process()"
    try:
        got = stackinfo.process()
    except Exception as e:
        check(what, False, f"{type(e).__name__}: {e}")
        continue
    err, want = mine_process()
    check(f"{what}: the library answers", not err, err)
    if not err:
        check(f"{what}: the threads", [t.tid for t in got] == [t.tid for t in want],
              f"{[t.tid for t in got]} != {[t.tid for t in want]}")
        for a, b in zip(got, want):
            check(f"{what}: thread {a.tid}", unmoved(a) == unmoved(b), f"{a} != {b}")
check("a backend answered", backends > 0)
parked.set()
sys.exit(failed)
