#!/bin/bash
# The test suite: unit tests, the seed's samples, the differential corpus
# replayed against the golden files recorded on Linux 6.1, Python's own
# AF_ALG tests and real clients under ualg-run, algd against malformed
# frames, security, deployment, --supervise and RFC mode.  Each suite counts
# its checks; the run ends with "N passed, N failed".
#
#   tests/run-all.sh                  every suite, in order (make check)
#   tests/run-all.sh NAME...          only these suites, or groups of suites
#   tests/run-all.sh --suite NAME     the same (repeatable; meson's entries), but
#                                     exits 77 (meson's skip) when every suite it
#                                     ran made no check and skipped one
#   tests/run-all.sh --list           one line per suite: NAME GROUP
#   tests/run-all.sh --skip NAME      all (or the selected) suites but these
#
# $SUITES below is the one registration of a suite: make check runs the
# suites in its order, tests/meson.build registers one meson test per line
# of --list (meson test -C build --suite GROUP, or NAME).  A suite that is
# one command gives it on its line, after the group ($B, $RUN and
# $TEST_WRAP expanded when it runs: see program()); a suite that needs more
# leaves it out and is a function suite_NAME ('-' written as '_') below.
# A name ending in @algd is its suite again with UALG_ENGINE=algd: the
# suites that serve AF_ALG data run once per engine (the default, in the
# program where algd allows it, then algd's).
# BUILD names the build directory (default build).  One algd serves the
# run; ualg-run finds it through UALG_SOCKET.
set -u

# name			group		command (else the function suite_NAME)
SUITES=$(cat <<'END'
# The core's TAP programs (tests/unit/); the kernel's argument checks
# (src/kabi); the message decoders (src/proto/msg.c); which calls would wait
# (alg_type.ready, src/afalg).  ipsecmb and seccomp not under valgrind: it
# does not know the AVX-512 and seccomp system calls they use.
core			unit		$TEST_WRAP "$B/tests/test-core"
ipsecmb			unit		"$B/tests/test-ipsecmb"
kabi			unit		$TEST_WRAP "$B/tests/test-kabi"
proto			unit		$TEST_WRAP "$B/tests/test-proto"
afalg-ready		unit		$TEST_WRAP "$B/tests/test-afalg-ready"
seccomp			security	"$B/tests/test-seccomp"
# The documents against the tree: README.md's layout table names every C
# file of src/, tests/README.md's table of groups every group of this list.
docs			docs		python3 tests/docs/check_docs.py
samples			samples
diff-hash-skcipher	diff
diff-aead-rng		diff
diff-surface		diff
clients			real
diff-more-algs		diff
diff-kernel-names	diff
diff-adiantum-aegis	diff
# The differential harness itself: a known difference explains the steps
# and fields it names, nothing else.
diff-harness		diff		python3 tests/diff/test_known.py "$RUN"
coverage		diff
python			real
# algd against malformed frames.
bad-frames		security	python3 tests/proto/bad_frames.py
# algctl, algd.conf and NETLINK_CRYPTO, against an algd of their own.
algctl			ctl		env BUILD="$B" bash tests/ctl/algctl.sh
# DPDK's software cryptodev devices as algd drivers, by their driver
# names, against an algd of their own; skipped where algd has no DPDK or
# EAL cannot start.
dpdk			ctl		env BUILD="$B" bash tests/ctl/dpdk.sh
threads			real
# ualg-run's private algd (quiet, ends with the run) and fips_enabled.
ualg-run		ctl		bash tests/ctl/ualg-run.sh "$B"
# The native API (libualg): standard vectors through the shared rings, and
# a hostile client rewriting them.
libualg			unit		$TEST_WRAP "$B/tests/test-ualg"
# algd as a security boundary: confinement, policy, key memory, killed
# clients, a killed algd, 1000 sockets, a client that never reads.
faults			security	"$RUN" python3 tests/security/faults.py "$B/src/algd/algd"
# The shim's payload area: hostile frames, a thread rewriting it, AEAD tag
# checks, then large transfers, splice and fork through the shim.
shm			security	"$RUN" python3 tests/security/shm.py
# Named keys: algctl key add/del/list, UALG_SET_KEY_BY_NAME, keyring
# "ualg:NAME" references, allow lists, a memory scan after key del.
keys			security	"$RUN" python3 tests/security/keys.py "$B/src/algd/algd" "$B/src/tools/algctl" "$B/src/lib/libualg.so"
# algd shared by several users against a client speaking the frame
# protocol directly: identity through op sockets and rings, algd's own uid,
# attached descriptors, key bytes in the receive buffer, a planted socket
# in a shared /tmp, the errno of a dead algd, --alg-allow on DRBGs.
attack			security	python3 tests/security/attack.py "$B/src/algd/algd" "$B/src/tools/algctl" "$B/src/tools/ualg-run"
# Objects two sockets share, and ADOPT (the in-process engine's handover)
# from a client that skips the shim.
ownership		security	python3 tests/security/ownership.py "$B/src/algd/algd"
# What one uid can make algd hold (memory, key heap, fds, sockets, ring
# workers and locks), and three uids sharing one algd under attack.
limits			security	python3 tests/security/limits.py "$B/src/algd/algd" "$B/tests/ring-attack"
# FIPS mode (algd --fips), against an algd of its own: approved algorithms
# only, as Linux 6.1 with fips=1.
fips			security	env BUILD="$B" bash tests/security/fips.sh
# Linux 6.2's ALG_SET_KEY_BY_KEY_SERIAL, which ualg provides (6.1 lacks
# it), with keys from the kernel keyring.
key-serial		real		"$RUN" python3 tests/real/key_serial.py
kcapi			real
kcapi-aead		real
# make install into a DESTDIR, socket activation, the installed ualg-run,
# pkg-config, man pages, the shim system-wide, algctl preload, the units.
install			deploy		env BUILD="$B" bash tests/deploy/install.sh
deb			deploy
dpkg-root		deploy
# akcipher, kpp and compression (ualg(7), EXTENSIONS): the core's
# self-test vectors, libkcapi's calls against OpenSSL's command line, the
# compressors against real peers (zlib, lz4, lzop, zstd).
asym-unit		unit		$TEST_WRAP "$B/tests/test-asym"
asym			real		python3 tests/real/asym.py "$B"
compress		real		"$RUN" python3 tests/real/compress.py
# ualg-bench --png: gnuplot's chart is a PNG (skipped without gnuplot).
bench-png		tools		bash tests/tools/bench-png.sh "$B"
# ualg-run --supervise: a static musl binary's raw system calls, through
# seccomp user notification.
supervise		supervise	env BUILD="$B" bash tests/supervise/run.sh
cryptodev		cryptodev
rfc-samples		rfc
# RFC mode (ualg-run --rfc): states, blobs, ciphers, AEAD, blocking, the
# 10 MiB three-process handover.
rfc-mode		rfc		timeout 300 "$RUN" --rfc python3 tests/rfc/rfc.py
engine			engine
samples@algd		algd
diff-hash-skcipher@algd	algd
diff-aead-rng@algd	algd
diff-surface@algd	algd
diff-more-algs@algd	algd
diff-kernel-names@algd	algd
diff-adiantum-aegis@algd	algd
clients@algd		algd
python@algd		algd
kcapi@algd		algd
kcapi-aead@algd		algd
engine@algd		algd
threads@algd		algd
END
)

