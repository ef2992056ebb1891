#!/bin/bash
# Debian's kcapi-tools on the aead and rng types: kcapi-enc with gcm(aes) and
# ccm(aes) (NIST GCM test case 4's key and IV, RFC 3610's key and nonce),
# both directions, with AAD, several tag lengths and a corrupted tag, on
# inputs of 0 B, 1 B, 60 B and 1 MiB; and kcapi-rng (output length only,
# its bytes being random).  One line per run, as tests/real/kcapi.sh.
# Golden copy from Linux 6.1: tests/golden/kcapi-aead.txt.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/ualg-kcapi-aead.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1

. "$HERE/lib.sh"
gen in0 0 in1 1 in60 60 in1M $((1 << 20))
printf '\xfe\xff\xe9\x92\x86\x65\x73\x1c\x6d\x6a\x8f\x94\x67\x30\x83\x08' > gkey
printf '\xc0\xc1\xc2\xc3\xc4\xc5\xc6\xc7\xc8\xc9\xca\xcb\xcc\xcd\xce\xcf' > ckey

GIV=cafebabefacedbaddecaf888
AAD=feedfacedeadbeeffeedfacedeadbeefabaddad2
NONCE=00000003020100a0a1a2a3a4a5
for f in in0 in1 in60 in1M; do
    echo "# input $f $(show $f)"
    tags="16 12 8 4"; [ $f = in1M ] && tags=16	# the oracle is slow
    for tl in $tags; do
        run $f.g$tl "kcapi-enc -e -c 'gcm(aes)' --iv $GIV --aad $AAD --taglen $tl --keyfd 3 -i $f -o $f.g$tl 3< gkey"
    done
    run - "kcapi-enc -e -c 'gcm(aes)' --iv $GIV --taglen 16 --keyfd 3 < $f 3< gkey"
    # Decryption: kcapi-enc takes the tag on the command line.
    if [ -s $f.g16 ]; then
        n=$(stat -c %s $f.g16)
        tail -c +21 $f.g16 | head -c $((n - 36)) > $f.g16.ct	# output: AAD || CT || tag
        tag=$(tail -c 16 $f.g16 | od -An -v -tx1 | tr -d ' \n')
        bad=$(printf '%s' "$tag" | sed 's/^./f/; s/^ff/0f/')
        run $f.g16.pt "kcapi-enc -d -c 'gcm(aes)' --iv $GIV --aad $AAD --tag $tag --keyfd 3 -i $f.g16.ct -o $f.g16.pt 3< gkey"
        run $f.g16.bad "kcapi-enc -d -c 'gcm(aes)' --iv $GIV --aad $AAD --tag $bad --keyfd 3 -i $f.g16.ct -o $f.g16.bad 3< gkey"
    fi
    for tl in 16 8; do
        [ $f = in1M ] && [ $tl = 16 ] && continue
        run $f.c$tl "kcapi-enc -e -c 'ccm(aes)' --ccm-nonce $NONCE --aad 0001020304050607 --taglen $tl --keyfd 3 -i $f -o $f.c$tl 3< ckey"
    done
    if [ -s $f.c8 ]; then
        n=$(stat -c %s $f.c8)
        tail -c +9 $f.c8 | head -c $((n - 16)) > $f.c8.ct
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
