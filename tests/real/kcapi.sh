#!/bin/bash
# Runs Debian's kcapi-tools (libkcapi 1.4) against AF_ALG: kcapi-dgst for sha256
# and hmac(sha256), kcapi-enc for cbc(aes) encrypt and decrypt, on inputs of
# 0 B, 1 B and 1 MiB generated here deterministically.  One line per run:
#   <command> rc=<exit status> out=<output> [err=<first stderr line, when rc != 0>]
# where <output> is text:HEX for a --hex digest, the hex of the bytes if <= 64
# bytes, else sha256:HEX len=N; "(empty)" or "missing" for no output.
# Output is "stdout" unless the command writes a file (-o), then that file.
# The golden copy recorded on Linux 6.1 is tests/golden/kcapi.txt; with a shim,
# run it as  LD_PRELOAD=... tests/real/kcapi.sh | diff tests/golden/kcapi.txt -
set -u
W=$(mktemp -d "${TMPDIR:-/tmp}/ualg-kcapi.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1

python3 - <<'PY'
import hashlib
def gen(n, tag):
    out = bytearray()
    i = 0
    while len(out) < n:
        out += hashlib.sha256(b"ualg-kcapi-" + tag + i.to_bytes(8, "big")).digest()
        i += 1
    return bytes(out[:n])
for name, n in (("in0", 0), ("in1", 1), ("in1M", 1 << 20)):
    open(name, "wb").write(gen(n, b"data"))
open("key16", "wb").write(bytes.fromhex("06a9214036b8a15b512e03d534120006"))
open("key32", "wb").write(bytes.fromhex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"))
open("hkey", "wb").write(b"ualg fixed hmac key")
PY

show() {   # file -> text:HEXDIGITS (a --hex digest), hex if <= 64 bytes, else sha256
    local n
    n=$(stat -c %s "$1" 2>/dev/null || echo missing)
    if [ "$n" = missing ]; then echo "missing"
    elif [ "$n" -eq 0 ]; then echo "(empty)"
    elif [ "$n" -le 257 ] && LC_ALL=C grep -qxE '[0-9a-f]+' "$1" && [ "$(wc -l < "$1")" -le 1 ]; then
        echo "text:$(tr -d '\n' < "$1")"
    elif [ "$n" -le 64 ]; then od -An -v -tx1 "$1" | tr -d ' \n'; echo
    else echo "sha256:$(sha256sum "$1" | cut -d' ' -f1) len=$n"
    fi
}

# run OUTFILE 'command'  (OUTFILE - means the command's stdout)
run() {
    local of=$1 cmd=$2 rc
    rm -f out.stdout "$of" 2>/dev/null
    timeout "${KCAPI_TIMEOUT:-120}" bash -o pipefail -c "$cmd" > out.stdout 2> out.stderr < /dev/null
    rc=$?
    [ "$of" = - ] && of=out.stdout
    if [ "$rc" -ne 0 ] && [ -s out.stderr ]; then
        echo "$cmd rc=$rc out=$(show "$of") err=$(head -n 1 out.stderr | tr -c 'A-Za-z0-9.:()=-' '_' | cut -c1-120)"
    else
        echo "$cmd rc=$rc out=$(show "$of")"
    fi
}

IV=3dafba429d9eb430b422da802c9fac41
for f in in0 in1 in1M; do
    echo "# input $f $(show $f)"
    run - "kcapi-dgst -c sha256 -i $f --hex"
    run - "kcapi-dgst -c sha256 < $f"
    run - "kcapi-dgst -c sha512 -i $f --hex"
    run - "kcapi-dgst -c 'hmac(sha256)' --keyfd 3 -i $f --hex 3< hkey"
    run - "kcapi-dgst -c 'hmac(sha256)' --keyfd 3 < $f 3< hkey"
    run - "kcapi-dgst -c 'hmac(sha256)' -p password -s salt --pbkdfiter 1000 -i $f --hex"
    for k in key16 key32; do
        run $f.$k.enc "kcapi-enc -e -c 'cbc(aes)' --iv $IV --keyfd 3 -i $f -o $f.$k.enc 3< $k"
        run $f.$k.dec "kcapi-enc -d -c 'cbc(aes)' --iv $IV --keyfd 3 -i $f.$k.enc -o $f.$k.dec 3< $k"
        run - "kcapi-enc -e -c 'cbc(aes)' --iv $IV --keyfd 3 < $f 3< $k"
        run - "kcapi-enc -e -c 'cbc(aes)' --iv $IV --keyfd 3 < $f 3< $k | kcapi-enc -d -c 'cbc(aes)' --iv $IV --keyfd 4 4< $k"
    done
    run $f.pw.enc "kcapi-enc -e -c 'cbc(aes)' --iv $IV -p password -s salt --pbkdfiter 1000 -i $f -o $f.pw.enc"
    run $f.pw.dec "kcapi-enc -d -c 'cbc(aes)' --iv $IV -p password -s salt --pbkdfiter 1000 -i $f.pw.enc -o $f.pw.dec"
    run - "kcapi-enc -e -c 'ctr(aes)' --iv $IV --keyfd 3 -i $f 3< key16"
done
