# SPDX-License-Identifier: LGPL-2.1-or-later
"""The cost meter's results, read: the plugin's output file
(tools/cost/plugin.c) and the guest's lines (tools/cost/cost.c), for
tools/cost/report and tools/testing/cost-results.

A row's cost is the most frequent count among its regions (an interrupt
or a preemption inside a region makes that region's count its own), per
call, divided by the answers a call gives (the batch's entries). Its
breakdown attributes each block of that count's regions to the kernel
symbol holding the block's start (a translated block never spans a call
or a jump, so never two functions), and user-space addresses to
"[user]"."""
import bisect
import re

USER_TOP = 1 << 63  # x86-64: the kernel's half has the top bit set


class Row:
    def __init__(self, tag, name, calls, entries):
        self.tag, self.name = tag, name
        self.calls, self.entries = calls, entries
        self.hist = {}  # count -> regions
        self.blocks = {}  # group ("all" or a count) -> [(addr, n, execs)]
        self.lost = 0

    @property
    def regions(self):
        return sum(self.hist.values())

    @property
    def mode(self):
        """The most frequent count (the smaller one on a tie), or None."""
        if not self.hist:
            return None
        return min(self.hist, key=lambda c: (-self.hist[c], c))

    @property
    def mode_regions(self):
        return self.hist.get(self.mode, 0)

    @property
    def per_call(self):
        return None if self.mode is None else self.mode / self.entries

    @property
    def mean(self):
        r = self.regions
        if not r:
            return None
        return sum(c * k for c, k in self.hist.items()) / r / self.entries


class Symbols:
    """The guest's text symbols, from the lines the plugin's data held."""

    def __init__(self, text):
        syms = []
        for line in text.splitlines():
            f = line.split()
            if len(f) < 3:
                continue
            try:
                addr = int(f[0], 16)
            except ValueError:
                continue
            name = f[2]
            # the padding before a function is entered as the function
            if name.startswith("__pfx_"):
                continue
            mod = f[3].strip("[]") if len(f) > 3 else None
            syms.append((addr, name, mod))
        syms.sort()
        self.addrs = [s[0] for s in syms]
        self.syms = syms

    def __len__(self):
        return len(self.syms)

    def name(self, addr):
        if addr < USER_TOP:
            return "[user]"
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0:
            return "[kernel %x]" % addr
        _, name, mod = self.syms[i]
        return f"{name} [{mod}]" if mod else name


class Run:
    """One guest's run: its rows (by name), skips, symbols."""

    def __init__(self, raw_path, log_path):
        self.rows, self.skips, self.errors = {}, {}, []
        self.ksyms_sent = None
        self.maps = None
        self.lockfree = {}  # "before"/"after" the churn row: (hits, fallbacks)
        by_tag = {}
        with open(log_path, errors="replace") as f:
            for line in f:
                # make check's guest test shows them as "    cost_self: info: LINE"
                line = re.sub(r"^\s*\S+: info: ", "", line)
                m = re.match(r"^cost-row (\d+) (\S+) (\d+) (\d+)$", line.rstrip("\n"))
                if m:
                    r = Row(int(m[1]), m[2], int(m[3]), int(m[4]))
                    self.rows[r.name] = r
                    by_tag[r.tag] = r
                    continue
                m = re.match(r"^cost-skip (\S+) (.*)$", line.rstrip("\n"))
                if m:
                    self.skips[m[1]] = m[2]
                    continue
                m = re.match(r"^cost-ksyms (\d+)$", line.rstrip("\n"))
                if m:
                    self.ksyms_sent = int(m[1])
                m = re.match(r"^cost-maps (\d+) (\d+)$", line.rstrip("\n"))
                if m:
                    self.maps = (int(m[1]), int(m[2]))
                m = re.match(r"^cost-lockfree (\S+) (\d+) (\d+)$", line.rstrip("\n"))
                if m:
                    self.lockfree[m[1]] = (int(m[2]), int(m[3]))
        data = b""
        with open(raw_path, "rb") as f:
            raw = f.read()
        head, sep, rest = raw.partition(b"\ndata ")
        if sep:
            n, _, tail = rest.partition(b"\n")
            data = tail[: int(n)]
            if len(data) != int(n):
                self.errors.append("the plugin's data is cut short")
        else:
            self.errors.append("the plugin's output has no data section")
        for line in head.decode().splitlines():
            f = line.split()
            if not f:
                continue
            if f[0] == "hist":
                r = by_tag.get(int(f[1]))
                if r:
                    r.hist[int(f[2])] = int(f[3])
            elif f[0] == "block":
                r = by_tag.get(int(f[1]))
                if r:
                    group = f[2] if f[2] == "all" else int(f[2])
                    r.blocks.setdefault(group, []).append(
                        (int(f[3], 16), int(f[4]), int(f[5])))
            elif f[0] == "lost":
                r = by_tag.get(int(f[1]))
                if r:
                    r.lost = int(f[2])
        if self.ksyms_sent is not None and self.ksyms_sent != len(data):
            self.errors.append(f"symbols: the guest sent {self.ksyms_sent} bytes, "
                               f"the plugin kept {len(data)}")
        self.symbols = Symbols(data.decode(errors="replace"))

    def breakdown(self, row, group=None):
        """{symbol: instructions per call} for the mode's regions (or
        "all": every region, per region), per answer."""
        r = self.rows[row]
        g = r.mode if group is None else group
        regions = r.hist.get(g, 0) if g != "all" else r.regions
        out = {}
        for addr, n, execs in r.blocks.get(g, []):
            s = self.symbols.name(addr)
            out[s] = out.get(s, 0) + n * execs
        div = max(regions, 1) * r.entries
        return {s: v / div for s, v in out.items()}


def top(breakdown, n):
    """The @n largest (symbol, per call) of a breakdown, largest first."""
    return sorted(breakdown.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
