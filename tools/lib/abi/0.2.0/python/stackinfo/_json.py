# SPDX-License-Identifier: LGPL-2.1-or-later
"""Threads as stackinfo(1) --json writes them, character for character.

The CLI (tools/stackinfo/stackinfo.c, print_json()) writes its JSON by
hand in a fixed layout; this writes the same text from Thread objects, so
that `python3 -m stackinfo -p PID` and `stackinfo -p PID --json` can be
compared byte for byte as well as parsed.
"""
from . import RLIM_INFINITY, Classification


def _addr(key, v):
    return f'"{key}": ' + ("null" if v is None else f'"0x{v:x}"')


def _vma(key, m):
    if m is None:
        return f'"{key}": null'
    return (f'"{key}": {{"start": "0x{m.start:x}", "end": "0x{m.end:x}", '
            f'"size": {m.size}, "perms": "{m.perms}"}}')


def _guard(g):
    if g is None:
        return '"guard": null'
    return (f'"guard": {{"start": "0x{g.start:x}", "end": "0x{g.end:x}", '
            f'"size": {g.size}}}')


def _altstack(a):
    if a is None:
        return '"altstack": null'

    def b(x):
        return "true" if x else "false"
    return (f'"altstack": {{"ss_sp": "0x{a.ss_sp:x}", "ss_size": {a.ss_size}, '
            f'"disabled": {b(a.disabled)}, "onstack": {b(a.onstack)}, '
            f'"autodisarm": {b(a.autodisarm)}}}')


def _num(key, v):
    return f'"{key}": ' + ("null" if v is None else str(v))


def _classified(c):
    """--addr's keys: the address, its class, the mapping it is about."""
    if c is None:
        return ()
    return (_addr("addr", c.addr),
            '"class": ' + ("null" if c.addr_class is None else f'"{c.addr_class}"'),
            _vma("addr_vma", c.addr_vma))


def thread_json(t, c=None):
    """One thread's object, as one line; with @c (a Classification of
    @t), the keys stackinfo --addr adds."""
    rlim = [None if v == RLIM_INFINITY else v
            for v in (t.rlimit_stack_cur, t.rlimit_stack_max)]
    return "{" + ", ".join((
        f'"tid": {t.tid}',
        f'"pid": {t.pid}',
        '"main": ' + ("true" if t.main else "false"),
        f'"backend": "{t.backend or "?"}"',
        _num("map_count", t.map_count),
        _addr("start_stack", t.start_stack),
        _vma("main_vma", t.main_vma),
        _addr("main_prev_end", t.main_prev_end),
        _addr("sp", t.sp),
        _vma("sp_vma", t.sp_vma),
        _addr("sp_prev_end", t.sp_prev_end),
        _guard(t.guard),
        _num("rlimit_stack_cur", rlim[0]),
        _num("rlimit_stack_max", rlim[1]),
        _altstack(t.altstack),
        '"stack_kind": ' + ("null" if t.stack_kind is None else f'"{t.stack_kind}"'),
        *_classified(c),
        _num("guard_gap", t.guard_gap),
    )) + "}"


def document(backend, threads):
    """The whole output: the backend in use and every thread's object
    (a Thread, or a Classification of one)."""
    body = ",".join("\n    " + (thread_json(t.thread, t) if isinstance(t, Classification)
                                else thread_json(t)) for t in threads)
    return f'{{"backend": "{backend}", "threads": [{body}{chr(10) + "  " if threads else ""}]}}\n'
