#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The committed in-tree series (kernel/patches/6.12, kernel/patches/7.2)
# is the one the sources write: scripts/gen-series.sh is run again for each
# base and must write the very same files (else: a change to module/ or
# kernel/ that was not carried into the series; run the script), or, when
# Debian's base has moved on since it was written, write the same files and
# messages there (same_result). Then, per
# base: scripts/apply-series.sh applies it with patch -p1 to the base's
# pristine files, `git am` applies it to a repository of them, a hunk
# that cannot apply is named, and checkpatch.pl --strict finds nothing in
# any patch. No patch adds a line naming a kernel version or the module's
# compatibility layer (module/compat/), or a name of the module's own
# grants (module/grant.c).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cp=$("$top/scripts/kernel-tools.sh")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# the base a series' cover letter names: "linux-source-6.12 6.12.117-1~deb12u1"
against() {	# SERIES-DIR
	sed -n 's/^Against \(linux-source-.*\)\.$/\1/p' "$1/0000-cover-letter.patch"
}

# Debian's base moves on (a stable update of linux-source-6.12 or of sid's
# 7.2) without our sources changing: the series written against the old
# one then differs in its hunks' line numbers and its cover letter's base.
# It is still current when, applied to the new base, it writes the same
# files as the series the sources write now, and every patch's message
# (all before its diffstat) and the cover letter but its base are the same.
same_result() {	# COMMITTED GENERATED PRISTINE; what differs in $tmp/same.out
	local side s p
	: >"$tmp/same.out"
	for side in committed:"$1" generated:"$2"; do
		s=${side#*:}
		rm -rf "$tmp/${side%%:*}"
		cp -r "$3" "$tmp/${side%%:*}"
		for p in "$s"/0*.patch; do
			case ${p##*/} in 0000-*) continue ;; esac
			patch -d "$tmp/${side%%:*}" -p1 --forward --batch --quiet <"$p" >>"$tmp/same.out" 2>&1 ||
				{ echo "${side%%:*} ${p##*/} does not apply to $3" >>"$tmp/same.out"; return 1; }
		done
	done
	diff -ru "$tmp/committed" "$tmp/generated" >>"$tmp/same.out" || return 1
	[ "$(ls "$1")" = "$(ls "$2")" ] || { echo "not the same patches" >>"$tmp/same.out"; return 1; }
	for p in "$1"/0*.patch; do
		case ${p##*/} in
		0000-*) diff <(grep -v '^Against ' "$p") <(grep -v '^Against ' "$2/${p##*/}") ;;
		*) diff <(sed '/^---$/q' "$p") <(sed '/^---$/q' "$2/${p##*/}") ;;
		esac >>"$tmp/same.out" || { echo "${p##*/}: its message differs" >>"$tmp/same.out"; return 1; }
	done
}

for v in 6.12 7.2; do
	if ! "$top/scripts/gen-series.sh" "$v" "$tmp/$v" 2>"$tmp/gen.err"; then
		echo "FAIL: gen-series.sh $v:"; cat "$tmp/gen.err"; fail=1; continue
	fi
	pristine=$("$top/scripts/gen-series.sh" --pristine "$v")
	if ! diff -ru "$top/kernel/patches/$v" "$tmp/$v" >"$tmp/diff"; then
		was=$(against "$top/kernel/patches/$v") now=$(against "$tmp/$v")
		if [ "$was" = "$now" ]; then
			echo "FAIL: kernel/patches/$v is not what scripts/gen-series.sh $v writes:"
			head -n 40 "$tmp/diff"
			fail=1
		elif same_result "$top/kernel/patches/$v" "$tmp/$v" "$pristine"; then
			echo "series_current: info: kernel/patches/$v was written against $was;" \
				"Debian's base is now $now, where it writes the very files and messages" \
				"the sources do (scripts/gen-series.sh $v refreshes its line numbers and cover letter)"
		else
			echo "FAIL: kernel/patches/$v (written against $was) is not what scripts/gen-series.sh $v writes against $now:"
			cat "$tmp/same.out"
			fail=1
		fi
	fi

	# the series is mainline code: what older kernels lack is
	# module/compat/'s, never the series'
	if grep -nE '^\+.*(LINUX_VERSION_CODE|KERNEL_VERSION\(|STACKINFO_PROBE_|STACKINFO_COMPAT_|STACKINFO_HAVE_|STACKINFO_LOCKFREE_HOW|"compat\.h"|stackinfo_compat\.h)' \
		"$top/kernel/patches/$v"/0*.patch >"$tmp/grep.out"; then
		echo "FAIL: kernel/patches/$v names the module's compatibility layer:"
		cat "$tmp/grep.out"
		fail=1
	fi

	# nor the module's own grants (module/grant.c): the kernel's open of
	# the file is the kernel's check, asked of nobody afterwards
	if grep -nE '^\+.*(STACKINFO_EXEC_TRIES|stackinfo_asked_before|stackinfo_remember|stackinfo_still|stackinfo_kernel_grant|self_exec_id)' \
		"$top/kernel/patches/$v"/0*.patch >"$tmp/grep.out"; then
		echo "FAIL: kernel/patches/$v carries the module's grants:"
		cat "$tmp/grep.out"
		fail=1
	fi

	# nor what only the module's caller carries (module/module.h) or its
	# measurement build's marks
	if grep -nE '^\+.*(stackinfo_module_caller|ask_kernel|proof_mm|proof_grant|stackinfo_asked|proc_root|->blind|allow_cap_sys_ptrace|stackinfo_prof|STACKINFO_STEP_)' \
		"$top/kernel/patches/$v"/0*.patch >"$tmp/grep.out"; then
		echo "FAIL: kernel/patches/$v carries the module's caller or marks:"
		cat "$tmp/grep.out"
		fail=1
	fi

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
