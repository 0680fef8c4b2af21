# SPDX-License-Identifier: LGPL-2.1-or-later
#
# awk -f log-filter.awk [LOG]: a kernel log as it is, less what the scan
# for reports (vm-run, run-tests) must not count, said on standard error:
#  - each KCSAN report that names no stackinfo function (module or
#    in-tree) in any of its lines: the kernel's own data races, which this
#    project can neither fix nor annotate;
#  - kmemleak's "N new suspected memory leaks" from the scans run-tests
#    makes of what boot left, before any test (between its lines
#    "stackinfo: boot kmemleak scan" and "stackinfo: boot kmemleak scan
#    done"): 6.1's ACPI leaves eight of its caches' objects (the kernel's,
#    not ours), and run-tests lists them and clears them; its kmemleak
#    result, two scans at the end, is what counts a leak of ours.
#
# KCSAN: each report dropped is said in one line on standard error
# (without its "BUG:"). Every other report, and every other line, goes
# through to the splat patterns, so a race the module or the in-tree
# files take part in, by either side's stack, still fails the run. A
# report whose watcher is the kernel's code and whose other side is
# unknown ("race at unknown origin") names only the kernel and is dropped,
# even when the unknown side was ours: that is what this filter costs.
#
# A report is the lines from "BUG: KCSAN: " to the next line of '='s
# (KCSAN prints one before and one after), or 60 lines at most.

function flush() {
	if (block ~ /stackinfo/)
		print block
	else {
		# not "BUG:" again: a splat pattern would count the line
		sub(/.*BUG: /, "", title)
		print "log-filter: not counted (no stackinfo function in it): " title > "/dev/stderr"
	}
	inblock = 0
	block = ""
}

/stackinfo: boot kmemleak scan done/ { boot = 0; print; next }
/stackinfo: boot kmemleak scan/ { boot = 1; print; next }
boot && /kmemleak: .*suspected/ {
	# not "kmemleak:" again, as not "BUG:" below
	line = $0
	sub(/.*kmemleak: /, "", line)
	print "log-filter: not counted (boot's kmemleak scan, before any test): " line > "/dev/stderr"
	next
}

/BUG: KCSAN: / {
	if (inblock)
		flush()
	inblock = 1
	n = 0
	title = $0
	block = $0
	next
}

inblock {
	block = block "\n" $0
	if ($0 ~ /==========/ || ++n >= 60)
		flush()
	next
}

{ print }

END {
	if (inblock)
		flush()
}
