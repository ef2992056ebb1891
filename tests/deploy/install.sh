#!/bin/bash
# Deployment: `meson install` into a DESTDIR, then what an
# administrator does with it, using only the installed files: the man pages
# render and cover every option; algd starts by socket activation
# (systemd-socket-activate, as systemd would: Debian's systemd package, no
# systemd as init needed) and serves the seed's samples and kcapi-dgst under
# the installed ualg-run; libualg builds through pkg-config; the shim works
# system-wide and stays out of programs' way; algctl preload edits a
# ld.so.preload; the units pass systemd-analyze.  Vectors: FIPS 180-2
# (SHA-1 and SHA-256 of "abc"), RFC 3602 case 1.
# Usage: BUILD=build tests/deploy/install.sh   (ends "N passed, N failed")
set -u
B=${BUILD:-build}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO" || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/ualg-deploy.XXXXXX")
passed=0 failed=0
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
result() {	# name status
	if [ "$2" = 0 ]; then passed=$((passed + 1)); echo "ok - $1"
	else failed=$((failed + 1)); echo "not ok - $1"; fi
}
SHA1_ABC=a9993e364706816aba3e25717850c26c9cd0d89d
CBC_RFC3602_1=e353779c1079aeb82708942dbe77181a
SHA256_ABC=ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
unset UALG_SOCKET UALG_PRELOAD UALG_ALGD LD_PRELOAD

# ---- make install, DESTDIR honoured
D=$T/dest
meson install -C "$B" --no-rebuild --destdir "$D" > "$T/install.log" 2>&1
result "meson install --destdir" $?
opt() { meson introspect "$B" --buildoptions | python3 -c "import json,sys; print([o['value'] for o in json.load(sys.stdin) if o['name'] == '$1'][0])"; }
PREFIX=$(opt prefix) LIBDIR=$(opt libdir) SYSCONF=$(opt sysconfdir)
case $LIBDIR in /*) ;; *) LIBDIR=$PREFIX/$LIBDIR ;; esac
case $SYSCONF in /*) ;; *) SYSCONF=$PREFIX/$SYSCONF ;; esac
P=$D$PREFIX
missing=""
for f in sbin/algd bin/algctl bin/ualg-run bin/ualg-bench include/ualg.h include/ualg_abi.h \
	share/man/man8/algd.8 share/man/man5/algd.conf.5 share/man/man8/algctl.8 share/man/man1/ualg-run.1 share/man/man1/ualg-bench.1 share/man/man3/libualg.3 \
	share/man/man7/ualg.7 share/man/man7/ualg-cryptodev.7 include/ualg_cryptodev.h lib/systemd/system/algd.socket lib/systemd/system/algd.service \
	lib/tmpfiles.d/ualg.conf share/doc/ualg/examples/ring-sample.c; do
	[ -e "$P/$f" ] || missing="$missing $f"
done
for f in "$LIBDIR/ualg/libualg-preload.so" "$LIBDIR/ualg/libualg-engine.so" "$LIBDIR/ualg/libualg-cryptodev.so" \
	"$LIBDIR"/ualg/libualg-backend-{checksum,sodium,ipsecmb,compress,botan,cryptopp}.so "$LIBDIR/libualg.so.0" "$LIBDIR/pkgconfig/ualg.pc" \
	"$SYSCONF/ualg/algd.conf" "$SYSCONF/ualg/preload.conf"; do
	[ -e "$D$f" ] || missing="$missing $f"
done
[ -z "$missing" ]; result "installed: programs, shim, library, pkg-config, headers, man pages, units, config${missing:+ (missing:$missing)}" $?
ALGD=$P/sbin/algd RUN=$P/bin/ualg-run ALGCTL=$P/bin/algctl SHIM=$D$LIBDIR/ualg/libualg-preload.so
CONF=$D$SYSCONF/ualg/algd.conf

# ---- man pages: no warnings, `man algctl` renders, every option of --help is there
for page in "$P"/share/man/man*/*; do
	warn=$( { groff -man -ww -z "$page"; MANWIDTH=80 man --warnings -l "$page" > "$T/page"; } 2>&1)
	[ -z "$warn" ] && [ -s "$T/page" ]
	result "man page ${page##*/} renders without warnings${warn:+: $warn}" $?
