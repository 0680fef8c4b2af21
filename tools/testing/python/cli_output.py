# SPDX-License-Identifier: LGPL-2.1-or-later
"""Both CLIs when their output cannot be written (stackinfo(1), EXIT STATUS).

  cli_output.py CLI
Run with the package and the library on Python's and the loader's paths
(tools/testing/host/cli_parity.sh on the host, the guest's cli_parity).
`CLI ARGS...` and `python3 -m stackinfo ARGS...` (the interpreter itself,
started as a user starts it) with stdout on /dev/full, closed, or a pipe
whose reader has gone (SIGPIPE inherited at its default, ignored, or
blocked), and with stderr on /dev/full or closed:
- output lost is exit 5, with one line "stackinfo: write error: REASON"
  on stderr where stderr takes it, never a traceback, never exit 0;
- a reader gone kills both by SIGPIPE, whatever disposition they
  inherited, unless it is blocked (then EPIPE: exit 5);
- a closed stdout is no error where nothing is written to it;
- both exit the same and say the same on stderr.
Prints "FAIL: ..." for each failure; exit 1 if any, 0 otherwise.
"""
import os
import signal
import subprocess
import sys

cli = sys.argv[1]
failed = 0
CLIS = (("C", [cli]), ("Python", [sys.executable, "-m", "stackinfo"]))


def check(what, ok, detail=""):
    global failed
    if not ok:
        print(f"FAIL: {what}{': ' + str(detail)[:300] if detail else ''}")
        failed = 1


def ignore_sigpipe():
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)


def block_sigpipe():
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGPIPE})


def close_fd(fd):
    return lambda: os.close(fd)


def run(cmd, stdout=None, stderr=subprocess.PIPE, preexec=None, restore=True):
    """@cmd's exit status and stderr (b"" where stderr is not ours)."""
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=stdout or subprocess.DEVNULL,
                         stderr=stderr, preexec_fn=preexec, restore_signals=restore)
    err = p.stderr.read() if stderr == subprocess.PIPE else b""
    return p.wait(), err


full = open("/dev/full", "wb")


def reader_gone():
    """A pipe's write end whose read end is closed."""
    r, w = os.pipe()
    os.close(r)
    return w


# CASE, ARGS, how the CLI runs, the exit status, the last line on stderr
# ("" for none of its own: stderr is not there, or nothing went wrong)
CASES = [
    ("stdout on /dev/full", ["--json"], dict(stdout=full), 5,
     "stackinfo: write error: No space left on device"),
    ("stdout on /dev/full, --help", ["--help"], dict(stdout=full), 5,
     "stackinfo: write error: No space left on device"),
    ("stdout on /dev/full, --version", ["-V"], dict(stdout=full), 5,
     "stackinfo: write error: No space left on device"),
    ("stdout closed", ["--json"], dict(preexec=close_fd(1)), 5,
     "stackinfo: write error: Bad file descriptor"),
    ("stdout closed, nothing written", ["--bogus"], dict(preexec=close_fd(1)), 2,
     "stackinfo: unknown option '--bogus'"),
    ("reader gone, SIGPIPE at its default", ["--json", "-b", "maps"], dict(pipe=True),
     -signal.SIGPIPE, ""),
    ("reader gone, SIGPIPE ignored", ["--json", "-b", "maps"],
     dict(pipe=True, preexec=ignore_sigpipe, restore=False), -signal.SIGPIPE, ""),
    ("reader gone, SIGPIPE blocked", ["--json", "-b", "maps"],
     dict(pipe=True, preexec=block_sigpipe), 5, "stackinfo: write error: Broken pipe"),
    ("stderr on /dev/full, a refusal", ["--bogus"], dict(stderr=full), 5, ""),
    ("stderr closed, a refusal", ["--bogus"],
     dict(stderr=subprocess.DEVNULL, preexec=close_fd(2)), 5, ""),
    ("stderr on /dev/full, nothing to say", ["--json", "-b", "maps"], dict(stderr=full), 0, ""),
]

for case, args, how, want_rc, want_last in CASES:
    got = {}
    for who, cmd in CLIS:
        kw = dict(how)
        w = reader_gone() if kw.pop("pipe", False) else None
        rc, err = run(cmd + args, stdout=w or kw.pop("stdout", None), **kw)
        if w is not None:
            os.close(w)
        got[who] = (rc, err)
        what = f"{who}: {case}"
        check(f"{what}: exit {want_rc}", rc == want_rc, f"exit {rc}: {err}")
        check(f"{what}: no traceback", b"Traceback" not in err, err)
        lines = err.decode(errors="replace").splitlines()
        last = lines[-1] if lines else ""
        if want_last:
            check(f"{what}: says {want_last!r} last", last == want_last, err)
            check(f"{what}: says it once", lines.count(want_last) == 1, err)
        else:
            check(f"{what}: says nothing of the output", "write error" not in last, err)
    check(f"{case}: the same exit and stderr from both", got["C"] == got["Python"], got)

sys.exit(failed)