# The suites' lines: NAME GROUP [COMMAND].
lines() { grep -vE '^[[:space:]]*(#|$)' <<< "$SUITES"; }

usage() {
	echo "usage: tests/run-all.sh [--list] [[--suite] NAME|GROUP]... [--skip NAME|GROUP]..." >&2
	exit 2
}
words() {	# a suite's name, else every suite of that group
	local found="" name group
	while read -r name group _; do
		[ "$name" = "$1" ] && { echo "$name"; return; }
		[ "$group" = "$1" ] && found="$found $name"
	done < <(lines)
	[ -n "$found" ] || { echo "run-all.sh: no suite or group '$1' (see --list)" >&2; exit 2; }
	echo "$found"
}
selected="" skipped="" meson=""
while [ $# -gt 0 ]; do
	case $1 in
	--list) lines | awk '{ print $1, $2 }'; exit 0 ;;
	--suite) [ $# -ge 2 ] || usage; selected="$selected $(words "$2")" || exit 2; meson=1; shift ;;
	--suite=*) selected="$selected $(words "${1#--suite=}")" || exit 2; meson=1 ;;
	--skip) [ $# -ge 2 ] || usage; skipped="$skipped $(words "$2")" || exit 2; shift ;;
	-*) usage ;;
	*) selected="$selected $(words "$1")" || exit 2 ;;
	esac
	shift
done
[ -n "${selected// /}" ] || selected=$(lines | awk '{ print $1 }')
for s in $skipped; do
	selected=$(echo $selected | tr ' ' '\n' | grep -vxF -- "$s" | tr '\n' ' ')
done

B=${BUILD:-build}
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO" || exit 1
RUN="$B/src/tools/ualg-run"
T=$(mktemp -d "${TMPDIR:-/tmp}/ualg-check.XXXXXX")
passed=0 failed=0 skips=0