done
out=$(MANPATH=$P/share/man MANWIDTH=80 man algctl 2>&1 | head -5)
echo "$out" | grep -qE 'algctl +- +administer'; result "man algctl (MANPATH of the install) renders" $?
for prog in "$ALGD:man8/algd.8" "$ALGCTL:man8/algctl.8" "$RUN:man1/ualg-run.1" "$P/bin/ualg-bench:man1/ualg-bench.1"; do
	exe=${prog%%:*} page=$P/share/man/${prog#*:}
	text=$(LC_ALL=C MANWIDTH=200 man -l "$page" 2>/dev/null | col -b)
	lacking=""
	opts=$(LD_LIBRARY_PATH=$D$LIBDIR "$exe" --help 2>&1 | grep -oE '(^|[ [])--?[a-z][a-z-]*' | tr -d ' [' | sort -u)
	for o in $opts; do
		grep -qe "$o" <<< "$text" || lacking="$lacking $o"
	done
	[ -n "$opts" ] && [ -z "$lacking" ]
	rc=$? n=$(echo $opts | wc -w)
	result "$(basename "$exe") --help's $n options all in $(basename "$page")${lacking:+ (lacking:$lacking)}" $rc
done

# ---- the default config parses
"$ALGD" --config "$CONF" --list > /dev/null 2>&1; result "algd --config (the installed algd.conf) parses" $?

# ---- socket activation
SOCK=$T/run/ualg/algd.sock
mkdir -p "$T/run"
USER_OPT=(); [ "$(id -u)" = 0 ] && USER_OPT=(--user nobody)
systemd-socket-activate --seqpacket --fdname=algd -l "$SOCK" \
	"$ALGD" --config "$CONF" -v "${USER_OPT[@]}" ${UALG_ALGD_OPTS:-} > "$T/act.log" 2>&1 &
act=$!; pids+=($act)
for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.1; done
# UALG_ALGD points nowhere: a private algd cannot stand in for the activated one.
run() { UALG_SOCKET=$SOCK UALG_ALGD=/nonexistent "$RUN" "$@"; }
out=$(run "$B/examples/hash-sample" 2>&1)
[ "$out" = $SHA1_ABC ]; result "socket-activated algd: seed hash sample under the installed ualg-run: $out" $?
grep -q "algd: listening on $SOCK" "$T/act.log"; result "algd took the socket from systemd-socket-activate (LISTEN_FDS)" $?
out=$(run "$B/examples/cipher-sample" 2>&1)
[ "$out" = $CBC_RFC3602_1 ]; result "socket-activated algd: seed cipher sample: $out" $?
out=$(printf abc | run kcapi-dgst -c sha256 --hex 2>&1)
[ "$out" = $SHA256_ABC ]; result "socket-activated algd: kcapi-dgst -c sha256 --hex: $out" $?
out=$(run sh -c 'echo "$LD_PRELOAD"')
[ "$out" = "$SHIM" ]; result "the installed ualg-run preloads the installed shim (relative to itself): $out" $?

# ---- libualg through pkg-config, against the DESTDIR install
export PKG_CONFIG_PATH=$D$LIBDIR/pkgconfig PKG_CONFIG_SYSROOT_DIR=$D
flags=$(pkg-config --cflags --libs ualg)
result "pkg-config --cflags --libs ualg: $flags" $?
cc -o "$T/ring-sample" "$P/share/doc/ualg/examples/ring-sample.c" $flags 2> "$T/cc.log"
result "the native-API example builds with pkg-config's flags" $?
out=$(UALG_SOCKET=$SOCK LD_LIBRARY_PATH=$D$LIBDIR "$T/ring-sample" 2>&1)
[ "$out" = $SHA256_ABC ]; result "ring-sample (libualg) against the activated algd: $out" $?
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

# ---- the shim system-wide (as /etc/ld.so.preload loads it: no ualg-run, no UALG_SOCKET)
kernel_af_alg=$(python3 -c 'import socket; socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET)' 2>/dev/null && echo yes)
printf 'mode auto\nsocket %s\n' "$SOCK" > "$T/preload.conf"
sys() { UALG_PRELOAD_CONF=$T/preload.conf LD_PRELOAD=$SHIM "$@"; }
out=$(printf abc | sys kcapi-dgst -c sha256 --hex 2>&1)
[ "$out" = $SHA256_ABC ]; result "system-wide shim, mode auto: kcapi-dgst served (kernel AF_ALG: ${kernel_af_alg:-no})" $?
out=$(sys "$B/examples/hash-sample" 2>&1)
[ "$out" = $SHA1_ABC ]; result "system-wide shim, mode auto: seed hash sample" $?
if [ -z "$kernel_af_alg" ]; then
	printf abc | UALG_PRELOAD_MODE=off sys kcapi-dgst -c sha256 --hex > /dev/null 2>&1
	[ $? != 0 ]; result "system-wide shim, UALG_PRELOAD_MODE=off: AF_ALG left to the kernel (which lacks it)" $?
	printf 'mode sometimes\n' > "$T/bad.conf"
	printf abc | UALG_PRELOAD_CONF=$T/bad.conf LD_PRELOAD=$SHIM kcapi-dgst -c sha256 --hex > /dev/null 2>&1
	[ $? != 0 ]; result "system-wide shim, a preload.conf that does not parse: off" $?
	printf 'socket %s\n' "$T/none.sock" > "$T/nodaemon.conf"
	out=$(UALG_PRELOAD_CONF=$T/nodaemon.conf LD_PRELOAD=$SHIM python3 -c '
import socket
try: socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET); print("created")
except OSError as e: print(e.errno)' 2>&1)
	[ "$out" = 97 ]; result "system-wide shim, no algd running: socket(AF_ALG) fails EAFNOSUPPORT, nothing printed ($out)" $?
fi
# Where the kernel has AF_ALG (simulated: a library preloaded after the shim
# is the socket() it calls through), auto leaves AF_ALG to the kernel: the
# probe and the program both reach it.  always: nobody does.
cc -shared -fPIC -o "$T/fake_kernel_alg.so" tests/deploy/fake_kernel_alg.c -ldl
kernel_calls() {	# mode: how many socket(AF_ALG) calls reached the "kernel"
	printf 'mode %s\nsocket %s\n' "$1" "$SOCK" > "$T/mode.conf"
	UALG_PRELOAD_CONF=$T/mode.conf LD_PRELOAD="$SHIM $T/fake_kernel_alg.so" python3 -c '
import socket; s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET); t = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET)' 2>&1 |
		grep -c 'kernel AF_ALG'
}
n=$(kernel_calls auto)
[ "$n" = 3 ]; result "system-wide shim, mode auto, kernel with AF_ALG: passive (one probe, then both sockets the kernel's: $n calls)" $?
n=$(kernel_calls always)
[ "$n" = 0 ]; result "system-wide shim, mode always: both sockets emulated, the kernel never asked ($n calls)" $?
out=$(UALG_PRELOAD_CONF=$T/nodaemon.conf LD_PRELOAD=$SHIM sh -c 'echo hello; ls / > /dev/null' 2>&1)
[ "$out" = hello ]; result "system-wide shim in a program that never uses AF_ALG: no output" $?

