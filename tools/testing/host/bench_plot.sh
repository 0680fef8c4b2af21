#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# make bench's plotting step (tools/bench/plot) on the committed small data
# file tools/bench/testdata/scaling.csv: the picture is produced (a PNG of
# the size asked), each panel draws at most six series and says one
# message in its title, with glibc's main-thread call in every panel; the
# LOADED HOST marker is absent while the data's load average is at most
# 1.5, and present when it is above, or not recorded. The report reads the
# same file.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
"$top/scripts/deps.sh" bench >/dev/null || exit 1
data=$top/tools/bench/testdata/scaling.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# draw NAME DATA: the picture of DATA in $tmp/NAME, its gnuplot script kept
draw() {
	mkdir -p "$tmp/$1"
	if ! python3 "$top/tools/bench/plot" "$tmp/$1" --scaling "$2" >"$tmp/$1.out" 2>&1; then
		echo "FAIL: $1: plot failed:"
		sed 's/^/    /' "$tmp/$1.out"
		fail=1
		return 1
	fi
	# a PNG, 1400 x 1500 (its IHDR's width and height)
	if [ "$(head -c 8 "$tmp/$1/bench.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" != 89504e470d0a1a0a ] ||
		[ "$(od -An -j16 -N8 -tu1 "$tmp/$1/bench.png" | tr -s ' ')" != " 0 0 5 120 0 0 5 220" ]; then
		echo "FAIL: $1: no 1400x1500 PNG written"
		fail=1
	fi
}

marked() {	# NAME WANT(0|1)
	local has=0
	grep -q 'LOADED HOST' "$tmp/$1/bench.gp" && has=1
	[ "$has" = "$2" ] || { echo "FAIL: $1: LOADED HOST marker $has, want $2"; fail=1; }
}

draw idle "$data" && {
	marked idle 0
	gp=$tmp/idle/bench.gp
	plots=$(grep -c '^plot ' "$gp")
	titles=$(grep -c '^set title ' "$gp")
	if [ "$plots" != 2 ] || [ "$titles" != 2 ]; then
		echo "FAIL: $plots panels with $titles titles, want 2 and 2"
		fail=1
	fi
	while IFS= read -r line; do
		n=$(grep -o ' title "' <<<"$line" | wc -l)
		if [ "$n" -lt 1 ] || [ "$n" -gt 6 ]; then
			echo "FAIL: a panel with $n series (1 to 6)"
			fail=1
		fi
		grep -q 'glibc pthread_getattr_np, main thread' <<<"$line" ||
			{ echo "FAIL: a panel without glibc's main-thread call"; fail=1; }
		grep -q 'with yerrorlines' <<<"$line" ||
			{ echo "FAIL: a panel without the spread across turns"; fail=1; }
	done < <(grep '^plot ' "$gp")
	for want in "glibc's call grows with the mappings" "with the interposer it stays flat" \
		"the module's ways stay flat near getppid" "PROCMAP_QUERY (6.11+) in between"; do
		grep -qF "$want" "$gp" || { echo "FAIL: no title says: $want"; fail=1; }
	done
	# the spread drawn is the file's: glibc's smallest and largest at 3 028 mappings
	grep -q ' 14700.0 13671.0 16317.0$' "$tmp/idle/scaling-glibc_main.dat" ||
		{ echo "FAIL: glibc's median, smallest and largest at 3028 mappings not drawn as in the file"; fail=1; }
}

sed 's/^# load_sweep_max: .*/# load_sweep_max: 6.30/' "$data" >"$tmp/loaded.csv"
draw loaded "$tmp/loaded.csv" && marked loaded 1
grep -q 'load average up to 6.30, above 1.5' "$tmp/loaded/bench.gp" ||
	{ echo "FAIL: the loaded picture does not say its load"; fail=1; }
sed 's/^# load_sweep_max: .*/# load_sweep_max: 1.50/' "$data" >"$tmp/edge.csv"
draw edge "$tmp/edge.csv" && marked edge 0
grep -v '^# load_sweep_max' "$data" >"$tmp/unknown.csv"
draw unknown "$tmp/unknown.csv" && marked unknown 1

mkdir -p "$tmp/report"
cp "$data" "$tmp/report/scaling.csv"
if ! python3 "$top/tools/bench/report" "$tmp/report" >"$tmp/report.out" 2>&1 ||
	! grep -qE '^  glibc_main +380\.00x at +28 mappings +290000\.00x at +60028$' "$tmp/report.out"; then
	echo "FAIL: report on the same file:"
	sed 's/^/    /' "$tmp/report.out"
	fail=1
fi
[ $fail = 0 ] && echo "PASS: bench.png drawn from $(grep -vc '^#' "$data") rows; LOADED HOST marked above 1.5 and when not recorded"
exit $fail
