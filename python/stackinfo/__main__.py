# SPDX-License-Identifier: LGPL-2.1-or-later
"""python3 -m stackinfo [-p PID | PID] [-t TID] [--json] [--backend NAME] [--addr ADDR]:
the JSON of stackinfo(1) --json, from the bindings, with its messages and
exit codes:
0 answered; 1 no such process or thread; 2 bad usage; 3 permission denied;
4 any other failure; 5 output lost (standard output or error could not be
written). With no PID: this process's own thread.

The arguments follow stackinfo(1)'s grammar, which is getopt_long()'s as
the C CLI (tools/stackinfo/stackinfo.c) calls it: this parses them, as
bytes, the way glibc does, and refuses what the C CLI refuses with the same
message. The output goes to the file descriptors themselves, not through
sys.stdout, so that a failed write is this code's to report (exit 5, one
line) rather than Python's at shutdown.
"""
import errno
import os
import re
import signal
import sys

import stackinfo
from stackinfo import _json

EXIT_NOSUCH, EXIT_USAGE, EXIT_PERM, EXIT_OTHER, EXIT_IO = 1, 2, 3, 4, 5

# getopt_long()'s table: long name, its letter, whether it takes a value
_OPTIONS = (("pid", b"p", True), ("tid", b"t", True), ("json", b"j", False),
            ("backend", b"b", True), ("addr", b"a", True), ("help", b"h", False),
            ("version", b"V", False))
_BY_LETTER = {letter: (name, value) for name, letter, value in _OPTIONS}
_TAKES_VALUE = {name: value for name, _, value in _OPTIONS}

_USAGE = """\
usage: python3 -m stackinfo [-p PID | PID] [-t TID] [--json] [--backend NAME] [--addr ADDR]
  what stackinfo --json prints, from the Python bindings: the same
  arguments, output, messages and exit status (stackinfo(1))
  no option: this process's own thread
  -p, --pid PID      every thread of PID (decimal)
  -t, --tid TID      one thread (with -p: a thread of PID)
  -j, --json         JSON output (the only output; accepted)
  -b, --backend NAME proc, module, procmap_query or maps
  -a, --addr ADDR    where ADDR (hex, 0x optional) is for each thread
  -h, --help
  -V, --version
Exit: 0 answered, 1 no such process or thread, 2 bad usage, 3 permission
denied, 4 any other failure, 5 output lost. See stackinfo(1).
"""


class _Streams:
    """stdout and stderr written through their fds: the first failed
    write to stdout, and whether stderr refused a message."""

    def __init__(self):
        self.out_errno = 0
        self.said_failed = False

    @staticmethod
    def _write(fd, data):
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]

    def out(self, text):
        if self.out_errno:
            return
        # closed when Python started: whatever holds the number now is not ours
        if sys.stdout is None:
            self.out_errno = errno.EBADF
            return
        try:
            self._write(1, text.encode())
        except OSError as e:
            self.out_errno = e.errno or errno.EIO

    def say(self, text):
        """One line on stderr, "stackinfo: " first."""
        if sys.stderr is None:
            self.said_failed = True
            return
        try:
            self._write(2, b"stackinfo: " + os.fsencode(text) + b"\n")
        except OSError:
            self.said_failed = True

    def finish(self, status):
        """As the C CLI ends (coreutils' close_stdout()): output lost makes
        the status EXIT_IO, said once for stdout."""
        if self.out_errno:
            self.say(f"write error: {os.strerror(self.out_errno)}")
            status = EXIT_IO
        return EXIT_IO if self.said_failed else status



class _Refused(Exception):
    """A refusal of the arguments: its message, said with exit 2."""


def _shown(arg):
    """@arg (bytes) as a refusal quotes it: printable ASCII as it is, every
    other byte, the quote and the backslash as \\xHH."""
    return "".join(chr(b) if 0x20 <= b < 0x7F and b not in b"'\\" else f"\\x{b:02x}"
                   for b in arg)


def _refuse(what, arg):
    return _Refused(f"{what} '{_shown(arg)}'")


def _options(argv, operands):
    """Yield (name, value) for each option of @argv (bytes), in order, as
    getopt_long(":p:t:jb:a:hV") returns them: letters bundle (-jp5), a
    value is the rest of its argument or the next argument whatever it
    holds, a long option is --name=VALUE or --name VALUE and may be any
    unique prefix of its name, "--" ends the options. Operands go to
    @operands; they may come between options, unless POSIXLY_CORRECT is
    in the environment (the first one ends the options then)."""
    posixly = "POSIXLY_CORRECT" in os.environ
    i = 0
    while i < len(argv):
        a = argv[i]
        i += 1
        if a == b"--":
            operands.extend(argv[i:])
            return
        if not a.startswith(b"-") or a == b"-":
            if posixly:
                operands.extend(argv[i - 1:])
                return
            operands.append(a)
            continue
        if a.startswith(b"--"):
            typed, eq, value = a[2:].partition(b"=")
            hits = [n for n, _, _ in _OPTIONS if n.encode().startswith(typed)]
            exact = [n for n in hits if n.encode() == typed]
            if exact:
                hits = exact
            if len(hits) != 1:
                raise _refuse("unknown option", b"--" + typed)
            name = hits[0]
            if not _TAKES_VALUE[name]:
                if eq:
                    raise _Refused(f"option '--{name}' takes no value")
                value = None
            elif not eq:
                if i == len(argv):
                    raise _Refused(f"option '--{name}' needs a value")
                value = argv[i]
                i += 1
            yield name, value
            continue
        j = 1
        while j < len(a):
            letter = a[j:j + 1]
            j += 1
            if letter not in _BY_LETTER:
                raise _refuse("unknown option", b"-" + letter)
            name, takes = _BY_LETTER[letter]
            if not takes:
                yield name, None
                continue
            if j < len(a):
                value = a[j:]
            elif i < len(argv):
                value = argv[i]
                i += 1
            else:
                raise _Refused(f"option '-{letter.decode()}' needs a value")
            yield name, value
            break