# ---- the activated algd leaves systemd's socket in place
kill $act; wait $act 2>/dev/null
[ -S "$SOCK" ]; result "algd ended without unlinking the socket systemd passed" $?

# ---- activation edge cases
systemd-socket-activate -l "$T/stream.sock" "$ALGD" > "$T/stream.log" 2>&1 &
st=$!; pids+=($st)
for _ in $(seq 100); do [ -S "$T/stream.sock" ] && break; sleep 0.1; done
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])' "$T/stream.sock" 2>/dev/null
for _ in $(seq 100); do kill -0 $st 2>/dev/null || break; sleep 0.1; done
wait $st; rc=$?
[ $rc = 1 ] && grep -q 'not a listening AF_UNIX SOCK_SEQPACKET socket' "$T/stream.log"
result "algd refuses a passed stream socket (exit $rc)" $?
LISTEN_PID=1 LISTEN_FDS=1 timeout 20 "$ALGD" --socket "$T/own.sock" --ready-fd 4 "${USER_OPT[@]}" 4> "$T/ready" 2>/dev/null &
own=$!; pids+=($own)
for _ in $(seq 100); do [ -s "$T/ready" ] && break; sleep 0.1; done
[ -S "$T/own.sock" ]; result "LISTEN_PID of another process: algd binds its own socket (started by hand)" $?
kill $own 2>/dev/null