# As root, algd runs as it would be deployed: as its own user (nobody here).
# UALG_ALGD_OPTS adds options (check-asan: --no-seccomp).
ALGD_OPTS=${UALG_ALGD_OPTS:-}
# check-valgrind: UALG_ALGD_WRAP runs this algd under a tool (valgrind),
# UALG_TEST_WRAP the C test programs and the seed's samples.
ALGD_WRAP=${UALG_ALGD_WRAP:-}
TEST_WRAP=${UALG_TEST_WRAP:-}
# Under that tool a differential call (tests/diff/run.py) has 10 s, not
# 2 s, before it counts as still running (errno=TIMEOUT); a step the
# golden lines record as blocking keeps its half second.
[ -n "$ALGD_WRAP" ] && export UALG_DIFF_TIMEOUT=${UALG_DIFF_TIMEOUT:-10}
[ "$(id -u)" = 0 ] && ALGD_OPTS="$ALGD_OPTS --user nobody"

result() {	# name status
	if [ "$2" = 0 ]; then passed=$((passed + 1)); echo "ok - $1"
	else failed=$((failed + 1)); echo "not ok - $1"; fi
}

# A check this run cannot make (not root, no strace, ...): counted apart,
# so that the summary shows what was not checked.
skip() {	# why
	skips=$((skips + 1)); echo "# skipped: $1"
}
# The checks a suite's output says it could not make.
count_skips() {	# file
	skips=$((skips + $(grep -cE '^# skipped|^1\.\.0 # SKIP' "$1")))
}

# A sub-suite with its own "N passed, N failed" line adds its counts.
suite() {	# name command...
	local name=$1; shift
	echo "# $name"
	"$@" > "$T/out" 2>&1
	count_suite "$name" $? "$T/out"
}
count_suite() {	# name exit-status file
	local name=$1 rc=$2 line
	sed 's/^/    /' "$3"
	count_skips "$3"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$3" | tail -n 1)
	if [ -n "$line" ]; then
		set -- $line
		passed=$((passed + $1)); failed=$((failed + $3))
		[ "$rc" = 0 ] || [ "$rc" = 77 ] || [ "$3" != 0 ] || { failed=$((failed + 1)); echo "not ok - $name exited $rc"; }
	elif [ "$rc" = 77 ]; then	# skipped whole, as meson has it
		grep -qE '^# skipped' "$3" || skip "$name"
	else
		result "$name" "$rc"
	fi
}

# A TAP program: its ok/not ok lines count; a run cut short (no plan line)
# is one failure more.
tap() {	# title file command...
	local title=$1 out="$T/$2"; shift 2
	echo "# $title (TAP)"
	"$@" > "$out" 2>&1
	count_tap "$title" "$out"
}
count_tap() {	# title file
	local title=$1 out=$2
	sed 's/^/    /' "$out"
	count_skips "$out"
	passed=$((passed + $(grep -c '^ok ' "$out"))); failed=$((failed + $(grep -c '^not ok ' "$out")))
	grep -q '^1\.\.' "$out" || result "$title ran to the end" 1
}

# A suite whose line in $SUITES gives its command: a test program of the
# build (tests/meson.build) or a script, run with its output kept.  Its own
# "N passed, N failed" line counts (as suite's); else numbered ok/not ok
# lines or a plan make it a TAP program (as tap's); else its exit status
# is one check, 77 meaning skipped.
program() {	# name command...
	local name=$1 out="$T/$1.out"; shift
	"$@" > "$out" 2>&1
	local rc=$?
	if ! grep -qE '^[0-9]+ passed, [0-9]+ failed' "$out" && grep -qE '^(not )?ok [0-9]|^1\.\.[0-9]' "$out"; then
		echo "# $name: $* (TAP)"
		count_tap "$name" "$out"
	else
		echo "# $name: $*"
		count_suite "$name" $rc "$out"
	fi
}
# The command on a suite's line, its words expanded now.
run_line() {	# name
	local cmd
	cmd=$(lines | awk -v n="$1" '$1 == n { sub(/^[^ \t]+[ \t]+[^ \t]+[ \t]*/, ""); print; exit }')
	if [ -z "$cmd" ]; then
		result "$1: neither a command in \$SUITES nor a function suite_${1//-/_}" 1
		return
	fi
	eval "program \"\$1\" $cmd"
}

# The differential corpus: one file of cases against its golden file.
diffsuite() {	# title cases golden case-timeout
	suite "$1" "$RUN" python3 tests/diff/run.py "tests/diff/$2" \
		--check "tests/golden/$3" --known tests/diff/known-differences.txt --case-timeout "$4"
}

# ---- the suites that are more than one command, in the order of $SUITES


# The seed's samples print standard values: SHA-1("abc") (FIPS 180-2) and
# RFC 3602 case 1.
suite_samples() {
	local out
	out=$("$RUN" $TEST_WRAP "$B/examples/hash-sample" 2>&1)
	[ "$out" = a9993e364706816aba3e25717850c26c9cd0d89d ]; result "seed hash sample: $out" $?
	out=$("$RUN" $TEST_WRAP "$B/examples/cipher-sample" 2>&1)
	[ "$out" = e353779c1079aeb82708942dbe77181a ]; result "seed cipher sample: $out" $?
}

