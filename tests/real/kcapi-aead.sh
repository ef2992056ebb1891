#!/bin/bash
# Debian's kcapi-tools on the aead and rng types: kcapi-enc with gcm(aes) and
# ccm(aes) (NIST GCM test case 4's key and IV, RFC 3610's key and nonce),
# both directions, with AAD, several tag lengths and a corrupted tag, on
# inputs of 0 B, 1 B, 60 B and 1 MiB; and kcapi-rng (output length only,
# its bytes being random).  One line per run, as tests/real/kcapi.sh.
# Golden copy from Linux 6.1: tests/golden/kcapi-aead.txt.
set -u
W=$(mktemp -d "${TMPDIR:-/tmp}/ualg-kcapi-aead.XXXXXX")
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
for name, n in (("in0", 0), ("in1", 1), ("in60", 60), ("in1M", 1 << 20)):
    open(name, "wb").write(gen(n, b"data"))
open("gkey", "wb").write(bytes.fromhex("feffe9928665731c6d6a8f9467308308"))
open("ckey", "wb").write(bytes.fromhex("c0c1c2c3c4c5c6c7c8c9cacbcccdcecf"))
PY

show() {
    local n
    n=$(stat -c %s "$1" 2>/dev/null || echo missing)
    if [ "$n" = missing ]; then echo "missing"
    elif [ "$n" -eq 0 ]; then echo "(empty)"
    elif [ "$n" -le 64 ]; then od -An -v -tx1 "$1" | tr -d ' \n'; echo
    else echo "sha256:$(sha256sum "$1" | cut -d' ' -f1) len=$n"
    fi
}

run() {   # OUTFILE 'command'
    local of=$1 cmd=$2 rc
    rm -f out.stdout "$of" 2>/dev/null
    timeout "${KCAPI_TIMEOUT:-120}" bash -o pipefail -c "$cmd" > out.stdout 2> out.stderr < /dev/null
    rc=$?
    [ "$of" = - ] && of=out.stdout
    echo "$cmd rc=$rc out=$(show "$of")"
}

GIV=cafebabefacedbaddecaf888
AAD=feedfacedeadbeeffeedfacedeadbeefabaddad2
NONCE=00000003020100a0a1a2a3a4a5
for f in in0 in1 in60 in1M; do
    echo "# input $f $(show $f)"
    for tl in 16 12 8 4; do
        run $f.g$tl "kcapi-enc -e -c 'gcm(aes)' --iv $GIV --aad $AAD --taglen $tl --keyfd 3 -i $f -o $f.g$tl 3< gkey"
    done
    run - "kcapi-enc -e -c 'gcm(aes)' --iv $GIV --taglen 16 --keyfd 3 < $f 3< gkey"
    # Decryption: kcapi-enc takes the tag on the command line.
    if [ -s $f.g16 ]; then
        n=$(stat -c %s $f.g16)
        head -c $((n - 16)) $f.g16 > $f.g16.ct
        tag=$(tail -c 16 $f.g16 | od -An -v -tx1 | tr -d ' \n')
        bad=$(printf '%s' "$tag" | sed 's/^./f/; s/^ff/0f/')
        run $f.g16.pt "kcapi-enc -d -c 'gcm(aes)' --iv $GIV --aad $AAD --tag $tag --keyfd 3 -i $f.g16.ct -o $f.g16.pt 3< gkey"
        run $f.g16.bad "kcapi-enc -d -c 'gcm(aes)' --iv $GIV --aad $AAD --tag $bad --keyfd 3 -i $f.g16.ct -o $f.g16.bad 3< gkey"
    fi
    for tl in 16 8; do
        run $f.c$tl "kcapi-enc -e -c 'ccm(aes)' --ccm-nonce $NONCE --aad 0001020304050607 --taglen $tl --keyfd 3 -i $f -o $f.c$tl 3< ckey"
    done
    if [ -s $f.c8 ]; then
        n=$(stat -c %s $f.c8)
        head -c $((n - 8)) $f.c8 > $f.c8.ct
        tag=$(tail -c 8 $f.c8 | od -An -v -tx1 | tr -d ' \n')
        run $f.c8.pt "kcapi-enc -d -c 'ccm(aes)' --ccm-nonce $NONCE --aad 0001020304050607 --tag $tag --keyfd 3 -i $f.c8.ct -o $f.c8.pt 3< ckey"
    fi
done

echo "# kcapi-rng"
for n in 1 16 128 129 1000 65536; do
    kcapi-rng -b $n > rng.out 2> /dev/null
    echo "kcapi-rng -b $n rc=$? len=$(stat -c %s rng.out)"
    kcapi-rng -b $n -n drbg_nopr_hmac_sha256 > rng.out 2> /dev/null
    echo "kcapi-rng -b $n -n drbg_nopr_hmac_sha256 rc=$? len=$(stat -c %s rng.out)"
done
kcapi-rng -b 32 --hex > rng.out 2> /dev/null
echo "kcapi-rng -b 32 --hex rc=$? len=$(stat -c %s rng.out)"
kcapi-rng -b 32 -n nonexistent > rng.out 2> /dev/null
echo "kcapi-rng -b 32 -n nonexistent rc=$? len=$(stat -c %s rng.out)"
