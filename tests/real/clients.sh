#!/bin/bash
# Real AF_ALG clients nobody here wrote, beyond kcapi.sh: OpenSSL's afalg
# engine (openssl enc and openssl speed), kcapi-rng, and kcapi-paths (a C
# program on Debian's libkcapi: its sync, vmsplice/splice and AIO paths).
# One line per run: <command> rc=<status> out=<output>; random output is
# shown by length only, openssl speed by whether it completed.  The golden
# copy recorded on Linux 6.1 is tests/golden/clients.txt.
#   usage: clients.sh KCAPI_PATHS_BINARY   (under ualg-run, or on the oracle)
set -u
KP=${1:-}
W=$(mktemp -d "${TMPDIR:-/tmp}/ualg-clients.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
T=${CLIENT_TIMEOUT:-120}

python3 - <<'PY'
import hashlib
def gen(n, tag):
    out = bytearray()
    i = 0
    while len(out) < n:
        out += hashlib.sha256(b"ualg-clients-" + tag + i.to_bytes(8, "big")).digest()
        i += 1
    return bytes(out[:n])
for name, n in (("in0", 0), ("in1", 1), ("in16", 16), ("in4k", 4096), ("in1M", 1 << 20)):
    open(name, "wb").write(gen(n, b"data"))
PY

show() {   # file -> hex if <= 64 bytes, else sha256 and length
    local n
    n=$(stat -c %s "$1" 2>/dev/null || echo missing)
    if [ "$n" = missing ]; then echo missing
    elif [ "$n" -le 64 ]; then od -An -v -tx1 "$1" | tr -d ' \n'; echo " len=$n"
    else echo "sha256:$(sha256sum "$1" | cut -d' ' -f1) len=$n"
    fi
}

K=06a9214036b8a15b512e03d534120006
K256=603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4
IV=3dafba429d9eb430b422da802c9fac41
ENC="openssl enc -engine afalg"
for f in in0 in1 in16 in4k in1M; do
	for c in "-aes-128-cbc -K $K" "-aes-256-cbc -K $K256"; do
		rm -f out back
		timeout "$T" $ENC $c -iv $IV -in $f -out out 2>/dev/null; rc=$?
		echo "$ENC $c -in $f rc=$rc out=$(show out)"
		timeout "$T" $ENC -d $c -iv $IV -in out -out back 2>/dev/null; rc=$?
		echo "$ENC -d $c -in $f.enc rc=$rc back=$(cmp -s back $f && echo same || echo DIFFERENT)"
	done
	rm -f out
	timeout "$T" $ENC -aes-128-cbc -nopad -K $K -iv $IV -in $f -out out 2>/dev/null; rc=$?
	echo "$ENC -aes-128-cbc -nopad -in $f rc=$rc out=$(show out)"
done

timeout "$T" openssl speed -engine afalg -elapsed -evp aes-128-cbc -seconds 1 -bytes 4096 > speed.out 2>&1
rc=$?
echo "openssl speed -engine afalg -elapsed -evp aes-128-cbc -seconds 1 -bytes 4096 rc=$rc" \
     "completed=$(grep -cE '^AES-128-CBC +[0-9.]+k' speed.out)"

for n in 1 32 1000; do
	rm -f out
	timeout "$T" kcapi-rng -b $n > out 2>/dev/null; rc=$?
	echo "kcapi-rng -b $n rc=$rc len=$(stat -c %s out)"
done

if [ -n "$KP" ]; then
	timeout "$T" "$KP" > kp.out 2>&1; rc=$?
	sed 's/^/kcapi-paths: /' kp.out
	echo "kcapi-paths rc=$rc"
fi
