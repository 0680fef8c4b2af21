# SPDX-License-Identifier: LGPL-2.1-or-later
"""stackinfo(1)'s argument grammar, held against both CLIs.

  cli_args.py CLI THREAD-SLEEPER
Run with the package and the library on Python's and the loader's paths
(tools/testing/host/cli_parity.sh on the host, the guest's cli_parity).
Each row of the table below runs `CLI ARGS...` and the Python CLI with the
same arguments (its main(), what `python3 -m stackinfo ARGS...` runs,
from the package this process imported once, in a child forked for each
row the library answers, here for a refusal: a Python start-up a row
would cost minutes in a TCG guest; cli_output.py runs `python3 -m
stackinfo` itself), on a sleeping process of three threads:
- both exit with the same status, print the same bytes on stdout and on
  stderr (but for --help's usage line and the process itself: each
  describes its own);
- a refusal exits 2 with nothing on stdout and exactly the row's one line
  on stderr;
- an accepted row exits 0 and its JSON shows what the arguments said:
  the process's threads, the one thread, the address, the backend.
Prints "FAIL: ..." for each failure; exit 1 if any, 0 otherwise.
"""
import atexit
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback

import stackinfo.__main__ as pycli

cli, sleeper_bin = sys.argv[1:3]
failed = 0


def check(what, ok, detail=""):
    global failed
    if not ok:
        detail = str(detail)
        print(f"FAIL: {what}{': ' + detail[:200] if detail else ''}"
              f"{'...' if len(detail) > 200 else ''}")
        failed = 1


child = subprocess.Popen([sleeper_bin, "2"], stdout=subprocess.PIPE, text=True)
atexit.register(child.kill)
pid = int(child.stdout.readline().split()[1])
tids = sorted(int(t) for t in os.listdir(f"/proc/{pid}/task"))
tid = next(t for t in tids if t != pid)


def blocked(t):
    try:
        with open(f"/proc/{pid}/task/{t}/syscall") as f:
            return f.read().split()[0] not in ("running", "-1")
    except OSError:
        return False


# a thread's SP is read only while it blocks: until all do, the two CLIs'
# answers could differ by it
for _ in range(600):
    if all(blocked(t) for t in tids):
        break
    time.sleep(0.01)

P, T = str(pid), str(tid)


def whole(d):
    return sorted(t["tid"] for t in d["threads"]) == tids and \
        all(t["pid"] == pid for t in d["threads"])


def one(d):
    return [(t["tid"], t["pid"]) for t in d["threads"]] == [(tid, pid)]


def own(d):
    """The CLI's own thread: each describes itself."""
    return len(d["threads"]) == 1 and d["threads"][0]["main"] and \
        d["threads"][0]["tid"] == d["threads"][0]["pid"]


def at(addr):
    return lambda d: whole(d) and all(t["addr"] == f"0x{addr:x}" for t in d["threads"])


def by(name):
    return lambda d: whole(d) and d["backend"] == name


# accepted: ARGS, what the JSON shows
ACCEPTED = [
    (["-j"], own),
    (["--json"], own),
    (["-j", "--"], own),
    (["-j", "-p", P], whole),
    (["-j", P], whole),
    ([P, "-j"], whole),
    (["-j", "--pid", P], whole),
    (["-j", "--pid=" + P], whole),
    (["-jp" + P], whole),
    (["-jp", P], whole),
    (["-j", "--pi", P], whole),
    (["--js", "--p=" + P], whole),
    (["-j", "-p", "00" + P], whole),
    (["-j", "--", P], whole),
    (["-j", "-j", "-p", P, "--json"], whole),
    (["-j", "-t", T], one),
    (["-j", "-p", P, "-t", T], one),
    (["-j", "-t" + T, P], one),
    (["-j", "--tid=" + T], one),
    (["-j", "-p", P, "--addr", "0x1000"], at(0x1000)),
    (["-j", "-p", P, "--addr", "0X1000"], at(0x1000)),
    (["-j", "-p", P, "--addr", "1000"], at(0x1000)),
    (["-j", "-p", P, "--addr=0001000"], at(0x1000)),
    (["-j", "-p", P, "-a0x" + "0" * 30 + "1000"], at(0x1000)),
    (["-j", "-p", P, "--addr", "0b1"], at(0xB1)),
    (["-j", "-p", P, "--addr", "0"], at(0)),
    (["-j", "-p", P, "--addr", "ffffffffffffffff"], at(2**64 - 1)),
    (["-j", "-p", P, "--ad", "0XFFFFFFFFFFFFFFFF"], at(2**64 - 1)),
    (["-j", "-p", P, "--backend", "maps"], by("maps")),
    (["-j", "--backend=maps", P], by("maps")),
    (["-j", "--ba", "maps", "-p", P], by("maps")),
    (["-jbmaps", P], by("maps")),
]