suite_diff_hash_skcipher() {
	diffsuite "differential corpus vs Linux 6.1 (tests/golden/hash_skcipher.txt)" \
		cases_hash_skcipher.py hash_skcipher.txt 20
}
suite_diff_aead_rng() {
	diffsuite "differential corpus for aead and rng vs Linux 6.1 (tests/golden/aead_rng.txt)" \
		cases_aead_rng.py aead_rng.txt 20
}
suite_diff_surface() {
	diffsuite "differential corpus for the rest of the surface vs Linux 6.1 (tests/golden/surface.txt)" \
		cases_surface.py surface.txt 30
}
suite_diff_more_algs() {
	diffsuite "differential corpus vs Linux 6.1, more algorithms (tests/golden/more_algs.txt)" \
		cases_more_algs.py more_algs.txt 20
}

# OpenSSL's afalg engine, kcapi-rng and libkcapi's own paths (kcapi-paths),
# against their output recorded on the oracle.
suite_clients() {
	if [ -x "$B/tests/kcapi-paths" ] && command -v kcapi-rng >/dev/null &&
	   [ -f "$(openssl version -e 2>/dev/null | sed -n 's/^ENGINESDIR: "\(.*\)"/\1/p')/afalg.so" ]; then
		local KP
		KP=$(cd "$B/tests" && pwd)/kcapi-paths	# clients.sh runs in a scratch directory
		"$RUN" bash tests/real/clients.sh "$KP" > "$T/clients" 2>/dev/null
		diff tests/golden/clients.txt "$T/clients" | sed 's/^/    /'
		cmp -s tests/golden/clients.txt "$T/clients"
		result "openssl afalg engine, kcapi-rng and kcapi-paths match tests/golden/clients.txt" $?
	else
		result "libkcapi-dev, kcapi-tools and OpenSSL's afalg engine installed" 1
	fi
}

# CPython's own AF_ALG tests: three named ones, then the whole
# LinuxKernelCryptoAPI class (aead, drbg, sendmsg arguments too), each
# test's verdict as recorded on Linux 6.1.
suite_python() {
	local rc
	"$RUN" python3 -m test test_socket -v -m test_sha256 -m test_hmac_sha1 -m test_aes_cbc > "$T/py" 2>&1
	rc=$?
	grep -E '^test_.* \.\.\. ' "$T/py" | sed 's/^/    /'
	[ $rc = 0 ] && [ "$(grep -c ' \.\.\. ok$' "$T/py")" = 3 ]; result "python test_socket: test_sha256 test_hmac_sha1 test_aes_cbc" $?
	"$RUN" python3 -m test test_socket -v -m LinuxKernelCryptoAPI > "$T/pyfull" 2>&1
	grep -E '^test_\w+ \(' "$T/pyfull" > "$T/pyfull.lines"
	diff <(grep -E '^test_\w+ \(' tests/golden/python-test-socket-full.txt) "$T/pyfull.lines" | sed 's/^/    /'
	cmp -s <(grep -E '^test_\w+ \(' tests/golden/python-test-socket-full.txt) "$T/pyfull.lines"
	result "python test_socket LinuxKernelCryptoAPI matches tests/golden/python-test-socket-full.txt" $?
}

suite_diff_kernel_names() {
	diffsuite "differential corpus vs Linux 6.1, the coverage list's added algorithms (tests/golden/kernel_names.txt)" \
		cases_kernel_names.py kernel_names.txt 20
}

suite_diff_adiantum_aegis() {
	diffsuite "differential corpus vs Linux 6.1, nhpoly1305, adiantum and aegis128 (tests/golden/adiantum_aegis.txt)" \
		cases_adiantum_aegis.py adiantum_aegis.txt 60
}

# Which of the kernel's algorithm names ualg binds (tests/coverage): the
# percentage of those Linux 6.1 binds, every refusal documented in ualg(7);
# and the kernel's semantics of the added names the corpus has no
# recording of.
suite_coverage() {
	suite "kernel algorithm names bound, vs Linux 6.1 (tests/golden/alg-names.txt)" \
		"$RUN" python3 tests/coverage/coverage.py check tests/golden/alg-names.txt --min 95
	suite "crc64-rocksoft, vmac64(aes) and xchacha12 as the kernel's (tests/coverage/added_algs.py)" \
		"$RUN" python3 tests/coverage/added_algs.py
	# Without polling, a hash's final send goes behind: its failure is
	# the answer of the call after it.
	suite "... the same with UALG_POLL_US=0 (hash sends written behind)" \
		env UALG_POLL_US=0 "$RUN" python3 tests/coverage/added_algs.py
}

