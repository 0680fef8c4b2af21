#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# README.md, a user's document: its first two commands are `make demo` and
# `make check`; it is 300 lines at most; every man page it names
# (stackinfo(1)-style, or man/ paths) exists under man/, and it names every
# one there; every docs/ path it names exists; every relative link of
# README.md and docs/*.md resolves. The checks are first held against a
# planted tree, where each must fail.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# check DIR: one line per fault of DIR's README.md and docs/*.md
check() {
	local dir=$1 readme=$1/README.md f target base n
	[ -f "$readme" ] || { echo "no README.md"; return; }
	n=$(wc -l <"$readme")
	[ "$n" -le 300 ] || echo "README.md has $n lines (300 at most)"
	# the command lines of the fenced blocks, comments and prompts dropped
	awk '/^```/ { inblock = !inblock; next }
		inblock { sub(/#.*/, ""); sub(/^\$ +/, ""); gsub(/^[ \t]+|[ \t]+$/, "")
			if ($0 != "") print }' "$readme" | head -n 2 >"$tmp/first"
	[ "$(sed -n 1p "$tmp/first")" = "make demo" ] ||
		echo "README.md's first command is '$(sed -n 1p "$tmp/first")', not 'make demo'"
	[ "$(sed -n 2p "$tmp/first")" = "make check" ] ||
		echo "README.md's second command is '$(sed -n 2p "$tmp/first")', not 'make check'"
	# man pages: NAME(N) of the project's, and man/ paths
	grep -oE '\b(lib)?stackinfo\([1-8]\)' "$readme" | sort -u |
		sed -E 's/^(.*)\(([1-8])\)$/man\/\1.\2/' >"$tmp/named"
	grep -oE '\bman/[A-Za-z0-9_.-]+' "$readme" >>"$tmp/named"
	sort -u -o "$tmp/named" "$tmp/named"
	while IFS= read -r f; do
		[ -f "$dir/$f" ] || echo "README.md names $f, which does not exist"
	done <"$tmp/named"
	for f in "$dir"/man/*.[1-8]; do
		[ -e "$f" ] || continue
		grep -qxF "man/${f##*/}" "$tmp/named" ||
			echo "README.md does not name the man page man/${f##*/}"
	done
	grep -oE '\bdocs/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$readme" | sort -u |
		while IFS= read -r f; do
			[ -e "$dir/$f" ] || echo "README.md names $f, which does not exist"
		done
	# relative links and pictures: [text](target), ![alt](target)
	for f in "$readme" "$dir"/docs/*.md; do
		[ -f "$f" ] || continue
		base=$(dirname "$f")
		grep -oE '\]\([^) ]+\)' "$f" | sed -E 's/^\]\((.*)\)$/\1/' | sort -u |
			while IFS= read -r target; do
				case $target in
				http://* | https://* | mailto:* | '#'*) continue ;;
				esac
				[ -e "$base/${target%%#*}" ] ||
					echo "${f#"$dir"/}: the link $target does not resolve"
			done
	done
}

# the planted tree: each of these must be said
mkdir -p "$tmp/plant/man" "$tmp/plant/docs"
touch "$tmp/plant/man/stackinfo.1" "$tmp/plant/man/stackinfo.4" "$tmp/plant/docs/design.md"
{
	echo '# x'
	echo '```sh'
	echo 'make check    # the tests'
	echo 'make demo'
	echo '```'
	echo 'See stackinfo(1), libstackinfo(3), [design](docs/design.md), docs/testing.md,'
	echo '[gone](docs/gone.md), ![pic](docs/pic.png) and [web](https://example.org/x).'
	seq 300
} >"$tmp/plant/README.md"
echo '[back](../README.md) [none](nowhere.md)' >>"$tmp/plant/docs/design.md"
check "$tmp/plant" >"$tmp/planted"
for want in "README.md has 307 lines (300 at most)" \
	"README.md's first command is 'make check', not 'make demo'" \
	"README.md's second command is 'make demo', not 'make check'" \
	"README.md names man/libstackinfo.3, which does not exist" \
	"README.md does not name the man page man/stackinfo.4" \
	"README.md names docs/testing.md, which does not exist" \
	"README.md names docs/gone.md, which does not exist" \
	"README.md names docs/pic.png, which does not exist" \
	"README.md: the link docs/gone.md does not resolve" \
	"README.md: the link docs/pic.png does not resolve" \
	"docs/design.md: the link nowhere.md does not resolve"; do
	grep -qxF "$want" "$tmp/planted" || { echo "FAIL: a planted fault not found: $want"; fail=1; }
done
n=$(wc -l <"$tmp/planted")
[ "$n" = 11 ] || { echo "FAIL: $n faults said in the planted tree, want 11:"; cat "$tmp/planted"; fail=1; }

check "$top" >"$tmp/real"
if [ -s "$tmp/real" ]; then
	echo "FAIL: README.md and docs/:"
	sed 's/^/    /' "$tmp/real"
	fail=1
fi
[ $fail = 0 ] && echo "PASS: README.md ($(wc -l <"$top/README.md") lines) starts with make demo and make check; its man pages, docs/ paths and every relative link of it and docs/*.md exist"
exit $fail
