#!/bin/bash
# ualg-run's private algd and the files the shim answers:
#  - a private algd says nothing into the program's stderr;
#  - it ends with ualg-run, even when ualg-run is killed (SIGKILL), and a
#    SIGTERM to ualg-run reaches the program;
#  - /proc/sys/crypto/fips_enabled, where the kernel has none, reads
#    algd's FIPS mode under ualg-run (open, openat, fopen) and is absent
#    without it.
# usage: tests/ctl/ualg-run.sh BUILD_DIR     Ends with "N passed, N failed".
set -u
B=${1:-build}
RUN="$B/src/tools/ualg-run"
ALGD="$B/src/algd/algd"
T=$(mktemp -d "${TMPDIR:-/tmp}/ualg-runtest.XXXXXX")
pass=0 fail=0
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$T"; }
trap cleanup EXIT
ok() { if [ "$2" = 0 ]; then pass=$((pass + 1)); echo "ok - $1"; else fail=$((fail + 1)); echo "not ok - $1"; fi; }
skip() { echo "# skipped: $1 ($2)"; }
unset UALG_SOCKET

# The private algd is quiet: the program's stderr holds only its own words.
"$RUN" --private sh -c 'echo program-says >&2' 2> "$T/err"
got=$(tr '\n' '|' < "$T/err")
[ "$got" = "program-says|" ]; ok "a private algd writes nothing into the program's stderr (got: $got)" $?

# ... but says why it did not start.
printf '#!/bin/sh\necho cannot-start-because >&2\nexit 1\n' > "$T/badalgd"; chmod +x "$T/badalgd"
UALG_ALGD="$T/badalgd" "$RUN" --private true 2> "$T/err"
grep -q cannot-start-because "$T/err"; ok "an algd that does not start: its words are shown" $?

# The private algd of the run: ualg-run's child that is not the program.
algd_of() { ps -o pid=,comm= --ppid "$1" | awk '$2 == "algd" { print $1 }'; }
gone() { for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done; return 1; }

"$RUN" --private sleep 60 & R=$!; pids+=($R)
for _ in $(seq 100); do A=$(algd_of $R); [ -n "$A" ] && break; sleep 0.1; done
if [ -n "$A" ]; then
	pids+=($A)
	kill -KILL $R; wait $R 2>/dev/null
	gone "$A"; ok "the private algd ends when ualg-run is killed with SIGKILL" $?
else
	ok "found the private algd of a run" 1
fi

"$RUN" --private sleep 60 & R=$!; pids+=($R)
for _ in $(seq 100); do A=$(algd_of $R); [ -n "$A" ] && break; sleep 0.1; done
S=$(ps -o pid=,comm= --ppid $R | awk '$2 == "sleep" { print $1 }')
pids+=($A $S)
kill -TERM $R; wait $R; rc=$?
[ $rc = 143 ] && gone "$S" && gone "$A"; ok "SIGTERM to ualg-run ends the program (rc=$rc), then the private algd" $?

# /proc/sys/crypto/fips_enabled
F=/proc/sys/crypto/fips_enabled
if [ -e $F ]; then
	skip "fips_enabled under ualg-run" "this kernel has $F"
else
	"$RUN" --private cat $F > "$T/out" 2>&1
	got=$(cat "$T/out")
	[ "$got" = 0 ]; ok "$F reads algd's FIPS mode (0) under ualg-run: $got" $?
	"$ALGD" --fips --socket "$T/fips.sock" --ready-fd 3 3> "$T/ready" 2> "$T/algd.log" & A=$!; pids+=($A)
	for _ in $(seq 300); do [ -s "$T/ready" ] && break; sleep 0.1; done
	for how in cat python-open python-fopen; do
		case $how in
		cat) UALG_SOCKET="$T/fips.sock" "$RUN" cat $F > "$T/out" 2>&1 ;;
		python-open) UALG_SOCKET="$T/fips.sock" "$RUN" python3 -c "import sys; sys.stdout.write(open('$F').read())" > "$T/out" 2>&1 ;;
		python-fopen) UALG_SOCKET="$T/fips.sock" "$RUN" python3 -c "
import ctypes, sys
libc = ctypes.CDLL(None)
libc.fopen.restype = ctypes.c_void_p
libc.fgets.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_void_p]
f = libc.fopen(b'$F', b're')
b = ctypes.create_string_buffer(8)
sys.stdout.write(b.value.decode() if f and libc.fgets(b, 8, ctypes.c_void_p(f)) else 'none')" > "$T/out" 2>&1 ;;
		esac
		got=$(cat "$T/out")
		[ "$got" = 1 ]; ok "$F reads 1 under ualg-run with algd --fips ($how): $got" $?
	done
	UALG_SOCKET="$T/fips.sock" "$RUN" sh -c "echo x > $F" 2> /dev/null
	[ $? != 0 ]; ok "$F cannot be written" $?
	cat $F > /dev/null 2>&1
	[ $? != 0 ]; ok "$F stays absent without ualg-run" $?
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
