# SPDX-License-Identifier: LGPL-2.1-or-later
"""python3 -m stackinfo [-p] PID [-t TID] [--backend NAME] [--addr ADDR]:
the JSON of stackinfo(1) --json, from the bindings, with its messages and
exit codes:
0 answered; 1 no such process or thread; 2 bad usage; 3 permission denied;
4 any other failure. With no PID: this process's own thread."""
import argparse
import errno
import os
import re
import sys

import stackinfo
from stackinfo import _json

EXIT_NOSUCH, EXIT_USAGE, EXIT_PERM, EXIT_OTHER = 1, 2, 3, 4


def _exit_code(err):
    if err in (errno.ESRCH, errno.ENOENT):
        return EXIT_NOSUCH
    if err in (errno.EACCES, errno.EPERM):
        return EXIT_PERM
    return EXIT_OTHER


def _hex_addr(s):
    """ADDR as stackinfo(1) takes it: hex, 0x optional (strtoull's base 16)."""
    m = re.fullmatch(r"[ \t\n\v\f\r]*\+?(?:0[xX])?([0-9a-fA-F]+)", s)
    if not m or int(m.group(1), 16) >= 1 << 64:
        raise ValueError(s)
    return int(m.group(1), 16)


def _id(s):
    if not s.isdigit() or not 0 < int(s) <= 0x3FFFFFFF:
        raise argparse.ArgumentTypeError(f"bad id '{s}'")
    return int(s)


class _Run:
    """One invocation: what it printed and the first failure."""

    def __init__(self, in_use, addr):
        self.in_use = in_use
        self.addr = addr  # --addr's, or None
        self.told_fallback = False
        self.threads = []

    def fail(self, what, err):
        print(f"stackinfo: {what}: {os.strerror(err)}", file=sys.stderr)
        return err

    def shown(self, t, what):
        """@t: a Thread, or with --addr a Classification."""
        by = t.backend if self.addr is None else t.thread.backend
        # the module or the in-tree file refused and /proc answered: say so, once
        if by != self.in_use and not self.told_fallback:
            print(f"stackinfo: the {self.in_use} backend refused {what}; answered by "
                  f"the {by} backend, as far as /proc allows", file=sys.stderr)
            self.told_fallback = True
        if self.addr is not None and t.addr_class is None and not self.told_fallback:
            print(f"stackinfo: the {by} backend cannot classify addresses (the module "
                  "or the in-tree file can)", file=sys.stderr)
            self.told_fallback = True
        self.threads.append(t)

    def one(self, tid, pid, what):
        try:
            t = (stackinfo.thread(tid) if self.addr is None
                 else stackinfo.classify(self.addr, tid))
        except stackinfo.Error as e:
            return self.fail(what, e.errno)
        # a tid of @pid's list may have exited and been reused since
        if pid and (t if self.addr is None else t.thread).pid != pid:
            return self.fail(what, errno.ESRCH)
        self.shown(t, what)
        return 0

    def process(self, pid):
        first = 0
        try:
            for t in stackinfo.threads_of(pid, self.addr):
                if isinstance(t, stackinfo.Error):
                    self.fail(f"thread {t.tid}", t.errno)
                    first = first or t.errno
                else:
                    tid = t.tid if self.addr is None else t.thread.tid
                    self.shown(t, f"thread {tid}")
        except stackinfo.Error as e:
            return self.fail(f"process {pid}", e.errno)
        if not self.threads and not first:
            return errno.ESRCH
        return first


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m stackinfo",
                                description="stackinfo -p PID --json, from Python")
    p.add_argument("pid_pos", nargs="?", type=_id, metavar="PID")
    p.add_argument("-p", "--pid", type=_id)
    p.add_argument("-t", "--tid", type=_id)
    p.add_argument("-j", "--json", action="store_true", help="the default; accepted")
    p.add_argument("-b", "--backend", metavar="NAME")
    p.add_argument("-a", "--addr", metavar="ADDR", help="where ADDR (hex) is for each thread")
    try:
        a = p.parse_args(argv)
    except SystemExit as e:
        return EXIT_USAGE if e.code else 0
    addr = None
    if a.addr is not None:
        try:
            addr = _hex_addr(a.addr)
        except ValueError:
            print(f"stackinfo: bad address '{a.addr}'", file=sys.stderr)
            return EXIT_USAGE
    if a.pid_pos and a.pid and a.pid_pos != a.pid:
        p.print_usage(sys.stderr)
        return EXIT_USAGE
    pid = a.pid or a.pid_pos or 0
    if a.backend is not None:
        try:
            stackinfo.set_backend(a.backend)
        except ValueError:
            print(f"stackinfo: unknown backend '{a.backend}'", file=sys.stderr)
            return EXIT_USAGE
        except stackinfo.Error as e:
            print(f"stackinfo: backend {a.backend}: {e.strerror}", file=sys.stderr)
            return EXIT_OTHER
    try:
        in_use = stackinfo.backend()
    except stackinfo.Error as e:
        print(f"stackinfo: no backend: {e.strerror}", file=sys.stderr)
        return EXIT_OTHER
    # the in-tree file needs no module: nothing to say then
    if in_use not in ("module", "proc") and a.backend is None:
        print(f"stackinfo: the stackinfo module is not loaded; answered by the "
              f"{in_use} backend", file=sys.stderr)
    run = _Run(in_use, addr)
    if pid and a.tid:
        what = f"thread {a.tid} of process {pid}"
        if os.path.exists(f"/proc/{pid}/task/{a.tid}"):
            err = run.one(a.tid, pid, what)
        else:
            err = run.fail(what, errno.ESRCH)
    elif pid:
        err = run.process(pid)
    else:
        err = run.one(a.tid or 0, 0, f"thread {a.tid}" if a.tid else "self")
    sys.stdout.write(_json.document(in_use, run.threads))
    return _exit_code(err) if err else 0


if __name__ == "__main__":
    sys.exit(main())