def _id(v, what):
    """PID and TID: decimal digits and nothing else, 1 to pid_t's largest."""
    digits = v.lstrip(b"0")
    if not re.fullmatch(rb"[0-9]+", v) or len(digits) > 10 or \
            not 0 < int(digits or b"0") <= 0x7FFFFFFF:
        raise _refuse(f"bad {what}", v)
    return int(digits)


def _hex_addr(v):
    """ADDR: hex digits and nothing else, 0x or 0X before them optional;
    at most 64 bits."""
    m = re.fullmatch(rb"(?:0[xX])?([0-9a-fA-F]+)", v)
    digits = m.group(1).lstrip(b"0") if m else b""
    if not m or len(digits) > 16:
        raise _refuse("bad address", v)
    return int(digits or b"0", 16)


def _library_version():
    """The version of the libstackinfo.so.0 this process loaded, from the
    name of the file mapped (libstackinfo.so.0.2.0)."""
    with open("/proc/self/maps", "rb") as f:
        for line in f:
            m = re.search(rb"/libstackinfo\.so\.([0-9.]+)\n$", line)
            if m:
                return m.group(1).decode()
    return "unknown"


def _exit_code(err):
    if err in (errno.ESRCH, errno.ENOENT):
        return EXIT_NOSUCH
    if err in (errno.EACCES, errno.EPERM):
        return EXIT_PERM
    return EXIT_OTHER


class _Run:
    """One invocation: what it printed and the first failure."""

    def __init__(self, streams, in_use, addr):
        self.streams = streams
        self.in_use = in_use
        self.addr = addr  # --addr's, or None
        self.told_fallback = False
        self.threads = []

    def fail(self, what, err):
        self.streams.say(f"{what}: {os.strerror(err)}")
        return err

    def shown(self, t, what):
        """@t: a Thread, or with --addr a Classification."""
        by = t.backend if self.addr is None else t.thread.backend
        # the module or the in-tree file refused and /proc answered: say so, once
        if by != self.in_use and not self.told_fallback:
            self.streams.say(f"the {self.in_use} backend refused {what}; answered by "
                    f"the {by} backend, as far as /proc allows")
            self.told_fallback = True
        if self.addr is not None and t.addr_class is None and not self.told_fallback:
            self.streams.say(f"the {by} backend cannot classify addresses (the module "
                    "or the in-tree file can)")
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


def _parse(argv):
    """The arguments: (pid, tid, addr, backend), or for --help and
    --version the text to print; _Refused at the first refusal."""
    pid = tid = addr = backend = None
    operands = []
    for name, value in _options(argv, operands):
        if name in ("pid", "tid"):
            if (pid if name == "pid" else tid) is not None:
                raise _Refused(f"{name} given twice")
            v = _id(value, name)
            pid, tid = (v, tid) if name == "pid" else (pid, v)
        elif name == "addr":
            if addr is not None:
                raise _Refused("address given twice")
            addr = _hex_addr(value)
        elif name == "backend":
            if backend is not None:
                raise _Refused("backend given twice")
            if value not in (n.encode() for n in stackinfo.backend_names()):
                raise _refuse("unknown backend", value)
            backend = value.decode()
        elif name == "help":
            return _USAGE
        elif name == "version":
            return f"stackinfo {_library_version()}\n"
    # the operand: a PID, as -p gives it
    for v in operands:
        if pid is not None:
            raise _Refused("pid given twice")
        pid = _id(v, "pid")
    return pid, tid, addr, backend


def main(argv=None):
    streams = _Streams()
    argv = [os.fsencode(a) for a in (sys.argv[1:] if argv is None else argv)]
    try:
        parsed = _parse(argv)
    except _Refused as e:
        streams.say(str(e))
        return streams.finish(EXIT_USAGE)
    if isinstance(parsed, str):
        streams.out(parsed)
        return streams.finish(0)
    pid, tid, addr, backend = parsed
    if backend is not None:
        try:
            stackinfo.set_backend(backend)
        except stackinfo.Error as e:
            streams.say(f"backend {backend}: {e.strerror}")
            return streams.finish(EXIT_OTHER)
    try:
        in_use = stackinfo.backend()
    except stackinfo.Error as e:
        streams.say(f"no backend: {e.strerror}")
        return streams.finish(EXIT_OTHER)
    # the in-tree file needs no module: nothing to say then
    if in_use not in ("module", "proc") and backend is None:
        streams.say(f"the stackinfo module is not loaded; answered by the {in_use} backend")
    run = _Run(streams, in_use, addr)
    if pid and tid:
        what = f"thread {tid} of process {pid}"
        if os.path.exists(f"/proc/{pid}/task/{tid}"):
            err = run.one(tid, pid, what)
        else:
            err = run.fail(what, errno.ESRCH)
    elif pid:
        err = run.process(pid)
    else:
        err = run.one(tid or 0, 0, f"thread {tid}" if tid else "self")
    streams.out(_json.document(in_use, run.threads))
    return streams.finish(_exit_code(err) if err else 0)


if __name__ == "__main__":
    # the reader of the output gone: killed by SIGPIPE as the C CLI is
    # (Python ignores it before this runs; see stackinfo(1))
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
