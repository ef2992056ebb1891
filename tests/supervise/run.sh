#!/bin/bash
# ualg-run --supervise with tests/supervise/static_afalg.c built
# by musl-gcc -static: its vectors through the supervisor, proof that
# LD_PRELOAD alone does not reach it, and that calls on other fds never
# reach the supervisor.  Ends with "N passed, N failed".
set -u
B=${BUILD:-build}
RUN="$B/src/tools/ualg-run"
P="$B/tests/static-afalg"
T=$(mktemp -d "${TMPDIR:-/tmp}/ualg-supervise.XXXXXX")
trap 'rm -rf "$T"' EXIT
passed=0 failed=0
result() {
	if [ "$2" = 0 ]; then passed=$((passed + 1)); echo "ok - $1"
	else failed=$((failed + 1)); echo "not ok - $1"; fi
}
if [ ! -x "$P" ]; then
	# CI installs musl-tools: a missing compiler is a failure, not a skip.
	result "musl-gcc installed (apt-get install musl-tools), $P built" 1
	echo "$passed passed, $failed failed"
	exit 1
fi
file -L "$P" 2>/dev/null | grep -q 'statically linked'
result "static-afalg is statically linked" $?

timeout 120 "$RUN" --supervise "$P" > "$T/out" 2>&1
rc=$?
sed 's/^/    /' "$T/out"
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$T/out" | tail -n 1)
set -- ${line:-0 passed, 1 failed}
passed=$((passed + $1)); failed=$((failed + $3))
result "static-afalg under --supervise exited 0" $rc

"$RUN" "$P" probe
[ $? = 3 ]; result "without --supervise the static binary is not served (LD_PRELOAD cannot reach it)" $?
"$RUN" --supervise "$P" probe
result "with --supervise it binds sha256-openssl, a driver only ualg has" $?

UALG_SUPERVISE_STATS="$T/stats" "$RUN" --supervise "$P" devnull 1000
rc=$?
sed 's/^/    /' "$T/stats"
# The open of /dev/null is notified (every open is: the supervisor reads
# the path for /dev/crypto) and passed on.
[ $rc = 0 ] && grep -qx 'notifications 6' "$T/stats" && grep -qx 'passed 1' "$T/stats"
result "1000 writes to /dev/null never reach the supervisor: 6 notifications, the sha256's 5 calls and the open" $?

# A dynamic program too: under --supervise its LD_PRELOAD is its own, and
# the supervisor serves it.
out=$(UALG_SUPERVISE_STATS="$T/stats2" "$RUN" --supervise "$B/examples/hash-sample" 2>"$T/err")
[ "$out" = a9993e364706816aba3e25717850c26c9cd0d89d ] && ! grep -qx 'notifications 0' "$T/stats2"
result "the seed's hash sample (dynamic) served by the supervisor: $out" $?

# The filter and the supervisor stay across execve and fork (a shell that
# runs the program as its child).
"$RUN" --supervise sh -c "\"$P\" probe && exec \"$P\" probe"
result "served in a shell's child and across its execve" $?

# ioctl on AF_ALG sockets: the same program through the shim (dynamic,
# LD_PRELOAD) and through the supervisor (static) answers alike, and as
# Linux 6.1 does: no gettstamp in AF_ALG's proto_ops, so the timestamp
# requests are ENOTTY (sock_ioctl's -ENOIOCTLCMD); other socket requests
# reach sock_no_ioctl (EOPNOTSUPP); FIOGETOWN, FIONBIO and FIOCLEX are
# sock_ioctl's and do_vfs_ioctl's own.
for k in tfm op; do
	for r in SIOCGSTAMP_OLD SIOCGSTAMPNS_OLD SIOCGSTAMP_NEW SIOCGSTAMPNS_NEW; do
		echo "$k $r ret=-1 errno=25"
	done
	for r in FIONREAD TCGETS SIOCGIFCONF; do echo "$k $r ret=-1 errno=95"; done
	for r in FIOGETOWN FIONBIO FIOCLEX; do echo "$k $r ret=0 errno=0"; done
done > "$T/ioctl-6.1"
"$RUN" "$B/tests/dynamic-afalg" ioctls > "$T/ioctl-shim" 2>&1
"$RUN" --supervise "$P" ioctls > "$T/ioctl-supervise" 2>&1
diff "$T/ioctl-shim" "$T/ioctl-supervise"
result "ioctl on AF_ALG sockets: the shim and --supervise answer alike" $?
diff "$T/ioctl-6.1" "$T/ioctl-supervise"
result "ioctl on AF_ALG sockets: as Linux 6.1 (SIOCGSTAMP_NEW: ENOTTY, FIONREAD: EOPNOTSUPP)" $?

"$RUN" --supervise-bare "$P" probe
[ $? = 3 ]; result "--supervise-bare: the filter alone serves nothing" $?
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
