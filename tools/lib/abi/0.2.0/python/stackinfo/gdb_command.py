# SPDX-License-Identifier: LGPL-2.1-or-later
"""gdb's `info stackinfo`: every thread's stack as the kernel answers it.

Loaded into gdb by the package's /usr/share/gdb/python/gdb/command/
stackinfo.py (gdb imports every file there at start-up), or by hand with
`source .../stackinfo-gdb.py` or `python import stackinfo.gdb_command`.

For each thread of the selected inferior it asks libstackinfo about the
thread's LWP (gdb's ptid), the library's other-process path: gdb is the
thread's tracer, which is what the kernel's checks (and the module's) let
through. It prints the stack's bounds, the SP, the distance from the SP
down to the guard, and marks a thread whose stop was a SIGSEGV at an
address in its guard, or below its stack where the stack could not grow
(the gap the kernel keeps, or RLIMIT_STACK for the main thread), as
"stack overflow". A core file, a remote target or no process at all has
no live thread to ask the kernel about, and the command says so.
"""
import gdb

import stackinfo
from stackinfo import _abi

SIGSEGV = 11


def _size(n):
    for unit in ("", "K", "M", "G", "T"):
        if n < 1024 or unit == "T":
            return f"{int(n)}{unit}" if n == int(n) else f"{n:.1f}{unit}"
        n /= 1024
    return str(n)


def _siginfo_segv_addr(thread):
    """The fault address of @thread's stop if it was a SIGSEGV, else None.
    $_siginfo is the selected thread's: the caller restores the selection."""
    thread.switch()
    try:
        si = gdb.parse_and_eval("$_siginfo")
        if int(si["si_signo"]) != SIGSEGV:
            return None
        return int(si["_sifields"]["_sigfault"]["si_addr"])
    except gdb.error:
        return None  # no siginfo for this thread's stop


def _below(t, stack):
    """Where a fault under @stack means it overflowed: [low, stack.start)."""
    if t.guard is not None and t.guard.end == stack.start:
        return t.guard.start
    prev = t.sp_prev_end if stack is t.sp_vma else t.main_prev_end
    return prev if prev is not None else 0


def _overflow(t, stack, addr):
    """Why a SIGSEGV at @addr is @t overflowing @stack, or None."""
    if addr is None or stack is None or addr >= stack.start:
        return None
    if t.guard is not None and addr in t.guard:
        return "in the guard"
    if addr >= _below(t, stack):
        if t.main:
            return "below the stack, where it may not grow (RLIMIT_STACK or the guard gap)"
        return "just below the stack"
    return None


def _prot_none(m):
    return m is not None and not m.flags & (_abi.VMA_READ | _abi.VMA_WRITE)


def _line(gthread, t, addr):
    stack = t.stack
    parts = [f"LWP {gthread.ptid[1]} thread {gthread.num}:"]
    if _prot_none(stack):
        # the SP went into the guard itself (a frame's locals below it): the
        # answer names the SP's mapping, the guard, not the stack above it
        why = "in the guard" if addr is not None and addr in stack else None
        line = (f"{parts[0]} sp 0x{t.sp:x} in the PROT_NONE mapping "
                f"0x{stack.start:x}-0x{stack.end:x} (a guard; the stack above it "
                f"is not in the answer) backend {t.backend}")
        if why:
            line += f": stack overflow (SIGSEGV at 0x{addr:x}, {why})"
        return line
    if stack is None:
        parts.append("stack unknown")
    else:
        parts.append(f"stack 0x{stack.start:x}-0x{stack.end:x} {stack.perms} "
                     f"{_size(stack.size)}")
    parts.append("sp " + (f"0x{t.sp:x}" if t.sp is not None else "unknown"))
    if t.guard is not None:
        parts.append(f"guard 0x{t.guard.start:x}-0x{t.guard.end:x}")
    if t.sp is not None and stack is not None and t.sp >= stack.start:
        low = t.guard.end if t.guard is not None else None
        if low is None and t.main and t.rlimit_stack_cur not in (None, stackinfo.RLIM_INFINITY):
            low = max(stack.end - t.rlimit_stack_cur, _below(t, stack))
        parts.append("sp-guard " + (_size(t.sp - low) if low is not None else "unknown"))
    parts.append(f"backend {t.backend}")
    why = _overflow(t, stack, addr)
    line = " ".join(parts)
    if why:
        line += f": stack overflow (SIGSEGV at 0x{addr:x}, {why})"
    elif addr is not None:
        line += f": SIGSEGV at 0x{addr:x}, not a stack overflow"
    return line


def _no_kernel(inf):
    """Why the kernel cannot be asked about @inf's threads, or None."""
    if inf.pid == 0:
        return "no process: stackinfo asks the kernel about live threads"
    conn = getattr(inf, "connection", None)
    kind = getattr(conn, "type", "native")
    if kind == "core":
        return ("a core file has no live threads: stackinfo cannot ask the "
                "kernel (use `info proc mappings` for the core's mappings)")
    if kind != "native":
        return (f"the inferior runs on a {kind} target: stackinfo can only ask "
                "this machine's kernel")
    return None


class InfoStackinfo(gdb.Command):
    """Stack bounds, SP and the SP's distance to the guard of every thread,
from the kernel (libstackinfo); a thread stopped by a SIGSEGV in or under
its guard is marked "stack overflow"."""

    def __init__(self):
        super().__init__("info stackinfo", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        if arg.strip():
            raise gdb.GdbError("info stackinfo takes no arguments")
        inf = gdb.selected_inferior()
        why = _no_kernel(inf)
        if why:
            gdb.write(f"info stackinfo: {why}\n")
            return
        try:
            in_use = stackinfo.backend()
        except stackinfo.Error as e:
            raise gdb.GdbError(f"info stackinfo: no backend: {e.strerror}") from None
        gdb.write(f"process {inf.pid}, backend {in_use}\n")
        selected = gdb.selected_thread()
        try:
            for th in sorted(inf.threads(), key=lambda x: x.num):
                lwp = th.ptid[1]
                addr = _siginfo_segv_addr(th)
                try:
                    t = stackinfo.thread(lwp)
                except stackinfo.Error as e:
                    gdb.write(f"LWP {lwp} thread {th.num}: {e.strerror}\n")
                    continue
                if t.pid != inf.pid:
                    gdb.write(f"LWP {lwp} thread {th.num}: not of process {inf.pid}\n")
                    continue
                gdb.write(_line(th, t, addr) + "\n")
        finally:
            if selected is not None and selected.is_valid():
                selected.switch()


InfoStackinfo()
