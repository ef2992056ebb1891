"""Differential cases for the algorithms beyond the first corpus:
more hashes and checksums, cmac/xcbc, more block ciphers, chacha20 and
xchacha, and the pcbc/cfb/ofb/essiv/lrw/xctr templates (reference: Linux
6.1, recorded into tests/golden/more_algs.txt).  Same framework and rules
as cases_hash_skcipher.py: cases assert nothing, the recording is the
truth, and algorithms the kernel lacks simply record its errno.
"""

from afalg import *  # noqa: F401,F403
from casekit import pat, h, tfm, opfd, crypt  # noqa: F401

CASES = []


def add(name, fn):
    CASES.append((name, fn))


def case(fn):
    add(fn.__name__, fn)
    return fn


def ident(name):
    out = "".join(ch if ch.isalnum() else "_" for ch in name)
    while "__" in out:
        out = out.replace("__", "_")
    return out.strip("_")


# ====================================================================== hashes

# Unkeyed (or optional-key with the default key): "abc", the empty message
# on a fresh accept, then 1000 bytes.
HASHES = ["md4", "rmd160", "sm3", "blake2b-160", "blake2b-256", "blake2b-384", "blake2b-512",
          "crc32", "crc32c", "xxhash64", "michael_mic", "ghash", "poly1305", "digest_null",
          "cmac(aes)", "xcbc(aes)", "hmac(md4)", "hmac(rmd160)", "hmac(sm3)", "hmac(crc32c)"]


def _hash_basic(alg):
    def f(c):
        t, o = opfd(c, "hash", alg)
        c.write(o, b"abc")
        c.read(o, 128)
        o2 = c.accept(t)
        c.read(o2, 128)
        c.write(o2, pat(1000))
        c.read(o2, 128)
    return f


for _alg in HASHES:
    add("more_hash_" + ident(_alg), _hash_basic(_alg))


# Keyed: (name, key, message).  Several key lengths, wrong ones included.
KEYED = [
    ("crc32", h("78563412"), b"123456789"),
    ("crc32", h("ffffffff"), b"123456789"),
    ("crc32", h("0102"), b"x"),
    ("crc32c", h("ffffffff"), b"123456789"),
    ("crc32c", h("00000000"), b"123456789"),
    ("crc32c", h("0102030405"), b"x"),
    ("xxhash64", h("0000000000000000"), b"abc"),
    ("xxhash64", h("0123456789abcdef"), pat(100)),
    ("xxhash64", h("01020304"), b"x"),
    ("blake2b-256", bytes(range(64)), b"abc"),
    ("blake2b-512", bytes(range(64)), bytes(range(255))),   # RFC 7693 style keyed
    ("blake2b-160", bytes(range(20)), pat(300)),
    ("blake2b-384", b"", b"abc"),
    ("blake2b-256", bytes(65), b"abc"),
    ("ghash", bytes(range(16)), pat(50)),
    ("ghash", bytes(range(15)), b"abc"),
    # RFC 4493 section 4, AES-128 key
    ("cmac(aes)", h("2b7e151628aed2a6abf7158809cf4f3c"), b""),
    ("cmac(aes)", h("2b7e151628aed2a6abf7158809cf4f3c"), h("6bc1bee22e409f96e93d7e117393172a")),
    ("cmac(aes)", h("2b7e151628aed2a6abf7158809cf4f3c"),
     h("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411")),
    ("cmac(aes)", h("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"), pat(64)),
    ("cmac(aes)", h("000102"), b"abc"),
    ("cmac(des3_ede)", h("8aa83bf8cbda10620bc1bf19fbb6cd58bc313d4a371ca8b5"), h("6bc1bee22e409f96")),
    ("cmac(des3_ede)", h("8aa83bf8cbda10620bc1bf19fbb6cd58bc313d4a371ca8b5"), pat(20)),
    ("cmac(camellia)", bytes(range(16)), pat(33)),
    # RFC 3566 section 4
    ("xcbc(aes)", h("000102030405060708090a0b0c0d0e0f"), b""),
    ("xcbc(aes)", h("000102030405060708090a0b0c0d0e0f"), bytes(range(3))),
    ("xcbc(aes)", h("000102030405060708090a0b0c0d0e0f"), bytes(range(16))),
    ("xcbc(aes)", h("000102030405060708090a0b0c0d0e0f"), bytes(range(20))),
    ("xcbc(aes)", h("000102030405060708090a0b0c0d0e0f"), bytes(range(32))),
    ("xcbc(aes)", bytes(range(32)), pat(40)),
    ("xcbc(des3_ede)", bytes(range(24)), b"abc"),
    ("hmac(md4)", b"key", b"The quick brown fox jumps over the lazy dog"),
    ("hmac(rmd160)", b"\x0b" * 20, b"Hi There"),
]


