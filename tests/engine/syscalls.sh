#!/bin/bash
# System calls per emulated call on the engine of $UALG_ENGINE: one of the
# engine test program's loops under strace -c (--loop: 64-byte sha256
# operations, one write and one read each; --loop-cbc: one-block cbc(aes)
# operations, one sendmsg and one read each; two emulated calls per
# operation), at two lengths; the difference divided by the difference in
# calls is what one call costs (--loop-cbc-late: the cbc loop on an op
# socket accepted before its key; --lifecycle: one-shot uses of sha256,
# socket to close, for which the per-call figures are per use).
#
# Prints "T per call: S sent, R received, W waiting, O other (A system
# calls for 200 operations, B for 2200)": S and R are the successful
# sendmsg and recvmsg calls, W the receives that found no reply yet and
# the peeks that waited for one (how many depends on how fast algd was
# scheduled: on a quiet machine none), O everything else.  In the
# program's engine the common path makes none; in algd's neither while
# both sides poll the socket's shared page (a kick's send and a futex wait
# when algd was not polling), and with UALG_POLL_US=0 one send per call
# and, for the hash, one receive per operation (a hash write's success
# has no reply).  The best of three runs is printed.
#   usage: syscalls.sh UALG-RUN ENGINE-TEST [--loop | --loop-cbc | --loop-cbc-late]
set -u
run=$1 prog=$2 loop=${3:---loop}
calls() {	# ops -> "total sent received waiting"
	local f
	f=$(mktemp)
	strace -f -c -o "$f" "$run" "$prog" "$loop" "$1" > /dev/null 2>&1
	awk '$NF == "total" { t = $4; next }
	     $4 ~ /^[0-9]+$/ { e = NF == 6 ? $5 : 0
		if ($NF == "sendmsg") s += $4 - e
		else if ($NF == "recvmsg") { r += $4 - e; w += e }
		else if ($NF == "recvfrom") w += $4 }
	     END { print t + 0, s + 0, r + 0, w + 0 }' "$f"
	rm -f "$f"
}
for _ in 1 2 3; do
	read -r ta sa ra wa <<< "$(calls 200)"
	read -r tb sb rb wb <<< "$(calls 2200)"
	# Two emulated calls per operation; one use per --lifecycle round.
	awk -v ta="$ta" -v tb="$tb" -v s=$((sb - sa)) -v r=$((rb - ra)) -v w=$((wb - wa)) \
	    -v n=$([ "$loop" = --lifecycle ] && echo 2000 || echo 4000) \
	    -v per=$([ "$loop" = --lifecycle ] && echo use || echo call) 'BEGIN {
		t = tb - ta
		printf "%.2f per " per ": %.2f sent, %.2f received, %.2f waiting, %.2f other (%d system calls for 200 operations, %d for 2200)\n",
			t / n, s / n, r / n, w / n, (t - s - r - w) / n, ta, tb }'
done | sort -n | head -n 1
