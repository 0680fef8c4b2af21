#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# gen-series.sh [--pristine] VERSION [OUTDIR]: write the in-tree series for base VERSION
# (6.12: Debian 12's linux-source-6.12; 7.2: Debian unstable's
# linux-source-7.2) into OUTDIR (default kernel/patches/VERSION), as
# `git format-patch` writes it, with a cover letter.
#
# The series is made from the project's own files, never edited by hand:
#   include/uapi/linux/stackinfo.h  the same file
#   module/stackinfo.h, query.c,    as fs/proc/stackinfo.h,
#   abi.c                           stackinfo_query.c, stackinfo_abi.c:
#                                   the same source, written against
#                                   mainline's API (module/compat/, which
#                                   supplies it on older kernels, is the
#                                   module's alone), with the KUnit-only
#                                   exports left out (the module, loaded
#                                   on a patched kernel, exports them)
#   kernel/series/6.12/             for the 6.12 base, a first patch with
#                                   mainline's mmap_lock_speculate_*()
#   kernel/proc/stackinfo.c         fs/proc/stackinfo.c (procfs's policy)
#   kernel/proc/stackinfo_test.c    fs/proc/stackinfo_test.c (its KUnit suite)
#   kernel/series/                  the commit messages, the Kconfig entry,
#                                   the proc.rst section
#   kernel/selftests/proc-stackinfo.c  the kselftest
# into the base's pristine files (taken from its source tarball once and
# kept under $STACKINFO_CACHE; --pristine prints where, writing nothing
# else). make check (host test series_current)
# writes the series again and fails when it differs from the committed
# one: fix a bug in module/ and run this script for both bases.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
pristine_only=0
if [ "${1:-}" = --pristine ]; then
	pristine_only=1
	shift
fi
version=${1:?usage: gen-series.sh [--pristine] 6.12|7.2 [OUTDIR]}
out=${2:-$top/kernel/patches/$version}
cache=${STACKINFO_CACHE:-/var/cache/stackinfo}
case $version in
6.12 | 7.2) ;;
*) echo "gen-series: no series for '$version' (bases: 6.12 7.2)" >&2; exit 2 ;;
esac

# The files the series changes, as the base has them.
files="MAINTAINERS Documentation/userspace-api/ioctl/ioctl-number.rst fs/proc/base.c fs/proc/internal.h fs/proc/Kconfig
fs/proc/Makefile Documentation/filesystems/proc.rst
tools/testing/selftests/proc/Makefile tools/testing/selftests/proc/.gitignore"
# 6.12 lacks mainline's mmap_lock_speculate_*() (6.14), which the core uses
[ "$version" != 6.12 ] || files="$files include/linux/mmap_lock.h"
read -r srcver tarball < <("$top/scripts/build-debug-kernel.sh" --source "$version")
pristine=$cache/pristine-$version-$srcver-$(echo $files | sha256sum | cut -c1-8)
if [ ! -e "$pristine/.complete" ]; then
	rm -rf "$pristine.tmp"
	mkdir -p "$pristine.tmp"
	# shellcheck disable=SC2086 # one path each
	tar -xf "$tarball" -C "$pristine.tmp" --strip-components=1 \
		$(for f in $files; do echo "linux-source-$version/$f"; done)
	touch "$pristine.tmp/.complete"
	rm -rf "$pristine"
	mv "$pristine.tmp" "$pristine"
fi
if [ $pristine_only = 1 ]; then
	echo "$pristine"
	exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git=(git -C "$work" -c core.autocrlf=false -c user.useConfigOnly=false)
export GIT_AUTHOR_NAME="The stackinfo developers" GIT_AUTHOR_EMAIL="stackinfo@invalid"
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_AUTHOR_DATE="2026-12-01T00:00:00+0000" GIT_COMMITTER_DATE="2026-12-01T00:00:00+0000"
"${git[@]}" init -q
for f in $files; do
	mkdir -p "$work/$(dirname "$f")"
	cp "$pristine/$f" "$work/$f"
done
"${git[@]}" add -A
"${git[@]}" commit -q -m "base: linux-source-$version $srcver"
base=$("${git[@]}" rev-parse HEAD)

commit() {	# MESSAGE-FILE
	"${git[@]}" add -A
	"${git[@]}" commit -q -F "$top/kernel/series/$1"
}

# module/X as in-tree code: the same lines but for the exports only the
# module's KUnit suites need (the module, loaded on a patched kernel,
# exports them itself: two exports of one name would refuse its load)
intree() {	# SRC DST
	sed -e '/^EXPORT_SYMBOL_IF_KUNIT(.*);$/d' "$top/$1" >"$work/$2"
}

