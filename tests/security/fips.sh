#!/bin/bash
# algd --fips against an algd of its own: unapproved names are ENOENT at
# bind (as Linux 6.1 in FIPS mode), approved ones give standard answers,
# the listing marks approval as 6.1's /proc/crypto.  Ends with
# "N passed, N failed".  usage: tests/security/fips.sh  (BUILD=build dir)
set -u
B=${BUILD:-build}
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/ualg-fips.XXXXXX")
export UALG_SOCKET=$T/algd.sock
passed=0 failed=0
result() { if [ "$1" = 0 ]; then passed=$((passed + 1)); echo "ok - $2"
	else failed=$((failed + 1)); echo "not ok - $2"; fi; }
OPTS=${UALG_ALGD_OPTS:-}
[ "$(id -u)" = 0 ] && OPTS="$OPTS --user nobody" && chmod 755 "$T"
"$B/src/algd/algd" --fips --socket "$UALG_SOCKET" --ready-fd 3 $OPTS 3>"$T/ready" 2>"$T/log" &
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 300); do [ -s "$T/ready" ] && break; sleep 0.1; done
[ -s "$T/ready" ]; result $? "algd --fips starts"
# bind errno per name, then SHA-256("abc") (FIPS 180-2) and HMAC-SHA-256
# RFC 4231 case 1 through AF_ALG.
"$B/src/tools/ualg-run" python3 - > "$T/out" 2>&1 <<'PY'
import socket, errno
def bind(t, n):
    s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET)
    try:
        s.bind((t, n)); return s, 0
    except OSError as e:
        return None, e.errno
for t, n in [("hash", "md5"), ("hash", "hmac(md5)"), ("skcipher", "ecb(des3_ede)"),
             ("skcipher", "lrw(aes)"), ("aead", "rfc4543(gcm(aes))"), ("hash", "sha256"),
             ("skcipher", "cbc(aes)"), ("aead", "gcm(aes)")]:
    print(n, errno.errorcode.get(bind(t, n)[1], "0"))
s, _ = bind("hash", "sha256"); o, _ = s.accept(); o.sendall(b"abc"); print("sha256", o.recv(32).hex())
s, _ = bind("hash", "hmac(sha256)")
s.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, b"\x0b" * 20)
o, _ = s.accept(); o.sendall(b"Hi There"); print("hmac", o.recv(32).hex())
s, _ = bind("hash", "hmac(sha256)")
try:
    s.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, b"\x0b" * 13); print("shortkey 0")
except OSError as e:
    print("shortkey", errno.errorcode[e.errno])
PY
cat > "$T/want" <<'W'
md5 ENOENT
hmac(md5) ENOENT
ecb(des3_ede) ENOENT
lrw(aes) ENOENT
rfc4543(gcm(aes)) ENOENT
sha256 0
cbc(aes) 0
gcm(aes) 0
sha256 ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
hmac b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7
shortkey EINVAL
W
diff "$T/want" "$T/out" | sed 's/^/    /'
cmp -s "$T/want" "$T/out"; result $? "unapproved names ENOENT, approved ones FIPS 180-2 / RFC 4231 answers, 104-bit hmac key EINVAL"
"$B/src/tools/algctl" list > "$T/list"
grep -A6 '^driver       : md5-openssl$' "$T/list" | grep -q '^fips         : no$'
result $? "algctl list marks md5 'fips : no' (6.1 crypto/proc.c)"
grep -A6 '^driver       : sha256-openssl$' "$T/list" | grep -q '^fips         : yes$'
result $? "algctl list marks sha256 'fips : yes'"
# The refusal to start on a failing self-test (needs a UALG_TEST_HOOKS
# build of algd; the core's is tested in test-core).
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
