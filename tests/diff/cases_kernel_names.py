"""Differential cases for the kernel names of the coverage list that ualg
serves from Botan, Nettle's modes, ISA-L, the null algorithms and the
templates added with them: cast6 in its modes, streebog, whirlpool,
crct10dif, cbcmac, gcm over other 16-byte ciphers, kw, rfc3686 and the
authenc and essiv compositions, and fcrypt, michael_mic and ansi_cprng,
which ualg's core implements (reference: Linux 6.1 with modules loaded on
demand, recorded into tests/golden/kernel_names.txt with --timeout 30: a
bind that loads modules takes seconds in the emulated oracle).  Cases
assert nothing: the recording is the truth.
"""

from afalg import *  # noqa: F401,F403
from casekit import Cases, pat, h, tfm, opfd, crypt
from cases_aead_rng import authenc_key, aead_op, aead_send, roundtrip, ENC, DEC

CASES = Cases()
case = CASES.case


def ident(name):
    out = "".join(ch if ch.isalnum() else "_" for ch in name)
    while "__" in out:
        out = out.replace("__", "_")
    return out.strip("_")


# ====================================================================== hashes

def _hash(alg, key, msgs):
    def f(c):
        t = c.socket()
        c.bind(t, "hash", alg)
        if key is not None:
            c.setkey(t, key)
        for m in msgs:
            o = c.accept(t)
            c.write(o, m)
            c.read(o, 128)
            if len(m) > 1:
                c.send(o, m[:len(m) // 2], MSG_MORE)
                c.send(o, m[len(m) // 2:])
                c.read(o, 128)
    return f


M1 = b"012345678901234567890123456789012345678901234567890123456789012"   # RFC 6986
HASHES = [
    ("crct10dif", None, [b"123456789", b"", pat(1000)]),
    ("crct10dif", b"\x01\x02", [b"x"]),
    ("streebog256", None, [M1, b"", pat(200)]),
    ("streebog512", None, [M1, pat(64)]),
    ("wp256", None, [b"abc", b""]),
    ("wp384", None, [b"abc"]),
    ("wp512", None, [b"abc", pat(300)]),
    ("digest_null", b"", [b"abc"]),
    ("digest_null", None, [b"abc"]),
    ("hmac(streebog256)", bytes(range(32)), [h("0126bdb87800af214341456563780100")]),   # RFC 7836
    ("hmac(streebog512)", bytes(range(32)), [h("0126bdb87800af214341456563780100")]),
    ("hmac(wp512)", b"key", [b"The quick brown fox"]),
    ("hmac(wp256)", bytes(100), [pat(77)]),
    ("cbcmac(aes)", h("2b7e151628aed2a6abf7158809cf4f3c"), [b"", b"abcde", pat(16), pat(33)]),
    ("cbcmac(aes)", bytes(range(32)), [pat(64)]),
    ("cbcmac(aes)", b"short", [b"abc"]),
    ("cbcmac(camellia)", bytes(range(16)), [pat(40)]),
    ("cbcmac(des3_ede)", bytes(range(24)), [pat(20)]),
    ("cbcmac(serpent)", bytes(range(16)), [pat(17)]),
    ("cbcmac(twofish)", bytes(range(32)), [pat(48)]),
]

_seen = {}
for _alg, _key, _msgs in HASHES:
    _n = _seen[_alg] = _seen.get(_alg, 0) + 1
    CASES.add("kn_hash_%s_%d" % (ident(_alg), _n), _hash(_alg, _key, _msgs))


# ====================================================================== skciphers

def _skc(alg, key, iv, data, split=None):
    """Encrypt data, decrypt the result; with split, the encryption is sent
    in two pieces (MSG_MORE) and read in two."""
    def f(c):
        t, o = opfd(c, "skcipher", alg, key)
        if split is None:
            crypt(c, o, data, ALG_OP_ENCRYPT, iv)
            ct = c.read(o, len(data))
        else:
            crypt(c, o, data[:split], ALG_OP_ENCRYPT, iv, MSG_MORE)
            c.send(o, data[split:])
            a = c.read(o, split)
            b = c.read(o, len(data) - split)
            ct = (a or b"") + (b or b"")
        if ct:
            crypt(c, o, ct, ALG_OP_DECRYPT, iv)
            c.read(o, len(ct))
    return f


K16, K32 = bytes(range(16)), bytes(range(32))
RFC3686_2 = (h("7e24067817fae0d743d6ce1f32539163") + h("006cb6db"), h("c0543b59da48d90b"),
             bytes(range(32)))
SKC = [
    ("ecb(cast6)", h("2342bb9efa38542c0af75647f29f615d"), None, bytes(16), None),   # RFC 2612
    ("ecb(cast6)", K32, None, pat(64), None),
    ("ecb(cast6)", bytes(20), None, pat(16), None),
    ("ecb(cast6)", bytes(15), None, pat(16), None),
    ("cbc(cast6)", K16, pat(16, 1), pat(64), 32),
    ("ctr(cast6)", K32, pat(16, 2), pat(50), 16),
    ("xts(cast6)", K32, pat(16, 3), pat(48), None),
    ("lrw(cast6)", bytes(range(48)), pat(16, 4), pat(32), None),
    ("ecb(cipher_null)", b"", None, pat(20), None),
    ("ecb(cipher_null)", b"k", None, pat(20), None),
    ("rfc3686(ctr(aes))",) + RFC3686_2 + (None,),
    ("rfc3686(ctr(aes))",) + RFC3686_2 + (16,),
    ("rfc3686(ctr(aes))", K16 + b"\x00\x00\x00\x30", bytes(8), pat(100), 48),
    ("rfc3686(ctr(aes))", K16, bytes(8), pat(16), None),
    ("kw(aes)", h("7575da3a93607cc2bfd8cec7aadfd9a6"), bytes(8), h("42136d3c384a3eeac95a066fd28fed3f"), None),
    ("kw(aes)", K32, bytes(8), pat(40), None),
    ("kw(aes)", K16, bytes(8), pat(12), None),
]

_seen = {}
for _alg, _key, _iv, _data, _split in SKC:
    _n = _seen[_alg] = _seen.get(_alg, 0) + 1
    CASES.add("kn_skc_%s_%d" % (ident(_alg), _n), _skc(_alg, _key, _iv, _data, _split))


@case
def kn_kw_aes_bad_unwrap(c):
    # NIST SP 800-38F KW_AD_128 COUNT 1, marked FAIL: C = IV || text
    cw = h("bb7fd0bce778bd775e4e88d904d26a7134364c53a6c493a0")
    t, o = opfd(c, "skcipher", "kw(aes)", h("5d4899ee66beff1bda1fc717a1ad4c50"))
    crypt(c, o, cw[8:], ALG_OP_DECRYPT, cw[:8])
    c.read(o, 16)


# ====================================================================== aeads

HK = b"ualg kernel-names hmac key 01234"
AEADS = [
    ("gcm(camellia)", K16, pat(12, 5), pat(20, 6), pat(40, 7), None),
    ("gcm(camellia)", K32, pat(12, 5), b"", pat(16, 7), 8),
    ("gcm(serpent)", K32, pat(12, 5), pat(8, 6), pat(33, 7), None),
    ("gcm(twofish)", K16, pat(12, 5), pat(8, 6), pat(33, 7), 12),
    ("gcm(cast6)", K16, pat(12, 5), pat(8, 6), pat(33, 7), None),
    ("authenc(hmac(sha1),rfc3686(ctr(aes)))", authenc_key(HK[:20], RFC3686_2[0]), RFC3686_2[1],
     pat(8, 1), pat(37, 2), None),
    ("authenc(hmac(sha256),rfc3686(ctr(aes)))", authenc_key(HK, RFC3686_2[0]), RFC3686_2[1],
     pat(16, 1), pat(64, 2), 16),
    ("authenc(hmac(sha512),rfc3686(ctr(aes)))", authenc_key(HK, K32 + b"\x01\x02\x03\x04"), bytes(8),
     pat(8, 1), pat(20, 2), None),
    ("authenc(hmac(sha256),ecb(cipher_null))", authenc_key(HK, b""), b"", pat(8, 1), pat(30, 2), None),
    ("authenc(hmac(md5),ecb(cipher_null))", authenc_key(HK[:16], b""), b"", pat(8, 1), pat(30, 2), None),
]

def _tag(alg):
    """The default tag size: the MAC's digest size."""
    for name, size in (("md5", 16), ("sha1", 20), ("sha256", 32), ("sha512", 64)):
        if "hmac(%s)" % name in alg:
            return size
    return 16


_seen = {}
for _alg, _key, _iv, _aad, _pt, _as in AEADS:
    _n = _seen[_alg] = _seen.get(_alg, 0) + 1
    CASES.add("kn_aead_%s_%d" % (ident(_alg), _n),
              lambda c, a=_alg, k=_key, i=_iv, ad=_aad, p=_pt, s=_as: roundtrip(c, a, k, i or None, ad, p, s,
                                                                              tag=_tag(a)))


@case
def kn_aead_essiv_authenc(c):
    # dm-crypt's layout: the associated data ends with the IV.
    name = "essiv(authenc(hmac(sha256),cbc(aes)),sha256)"
    iv = pat(16, 9)
    t, o = aead_op(c, name, authenc_key(HK, K16))
    aead_send(c, o, pat(8, 1) + iv + pat(32, 2), ENC, iv, 24)
    c.recv(o, 24 + 32 + 32)


@case
def kn_aead_essiv_authenc_short_aad(c):
    name = "essiv(authenc(hmac(sha256),cbc(aes)),sha256)"
    t, o = aead_op(c, name, authenc_key(HK, K16))
    aead_send(c, o, pat(8, 1) + pat(32, 2), ENC, pat(16, 9), 8)
    c.recv(o, 8 + 32 + 32)


# ====================================================================== rng

@case
def kn_rng_jitterentropy(c):
    t, o = opfd(c, "rng", "jitterentropy_rng")
    c.read(o, 48, random=True)
    c.read(o, 16, random=True)


# ====================================================================== fcrypt, michael_mic, ansi_cprng
# The algorithms written in ualg's core (drivers/fcrypt.c, michael_mic.c,
# ansi_cprng.c), with testmgr.h's vectors among the inputs.

K8, IV8 = bytes(range(8)), h("f0e1d2c3b4a59687")
DOGS = b"The quick brown fox jumps over the lazy dogs.\0\0\0"     # testmgr.h fcrypt
LEGACY_SKC = [
    ("ecb(fcrypt)", bytes(8), None, bytes(8), None),                  # testmgr.h
    ("ecb(fcrypt)", K8, None, pat(40), 16),
    ("ecb(fcrypt)", K8, None, pat(12), None),
    ("ecb(fcrypt)", bytes(7), None, pat(8), None),
    ("ecb(fcrypt)", bytes(16), None, pat(8), None),
    ("cbc(fcrypt)", K8, IV8, pat(48), 24),
    ("pcbc(fcrypt)", h("f0e1d2c3b4a59687"), h("fedcba9876543210"), DOGS, None),  # testmgr.h
    ("pcbc(fcrypt)", K8, IV8, pat(40), 8),
    ("cfb(fcrypt)", K8, IV8, pat(37), 16),
    ("ofb(fcrypt)", K8, IV8, pat(21), 8),
    ("ctr(fcrypt)", K8, IV8, pat(37), 16),
    ("ctr(fcrypt)", K8, h("00000000fffffffe"), pat(40), None),
    ("ctr(fcrypt)", K8, h("ffffffffffffffff"), pat(20), None),
    ("cts(cbc(fcrypt))", K8, IV8, pat(37), None),
    ("cts(cbc(fcrypt))", K8, IV8, pat(16), None),
    ("cts(cbc(fcrypt))", K8, IV8, pat(9), None),
    ("cts(cbc(fcrypt))", K8, IV8, pat(8), None),
    ("cts(cbc(fcrypt))", K8, IV8, pat(7), None),
    ("cts(cbc(fcrypt))", K8, IV8, pat(64), 16),
]

_seen = {}
for _alg, _key, _iv, _data, _split in LEGACY_SKC:
    _n = _seen[_alg] = _seen.get(_alg, 0) + 1
    CASES.add("kn_legacy_skc_%s_%d" % (ident(_alg), _n), _skc(_alg, _key, _iv, _data, _split))


def _fcrypt_chain(alg, n1, n2):
    """Two requests on one op socket: the IV the first leaves for the second."""
    def f(c):
        t, o = opfd(c, "skcipher", alg, K8)
        p = pat(n1 + n2, 5)
        crypt(c, o, p[:n1], ALG_OP_ENCRYPT, IV8)
        c.read(o, n1)
        crypt(c, o, p[n1:])
        c.read(o, n2)
        crypt(c, o, p[:n1], ALG_OP_DECRYPT, IV8)
        c.read(o, n1)
        crypt(c, o, p[n1:], ALG_OP_DECRYPT)
        c.read(o, n2)
    return f


for _alg, _n1, _n2 in (("cbc(fcrypt)", 16, 8), ("pcbc(fcrypt)", 8, 16), ("cfb(fcrypt)", 12, 12),
                       ("ofb(fcrypt)", 13, 11), ("ctr(fcrypt)", 11, 13), ("cts(cbc(fcrypt))", 20, 17)):
    CASES.add("kn_legacy_chain_%s" % ident(_alg), _fcrypt_chain(_alg, _n1, _n2))


LEGACY_HASHES = [
    ("michael_mic", bytes(8), [b"", b"M", b"Mi", b"Mic", b"Mich", b"Michael"]),   # testmgr.h
    ("michael_mic", h("d55e100510128986"), [b"Michael", pat(1000), pat(37)]),
    ("michael_mic", bytes(7), [b"abc"]),
    ("michael_mic", bytes(16), [b"abc"]),
    ("michael_mic", b"", [b"abc"]),
]

_seen = {}
for _alg, _key, _msgs in LEGACY_HASHES:
    _n = _seen[_alg] = _seen.get(_alg, 0) + 1
    CASES.add("kn_legacy_hash_%s_%d" % (ident(_alg), _n), _hash(_alg, _key, _msgs))


# ansi_cprng: the seed is V || key || DT (testmgr.h's first vector here).
CPRNG_V, CPRNG_K = h("80000000000000000000000000000000"), h("f3b1666d13607242ed061cabb8d46202")
CPRNG_DT = h("e6b3be782a23fa62d71d4afbb0e922f9")
CPRNG_SEED = CPRNG_V + CPRNG_K + CPRNG_DT


def _cprng(seed, reads):
    def f(c):
        t, o = opfd(c, "rng", "ansi_cprng", seed)
        for n in reads:
            c.read(o, n)
    return f


for _name, _seed, _reads in (
        ("testmgr", CPRNG_SEED, (16, 16, 5, 27, 128, 200)),
        ("no_dt", CPRNG_V + CPRNG_K, (48,)),
        ("seed_47", CPRNG_SEED[:47], (16,)),
        ("seed_64", CPRNG_SEED + pat(16), (16,)),
        ("seed_31", CPRNG_SEED[:31], (16,)),
        ("seed_0", b"", (16,)),
        ("unseeded", None, (16, 0))):
    CASES.add("kn_legacy_cprng_" + _name, _cprng(_seed, _reads))


@case
def kn_legacy_cprng_shared(c):
    # Every op socket of one transform reads the same generator.
    t, o = opfd(c, "rng", "ansi_cprng", CPRNG_SEED)
    o2 = c.accept(t)
    c.read(o, 8)
    c.read(o2, 8)
    c.read(o, 20)


@case
def kn_legacy_cprng_reseed(c):
    # A seed is set with no op socket open (EBUSY otherwise).
    t, o = opfd(c, "rng", "ansi_cprng", CPRNG_SEED)
    c.read(o, 5)
    c.setkey(t, CPRNG_SEED)
    c.close(o)
    c.setkey(t, CPRNG_SEED[:31])        # refused: the stream goes on
    o = c.accept(t)
    c.read(o, 11)
    c.close(o)
    c.setkey(t, pat(48, 3))
    o = c.accept(t)
    c.read(o, 16)


def _aes128(key, block, decrypt=False):
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    ci = Cipher(algorithms.AES(key), modes.ECB())
    x = ci.decryptor() if decrypt else ci.encryptor()
    return x.update(block) + x.finalize()


@case
def kn_legacy_cprng_continuity(c):
    # V chosen so that the first block is 16 zero bytes, which the
    # continuity test takes for a repeat of the (zeroed) previous block.
    i = _aes128(CPRNG_K, CPRNG_DT)
    v = bytes(a ^ b for a, b in zip(_aes128(CPRNG_K, bytes(16), True), i))
    t, o = opfd(c, "rng", "ansi_cprng", v + CPRNG_K + CPRNG_DT)
    c.read(o, 3)
    c.read(o, 16)
    c.close(o)
    c.setkey(t, CPRNG_SEED)
    o = c.accept(t)
    c.read(o, 16)