# insert_after FILE LINE-REGEX TEXT-FILE [ANCHOR-REGEX]: TEXT after the
# first line matching (after the first line matching ANCHOR, if given)
insert_after() {
	awk -v re="$2" -v txt="$3" -v anchor="${4:-}" '
		{ print }
		anchor != "" && !seen && $0 ~ anchor { seen = 1; next }
		!done && (anchor == "" || seen) && $0 ~ re { while ((getline l < txt) > 0) print l; done = 1 }
		END { if (!done) { print "gen-series: no line /" re "/" > "/dev/stderr"; exit 1 } }
	' "$work/$1" >"$work/$1.new"
	mv "$work/$1.new" "$work/$1"
}

# 0 (6.12): mainline's mmap_lock_speculate_try_begin()/_retry(), after
# mm_lock_seqcount_end() with CONFIG_PER_VMA_LOCK and after its stub without
if [ "$version" = 6.12 ]; then
	insert_after include/linux/mmap_lock.h '^}$' "$top/kernel/series/6.12/mmap_lock.h" \
		'^static inline void mm_lock_seqcount_end\(struct mm_struct \*mm\)$'
	insert_after include/linux/mmap_lock.h \
		'^static inline void mm_lock_seqcount_end\(struct mm_struct \*mm\) \{\}$' \
		"$top/kernel/series/6.12/mmap_lock.h.stubs"
	"${git[@]}" add -A
	"${git[@]}" commit -q -F "$top/kernel/series/6.12/0-mmap-lock-speculate.txt"
fi

# 1: the uapi header, and a MAINTAINERS entry that each patch adding a
# file extends (after PROC FILESYSTEM, which covers fs/proc/ as a whole)
mkdir -p "$work/include/uapi/linux"
cp "$top/include/uapi/linux/stackinfo.h" "$work/include/uapi/linux/stackinfo.h"
printf '%s\n' '' 'PROC STACKINFO' "M:	$GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>" \
	'L:	linux-fsdevel@vger.kernel.org' 'S:	Maintained' \
	'F:	include/uapi/linux/stackinfo.h' >"$work/entry.txt"
insert_after MAINTAINERS '^F:	tools/testing/selftests/proc/$' "$work/entry.txt"
# the ioctl type, before the first row of a larger one
ion=Documentation/userspace-api/ioctl/ioctl-number.rst
printf '%-6s%-7s%-58s%s\n%71s%s\n' 0xB9 01-02 uapi/linux/stackinfo.h \
	'/proc/<pid>/stackinfo' '' '<mailto:linux-fsdevel@vger.kernel.org>' >"$work/entry.txt"
awk -v txt="$work/entry.txt" '
	!done && /^0x(B[A-F]|[C-F][0-9A-F])  / { while ((getline l < txt) > 0) print l; done = 1 }
	{ print }
	END { if (!done) { print "gen-series: no ioctl row after 0xB9" > "/dev/stderr"; exit 1 } }
' "$work/$ion" >"$work/ion.new"
mv "$work/ion.new" "$work/$ion"
rm -f "$work/entry.txt"
commit 1-uapi.txt

# 2: the query core, the text and ioctls, procfs's policy and fops
intree module/stackinfo.h fs/proc/stackinfo.h
intree module/query.c fs/proc/stackinfo_query.c
intree module/abi.c fs/proc/stackinfo_abi.c
cp "$top/kernel/proc/stackinfo.c" "$work/fs/proc/stackinfo.c"
insert_after fs/proc/Kconfig '^	  this interface. For example, rkt is such a piece of software.$' \
	"$top/kernel/series/Kconfig"
cat >"$work/mk.txt" <<EOF
proc-\$(CONFIG_PROC_STACKINFO)	+= stackinfo.o stackinfo_abi.o stackinfo_query.o
EOF
insert_after fs/proc/Makefile '^proc-\$\(CONFIG_PROC_PAGE_MONITOR\)' "$work/mk.txt"
printf '%s\n' 'extern const struct file_operations proc_pid_stackinfo_operations;' >"$work/decl.txt"
insert_after fs/proc/internal.h '^extern const struct file_operations proc_pid_maps_operations;$' \
	"$work/decl.txt"
printf 'F:	fs/proc/%s\n' stackinfo.c stackinfo.h stackinfo_abi.c stackinfo_query.c >"$work/f.txt"
insert_after MAINTAINERS '^S:	Maintained$' "$work/f.txt" '^PROC STACKINFO$'
rm -f "$work/mk.txt" "$work/decl.txt" "$work/f.txt"
commit 2-core.txt

# 3: the files, beside maps in both tables
printf '%s\n' '#ifdef CONFIG_PROC_STACKINFO' \
	'	REG("stackinfo",  0444, proc_pid_stackinfo_operations),' '#endif' >"$work/tgid.txt"
printf '%s\n' '#ifdef CONFIG_PROC_STACKINFO' \
	'	REG("stackinfo", 0444, proc_pid_stackinfo_operations),' '#endif' >"$work/tid.txt"
