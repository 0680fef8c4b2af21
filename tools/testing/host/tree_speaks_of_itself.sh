#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The tree describes the software, never the history of its making: no
# file git tracks names work sessions, issue or seed numbers, helpers,
# numbered rounds of work, "this run", who built what, or dates of work in
# prose. Each hit fails with FILE:LINE. Exempt: debian/changelog (history
# is what a changelog is), a man page's .TH line (its date), and, for
# dates alone, the benchmark's data files (docs/*.csv, docs/*.log,
# tools/bench/testdata/), where dated figures belong. The patterns are
# first held against planted lines in a scratch repository: each history
# phrase must be found and no ordinary word may be.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# extended regular expressions, matched without regard to case
history=(
	'\bsessions? #?[0-9]+'
	'\b(this|last|another|next|previous|earlier|first|second|same|that|one) session\b'
	'\bsession.s (tree|run|note|stop|work|change|branch|first|last)'
	'\bhelper[ -]?#?[0-9]+'
	'\bhelper.s (kernel|build|run|guest|session|branch|work|note|tree|change)'
	'\bissues? #?[0-9]+'
	'\b(the|this|that) issue (asks|says|wants)\b'
	'\bheld[- ]out\b'
	'\bseeds?[ /]0[0-9]{2}\b'
	'\b(in|from|of|during) this (one )?run\b'
	"\\bthis run's\\b"
	'\b(work|review|fix(ing)?) rounds?\b'
	'\bround #?[0-9]+\b'
	'\b(built|written|made|done|fixed|added|found|measured) by (a |an |another |the |this )?(helper|session|engineer|lead|CEO)s?\b'
	'\bthe (lead|CEO)\b'
	'\bthis branch\b'
)
date='\b20[0-9]{2}-[01][0-9]-[0-3][0-9]\b'

# scan DIR: every hit in DIR's tracked files, as FILE:LINE:TEXT
scan() {
	local args=() p
	for p in "${history[@]}"; do args+=(-e "$p"); done
	git -C "$1" grep -nIiE "${args[@]}" -- . ':!debian/changelog'
	git -C "$1" grep -nIE -e "$date" -- . ':!debian/changelog' \
		':!docs/*.csv' ':!docs/*.log' ':!tools/bench/testdata/' |
		grep -vE '^man/[^:]+:[0-9]+:\.TH '
	return 0
}

# The planted lines: each "bad" one must be found, no "good" one may be.
# (Split so that this file does not hold the phrases it looks for.)
s=session i=issue h=helper r=round u=run y=2026 o=out e=seed l=lead b=branch
bad=(
	"measured in $s 12 on a loaded host"
	"as in the previous $s, the build"
	"it panicked CI's guest at the $s's stop"
	"the $s's tree had ten kernels"
	"${h}-3 wrote this"
	"shared with another $h's kernel build"
	"the targets of $i 24, met or missed"
	"Targets (${i} 6), from the run"
	"${i}s 6 and 12"
	"see $i #20"
	"the ratios the $i asks for"
	"the held-$o tests"
	"${e^} 000's table shape"
	"the noise in this $u"
	"this $u's noise, not gains"
	"the second work $r added it"
	"after $r 3 of the review"
	"built by a $h"
	"made by the $l"
	"after (this $b)"
	"until $y-12-02 it read dmesg alone"
)
good=(
	"a $h thread that sleeps"
	"the $s leader (setsid) and the process group"
	"$i the ioctl again"
	"$r up to a page"
	"for each run of make check"
	"seed the generator with 42"
	"lead to a wrong answer"
	"the rlimit is read under the leader's task_lock"
	"rounds of 25 ms, medians of 9"
	"a branch that cannot be taken"
)
git init -q "$tmp/repo" || exit 1
mkdir -p "$tmp/repo/man" "$tmp/repo/docs" "$tmp/repo/debian"
printf '%s\n' "${bad[@]}" >"$tmp/repo/bad.txt"
printf '%s\n' "${good[@]}" >"$tmp/repo/good.txt"
printf '.TH X 1 %s-12-01 "x" "y"\n' "$y" >"$tmp/repo/man/x.1"
printf 'date,figure\n%s-12-01,3.0\n' "$y" >"$tmp/repo/docs/data.csv"
printf 'x (0.1) unstable; urgency=low\n\n  * %s 9 of %s 4, %s-12-01\n\n -- x <x@x>  Tue, 01 Dec 2026 00:00:00 +0000\n' "$s" "$i" "$y" \
	>"$tmp/repo/debian/changelog"
git -C "$tmp/repo" add -A || exit 1
scan "$tmp/repo" >"$tmp/planted"
for n in "${!bad[@]}"; do
	grep -q "^bad.txt:$((n + 1)):" "$tmp/planted" ||
		{ echo "FAIL: the patterns miss a planted phrase: ${bad[n]}"; fail=1; }
done
if grep -v '^bad.txt:' "$tmp/planted"; then
	echo "FAIL: the patterns flag the ordinary lines above"
	fail=1
fi

scan "$top" >"$tmp/hits"
if [ -s "$tmp/hits" ]; then
	echo "FAIL: the tree speaks of how it was made ($(wc -l <"$tmp/hits") lines):"
	cut -c1-200 "$tmp/hits"
	fail=1
fi
[ $fail = 0 ] && echo "PASS: no work history in $(git -C "$top" ls-files | wc -l) tracked files"
exit $fail
