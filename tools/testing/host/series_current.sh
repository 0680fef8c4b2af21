#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The committed in-tree series (kernel/patches/6.12, kernel/patches/7.2)
# is the one the sources write: scripts/gen-series.sh is run again for each
# base and must write the very same files (else: a change to module/ or
# kernel/ that was not carried into the series; run the script). Then, per
# base: scripts/apply-series.sh applies it with patch -p1 to the base's
# pristine files, `git am` applies it to a repository of them, a hunk
# that cannot apply is named, and checkpatch.pl --strict finds nothing in
# any patch.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cp=$("$top/scripts/kernel-tools.sh")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for v in 6.12 7.2; do
	if ! "$top/scripts/gen-series.sh" "$v" "$tmp/$v" 2>"$tmp/gen.err"; then
		echo "FAIL: gen-series.sh $v:"; cat "$tmp/gen.err"; fail=1; continue
	fi
	if ! diff -ru "$top/kernel/patches/$v" "$tmp/$v" >"$tmp/diff"; then
		echo "FAIL: kernel/patches/$v is not what scripts/gen-series.sh $v writes:"
		head -n 40 "$tmp/diff"
		fail=1
	fi

	pristine=$("$top/scripts/gen-series.sh" --pristine "$v")
	tree=$tmp/tree-$v
	cp -r "$pristine" "$tree"
	printf 'VERSION = %s\nPATCHLEVEL = %s\n' "${v%.*}" "${v#*.}" >"$tree/Makefile"
	if ! out=$("$top/scripts/apply-series.sh" "$tree" 2>&1); then
		echo "FAIL: apply-series.sh on pristine $v:"; echo "$out"; fail=1
	fi
	# and again: now every hunk is there already, which must be named
	if out=$("$top/scripts/apply-series.sh" --check "$tree" 2>&1) ||
		! grep -q '^apply-series: 0001-.* does not apply' <<<"$out"; then
		echo "FAIL: apply-series.sh did not refuse an applied series on $v:"; echo "$out"; fail=1
	fi

	rm -rf "$tree"
	cp -r "$pristine" "$tree"
	(cd "$tree" && git init -q && git add -A &&
		git -c user.name=t -c user.email=t@invalid commit -qm base) >/dev/null
	if ! out=$(cd "$tree" && git -c user.name=t -c user.email=t@invalid am -q \
		$(ls "$top/kernel/patches/$v"/0*.patch | grep -v /0000-) 2>&1); then
		echo "FAIL: git am on pristine $v:"; echo "$out"; fail=1
	fi

	for p in "$top/kernel/patches/$v"/0*.patch; do
		case ${p##*/} in 0000-*) continue ;; esac
		# clean is exit 0, nothing on stderr (perl failing), no finding
		rc=0
		"$cp/scripts/checkpatch.pl" --no-tree --strict --terse "$p" >"$tmp/cp.out" 2>"$tmp/cp.err" || rc=$?
		if [ $rc != 0 ] || [ -s "$tmp/cp.err" ] || grep -qE ': (ERROR|WARNING|CHECK):' "$tmp/cp.out"; then
			cat "$tmp/cp.err" >>"$tmp/cp.out"
			echo "FAIL: checkpatch --strict on ${p#$top/} (exit $rc):"; cat "$tmp/cp.out"; fail=1
		fi
	done
done
[ $fail = 0 ] && echo "series_current: 6.12 and 7.2 as written, apply with patch and git am, checkpatch clean"
exit $fail
