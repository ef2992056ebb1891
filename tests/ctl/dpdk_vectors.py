#!/usr/bin/env python3
"""Under ualg-run: every DPDK driver algd lists (algctl --json list on
stdin), bound by its driver name, answers as the kernel's algorithm of the
same name: each hash and hmac against Python's hashlib/hmac, each cipher
mode and AEAD against the cryptography package, on empty, short,
multi-block and multi-segment (over 32 KiB) inputs, hashes in several
sends, ciphers continuing their IV over a second request, and a tampered
AEAD tag refused with EBADMSG.  Prints one line per driver and ends with
"N passed, N failed"."""
import errno
import hashlib
import hmac
import json
import os
import socket
import sys

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ualgtest import check, finish, read_all, tfm  # noqa: E402

LENS = [0, 1, 16, 64, 1000, 70000]


def check_hash(a):
    name, drv = a["name"], a["driver"]
    keyed = name.startswith("hmac(")
    hname = name[5:-1] if keyed else name
    ok = True
    for keylen in ([0, 20, 64, 131] if keyed else [None]):
        key = os.urandom(keylen) if keyed else None
        t = tfm("hash", drv, key)
        for n in LENS:
            data = os.urandom(n)
            want = hmac.new(key, data, hname).digest() if keyed else hashlib.new(hname, data).digest()
            op, _ = t.accept()
            # in three sends, the first two with MSG_MORE
            parts = [data[:n // 3], data[n // 3:2 * n // 3], data[2 * n // 3:]]
            for p in parts[:2]:
                op.sendmsg([p], [], socket.MSG_MORE)
            op.sendmsg([parts[2]])
            got = op.recv(len(want))
            op.close()
            ok &= got == want
    check("%s (%s): as hashlib/hmac" % (drv, name), ok)


def ref_cipher(name, key, iv):
    mode = name.split("(")[0]
    m = {"cbc": lambda: modes.CBC(iv), "ctr": lambda: modes.CTR(iv), "ecb": modes.ECB,
         "xts": lambda: modes.XTS(iv)}[mode]()
    return Cipher(algorithms.AES(key), m)


def check_skcipher(a):
    name, drv = a["name"], a["driver"]
    mode = name.split("(")[0]
    ok = True
    for klen in ([32, 64] if mode == "xts" else [16, 24, 32]):
        key = os.urandom(klen)
        t = tfm("skcipher", drv, key)
        for n in [16, 64, 4096, 70000]:
            if mode == "ctr":
                n += 5
            iv = os.urandom(16) if mode != "ecb" else b""
            if mode == "ctr":
                iv = b"\xff" * 15 + iv[:1]	# a carry through the whole counter
            pt = os.urandom(2 * n)
            enc = ref_cipher(name, key, iv or None).encryptor()
            want = enc.update(pt) + enc.finalize()
            op, _ = t.accept()
            kw = {"iv": iv} if iv else {}
            if mode == "xts":
                # one request: XTS's IV does not carry like the others'
                op.sendmsg_afalg([pt], op=socket.ALG_OP_ENCRYPT, **kw)
                got = read_all(op, 2 * n)
            else:
                half = n - n % 16
                op.sendmsg_afalg([pt[:half]], op=socket.ALG_OP_ENCRYPT, **kw)
                got = read_all(op, half)
                op.sendmsg_afalg([pt[half:]], op=socket.ALG_OP_ENCRYPT)
                got += read_all(op, 2 * n - half)
            op.close()
            op, _ = t.accept()
            op.sendmsg_afalg([want], op=socket.ALG_OP_DECRYPT, **kw)
            back = read_all(op, 2 * n)
            op.close()
            if not (got == want and back == pt):
                print("    klen %d n %d: enc %s dec %s" % (klen, n, got == want, back == pt))
                ok = False
    check("%s (%s): as the cryptography package, IV carried across requests" % (drv, name), ok)


def check_aead(a):
    name, drv = a["name"], a["driver"]
    chacha = name.startswith("rfc7539")
    ok = True
    for klen in ([32] if chacha else [16, 24, 32]):
        key = os.urandom(klen)
        t = tfm("aead", drv, key)
        for tag in ([16] if chacha else [16, 12, 8, 4]):
            t.setsockopt(socket.SOL_ALG, socket.ALG_SET_AEAD_AUTHSIZE, None, tag)
            for alen, n in [(0, 0), (20, 0), (0, 16), (13, 100), (16, 70000)]:
                iv, aad, pt = os.urandom(12), os.urandom(alen), os.urandom(n)
                if chacha:
                    want = ChaCha20Poly1305(key).encrypt(iv, pt, aad)
                else:
                    full = AESGCM(key).encrypt(iv, pt, aad)
                    want = full[:n] + full[n:n + tag]
                op, _ = t.accept()
                op.sendmsg_afalg([aad + pt], op=socket.ALG_OP_ENCRYPT, iv=iv, assoclen=alen)
                got = read_all(op, alen + n + tag)
                op.close()
                op, _ = t.accept()
                op.sendmsg_afalg([aad + want], op=socket.ALG_OP_DECRYPT, iv=iv, assoclen=alen)
                back = read_all(op, alen + n)
                op.close()
                bad = bytearray(aad + want)
                bad[-1] ^= 1
                op, _ = t.accept()
                op.sendmsg_afalg([bytes(bad)], op=socket.ALG_OP_DECRYPT, iv=iv, assoclen=alen)
                try:
                    op.recv(alen + n + tag)
                    refused = False
                except OSError as e:
                    refused = e.errno == errno.EBADMSG
                op.close()
                if not (got == aad + want and back == aad + pt and refused):
                    print("    klen %d tag %d alen %d n %d: enc %s dec %s tampered %s" % (
                        klen, tag, alen, n, got == aad + want, back == aad + pt, refused))
                    ok = False
    check("%s (%s): as the cryptography package, tampered tags EBADMSG" % (drv, name), ok)


algs = [a for a in json.load(sys.stdin) if a.get("module") == "dpdk"]
for a in algs:
    check("%s (%s): self-test passed at registration" % (a["driver"], a["name"]), a.get("selftest") == "passed")
    try:
        {"shash": check_hash, "skcipher": check_skcipher, "aead": check_aead}[a["type"]](a)
    except OSError as e:
        check("%s: %s" % (a["driver"], e), False)
finish()