def _hash_keyed(alg, key, msg):
    def f(c):
        t = c.socket()
        c.bind(t, "hash", alg)
        c.setkey(t, key)
        o = c.accept(t)
        c.write(o, msg)
        c.read(o, 128)
        # the same message in two writes, the first one MSG_MORE
        c.send(o, msg[:len(msg) // 2], MSG_MORE)
        c.send(o, msg[len(msg) // 2:])
        c.read(o, 128)
    return f


_seen = {}
for _alg, _key, _msg in KEYED:
    _n = _seen[_alg] = _seen.get(_alg, 0) + 1
    add("more_keyed_%s_%d" % (ident(_alg), _n), _hash_keyed(_alg, _key, _msg))


# poly1305: the first 32 bytes of the data are the key (RFC 7539 2.5.2).
P1305_K = h("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b")
P1305_M = b"Cryptographic Forum Research Group"


@case
def more_poly1305_rfc7539(c):
    t, o = opfd(c, "hash", "poly1305")
    c.write(o, P1305_K + P1305_M)
    c.read(o, 16)
    c.send(o, P1305_K[:10], MSG_MORE)
    c.send(o, P1305_K[10:] + P1305_M[:5], MSG_MORE)
    c.send(o, P1305_M[5:])
    c.read(o, 16)


@case
def more_poly1305_short_key(c):
    t, o = opfd(c, "hash", "poly1305")
    c.write(o, P1305_K[:20])
    c.read(o, 16)
    c.write(o, P1305_K)
    c.read(o, 16)


@case
def more_poly1305_setkey(c):
    t = c.socket()
    c.bind(t, "hash", "poly1305")
    c.setkey(t, P1305_K)


@case
def more_crc32c_key_then_default(c):
    t = c.socket()
    c.bind(t, "hash", "crc32c")
    o = c.accept(t)
    c.write(o, b"abc")
    c.read(o, 4)
    c.setkey(t, h("01000000"))
    o2 = c.accept(t)
    c.write(o2, b"abc")
    c.read(o2, 4)
    c.setkey(t, h("010000"))
    o3 = c.accept(t)
    c.write(o3, b"abc")
    c.read(o3, 4)


# ====================================================================== skciphers

K16, K24, K32 = bytes(range(16)), bytes(range(24)), bytes(range(32))
IV16 = h("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
IV8 = h("0001020304050607")

# (name, key, iv or None, plaintext length)
SKC = [
    ("ecb(camellia)", K16, None, 32), ("ecb(camellia)", K24, None, 16), ("ecb(camellia)", K32, None, 48),
    ("cbc(camellia)", K16, IV16, 32), ("ctr(camellia)", K32, IV16, 37),
    ("ecb(serpent)", K16, None, 32), ("ecb(serpent)", K24, None, 16), ("ecb(serpent)", K32, None, 16),
    ("ecb(serpent)", bytes(range(10)), None, 16), ("ecb(serpent)", b"", None, 16),
    ("cbc(serpent)", K32, IV16, 48),
    ("ecb(twofish)", K16, None, 32), ("ecb(twofish)", K24, None, 16), ("ecb(twofish)", K32, None, 16),
    ("ecb(twofish)", bytes(20), None, 16), ("cbc(twofish)", K32, IV16, 48),
    ("ecb(cast5)", bytes(range(16)), None, 16), ("ecb(cast5)", bytes(range(5)), None, 8),
    ("ecb(cast5)", bytes(range(10)), None, 24), ("cbc(cast5)", K16, IV8, 24),
    ("ecb(des)", bytes(range(8)), None, 24), ("cbc(des)", bytes(range(8)), IV8, 24),
    ("ecb(des)", bytes(8), None, 8),
    ("ecb(blowfish)", bytes(range(16)), None, 16), ("ecb(blowfish)", bytes(range(56)), None, 8),
    ("ecb(blowfish)", bytes(range(4)), None, 8), ("ecb(blowfish)", bytes(range(3)), None, 8),
    ("ecb(sm4)", K16, None, 32), ("cbc(sm4)", K16, IV16, 32),
    ("ecb(seed)", K16, None, 16),
    ("ecb(des3_ede)", bytes(range(24)), None, 16),
    ("pcbc(aes)", K16, IV16, 48), ("pcbc(des3_ede)", bytes(range(24)), IV8, 24),
    ("cfb(aes)", K16, IV16, 48), ("cfb(aes)", K32, IV16, 37),
    ("ofb(aes)", K16, IV16, 48), ("ofb(aes)", K24, IV16, 21),
    ("cfb(des3_ede)", bytes(range(24)), IV8, 19), ("ofb(camellia)", K16, IV16, 40),
    ("essiv(cbc(aes),sha256)", K16, IV16, 32), ("essiv(cbc(aes),sha256)", K32, IV16, 64),
    ("lrw(aes)", bytes(range(32)), IV16, 32), ("xctr(aes)", K16, IV16, 40),
    ("xts(camellia)", K32, IV16, 32), ("xts(serpent)", bytes(range(64)), IV16, 40),
    ("cts(cbc(camellia))", K16, IV16, 37), ("ctr(serpent)", K16, IV16, 19),
]


def _skc(alg, key, iv, n):
    def f(c):
        t, o = opfd(c, "skcipher", alg, key=key)
        p = pat(n, 3)
        crypt(c, o, p, iv=iv)
        ct = c.read(o, n)
        if ct is not None:
            crypt(c, o, ct, op=ALG_OP_DECRYPT, iv=iv)
            c.read(o, n)
    return f


_seen = {}
for _alg, _key, _iv, _n in SKC:
    _k = _seen[_alg] = _seen.get(_alg, 0) + 1
    add("more_skc_%s_%d" % (ident(_alg), _k), _skc(_alg, _key, _iv, _n))


# The IV a request leaves for the next one (two requests on one op socket).
CHAIN = [
    ("pcbc(aes)", K16, IV16, 16, 32), ("cfb(aes)", K16, IV16, 16, 32), ("cfb(aes)", K16, IV16, 20, 12),
    ("ofb(aes)", K16, IV16, 16, 32), ("ofb(aes)", K16, IV16, 20, 12),
    ("essiv(cbc(aes),sha256)", K16, IV16, 16, 16),
    ("chacha20", K32, bytes(16), 64, 64), ("chacha20", K32, bytes(16), 10, 20),
    ("xchacha20", K32, bytes(range(32)), 64, 30), ("xchacha12", K32, bytes(range(32)), 64, 30),
    ("cbc(camellia)", K16, IV16, 16, 16), ("ctr(serpent)", K16, IV16, 20, 12),
    ("xctr(aes)", K16, IV16, 16, 32), ("xctr(aes)", K32, IV16, 20, 12),
    ("lrw(aes)", K32, IV16, 16, 32), ("lrw(aes)", bytes(range(48)), h("000000000000000000000000fffffffe"), 32, 32),
    ("lrw(aes)", bytes(range(40)), h("ffffffffffffffffffffffffffffffff"), 16, 16),
]


def _chain(alg, key, iv, n1, n2):
    def f(c):
        t, o = opfd(c, "skcipher", alg, key=key)
        p = pat(n1 + n2, 5)
        crypt(c, o, p[:n1], iv=iv)
        c.read(o, n1)
        crypt(c, o, p[n1:])
        c.read(o, n2)
    return f


_seen = {}
for _alg, _key, _iv, _n1, _n2 in CHAIN:
    _k = _seen[_alg] = _seen.get(_alg, 0) + 1
    add("more_chain_%s_%d" % (ident(_alg), _k), _chain(_alg, _key, _iv, _n1, _n2))


# RFC 7539 2.4.2: key 00..1f, counter 1, nonce 000000000000004a00000000.
CHACHA_K = bytes(range(32))
CHACHA_IV = h("01000000" "000000000000004a00000000")
CHACHA_P = (b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip "
            b"for the future, sunscreen would be it.")


@case
def more_chacha20_rfc7539(c):
    t, o = opfd(c, "skcipher", "chacha20", key=CHACHA_K)
    crypt(c, o, CHACHA_P, iv=CHACHA_IV)
    c.read(o, len(CHACHA_P))


@case
def more_chacha20_counter_wrap(c):
    # block counter ffffffff: the second block is counter 0, same nonce
    t, o = opfd(c, "skcipher", "chacha20", key=CHACHA_K)
    crypt(c, o, bytes(130), iv=h("ffffffff" "0102030405060708090a0b0c"))
    c.read(o, 130)
    crypt(c, o, bytes(64), iv=h("00000000" "0102030405060708090a0b0c"))
    c.read(o, 64)


@case
def more_chacha20_bad_key(c):
    t = c.socket()
    c.bind(t, "skcipher", "chacha20")
    c.setkey(t, bytes(16))
    c.getsockopt(t, SOL_SOCKET, SO_TYPE)


@case
def more_xchacha20_counter_wrap(c):
    t, o = opfd(c, "skcipher", "xchacha20", key=CHACHA_K)
    iv = bytes(range(24)) + h("ffffffff" "01000000")
    crypt(c, o, bytes(130), iv=iv)
    c.read(o, 130)


@case
def more_xchacha20_wrong_iv(c):
    t, o = opfd(c, "skcipher", "xchacha20", key=CHACHA_K)
    crypt(c, o, bytes(16), iv=bytes(16))
    c.read(o, 16)


@case
def more_essiv_bad_names(c):
    for name in ("essiv(cbc(aes),sha1)", "essiv(cbc(aes),sha512)", "essiv(ecb(aes),sha256)",
                 "essiv(cbc(aes),hmac(sha256))", "essiv(cbc(des3_ede),sha256)", "essiv(cbc(aes))"):
        t = c.socket()
        c.bind(t, "skcipher", name)
        c.close(t)


@case
def more_template_bad_args(c):
    for typ, name in (("hash", "cmac(des)"), ("hash", "cmac(blowfish)"), ("hash", "xcbc(des3_ede)"),
                      ("hash", "cmac(sha256)"), ("skcipher", "cfb(sha256)"), ("skcipher", "ofb(cbc(aes))"),
                      ("skcipher", "pcbc(serpent)"), ("hash", "hmac(poly1305)"), ("hash", "hmac(xxhash64)"),
                      ("skcipher", "xctr(des3_ede)"), ("skcipher", "xctr(camellia)"),
                      ("skcipher", "lrw(des3_ede)"), ("skcipher", "lrw(serpent)")):
        t = c.socket()
        c.bind(t, typ, name)
        c.close(t)
