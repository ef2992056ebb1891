#!/bin/bash
# ualg-bench --png: the chart it writes is a PNG file.  It is drawn by
# gnuplot's png terminal, which Debian's gnuplot-nox provides (no X): the
# README's install line and .ci/run's list must install it.  A short run:
# one algorithm, one size, 10 ms per measurement.  Where there is no
# gnuplot it checks the install lines only, and exits 77 (skipped) if they
# are right.
#
#   bash tests/tools/bench-png.sh [BUILD]
set -u
B=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
passed=0 failed=0
result() {	# status what
	if [ "$1" = 0 ]; then passed=$((passed + 1)); echo "ok - $2"
	else failed=$((failed + 1)); echo "not ok - $2"; fi
}

# The README's install command (the line with apt-get install and its
# continuation lines), and the package list of .ci/run's loop.
continued() {	# start-pattern file
	awk -v start="$1" '$0 ~ start { on = 1 } on { print } on && !/\\$/ { exit }' "$2"
}
continued 'apt-get install' README.md | grep -qw gnuplot-nox
readme=$?
continued '^for p in' .ci/run | grep -qw gnuplot-nox
ci=$?
if ! command -v gnuplot > /dev/null && [ $readme = 0 ] && [ $ci = 0 ]; then
	echo "# skipped: ualg-bench --png needs gnuplot (apt-get install gnuplot-nox)"
	exit 77
fi
result $readme "the README's install line installs gnuplot-nox (what ualg-bench --png runs)"
result $ci ".ci/run installs gnuplot-nox"
command -v gnuplot > /dev/null || { echo "$passed passed, $failed failed"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/ualg-png.XXXXXX")
trap 'rm -rf "$T"' EXIT
"$B/src/tools/ualg-bench" --png "$T/chart.png" --seconds 0.01 --repeat 1 --alg sha256 --size 64 \
	--no-parallel --no-memory > "$T/out" 2>&1
rc=$?
sed 's/^/# /' "$T/out"
result $rc "ualg-bench --png exits 0 (exit $rc)"
[ "$(head -c 8 "$T/chart.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
result $? "ualg-bench --png wrote a PNG (its signature: 89 50 4e 47 0d 0a 1a 0a)"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
