#!/usr/bin/env python3
"""The kernel semantics of the names the coverage list added that the
differential corpus has no recording of (run under ualg-run): what
crypto/crc64_rocksoft_generic.c, crypto/vmac.c and crypto/chacha_generic.c
do, with the vectors of testmgr.h and draft-krovetz-vmac-01.

Prints one "ok"/"not ok" line per check and "N passed, N failed"."""
import errno
import os
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import ualgtest  # noqa: E402
from ualgtest import finish, tfm  # noqa: E402


def check(what, got, want):
    ualgtest.check(what, got == want, "got %r, want %r" % (got, want))


def err_name(e):
    return errno.errorcode.get(e.errno, str(e.errno))


def digest(name, parts, key=None):
    """The digest of PARTS sent one by one, or the errno's name."""
    with socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0) as s:
        s.bind(("hash", name))
        try:
            if key is not None:
                s.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, key)
        except OSError as e:
            return "setkey " + err_name(e)
        o, _ = s.accept()
        with o:
            try:
                for p in parts:
                    o.sendall(p, socket.MSG_MORE)
                o.send(b"")
                return o.recv(64).hex()
            except OSError as e:
                return err_name(e)


def encrypt(name, key, iv, data):
    with tfm("skcipher", name, key) as s:
        o, _ = s.accept()
        with o:
            o.sendmsg_afalg([data], op=socket.ALG_OP_ENCRYPT, iv=iv)
            return o.recv(len(data))


def main():
    # crc64-rocksoft: from 0, the CRC little-endian, updates chain; no key
    # (shash_no_setkey: ENOSYS).
    check("crc64-rocksoft of 4096 zero bytes (testmgr.h)", digest("crc64-rocksoft", [bytes(4096)]),
          "4eb622eb67d38264")
    check("crc64-rocksoft of 4096 0xff bytes (testmgr.h)", digest("crc64-rocksoft", [b"\xff" * 4096]),
          "aca3ec0273baddc0")
    check("crc64-rocksoft in two updates", digest("crc64-rocksoft", [b"1234", b"56789"]), "8898790a86148bae")
    check("crc64-rocksoft takes no key", digest("crc64-rocksoft", [b""], key=bytes(8)), "setkey ENOSYS")

    # vmac64(aes): a 16-byte key; the nonce is the data's first 16 bytes,
    # whole and with its first bit 0, else final fails with EINVAL.
    key, nonce = b"abcdefghijklmnop", bytes(8) + b"bcdefghi"
    check("vmac64(aes) of \"abc\" (draft-krovetz-vmac-01)", digest("vmac64(aes)", [nonce + b"abc"], key),
          "2d376cf5b1813ce5")
    check("vmac64(aes) with the nonce split across updates",
          digest("vmac64(aes)", [nonce[:5], nonce[5:] + b"a", b"bc"], key), "2d376cf5b1813ce5")
    check("vmac64(aes) of 48 bytes in pieces",
          digest("vmac64(aes)", [nonce + b"abc" * 5, b"abc" * 11], key), "e8421f61d573d298")
    check("vmac64(aes): a short nonce is EINVAL", digest("vmac64(aes)", [nonce[:10]], key), "EINVAL")
    check("vmac64(aes): a nonce's first bit set is EINVAL",
          digest("vmac64(aes)", [b"\x80" + nonce[1:] + b"abc"], key), "EINVAL")
    for n in (24, 32):
        check("vmac64(aes): a %d-byte key is EINVAL" % n, digest("vmac64(aes)", [nonce], bytes(n)),
              "setkey EINVAL")

    # xchacha12: the counter (IV bytes 24..32, LE) steps its low word only,
    # which wraps to 0 without carrying into the high word.
    k = bytes(range(32))

    def iv(lo, hi):
        return bytes(range(24)) + lo.to_bytes(4, "little") + hi.to_bytes(4, "little")
    wrapped = encrypt("xchacha12", k, iv(0xffffffff, 5), bytes(192))
    check("xchacha12: the counter's low word wraps without carry",
          wrapped[64:] == encrypt("xchacha12", k, iv(0, 5), bytes(128)), True)
    check("xchacha12: the counter's high word counts",
          wrapped[64:] == encrypt("xchacha12", k, iv(0, 6), bytes(128)), False)
    check("xchacha12: the counter counts 64-byte blocks", encrypt("xchacha12", k, iv(7, 9), bytes(100))[64:],
          encrypt("xchacha12", k, iv(8, 9), bytes(36)))
    finish()


if __name__ == "__main__":
    main()
