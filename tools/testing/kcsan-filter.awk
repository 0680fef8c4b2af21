# SPDX-License-Identifier: LGPL-2.1-or-later
#
# awk -f kcsan-filter.awk [LOG]: a kernel log as it is, less each KCSAN
# report that names no stackinfo function (module or in-tree) in any of
# its lines: the kernel's own data races, which this project can neither
# fix nor annotate. Each report dropped is said in one line on standard
# error (without its "BUG:"). Every other report, and every other line, goes through to the
# splat patterns (vm-run, run-tests), so a race the module or the in-tree
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
		print "kcsan-filter: not counted (no stackinfo function in it): " title > "/dev/stderr"
	}
	inblock = 0
	block = ""
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
