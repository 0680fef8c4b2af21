# SPDX-License-Identifier: LGPL-2.1-or-later
"""stackinfo: a thread's stack bounds from libstackinfo, for Python.

    >>> import stackinfo
    >>> t = stackinfo.thread()          # the calling thread
    >>> t.sp_vma.start, t.sp_vma.end, t.backend
    >>> for t in stackinfo.process(pid):
    ...     print(t.tid, t.stack, t.sp)
    >>> stackinfo.classify(fault_addr, tid).addr_class   # "guard", ...

Thin bindings over libstackinfo.so.0 (see libstackinfo(3)): the library
chooses the backend (the in-tree /proc/<pid>/stackinfo, the module, then
PROCMAP_QUERY, then a parse of /proc/<pid>/maps) and answers; this package
turns its struct into a Thread and a negative errno into an Error. A field
the backend could not fill is None.
"""
import ctypes
import dataclasses
import errno
import os
from typing import List, Optional

from . import _abi, _lib

__all__ = [
    "Error", "Range", "Vma", "Altstack", "Thread", "Classification", "thread", "process",
    "classify", "threads_of", "backend", "backend_names", "set_backend", "RLIM_INFINITY",
]

RLIM_INFINITY = _abi.RLIM_INFINITY


class Error(OSError):
    """A call the library refused: errno and strerror as any OSError.

    tid is the thread (or pid the process) asked about, None for calls
    about no thread.
    """

    def __init__(self, err, tid=None):
        super().__init__(err, os.strerror(err))
        self.tid = tid


@dataclasses.dataclass(frozen=True)
class Range:
    """[start, end) of user addresses."""

    start: int
    end: int

    @property
    def size(self):
        return self.end - self.start

    def __contains__(self, addr):
        return self.start <= addr < self.end


@dataclasses.dataclass(frozen=True)
class Vma(Range):
    """A mapping: its range and STACKINFO_VMA_* flags."""

    flags: int

    @property
    def perms(self):
        """The permission column of /proc/<pid>/maps, e.g. "rw-p"."""
        f = self.flags
        return "".join((
            "r" if f & _abi.VMA_READ else "-",
            "w" if f & _abi.VMA_WRITE else "-",
            "x" if f & _abi.VMA_EXEC else "-",
            "s" if f & _abi.VMA_SHARED else "p",
        ))


@dataclasses.dataclass(frozen=True)
class Altstack:
    """The thread's sigaltstack as the kernel keeps it."""

    ss_sp: int
    ss_size: int
    disabled: bool    # SS_DISABLE
    onstack: bool     # SS_ONSTACK: the SP is on it
    autodisarm: bool  # SS_AUTODISARM


@dataclasses.dataclass(frozen=True)
class Thread:
    """One thread's answer; None where the backend had nothing."""

    tid: int
    pid: int
    main: bool              # the thread group leader
    is_self: bool           # the calling thread
    worker: bool            # a kernel worker on a user mm: no user SP
    backend: Optional[str]  # the backend that answered
    map_count: Optional[int]
    start_stack: Optional[int]
    main_vma: Optional[Vma]
    main_prev_end: Optional[int]
    sp: Optional[int]
    sp_vma: Optional[Vma]
    sp_prev_end: Optional[int]
    guard: Optional[Range]  # the PROT_NONE mapping just below sp_vma
    rlimit_stack_cur: Optional[int]  # RLIM_INFINITY for none
    rlimit_stack_max: Optional[int]
    altstack: Optional[Altstack]
    stack_kind: Optional[str]  # "main", "thread", "altstack", "unknown"
    guard_gap: Optional[int]

    @property
    def stack(self) -> Optional[Vma]:
        """The thread's stack: the mapping holding its SP, else for the
        main thread the one holding start_stack (as stackinfo(1) shows)."""
        if self.sp_vma is not None:
            return self.sp_vma
        return self.main_vma if self.main else None


@dataclasses.dataclass(frozen=True)
class Classification:
    """Where an address is for a thread (stackinfo_classify_addr()).

    addr_class is one of "stack", "guard", "growth", "guard-gap",
    "beyond-limit", "altstack", "mapped", "unmapped" (stackinfo(4)), or
    None where the backend cannot classify (only the module and the in-tree
    file can); addr_vma the mapping the class is about (for "growth",
    "guard-gap" and "beyond-limit" the stack that would grow)."""

    addr: int
    addr_class: Optional[str]
    addr_vma: Optional[Vma]
    thread: Thread