# ---- journal levels: <N> prefixes only when stderr is $JOURNAL_STREAM
: > "$T/journal.log"
JOURNAL_STREAM=$(stat -c '%d:%i' "$T/journal.log") "$ALGD" --config "$T/none.conf" 2>> "$T/journal.log"
grep -q "^<3>$T/none.conf: No such file" "$T/journal.log" && ! grep -qv "^<[0-7]>" "$T/journal.log"; result "algd under the journal: every line carries its level, the error <3>" $?
"$ALGD" --config "$T/none.conf" 2>&1 | grep -q "^algd: $T/none.conf: No such file"; result "algd by hand: plain \"algd: \" lines" $?

# ---- algctl preload against a root directory (never this host's /etc)
R=$D
mkdir -p "$R/etc"
printf '# local\n/usr/lib/other.so\n' > "$R/etc/ld.so.preload"
"$ALGCTL" --root "$R" preload status > /dev/null; [ $? = 1 ]; result "algctl preload status: not enabled (exit 1)" $?
"$ALGCTL" --root "$R" preload enable > /dev/null && "$ALGCTL" --root "$R" preload enable > /dev/null
[ "$(cat "$R/etc/ld.so.preload")" = "$(printf '# local\n/usr/lib/other.so\n%s' "$LIBDIR/ualg/libualg-preload.so")" ]
result "algctl preload enable, twice: one entry appended, others kept" $?
"$ALGCTL" --root "$R" preload status > /dev/null; result "algctl preload status: enabled (exit 0)" $?
"$ALGCTL" --root "$R" --shim /nonexistent/libualg-preload.so preload enable 2> /dev/null; [ $? = 1 ]
result "algctl preload enable refuses a shim that does not exist" $?
"$ALGCTL" --root "$R" preload disable > /dev/null
[ "$(cat "$R/etc/ld.so.preload")" = "$(printf '# local\n/usr/lib/other.so')" ]
result "algctl preload disable: our entry gone, the rest untouched" $?
printf '%s\n' "$LIBDIR/ualg/libualg-preload.so" > "$R/etc/ld.so.preload"
"$ALGCTL" --root "$R" preload disable > /dev/null && [ ! -e "$R/etc/ld.so.preload" ]
result "algctl preload disable: a file left empty is removed" $?
ls -a "$R/etc" | grep -q 'ualg-'; [ $? = 1 ]; result "algctl preload leaves no temporary files" $?

# ---- the units: systemd-analyze verify (ExecStart pointed into the DESTDIR) and its exposure score
mkdir -p "$T/units"
cp "$P/lib/systemd/system/algd.socket" "$T/units/"
sed "s|^ExecStart=$PREFIX|ExecStart=$P|" "$P/lib/systemd/system/algd.service" > "$T/units/algd.service"
out=$(cd "$T/units" && timeout 60 systemd-analyze verify --man=no ./algd.socket ./algd.service 2>&1 | grep -v '/bin/kill is not executable')
[ -z "$out" ]; result "systemd-analyze verify algd.socket algd.service${out:+: $out}" $?
score=$(timeout 60 systemd-analyze security --offline=yes "$T/units/algd.service" 2>/dev/null | sed -n 's/.*exposure level for algd.service: \([0-9.]*\).*/\1/p')
awk -v s="$score" 'BEGIN { exit !(s != "" && s <= 3.0) }'; result "systemd-analyze security: algd.service exposure ${score:-?} (at most 3.0)" $?

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