# refused: ARGS, the message after "stackinfo: " (exit 2, nothing on stdout)
REFUSED = [
    # PID and TID: decimal digits alone, 1 to 2^31 - 1
    (["-p", " +" + P], f"bad pid ' +{P}'"),
    (["-p", "+" + P], f"bad pid '+{P}'"),
    (["-p", " " + P], f"bad pid ' {P}'"),
    (["-p", P + " "], f"bad pid '{P} '"),
    (["-p", "\t" + P], f"bad pid '\\x09{P}'"),
    (["-p", P + "\n"], f"bad pid '{P}\\x0a'"),
    (["-p", "-" + P], f"bad pid '-{P}'"),
    (["-p", ""], "bad pid ''"),
    (["--pid="], "bad pid ''"),
    (["-p", "0"], "bad pid '0'"),
    (["-p", "000"], "bad pid '000'"),
    (["-p", "0x10"], "bad pid '0x10'"),
    (["-p", "2147483648"], "bad pid '2147483648'"),
    (["-p", "4294967297"], "bad pid '4294967297'"),
    (["-p", "9" * 30], f"bad pid '{'9' * 30}'"),
    (["-p", "1e3"], "bad pid '1e3'"),
    (["-p", "1_0"], "bad pid '1_0'"),
    (["-p", "\u0663"], "bad pid '\\xd9\\xa3'"),
    ([b"-p", b"1\xff"], "bad pid '1\\xff'"),
    (["-p", "abc"], "bad pid 'abc'"),
    (["-p", "it's"], "bad pid 'it\\x27s'"),
    ([" " + P], f"bad pid ' {P}'"),
    (["+" + P], f"bad pid '+{P}'"),
    (["-t", "0"], "bad tid '0'"),
    (["-t", " " + T], f"bad tid ' {T}'"),
    (["--tid=+" + T], f"bad tid '+{T}'"),
    (["-t", "-1"], "bad tid '-1'"),
    # ADDR: hex digits alone, 0x optional, 64 bits at most
    (["--addr", " -1"], "bad address ' -1'"),
    (["--addr", "-1"], "bad address '-1'"),
    (["--addr", "+1"], "bad address '+1'"),
    (["--addr", " 1"], "bad address ' 1'"),
    (["--addr", "1 "], "bad address '1 '"),
    (["--addr", ""], "bad address ''"),
    (["--addr", "0x"], "bad address '0x'"),
    (["--addr", "0x-1"], "bad address '0x-1'"),
    (["--addr", "0x 1"], "bad address '0x 1'"),
    (["--addr", "0x0x1"], "bad address '0x0x1'"),
    (["--addr", "g"], "bad address 'g'"),
    (["--addr", "1h"], "bad address '1h'"),
    (["--addr", "1_0"], "bad address '1_0'"),
    (["--addr", "1" * 17], f"bad address '{'1' * 17}'"),
    (["--addr", "0x10000000000000000"], "bad address '0x10000000000000000'"),
    (["--addr", "\u0661"], "bad address '\\xd9\\xa1'"),
    # NAME: one of the backends' names, exactly
    (["--backend", "nope"], "unknown backend 'nope'"),
    (["--backend", ""], "unknown backend ''"),
    (["--backend", "Maps"], "unknown backend 'Maps'"),
    (["--backend", " maps"], "unknown backend ' maps'"),
    (["--backend=mod"], "unknown backend 'mod'"),
    # options
    (["--bogus"], "unknown option '--bogus'"),
    (["--bogus=1"], "unknown option '--bogus'"),
    (["---json"], "unknown option '---json'"),
    (["--=5"], "unknown option '--'"),
    (["-x"], "unknown option '-x'"),
    (["-jx"], "unknown option '-x'"),
    (["-xj"], "unknown option '-x'"),
    (["-:"], "unknown option '-:'"),
    (["-?"], "unknown option '-?'"),
    (["-\u00e9"], "unknown option '-\\xc3'"),
    (["--json=1"], "option '--json' takes no value"),
    (["--json="], "option '--json' takes no value"),
    (["--js=1"], "option '--json' takes no value"),
    (["--help=1"], "option '--help' takes no value"),
    (["-p"], "option '-p' needs a value"),
    (["-jp"], "option '-p' needs a value"),
    (["--pid"], "option '--pid' needs a value"),
    (["--pi"], "option '--pid' needs a value"),
    (["-j", "-t"], "option '-t' needs a value"),
    (["--addr"], "option '--addr' needs a value"),
    (["-b"], "option '-b' needs a value"),
    # operands: one, a PID
    (["--", "-j"], "bad pid '-j'"),
    (["-j", "-"], "bad pid '-'"),
    (["-j", ""], "bad pid ''"),
    # each of -p (or the operand), -t, --addr, --backend once
    (["-p", P, "-p", P], "pid given twice"),
    (["-p", P, P], "pid given twice"),
    ([P, "-p", P], "pid given twice"),
    ([P, P], "pid given twice"),
    ([P, "abc"], "pid given twice"),
    (["-p", P, "-p", "abc"], "pid given twice"),
    (["-t", T, "-t", T], "tid given twice"),
    (["--addr", "1", "-a", "2"], "address given twice"),
    (["-b", "maps", "--backend=maps"], "backend given twice"),
    # the first refusal, options before operands
    (["-p", "abc", "--bogus"], "bad pid 'abc'"),
    (["--bogus", "-p", "abc"], "unknown option '--bogus'"),
    (["abc", "--bogus"], "unknown option '--bogus'"),
    (["--bogus", "-h"], "unknown option '--bogus'"),
]