def _from_query(q: _abi.Query) -> Thread:
    v = q.valid

    def opt(bit, value):
        return value if v & bit else None

    def vma(bit, start, end, flags):
        return Vma(start, end, flags) if v & bit else None

    by = _lib.backend_name(_abi.answered_by(q))
    return Thread(
        tid=q.out_tid,
        pid=q.tgid,
        main=bool(q.thread_flags & _abi.THREAD_MAIN),
        is_self=bool(q.thread_flags & _abi.THREAD_SELF),
        worker=bool(q.thread_flags & _abi.THREAD_WORKER),
        backend=by.decode() if by is not None else None,
        # 0 is "not counted": a process always has mappings
        map_count=q.map_count or None,
        start_stack=opt(_abi.VALID_START_STACK, q.start_stack),
        main_vma=vma(_abi.VALID_MAIN_VMA, q.main_vma_start, q.main_vma_end,
                     q.main_vma_flags),
        main_prev_end=opt(_abi.VALID_MAIN_PREV, q.main_prev_end),
        sp=opt(_abi.VALID_SP, q.sp),
        sp_vma=vma(_abi.VALID_SP_VMA, q.sp_vma_start, q.sp_vma_end,
                   q.sp_vma_flags),
        sp_prev_end=opt(_abi.VALID_SP_PREV, q.sp_prev_end),
        guard=(Range(q.sp_guard_start, q.sp_guard_end)
               if v & _abi.VALID_SP_GUARD else None),
        rlimit_stack_cur=opt(_abi.VALID_RLIMIT, q.rlim_stack_cur),
        rlimit_stack_max=opt(_abi.VALID_RLIMIT, q.rlim_stack_max),
        altstack=(Altstack(q.ss_sp, q.ss_size, bool(q.ss_flags & _abi.SS_DISABLE),
                           bool(q.ss_flags & _abi.SS_ONSTACK),
                           bool(q.ss_flags & _abi.SS_AUTODISARM))
                  if v & _abi.VALID_ALTSTACK else None),
        stack_kind=(_abi.STACK_KIND_NAMES.get(q.stack_kind, "?")
                    if v & _abi.VALID_STACK_KIND else None),
        guard_gap=opt(_abi.VALID_GUARD_GAP, q.guard_gap),
    )


def backend_names() -> List[str]:
    """Every backend the library knows, in its numbering."""
    names, b = [], 1
    while (n := _lib.backend_name(b)) is not None:
        names.append(n.decode())
        b += 1
    return names


def backend() -> str:
    """The backend in use, chosen now if no call has chosen it yet."""
    b = _lib.backend()
    if b < 0:
        raise Error(-b)
    return _lib.backend_name(b).decode()


def set_backend(name: str) -> None:
    """Use backend @name from now on (ValueError for an unknown name;
    Error EOPNOTSUPP where this kernel cannot do it)."""
    names = backend_names()
    if name not in names:
        raise ValueError(f"unknown backend {name!r} (known: {', '.join(names)})")
    err = _lib.set_backend(names.index(name) + 1)
    if err:
        raise Error(-err)


def _check_id(what, v, low):
    if not isinstance(v, int) or isinstance(v, bool) or not low <= v < 1 << 31:
        raise ValueError(f"bad {what} {v!r}")


def thread(tid: int = 0, *, no_sp: bool = False) -> Thread:
    """Thread @tid (0: the caller). no_sp: skip the SP and its mapping."""
    _check_id("tid", tid, 0)
    q = _abi.Query()
    err = _lib.query_thread(tid, _abi.QUERY_NO_SP if no_sp else 0, q)
    if err:
        raise Error(-err, tid)
    return _from_query(q)


def classify(addr: int, tid: int = 0, *, no_sp: bool = False) -> Classification:
    """Where @addr is for thread @tid (0: the caller), and the thread's answer.
    no_sp: without the SP (and what only it decides: the stack it is on,
    the sigaltstack)."""
    if not isinstance(addr, int) or isinstance(addr, bool) or not 0 <= addr < 1 << 64:
        raise ValueError(f"bad address {addr!r}")
    _check_id("tid", tid, 0)
    q = _abi.Query()
    err = _lib.classify_addr(tid, addr, _abi.QUERY_NO_SP if no_sp else 0, q)
    if err:
        raise Error(-err, tid)
    v = q.valid
    return Classification(
        addr=q.addr,
        addr_class=(_abi.ADDR_CLASS_NAMES.get(q.addr_class, "?")
                    if v & _abi.VALID_ADDR else None),
        addr_vma=(Vma(q.addr_vma_start, q.addr_vma_end, q.addr_vma_flags)
                  if v & _abi.VALID_ADDR_VMA else None),
        thread=_from_query(q),
    )


def threads_of(pid: int, addr: Optional[int] = None):
    """Thread (with @addr: Classification) or Error for each thread of
    process @pid, in /proc/<pid>/task order, each asked on its own as
    stackinfo -p asks them: a thread that exits meanwhile, or whose tid is
    reused by another process, is left out. Error ESRCH for no such
    process. process() asks them all in one call."""
    _check_id("pid", pid, 1)
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError as e:
        raise Error(errno.ESRCH if e.errno == errno.ENOENT else e.errno, pid) from None
    for name in tids:
        if not name.isdigit():
            continue
        tid = int(name)
        try:
            t = thread(tid) if addr is None else classify(addr, tid)
        except Error as e:
            if e.errno != errno.ESRCH:
                yield e
            continue
        if (t if addr is None else t.thread).pid == pid:
            yield t


# entries asked for first: one call for most processes
_FIRST_GUESS = 64
# tries while threads keep starting faster than the array grows
_TRIES = 8


def process(pid: int = 0, *, no_sp: bool = False) -> List[Thread]:
    """Every thread of process @pid (0: this one; any of its tids names
    it), in one library call (stackinfo_query_process()): the kernel's
    order of its threads; a thread that exits meanwhile, or is refused
    while its process is not, is left out. Error with the errno of the
    process's refusal, ESRCH for no such process."""
    _check_id("pid", pid, 0)
    flags = _abi.QUERY_NO_SP if no_sp else 0
    n, count = _FIRST_GUESS, ctypes.c_size_t(0)
    for _ in range(_TRIES):
        arr = (_abi.Query * n)()
        err = _lib.query_process(pid, flags, arr, n, ctypes.byref(count))
        if err != -errno.ERANGE:
            break
        # as many as there are now, and room for a few more
        n = count.value + 16
    if err:
        raise Error(-err, pid)
    return [_from_query(arr[i]) for i in range(count.value)]
