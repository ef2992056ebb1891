#!/bin/bash
# System calls per emulated call on the engine of $UALG_ENGINE: the engine
# test program's loop of 64-byte sha256 operations (one write and one read
# each: two emulated calls) under strace -c, at two lengths; the
# difference divided by the difference in calls is what one call costs.
# Prints "N per call (A system calls for 200 operations, B for 2200)".
#   usage: syscalls.sh UALG-RUN ENGINE-TEST
set -u
run=$1 prog=$2
calls() {	# ops
	local f
	f=$(mktemp)
	strace -f -c -o "$f" "$run" "$prog" --loop "$1" > /dev/null 2>&1
	awk '$NF == "total" { print $4 }' "$f"
	rm -f "$f"
}
a=$(calls 200) b=$(calls 2200)
awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f per call (%d system calls for 200 operations, %d for 2200)\n", (b - a) / 4000, a, b }'