# Threads sharing an op socket, and pthread_cancel() of calls blocked in
# the shim (on op sockets and ordinary fds); close() of a socket other
# threads are calling on; processes sharing one.
suite_threads() {
	tap "threads on one op socket; cancellation points (tests/unit/test_threads.c, engine ${UALG_ENGINE:-auto})" \
		threads timeout 300 "$RUN" $TEST_WRAP "$B/tests/test-threads"
	tap "close() while other threads call on the socket (tests/unit/test_close_race.c, engine ${UALG_ENGINE:-auto})" \
		close-race timeout 300 "$RUN" $TEST_WRAP "$B/tests/test-close-race"
	tap "processes sharing an op socket after fork and execve (tests/unit/test_shared_op.c, engine ${UALG_ENGINE:-auto})" \
		shared-op timeout 300 "$RUN" $TEST_WRAP "$B/tests/test-shared-op"
}
# Debian's kcapi-tools on 0 B, 1 B and 1 MiB inputs (the 1 MiB runs go
# through libkcapi's vmsplice/splice pipeline), recorded on the oracle.
suite_kcapi() {
	if command -v kcapi-dgst >/dev/null; then
		KCAPI_TIMEOUT=60 "$RUN" bash tests/real/kcapi.sh > "$T/kcapi" 2>/dev/null
		diff tests/golden/kcapi.txt "$T/kcapi" | sed 's/^/    /'
		cmp -s tests/golden/kcapi.txt "$T/kcapi"
		result "kcapi-dgst and kcapi-enc on 0 B, 1 B and 1 MiB inputs match tests/golden/kcapi.txt" $?
	else
		result "kcapi-tools installed (apt-get install kcapi-tools)" 1
	fi
}

# kcapi-enc's AEAD modes and kcapi-rng.  One deliberate difference: after a
# bad tag, Linux 6.1 has already decrypted into the caller's buffer (the
# output file holds unauthenticated plaintext); ualg releases nothing.  For
# those runs (output *.bad) only the exit status is compared.  The 1 MiB
# runs hang on Linux too (an AEAD request larger than the 212992-byte send
# buffer never completes): the timeout is part of the recorded answer, and
# 5 s shows it.
badout() { sed -E '/\.bad 3< [a-z]+ rc=/s/ out=.*//' "$1"; }
suite_kcapi_aead() {
	if command -v kcapi-enc >/dev/null; then
		KCAPI_TIMEOUT=5 "$RUN" bash tests/real/kcapi-aead.sh > "$T/kcapi-aead" 2>/dev/null
		diff <(badout tests/golden/kcapi-aead.txt) <(badout "$T/kcapi-aead") | sed 's/^/    /'
		cmp -s <(badout tests/golden/kcapi-aead.txt) <(badout "$T/kcapi-aead")
		result "kcapi-enc gcm/ccm and kcapi-rng match tests/golden/kcapi-aead.txt (bad-tag output: rc only)" $?
	else
		result "kcapi-tools installed (apt-get install kcapi-tools)" 1
	fi
}

# The Debian packages (make deb): built from a copy of the tree, their
# contents, and unpacked: socket activation and pkg-config.
have_debhelper() { command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null; }
suite_deb() {
	if have_debhelper; then
		suite "Debian packages: dpkg-buildpackage -b, contents, unpacked algd (tests/deploy/deb.sh)" \
			bash tests/deploy/deb.sh "$T/deb"
	else
		result "debhelper installed (apt-get install debhelper)" 1
	fi
}
# Then installed for real (dpkg -i, use, purge) in a throwaway overlay
# root: needs root and mount namespaces.  Run alone, it builds the
# packages first.
suite_dpkg_root() {
	if ! have_debhelper; then
		result "debhelper installed (apt-get install debhelper)" 1
	elif [ "$(id -u)" != 0 ] || ! unshare --mount true 2>/dev/null; then
		skip "dpkg -i in a throwaway root needs root and mount namespaces (unshare --mount)"
	else
		ls "$T"/deb/ualg_*.deb > /dev/null 2>&1 || bash tests/deploy/deb.sh "$T/deb" > "$T/deb.log" 2>&1 ||
			{ sed 's/^/    /' "$T/deb.log"; result "Debian packages built for dpkg-root.sh" 1; return; }
		suite "Debian packages installed with dpkg -i in a throwaway root (tests/deploy/dpkg-root.sh)" \
			bash tests/deploy/dpkg-root.sh "$T/deb"
	fi
}

