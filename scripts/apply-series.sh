#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# apply-series.sh [--series VERSION] [--check] KSRC: apply the in-tree
# stackinfo series (kernel/patches/VERSION, default the one written for
# KSRC's VERSION.PATCHLEVEL) to the kernel source tree KSRC with patch -p1.
# Every patch is first applied to a copy of the files the series touches;
# KSRC is changed only when all of them apply, and otherwise the first
# patch, file and hunk that does not is named, and KSRC is left as it was.
# With --check, nothing is changed either way. Then: enable
# CONFIG_PROC_STACKINFO (Filesystems -> Pseudo filesystems).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: apply-series.sh [--series VERSION] [--check] KSRC"
series= check=0
while [ $# -gt 1 ]; do
	case $1 in
	--series) series=${2:?$usage}; shift 2 ;;
	--check) check=1; shift ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
ksrc=${1:?$usage}
[ -f "$ksrc/Makefile" ] && [ -d "$ksrc/fs/proc" ] ||
	{ echo "apply-series: $ksrc is not a kernel source tree" >&2; exit 2; }
if [ -z "$series" ]; then
	series=$(awk '/^VERSION =/ { v = $3 } /^PATCHLEVEL =/ { p = $3 } END { print v "." p }' "$ksrc/Makefile")
fi
dir=$top/kernel/patches/$series
if [ ! -d "$dir" ]; then
	echo "apply-series: no series for $series (there are: $(cd "$top/kernel/patches" && echo *));" \
		"--series VERSION tries one of them" >&2
	exit 2
fi
patches=()
for p in "$dir"/0*.patch; do
	case ${p##*/} in 0000-*) ;; *) patches+=("$p") ;; esac
done

# the files the series touches, copied as KSRC has them (new ones absent)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for f in $(sed -n 's|^+++ b/||p' "${patches[@]}" | sort -u); do
	if [ -e "$ksrc/$f" ]; then
		mkdir -p "$work/$(dirname "$f")"
		cp "$ksrc/$f" "$work/$f"
	fi
done
for p in "${patches[@]}"; do
	if ! out=$(patch -d "$work" -p1 --forward --batch --no-backup-if-mismatch <"$p" 2>&1); then
		echo "apply-series: ${p##*/} does not apply to $ksrc:" >&2
		# "patching file F" then "Hunk #N FAILED at L." for each refusal
		grep -E '^(patching file|Hunk #[0-9]+ FAILED|Reversed|can.t find file)' <<<"$out" | sed 's/^/  /' >&2
		exit 1
	fi
done
if [ $check = 1 ]; then
	echo "apply-series: all ${#patches[@]} patches of $series apply to $ksrc"
	exit 0
fi
for p in "${patches[@]}"; do
	patch -d "$ksrc" -p1 --forward --batch --quiet <"$p"
done
echo "apply-series: applied ${#patches[@]} patches of $series to $ksrc; now enable CONFIG_PROC_STACKINFO"