awk -v a="$work/tgid.txt" -v b="$work/tid.txt" '
	{ print }
	/^	REG\("maps", *S_IRUGO, proc_pid_maps_operations\),$/ {
		n++
		f = n == 1 ? a : b
		while ((getline l < f) > 0) print l
		close(f)
	}
	END { if (n != 2) { print "gen-series: maps entries: " n > "/dev/stderr"; exit 1 } }
' "$work/fs/proc/base.c" >"$work/base.c.new"
mv "$work/base.c.new" "$work/fs/proc/base.c"
rm -f "$work/tgid.txt" "$work/tid.txt"
commit 3-files.txt

# 4: proc.rst: a row in Table 1-1, a section at the end of chapter 3
rst=Documentation/filesystems/proc.rst
last=$(awk '/^Chapter 4:/ { exit } /^3\.[0-9]+[ \t]/ { split($1, v, "."); n = v[2] } END { print n }' "$work/$rst")
sec=$((last + 1))
printf ' stackinfo\tWhere each thread'"'"'s stack is, with CONFIG_PROC_STACKINFO (3.%s)\n' "$sec" >"$work/row.txt"
insert_after "$rst" '^ statm		Process memory status information$' "$work/row.txt"
sed "s/@N@/$sec/" "$top/kernel/series/proc.rst" >"$work/sec.txt"
awk -v txt="$work/sec.txt" '
	/^Chapter 4: Configuring procfs$/ && !done {
		while ((getline l < txt) > 0) print l
		print ""
		done = 1
	}
	{ print }
	END { if (!done) { print "gen-series: no chapter 4" > "/dev/stderr"; exit 1 } }
' "$work/$rst" >"$work/rst.new"
mv "$work/rst.new" "$work/$rst"
rm -f "$work/row.txt" "$work/sec.txt"
commit 4-docs.txt

# 5: the kselftest
cp "$top/kernel/selftests/proc-stackinfo.c" "$work/tools/testing/selftests/proc/proc-stackinfo.c"
# its <linux/stackinfo.h> is the tree's own (make headers)
printf '%s\n' 'CFLAGS += $(KHDR_INCLUDES)' >"$work/sel.txt"
insert_after tools/testing/selftests/proc/Makefile '^CFLAGS \+= \$\(TOOLS_INCLUDES\)$' "$work/sel.txt"
printf '%s\n' 'TEST_GEN_PROGS += proc-stackinfo' >"$work/sel.txt"
insert_after tools/testing/selftests/proc/Makefile '^TEST_GEN_PROGS \+= proc-self-wchan$' "$work/sel.txt"
printf '%s\n' '/proc-stackinfo' >"$work/sel.txt"
insert_after tools/testing/selftests/proc/.gitignore '^/proc-self-wchan$' "$work/sel.txt"
printf '%s\n' 'F:	tools/testing/selftests/proc/proc-stackinfo.c' >"$work/sel.txt"
insert_after MAINTAINERS '^F:	include/uapi/linux/stackinfo.h$' "$work/sel.txt"
rm -f "$work/sel.txt"
commit 5-selftest.txt

# 6: the KUnit suite, after PROC_STACKINFO's entry and its objects
cp "$top/kernel/proc/stackinfo_test.c" "$work/fs/proc/stackinfo_test.c"
insert_after fs/proc/Kconfig '^	  If unsure, say N\.$' "$top/kernel/series/Kconfig.kunit" \
	'^config PROC_STACKINFO$'
printf '%s\n' 'proc-$(CONFIG_PROC_STACKINFO_KUNIT_TEST)	+= stackinfo_test.o' >"$work/mk.txt"
insert_after fs/proc/Makefile '^proc-\$\(CONFIG_PROC_STACKINFO\)' "$work/mk.txt"
printf '%s\n' 'F:	fs/proc/stackinfo_test.c' >"$work/mk.txt"
insert_after MAINTAINERS '^F:	fs/proc/stackinfo_query.c$' "$work/mk.txt"
rm -f "$work/mk.txt"
commit 6-kunit.txt

# the patches, and a cover letter of our own (format-patch's would carry
# today's date): subject, text, shortlog, diffstat
rm -rf "$out.tmp"
mkdir -p "$out.tmp"
"${git[@]}" format-patch -q -n --no-signature --zero-commit -o "$out.tmp" $base..HEAD
total=$(ls "$out.tmp" | wc -l)
{
	echo "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001"
	echo "From: $GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>"
	echo "Date: Tue, 1 Dec 2026 00:00:00 +0000"
	echo "Subject: [PATCH 0/$total] $(head -n 1 "$top/kernel/series/0-cover.txt")"
	echo
	tail -n +3 "$top/kernel/series/0-cover.txt"
	echo
	echo "Against linux-source-$version $srcver."
	echo
	"${git[@]}" shortlog $base..HEAD
	"${git[@]}" diff --stat --summary $base..HEAD
} >"$out.tmp/0000-cover-letter.patch"
rm -rf "$out"
mv "$out.tmp" "$out"
echo "gen-series: $version: $total patches in ${out#$top/}" >&2
