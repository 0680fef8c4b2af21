# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python bindings against the C library's own answers, in one process.

Run by tools/testing/host/python_bindings.sh (and the guest's lib_python)
with PYTHONPATH naming python/ and the library on the loader's path:
  bindings_test.py LAYOUT-PRINTER CLI THREAD-SLEEPER
1. python/stackinfo/_abi.py's struct and constants equal what the C
   compiler says of the headers (stackinfo-layout);
2. for threads of this process and of a child, on every backend this
   kernel has, each Thread field equals the field that
   stackinfo_query_thread() wrote into a raw buffer, read at the C
   compiler's offsets (the SP of the calling thread only lies in its VMA:
   it moves between two calls);
   process() (one stackinfo_query_process() call) equals, entry for
   entry, that C call's raw array and thread() of each tid, for the child
   and for this process (pid 0 and getpid()); classify() equals
   stackinfo_classify_addr()'s raw answer for the child's SP, its guard,
   an unmapped page and a mapping of its own;
3. errors: no such thread or process is Error ESRCH (an OSError), a
   refused one EACCES or EPERM (process() and classify() too, with
   thread()'s errno), bad arguments ValueError;
4. python3 -m stackinfo equals the CLI's --json byte for byte and parsed,
   and its exit codes, with --addr too;
5. the queries go through one library handle (stackinfo_handle_open()),
   and a fork()ed child's through one of its own.
Prints "FAIL: ..." for each failure; exit 1 if any, 0 otherwise.
"""
import atexit
import ctypes
import dataclasses
import errno
import json
import os
import subprocess
import sys
import threading
import time

import stackinfo
from stackinfo import _abi

layout_bin, cli, sleeper_bin = sys.argv[1:4]
failed = 0


def check(what, ok, detail=""):
    global failed
    if not ok:
        print(f"FAIL: {what}{': ' + str(detail) if detail else ''}")
        failed = 1


# 1. layout and constants, from the C compiler
fields, consts, csize = {}, {}, None
for line in subprocess.run([layout_bin], check=True, capture_output=True,
                           text=True).stdout.splitlines():
    kind, *rest = line.split()
    if kind == "size":
        csize = int(rest[0])
    elif kind == "field":
        fields[rest[0]] = (int(rest[1]), int(rest[2]))
    elif kind == "const":
        consts[rest[0]] = int(rest[1])
check("layout: struct size", ctypes.sizeof(_abi.Query) == csize,
      f"{ctypes.sizeof(_abi.Query)} != {csize}")
py_fields = {n: (getattr(_abi.Query, n).offset, getattr(_abi.Query, n).size)
             for n, _ in _abi.Query._fields_}
check("layout: the same fields", set(py_fields) == set(fields),
      set(py_fields) ^ set(fields))
for name, where in fields.items():
    check(f"layout: {name} offset, size", py_fields.get(name) == where,
          f"{py_fields.get(name)} != {where}")
check("layout: constants printed", len(consts) > 20, len(consts))
for cname, value in consts.items():
    pyname = cname.removeprefix("STACKINFO_")
    check(f"const {cname}", getattr(_abi, pyname, None) == value,
          f"{getattr(_abi, pyname, None)} != {value}")

# 2. the same answers as the C call, read at the C offsets
lib = ctypes.CDLL("libstackinfo.so.0")
# the calls a C program built against the header makes (its inline
# stackinfo_query_thread() passes sizeof, the C compiler's csize)
lib.stackinfo_query_thread_sz.argtypes = [ctypes.c_int, ctypes.c_uint64, ctypes.c_void_p,
                                          ctypes.c_size_t]
lib.stackinfo_classify_addr_sz.argtypes = [ctypes.c_int, ctypes.c_uint64, ctypes.c_uint64,
                                           ctypes.c_void_p, ctypes.c_size_t]
lib.stackinfo_query_process_sz.argtypes = [ctypes.c_int, ctypes.c_uint64, ctypes.c_void_p,
                                           ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t]
lib.stackinfo_backend_name.restype = ctypes.c_char_p


def fields_of(b):
    """One struct's bytes, as named fields at the C compiler's offsets."""
    return {n: int.from_bytes(b[o:o + s], "little", signed=(n == "proof_fd"))
            for n, (o, s) in fields.items()}


def raw(tid):
    buf = ctypes.create_string_buffer(csize)
    err = lib.stackinfo_query_thread_sz(tid, 0, buf, csize)
    return (err, None) if err else (0, fields_of(buf.raw))


def raw_classify(tid, addr):
    buf = ctypes.create_string_buffer(csize)
    err = lib.stackinfo_classify_addr_sz(tid, addr, 0, buf, csize)
    return (err, None) if err else (0, fields_of(buf.raw))


def raw_process(pid, n=256):
    buf = ctypes.create_string_buffer(csize * n)
    count = ctypes.c_size_t(0)
    err = lib.stackinfo_query_process_sz(pid, 0, buf, n, ctypes.byref(count), csize)
    if err:
        return err, None
    return 0, [fields_of(buf.raw[i * csize:(i + 1) * csize]) for i in range(count.value)]


def expect(r):
    """The Thread a raw answer means, field by field, as libstackinfo.h
    and the uapi header say: the valid bits, the user bits' backend."""
    v = r["valid"]

    def opt(bit, key):
        return r[key] if v & consts[bit] else None

    def vma(bit, pre):
        if not v & consts[bit]:
            return None
        return stackinfo.Vma(r[pre + "_start"], r[pre + "_end"], r[pre + "_flags"])

    by = lib.stackinfo_backend_name(
        (r["thread_flags"] & consts["STACKINFO_THREAD_USER_MASK"])
        >> consts["STACKINFO_LIB_BACKEND_SHIFT"])
    tf = r["thread_flags"]
    return stackinfo.Thread(
        tid=r["out_tid"], pid=r["tgid"],
        main=bool(tf & consts["STACKINFO_THREAD_MAIN"]),
        is_self=bool(tf & consts["STACKINFO_THREAD_SELF"]),
        worker=bool(tf & consts["STACKINFO_THREAD_WORKER"]),
        backend=by.decode() if by else None,
        map_count=r["map_count"] or None,
        start_stack=opt("STACKINFO_VALID_START_STACK", "start_stack"),
        main_vma=vma("STACKINFO_VALID_MAIN_VMA", "main_vma"),
        main_prev_end=opt("STACKINFO_VALID_MAIN_PREV", "main_prev_end"),
        sp=opt("STACKINFO_VALID_SP", "sp"),
        sp_vma=vma("STACKINFO_VALID_SP_VMA", "sp_vma"),
        sp_prev_end=opt("STACKINFO_VALID_SP_PREV", "sp_prev_end"),
        guard=(stackinfo.Range(r["sp_guard_start"], r["sp_guard_end"])
               if v & consts["STACKINFO_VALID_SP_GUARD"] else None),
        rlimit_stack_cur=opt("STACKINFO_VALID_RLIMIT", "rlim_stack_cur"),
        rlimit_stack_max=opt("STACKINFO_VALID_RLIMIT", "rlim_stack_max"),
        altstack=(stackinfo.Altstack(r["ss_sp"], r["ss_size"],
                                     bool(r["ss_flags"] & consts["SS_DISABLE"]),
                                     bool(r["ss_flags"] & consts["SS_ONSTACK"]),
                                     bool(r["ss_flags"] & consts["STACKINFO_SS_AUTODISARM"]))
                  if v & consts["STACKINFO_VALID_ALTSTACK"] else None),
        # the names stackinfo(1) prints; the CLI's JSON is compared below
        stack_kind=({0: "unknown", 1: "main", 2: "thread", 3: "altstack"}.get(r["stack_kind"], "?")
                    if v & consts["STACKINFO_VALID_STACK_KIND"] else None),
        guard_gap=opt("STACKINFO_VALID_GUARD_GAP", "guard_gap"),
    )


parked = threading.Event()
workers = [threading.Thread(target=parked.wait, daemon=True) for _ in range(3)]
for w in workers:
    w.start()
child = subprocess.Popen([sleeper_bin, "2"], stdout=subprocess.PIPE, text=True)
atexit.register(child.kill)  # whatever fails below
child_pid = int(child.stdout.readline().split()[1])
own = [0, os.getpid()] + [w.native_id for w in workers]
theirs = [int(t) for t in os.listdir(f"/proc/{child_pid}/task")]


def blocked(pid, tid):
    """@tid is in a system call (its SP is then readable, and stays)."""
    try:
        with open(f"/proc/{pid}/task/{tid}/syscall") as f:
            return f.read().split()[0] not in ("running", "-1")
    except OSError:
        return False


# another thread's SP is read only while it blocks: wait until all do, or
# two queries of the same thread could differ (one before, one after)
for _ in range(600):
    if all(blocked(os.getpid(), w.native_id) for w in workers) and \
            all(blocked(child_pid, t) for t in theirs):
        break
    time.sleep(0.01)

def unmoved(t):
    """@t without what moves between two calls: the caller's own SP."""
    return dataclasses.replace(t, sp=None) if t.is_self else t


def same_process(name, what, pid, tids):
    """process(@pid) against the C call's raw array and thread() of each."""
    err, rs = raw_process(pid)
    check(f"{name}: process({what}): C answers", not err, os.strerror(-err) if err else "")
    if err:
        return
    got = stackinfo.process(pid)
    want = [expect(r) for r in rs]
    check(f"{name}: process({what}): the C call's tids",
          [t.tid for t in got] == [t.tid for t in want], ([t.tid for t in got], [t.tid for t in want]))
    listed = sorted(int(t) for t in os.listdir(f"/proc/{pid or os.getpid()}/task"))
    check(f"{name}: process({what}): /proc's tids", sorted(t.tid for t in got) == listed,
          [t.tid for t in got])
    if tids is not None:
        check(f"{name}: process({what}): the child's tids", listed == sorted(tids), listed)
    for g, w in zip(got, want):
        check(f"{name}: process({what}): thread {g.tid} as the C call's",
              unmoved(g) == unmoved(w), f"{g!r} != {w!r}")
        check(f"{name}: process({what}): thread {g.tid} as thread()",
              unmoved(g) == unmoved(stackinfo.thread(g.tid)), g)
        check(f"{name}: process({what}): thread {g.tid} answered by {name}",
              g.backend == name, g.backend)


def same_classify(name):
    """classify() against stackinfo_classify_addr()'s raw answer."""
    main = stackinfo.thread(child_pid)
    addrs = [0x1000, id(main)]
    if main.sp is not None:
        addrs.append(main.sp)
    for t in theirs:
        g = stackinfo.thread(t).guard
        if g is not None:
            addrs.append(g.start)
    for tid in (child_pid, theirs[-1]):
        for a in addrs:
            err, r = raw_classify(tid, a)
            check(f"{name}: C classifies {a:#x} for {tid}", not err,
                  os.strerror(-err) if err else "")
            if err:
                continue
            got = stackinfo.classify(a, tid)
            v = r["valid"]
            names = {consts[f"STACKINFO_ADDR_{k}"]: k.lower().replace("_", "-")
                     for k in ("STACK", "GUARD", "GROWTH", "GUARD_GAP", "BEYOND_LIMIT",
                               "ALTSTACK", "MAPPED", "UNMAPPED")}
            want = stackinfo.Classification(
                addr=r["addr"],
                addr_class=(names.get(r["addr_class"], "?")
                            if v & consts["STACKINFO_VALID_ADDR"] else None),
                addr_vma=(stackinfo.Vma(r["addr_vma_start"], r["addr_vma_end"],
                                        r["addr_vma_flags"])
                          if v & consts["STACKINFO_VALID_ADDR_VMA"] else None),
                thread=expect(r))
            check(f"{name}: classify({a:#x}, {tid})", got == want, f"{got!r} != {want!r}")
            check(f"{name}: classify({a:#x}, {tid}): addr", got.addr == a, got.addr)
            # the module and the in-tree file classify; the others say they cannot
            check(f"{name}: classify(): a class where the backend has them",
                  (got.addr_class is not None) == (name in ("module", "proc")),
                  got.addr_class)


backends = []
for name in stackinfo.backend_names():
    try:
        stackinfo.set_backend(name)
    except stackinfo.Error as e:
        check(f"set_backend({name}): EOPNOTSUPP where it cannot",
              e.errno == errno.EOPNOTSUPP, e)
        continue
    backends.append(name)
    check(f"{name}: backend()", stackinfo.backend() == name, stackinfo.backend())
    for tid in own + theirs:
        err, r = raw(tid)
        check(f"{name}: C answers thread {tid}", not err, os.strerror(-err) if err else "")
        if err:
            continue
        got, want = stackinfo.thread(tid), expect(r)
        if tid == 0 or got.is_self:
            # the caller's SP is where the call was made (asked by 0 or by
            # its number): not the same in two calls made from other frames
            check(f"{name}: own SP in its VMA", got.sp is not None and got.sp in got.sp_vma)
            got, want = (dataclasses.replace(got, sp=None),
                         dataclasses.replace(want, sp=None))
        for f in want.__dataclass_fields__:
            check(f"{name}: thread {tid}: {f}", getattr(got, f) == getattr(want, f),
                  f"{getattr(got, f)!r} != {getattr(want, f)!r}")
    got = stackinfo.process(child_pid)
    check(f"{name}: process(): every thread",
          sorted(t.tid for t in got) == sorted(theirs), [t.tid for t in got])
    check(f"{name}: process(): main first-class",
          [t.main for t in got].count(True) == 1)
    for what, pid, tids in (("child", child_pid, theirs), ("pid 0", 0, None),
                            ("getpid()", os.getpid(), None)):
        same_process(name, what, pid, tids)
    same_classify(name)
check("backends: at least procmap_query or maps", len(backends) >= 1, backends)


# 3. errors
gone = 0x3FFFFFFF
for call, arg in ((stackinfo.thread, gone), (stackinfo.process, gone)):
    try:
        call(arg)
        check(f"{call.__name__}(no such): raises", False)
    except stackinfo.Error as e:
        check(f"{call.__name__}(no such): ESRCH", e.errno == errno.ESRCH, e)
        check(f"{call.__name__}(no such): an OSError with strerror",
              isinstance(e, OSError) and e.strerror == os.strerror(errno.ESRCH), e)
try:
    stackinfo.classify(0x1000, gone)
    check("classify(no such): raises", False)
except stackinfo.Error as e:
    check("classify(no such): ESRCH", e.errno == errno.ESRCH, e)
for call in (stackinfo.thread, stackinfo.process, lambda v: stackinfo.classify(v, 0),
             lambda v: stackinfo.classify(0x1000, v)):
    for bad in (-1, 1 << 64 if call is not stackinfo.thread else 1 << 31, "1", None, True):
        try:
            call(bad)
            check(f"{call.__name__}({bad!r}): raises", False)
        except ValueError:
            pass
try:
    stackinfo.set_backend("nope")
    check("set_backend(nope): raises", False)
except ValueError:
    pass


def refused(pid, call=stackinfo.thread):
    """errno of call(pid) asked as uid 65534 (a forked child), 0 if answered."""
    r, w = os.pipe()
    kid = os.fork()
    if kid == 0:
        code = 0
        try:
            os.setresgid(65534, 65534, 65534)
            os.setresuid(65534, 65534, 65534)
            call(pid)
        except stackinfo.Error as e:
            code = e.errno
        os.write(w, str(code).encode())
        os._exit(0)
    os.close(w)
    out = os.read(r, 16)
    os.waitpid(kid, 0)
    return int(out or b"-1")


if os.getuid() == 0:
    for name in backends:
        stackinfo.set_backend(name)
        e = refused(child_pid)
        check(f"{name}: refused: EACCES or EPERM", e in (errno.EACCES, errno.EPERM),
              os.strerror(e) if e > 0 else e)
        for what, call in (("process", stackinfo.process),
                           ("classify", lambda p: stackinfo.classify(0x1000, p))):
            e2 = refused(child_pid, call)
            check(f"{name}: {what}() refused as thread() is", e2 == e, f"{e2} != {e}")
else:
    print("refusal not tested: not root (cannot drop to another uid)")

# 4. python3 -m stackinfo against the CLI, on every backend
env = dict(os.environ)
for name in backends:
    args = ["-p", str(child_pid), "--backend", name]
    c = subprocess.run([cli, *args, "--json"], capture_output=True, text=True)
    p = subprocess.run([sys.executable, "-m", "stackinfo", *args],
                       capture_output=True, text=True, env=env)
    check(f"{name}: -m stackinfo exit", c.returncode == p.returncode == 0,
          f"{c.returncode} {p.returncode} {p.stderr}")
    check(f"{name}: -m stackinfo parsed equal",
          json.loads(c.stdout) == json.loads(p.stdout), p.stdout)
    check(f"{name}: -m stackinfo byte for byte", c.stdout == p.stdout,
          f"\n{c.stdout}\n{p.stdout}")
    check(f"{name}: -m stackinfo stderr", c.stderr == p.stderr, f"{c.stderr!r} {p.stderr!r}")
    sp = stackinfo.thread(child_pid).sp
    for addr in ([f"{sp:x}"] if sp is not None else []) + ["0x1000", "0X7f"]:
        args = ["-p", str(child_pid), "--backend", name, "--addr", addr]
        c = subprocess.run([cli, *args, "--json"], capture_output=True, text=True)
        p = subprocess.run([sys.executable, "-m", "stackinfo", *args],
                           capture_output=True, text=True, env=env)
        check(f"{name}: --addr {addr}: exit", c.returncode == p.returncode == 0,
              f"{c.returncode} {p.returncode} {p.stderr}")
        check(f"{name}: --addr {addr}: byte for byte", c.stdout == p.stdout,
              f"\n{c.stdout}\n{p.stdout}")
        check(f"{name}: --addr {addr}: stderr", c.stderr == p.stderr,
              f"{c.stderr!r} {p.stderr!r}")
for args, code in (([str(gone)], 1), (["-p", "abc"], 2), (["--backend", "nope"], 2),
                   (["--addr", "zz"], 2), (["--addr", "-1"], 2),
                   (["--addr", "1" * 17], 2)):
    p = subprocess.run([sys.executable, "-m", "stackinfo", *args], capture_output=True,
                       text=True, env=env)
    check(f"-m stackinfo {' '.join(args)}: exit {code}", p.returncode == code,
          f"{p.returncode} {p.stderr}")

# 5. the queries go through one handle of the library's, a process's own
stackinfo.thread()
h = stackinfo._lib._handle
check("the bindings hold a handle", h is not None and stackinfo._lib._handle_pid == os.getpid())
stackinfo.thread()
check("one handle for every query", stackinfo._lib._handle is h)
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    try:
        t = stackinfo.thread()
        ok = t.pid == os.getpid() and stackinfo._lib._handle_pid == os.getpid()
    except Exception:
        ok = False
    os.write(w, b"1" if ok else b"0")
    os._exit(0)
os.close(w)
check("a forked child asks through a handle of its own", os.read(r, 1) == b"1")
os.close(r)
os.waitpid(pid, 0)

parked.set()
child.kill()
child.wait()
for w in workers:
    w.join()
sys.exit(failed)