# /dev/crypto: cryptodev-linux's ioctls against NIST CAVP and RFC vectors,
# through the shim, and the same program static (musl) through
# --supervise.  A program that never opens /dev/crypto does not load the
# session module.
suite_cryptodev() {
	local V=/usr/lib/python3/dist-packages/cryptography_vectors out n
	tap "/dev/crypto under ualg-run (tests/cryptodev)" cryptodev "$RUN" $TEST_WRAP "$B/tests/test-cryptodev" "$V"
	if [ -x "$B/tests/static-cryptodev" ]; then
		tap "/dev/crypto from a static binary under ualg-run --supervise" cryptodev-static \
			"$RUN" --supervise "$B/tests/static-cryptodev" "$V"
	fi
	out=$(UALG_SOCKET= UALG_PRELOAD_MODE=off LD_PRELOAD="$B/src/shim/libualg-preload.so" "$B/tests/test-cryptodev" "$V" | head -n 1)
	[ "$out" = "not ok 1 - open(/dev/crypto): No such file or directory" ]
	result "the shim system-wide with mode off leaves /dev/crypto to the kernel (ENOENT)" $?
	n=$("$RUN" grep -c libualg-cryptodev /proc/self/maps)
	[ "$n" = 0 ]; result "a program that never opens /dev/crypto does not load libualg-cryptodev.so" $?
}

# RFC mode: the 2010 mail's two samples (examples/rfc/) under ualg-run --rfc.
suite_rfc_samples() {
	local out want
	out=$("$RUN" --rfc $TEST_WRAP "$B/examples/rfc-hash-sample" 2>&1)
	[ "$out" = 47f51b4564966215b8985c63055ed308 ]; result "RFC mail's xcbc(aes) hash sample: RFC 3566 case 4: $out" $?
	out=$("$RUN" --rfc $TEST_WRAP "$B/examples/rfc-aead-sample" 2>&1)
	want="encrypted 7a60fa7ee8859e283cce378fb6b95522ab8b70efcdb0265f7c4b4fa597666b86dd1353e400f28864
decrypted a34dfa24847c365291ce1b54bcf8d9a75d861e5133cc3a74
spliced a34dfa24847c365291ce1b54bcf8d9a75d861e5133cc3a74"
	[ "$out" = "$want" ]; result "RFC mail's ccm(aes) AEAD sample: NIST CAVP VADT128 count 320, splice included" $?
}

# algd's common path as tests/engine/syscalls.sh measured it ($1): at most
# three system calls per emulated call (on an idle machine none: the shared
# page, both sides polling it), and no receive at all (a call on the page
# never receives: one that is not served there would); with UALG_POLL_US=0
# ($2: nobody polls, the socket path), the request's send, $3 receives per
# call (a hash write's success has no reply: 0.5; a cipher's send has: 1),
# the waits for them aside, nothing else, which shows that the calls do go
# to algd.
algd_path() {
	awk '{ exit !(NF >= 10 && $1 <= 3 && $6 <= 0.02) }' <<< "$1" &&
		awk -v r="$3" '{ exit !(NF >= 10 && $4 >= 0.95 && $4 <= 1.02 && $6 >= r - 0.05 && $6 <= r + 0.02 && $10 <= 0.05) }' <<< "$2"
}

