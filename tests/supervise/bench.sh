#!/bin/bash
# `make bench`: what ualg-run --supervise costs.  A one-byte write(2) to
# /dev/null (an fd the supervisor does not serve) natively, under the bare
# filter (the same BPF program with every notification an ALLOW) and under
# --supervise; then a sha256 of 64 bytes through the supervisor (static
# binary) and through the shim (the same program linked dynamically).
# Each figure is the best of RUNS runs.
set -u
B=${BUILD:-build}
RUN="$B/src/tools/ualg-run"
P="$B/tests/static-afalg"
N=${N:-2000000}
RUNS=${RUNS:-5}
[ -x "$P" ] || { echo "bench: $P missing (apt-get install musl-tools)"; exit 1; }
best() {	# command... : the smallest number it prints over RUNS runs
	local b="" v
	for _ in $(seq "$RUNS"); do
		v=$("$@" 2>/dev/null) || return 1
		b=$(awk -v a="$v" -v b="$b" 'BEGIN { print (b == "" || a + 0 < b + 0) ? a : b }')
	done
	echo "$b"
}
native=$(best "$P" bench "$N")
bare=$(best "$RUN" --supervise-bare "$P" bench "$N")
sup=$(best "$RUN" --supervise "$P" bench "$N")
echo "write(2) of 1 byte to /dev/null, ns/call (best of $RUNS x $N):"
awk -v n="$native" -v b="$bare" -v s="$sup" 'BEGIN {
	printf "  native              %7.1f\n", n
	printf "  bare seccomp filter %7.1f  (%.2fx native)\n", b, b / n
	printf "  --supervise         %7.1f  (%.2fx native, %.2fx the bare filter)\n", s, s / n, s / b }'
H=${H:-20000}
viashim=$(best "$RUN" "$B/tests/dynamic-afalg" hashbench "$H")
viasup=$(best "$RUN" --supervise "$P" hashbench "$H")
echo "sha256 of 64 bytes (write + read), us/op (best of $RUNS x $H):"
awk -v a="$viashim" -v b="$viasup" 'BEGIN {
	printf "  LD_PRELOAD shim     %7.2f\n", a
	printf "  --supervise         %7.2f  (%.2fx)\n", b, b / a }'
