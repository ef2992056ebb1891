#!/bin/bash
# Round trips to algd per one-shot use, socket to close (the engine test
# program's --lifecycle loop, sha256, or the LOOP given: --lifecycle-cbc),
# on the engine of $UALG_ENGINE:
# the program's waits for a reply, counted as the receives that follow a
# send on the same fd with no receive between (requests sent ahead and
# taken together count once; receives that found nothing, and peeks, not
# at all), whatever the machine's speed.  The program's process only
# (strace -ff); the difference between 200 and 2200 uses divided by 2000.
# Prints "R per use (A round trips for 200 uses, B for 2200)".
#   usage: roundtrips.sh UALG-RUN ENGINE-TEST [LOOP]
set -u
run=$1 prog=$2 loop=${3:---lifecycle}
trips() {	# uses -> round trips
	local d f n=0
	d=$(mktemp -d)
	strace -ff -e trace=execve,sendmsg,recvmsg,close -o "$d/t" "$run" "$prog" "$loop" "$1" > /dev/null 2>&1
	f=$(grep -l "^execve(\"$prog\"" "$d"/t.* 2>/dev/null | head -n 1)
	[ -n "$f" ] && n=$(awk '
		function fd_of(s) { sub(/^[a-z]+\(/, "", s); sub(/,.*/, "", s); return s + 0 }
		/^sendmsg\(/ && !/= -1/ { sent[fd_of($0)] = 1; next }
		/^recvmsg\(/ && !/= -1/ { f = fd_of($0); if (sent[f]) { n++; sent[f] = 0 } next }
		/^close\(/ { delete sent[fd_of($0)] }
		END { print n + 0 }' "$f")
	rm -rf "$d"
	echo "$n"
}
a=$(trips 200)
b=$(trips 2200)
awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f per use (%d round trips for 200 uses, %d for 2200)\n", (b - a) / 2000, a, b }'
