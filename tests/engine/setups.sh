#!/bin/bash
# The setups an op socket served by algd asks for its pages, counted in
# the request frames the program sends (strace -ff, its process only)
# over the engine test program's --loop (one hash op socket, 20 writes
# and reads): FAST_SETUP (type 72, 0x48) and NOTIFY_SETUP (71, 0x47),
# each a 16-byte header with no body and no flags.
# Prints "F N": request pages, then reply counters, asked for.
#   usage: setups.sh UALG-RUN ENGINE-TEST
set -u
run=$1 prog=$2
d=$(mktemp -d)
strace -ff -xx -e trace=execve,sendmsg -o "$d/t" "$run" "$prog" --loop 20 > /dev/null 2>&1
hex=$(printf '%s' "$prog" | od -An -tx1 | tr -d ' \n' | sed 's/../\\x&/g')	# as -xx prints it
f=$(grep -lF "execve(\"$hex\"" "$d"/t.* 2>/dev/null | head -n 1)
count() {	# type in hex -> frames
	if [ -n "$f" ]; then
		grep -c 'iov_base="\\x10\\x00\\x00\\x00\\x'"$1"'\\x00\\x00\\x00' "$f"
	else
		echo none
	fi
}
echo "$(count 48) $(count 47)"
rm -rf "$d"
