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
HERE=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/ualg-kcapi.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1

. "$HERE/lib.sh"
gen in0 0 in1 1 in1M $((1 << 20))
printf '\x06\xa9\x21\x40\x36\xb8\xa1\x5b\x51\x2e\x03\xd5\x34\x12\x00\x06' > key16
printf '\x60\x3d\xeb\x10\x15\xca\x71\xbe\x2b\x73\xae\xf0\x85\x7d\x77\x81\x1f\x35\x2c\x07\x3b\x61\x08\xd7\x2d\x98\x10\xa3\x09\x14\xdf\xf4' > key32
printf 'ualg fixed hmac key' > hkey

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