# POSIXLY_CORRECT: the first operand ends the options
POSIX = dict(os.environ, POSIXLY_CORRECT="")
REFUSED_POSIX = [
    ([P, "--json"], "pid given twice"),
    (["abc", "-h"], "bad pid 'abc'"),
]


def run_python(args, env, fork):
    """The Python CLI's main(@args): its exit status and output. @fork: in
    a child (the library chooses its backend once a process: a row that
    asks it must start afresh); else here (a refusal asks nothing of it),
    fds 1 and 2 lent to files."""
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    sys.stdout.flush()
    child = os.fork() if fork else None
    if not child:
        saved, environ = (os.dup(1), os.dup(2)), dict(os.environ)
        rc = 99
        try:
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            if env is not None:
                os.environ.clear()
                os.environ.update(env)
            rc = pycli.main(list(args))
        except BaseException:
            traceback.print_exc()
        for f in (sys.stdout, sys.stderr):
            try:
                f.flush()
            except OSError:
                pass
        if fork:
            os._exit(rc)
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved:
            os.close(fd)
        os.environ.clear()
        os.environ.update(environ)
    else:
        _, status = os.waitpid(child, 0)
        rc = os.waitstatus_to_exitcode(status)
    out.seek(0)
    err.seek(0)
    return subprocess.CompletedProcess(args, rc, out.read(), err.read())


def run(args, env=None, fork=True):
    c = subprocess.run([cli, *args], capture_output=True, env=env)
    return c, run_python(args, env, fork)


def name(args):
    return " ".join(repr(a) for a in args)


def same(what, c, p, stdout=True):
    check(f"{what}: exit {c.returncode} (C), {p.returncode} (Python)",
          c.returncode == p.returncode)
    check(f"{what}: stderr the same", c.stderr == p.stderr, f"{c.stderr!r} {p.stderr!r}")
    if stdout:
        check(f"{what}: stdout the same", c.stdout == p.stdout, f"{c.stdout!r} {p.stdout!r}")


for args, shows in ACCEPTED:
    what = name(args)
    c, p = run(args)
    same(what, c, p, stdout=shows is not own)
    for who, r in (("C", c), ("Python", p)):
        check(f"{what}: {who} accepts", r.returncode == 0, r.stderr)
        try:
            d = json.loads(r.stdout)
        except ValueError:
            check(f"{what}: {who} prints JSON", False, r.stdout)
            continue
        check(f"{what}: {who} shows what it was asked", shows(d), r.stdout)

for env, table in ((None, REFUSED), (POSIX, REFUSED_POSIX)):
    for args, message in table:
        what = name(args) + (" (POSIXLY_CORRECT)" if env else "")
        c, p = run(args, env, fork=False)
        same(what, c, p)
        want = f"stackinfo: {message}\n".encode()
        for who, r in (("C", c), ("Python", p)):
            check(f"{what}: {who} refuses: exit 2", r.returncode == 2, r.returncode)
            check(f"{what}: {who} refuses: {message!r}", r.stderr == want, r.stderr)
            check(f"{what}: {who} refuses: nothing on stdout", not r.stdout, r.stdout)

# --help ends the parse where it stands: the usage on stdout, exit 0
for args in (["-h"], ["--help"], ["--he"], ["-jh"], ["-h", "--bogus"], ["-h", "-p", "abc"],
             ["abc", "-h"]):
    what = name(args)
    c, p = run(args)
    same(what, c, p, stdout=False)
    for who, r in (("C", c), ("Python", p)):
        check(f"{what}: {who}: usage, exit 0", r.returncode == 0 and
              r.stdout.startswith(b"usage: ") and not r.stderr, f"{r.returncode} {r.stderr}")
for args in (["-V"], ["--version"], ["--v"], ["-V", "--bogus"]):
    what = name(args)
    c, p = run(args)
    same(what, c, p)
    check(f"{what}: version, exit 0", c.returncode == 0 and
          c.stdout.startswith(b"stackinfo ") and not c.stderr, c)

# accepted, and answered with the same failure: no such process (1), a
# backend this kernel may lack (4)
for args, codes in ((["-j", "-p", "2147483647"], (1,)), (["-j", "-t", "2147483647"], (1,)),
                    (["-j", "-p", P, "-t", "1"], (1,)), (["-j", "-b", "module", P], (0, 4)),
                    (["-j", "-b", "proc", P], (0, 4))):
    what = name(args)
    c, p = run(args)
    same(what, c, p)
    check(f"{what}: exit in {codes}", c.returncode in codes, c.returncode)

print(f"info: {len(ACCEPTED)} accepted, {len(REFUSED) + len(REFUSED_POSIX)} refused "
      "rows, each against both CLIs")
sys.exit(failed)