# What depends on where a socket is served: fork, execve, threads,
# cancellation, EFAULT, the program's SIGSEGV handler; then the system
# calls of each emulated call (write, read) on its common path: none in
# the program's engine, even with nobody polling (algd's shared page, both
# sides polling, makes none either); in algd's, the request's send and the
# reply's receive.
suite_engine() {
	tap "one socket across fork, execve and threads; EFAULT (engine ${UALG_ENGINE:-auto})" engine \
		env ALGCTL="$B/src/tools/algctl" timeout 120 "$RUN" $TEST_WRAP "$B/tests/engine-test"
	if [ "${UALG_ENGINE:-auto}" != algd ]; then
		# Backends come when a socket wants one (src/core/backend.h).
		timeout 60 "$RUN" python3 tests/engine/backends.py cold
		result "a sha256 socket in the program maps no backend module or backend library" $?
		local names="$B/src/core/backend_names.c" here there
		here=$(timeout 120 "$RUN" python3 tests/engine/backends.py sweep "$names" --expect-loaded) &&
			there=$(UALG_ENGINE=algd timeout 120 "$RUN" python3 tests/engine/backends.py sweep "$names") &&
			[ "$here" = "$there" ]
		result "every backend's hash and skcipher drivers answer in the program as in algd, their modules loaded when wanted" $?
	fi
	if ! command -v strace >/dev/null; then
		skip "counting system calls needs strace (apt-get install strace)"
	elif [ -n "$TEST_WRAP" ]; then
		skip "system calls are not counted under $TEST_WRAP"
	else
		local per slow
		per=$(bash tests/engine/syscalls.sh "$RUN" "$B/tests/engine-test" 2>&1)
		echo "    $per"
		case ${UALG_ENGINE:-auto} in
		algd)
			slow=$(UALG_POLL_US=0 bash tests/engine/syscalls.sh "$RUN" "$B/tests/engine-test" 2>&1)
			echo "    UALG_POLL_US=0: $slow"
			algd_path "$per" "$slow" 0.5 ;;
		*)	# Nobody polls, so that a call served by algd would cost a
			# send: none means the program served it.
			per=$(UALG_POLL_US=0 bash tests/engine/syscalls.sh "$RUN" "$B/tests/engine-test" 2>&1)
			echo "    UALG_POLL_US=0: $per"
			awk -v p="${per%% *}" 'BEGIN { exit !(p != "" && p <= 0.05) }' ;;
		esac
		result "system calls per emulated write or read (engine ${UALG_ENGINE:-auto}): ${per%% (*}" $?
		if [ "${UALG_ENGINE:-auto}" != algd ]; then
			# OpenSSL's afalg engine accepts before it sets the key.  Nobody
			# polls, so that a call served by algd would cost a send.
			per=$(UALG_POLL_US=0 bash tests/engine/syscalls.sh "$RUN" "$B/tests/engine-test" --loop-cbc-late 2>&1)
			awk -v p="${per%% *}" 'BEGIN { exit !(p != "" && p <= 0.05) }'
			result "system calls per emulated sendmsg or read of cbc(aes) accepted before its key (engine ${UALG_ENGINE:-auto}): ${per%% (*}" $?
			# OpenSSL's afalg ENGINE as the default for its ciphers: the
			# program's engine serves the socket with a driver that does
			# not lead back to the ENGINE; nothing goes to algd.
			timeout 60 "$RUN" "$B/tests/engine-test" --loop-ossl-engine 100
			case $? in
			77) skip "OpenSSL's afalg ENGINE not found" ;;
			0)	per=$(UALG_POLL_US=0 bash tests/engine/syscalls.sh "$RUN" "$B/tests/engine-test" --loop-ossl-engine 2>&1)
				awk -v s="$(echo "$per" | awk '{ print $4 }')" 'BEGIN { exit !(s != "" && s <= 0.05) }'
				result "OpenSSL's afalg ENGINE as the default cipher engine: its sockets served in the program (engine ${UALG_ENGINE:-auto}): ${per%% (*}" $? ;;
			*)	result "OpenSSL's afalg ENGINE as the default cipher engine: 100 blocks as OpenSSL's own" 1 ;;
			esac
			# A one-shot use, socket to close: Linux makes 7 calls
			# (socket, bind, accept, close, write, read, close).
			per=$(bash tests/engine/syscalls.sh "$RUN" "$B/tests/engine-test" --lifecycle 2>&1)
			awk -v p="${per%% *}" 'BEGIN { exit !(p != "" && p <= 7.05) }'
			result "system calls per one-shot sha256 use, socket to close (engine ${UALG_ENGINE:-auto}, Linux: 7): ${per%% (*}" $?
		fi
		if [ "${UALG_ENGINE:-auto}" = algd ]; then
			per=$(bash tests/engine/syscalls.sh "$RUN" "$B/tests/engine-test" --loop-cbc 2>&1)
			slow=$(UALG_POLL_US=0 bash tests/engine/syscalls.sh "$RUN" "$B/tests/engine-test" --loop-cbc 2>&1)
			echo "    cbc(aes): $per"
			echo "    cbc(aes), UALG_POLL_US=0: $slow"
			algd_path "$per" "$slow" 1
			result "system calls per emulated sendmsg or read of cbc(aes) (engine algd): ${per%% (*}" $?
			# A one-shot use waits for algd once, at read(): the
			# transform socket is the program's, and the greeting, the
			# bind, the key, the accept and the write go ahead on the
			# op socket's connection.
			per=$(bash tests/engine/roundtrips.sh "$RUN" "$B/tests/engine-test" 2>&1)
			awk -v p="${per%% *}" 'BEGIN { exit !(p != "" && p <= 1.005) }'
			result "round trips per one-shot sha256 use, socket to close (engine algd): ${per%% (*}" $?
			per=$(bash tests/engine/roundtrips.sh "$RUN" "$B/tests/engine-test" --lifecycle-cbc 2>&1)
			awk -v p="${per%% *}" 'BEGIN { exit !(p != "" && p <= 1.005) }'
			result "round trips per one-shot cbc(aes) use, socket to close (engine algd): ${per%% (*}" $?
			# A hash op socket's shared page and algd's reply counter
			# come in one setup (FAST_SETUP gives both).
			per=$(bash tests/engine/setups.sh "$RUN" "$B/tests/engine-test" 2>&1)
			[ "$per" = "1 0" ]
			result "an op socket's shared page and reply counter in one setup (engine algd): $per (pages, counters asked for)" $?
		fi
		if [ "${UALG_ENGINE:-auto}" != algd ]; then
			# The administrator's choice: sha256 kept in algd, then back.
			"$B/src/tools/algctl" engine algd sha256 &&
				per=$(bash tests/engine/syscalls.sh "$RUN" "$B/tests/engine-test" 2>&1) &&
				slow=$(UALG_POLL_US=0 bash tests/engine/syscalls.sh "$RUN" "$B/tests/engine-test" 2>&1) &&
				"$B/src/tools/algctl" engine inproc sha256
			algd_path "$per" "$slow" 0.5
			result "algctl engine algd sha256: sha256 served by algd (${per%% (*}; without polling ${slow%% (*}), then back" $?
		fi
	fi
	# socket, bind and close with no call between, as a program probing
	# which names exist: it waits for algd once per socket, as for the
	# kernel, never running so far ahead that algd, which holds each
	# connection until it has read to its end, refuses a socket (an algd
	# that holds 16 per uid here).
	local psock="$T/probe.sock" pid rc
	"$B/src/algd/algd" --socket "$psock" --max-sockets 16 --ready-fd 3 3>"$T/probe.ready" 2>"$T/probe.log" &
	pid=$!
	for _ in $(seq 300); do [ -s "$T/probe.ready" ] && break; sleep 0.1; done
	UALG_SOCKET=$psock timeout 120 "$RUN" "$B/tests/engine-test" --probe 5000
	rc=$?
	kill $pid; wait $pid 2>/dev/null
	result "5000 times socket, bind and close, algd --max-sockets 16: every call succeeds (engine ${UALG_ENGINE:-auto})" $rc
}

# ---- one algd, the selected suites, algd's verdict

start_algd() {
	export UALG_SOCKET="$T/algd.sock"
	$ALGD_WRAP "$B/src/algd/algd" --socket "$UALG_SOCKET" --ready-fd 3 $ALGD_OPTS 3>"$T/ready" 2>"$T/algd.log" &
	ALGD=$!
	for _ in $(seq 600); do [ -s "$T/ready" ] && break; sleep 0.1; done
}

stop_algd() {
	local rc
	kill -0 $ALGD 2>/dev/null; result "algd survived the whole suite" $?
	# algd ends on SIGTERM; a tool (valgrind: --error-exitcode) exits
	# non-zero if it saw an error or a definite leak.  Without one, a
	# clean exit also says the seccomp filter let the exit path through.
	kill -TERM $ALGD 2>/dev/null
	wait $ALGD
	rc=$?
	if [ -n "$ALGD_WRAP" ]; then
		sed 's/^/    /' "$T/algd.log" | head -200
		result "algd under ${ALGD_WRAP%% *}: exit $rc, no errors reported" $rc
	else
		result "algd exits 0 on SIGTERM (exit $rc)" $rc
	fi
}

# The suites that made no check and skipped some: all of them, and the
# run (--suite) exits 77.
skipped_suites=0
run_one() {	# name: its function, else the command on its line
	local fn=suite_${1//-/_}
	if declare -F "$fn" > /dev/null; then "$fn"; else run_line "$1"; fi
}

# A suite's output, kept in $T/suite.log while it ran; its failed checks
# also go to $T/failures, which the run repeats above its summary.
show_log() {	# name failed-before
	cat "$T/suite.log"
	[ "$failed" = "$2" ] || grep -E '^ *not ok' "$T/suite.log" | grep -v '# TODO' |
		sed -E "s/^ */$1: /" >> "$T/failures"
}

run_suites() {	# name...
	local s base start p f k
	for s; do
		p=$passed f=$failed k=$skips
		base=${s%@algd}
		base=${base//-/_}
		start=$SECONDS
		if [ "$s" != "${s%@algd}" ]; then
			echo "# ---- engine algd: $base"
			UALG_ENGINE=algd run_one "${s%@algd}" > "$T/suite.log"
		else
			run_one "$s" > "$T/suite.log"
		fi
		show_log "$s" "$f"
		echo "# ($s: $((SECONDS - start)) s)"
		[ $passed = $p ] && [ $failed = $f ] && [ $skips != $k ] && skipped_suites=$((skipped_suites + 1))
	done
}

ALGD=
trap 'kill $ALGD 2>/dev/null; wait $ALGD 2>/dev/null; rm -rf "$T"' EXIT
start_algd
run_suites $selected
f=$failed
stop_algd > "$T/suite.log"
show_log algd "$f"
# The failed checks again, by suite, where the end of a long log shows them.
[ -s "$T/failures" ] && { echo "# failed:"; sed 's/^/#   /' "$T/failures"; }
echo "$passed passed, $failed failed, $skips skipped"
[ "$failed" = 0 ] || exit 1
# --suite (meson's entries): every suite made no check and skipped one.
[ -z "$meson" ] || [ "$skipped_suites" != "$(echo $selected | wc -w)" ] || exit 77
