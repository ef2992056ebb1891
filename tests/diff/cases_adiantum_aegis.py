"""Differential cases for nhpoly1305, adiantum(xchacha12,aes),
adiantum(xchacha20,aes) and aegis128 (reference: Linux 6.1 with modules
loaded on demand, recorded into tests/golden/adiantum_aegis.txt with
--timeout 30).  Digests and round trips of several lengths, split sends,
bad key lengths, short requests, tag sizes, a bad tag, and the names
(generic, kernel driver names, the adiantum template's three-argument
form).  Cases assert nothing: the recording is the truth.
"""

from afalg import *  # noqa: F401,F403
from casekit import Cases, pat, opfd, crypt
from cases_aead_rng import aead_op, aead_send, roundtrip, ENC, DEC

CASES = Cases()
case, add = CASES.case, CASES.add

NHP_KEY = pat(1088, 11)


# ====================================================================== nhpoly1305

def _nhp_digests(name):
    def f(c):
        t, o = opfd(c, "hash", name, NHP_KEY)
        for n in (0, 1, 16, 17, 1024, 1040, 3000):
            m = pat(n, n)
            c.write(o, m)
            c.read(o, 16)
            if n > 1:
                c.send(o, m[:n // 3], MSG_MORE)
                c.send(o, m[n // 3:])
                c.read(o, 16)
    return f


add("ad_nhpoly1305_digests", _nhp_digests("nhpoly1305"))
add("ad_nhpoly1305_generic_driver", _nhp_digests("nhpoly1305-generic"))


@case
def ad_nhpoly1305_keys(c):
    t = c.socket()
    c.bind(t, "hash", "nhpoly1305")
    c.accept(t)                      # no key yet
    c.setkey(t, NHP_KEY[:1087])
    c.setkey(t, NHP_KEY[:32])
    c.setkey(t, NHP_KEY + b"\x00")
    c.accept(t)
    c.setkey(t, NHP_KEY)
    o = c.accept(t)
    c.write(o, pat(100))
    c.read(o, 16)


# ====================================================================== adiantum

K32 = pat(32, 21)
TWEAK = pat(32, 22)


def _adiantum(name, lengths, split=None):
    def f(c):
        t, o = opfd(c, "skcipher", name, K32)
        for n in lengths:
            data = pat(n, n)
            if split is None:
                crypt(c, o, data, ALG_OP_ENCRYPT, TWEAK)
                ct = c.read(o, n)
            else:
                crypt(c, o, data[:split], ALG_OP_ENCRYPT, TWEAK, MSG_MORE)
                c.send(o, data[split:])
                a = c.read(o, split)
                b = c.read(o, n - split)
                ct = (a or b"") + (b or b"")
            if ct:
                crypt(c, o, ct, ALG_OP_DECRYPT, TWEAK)
                c.read(o, len(ct))
    return f


for _s in ("xchacha12", "xchacha20"):
    _alg = "adiantum(%s,aes)" % _s
    add("ad_%s_lengths" % _s, _adiantum(_alg, (16, 17, 31, 64, 512, 4096)))
    add("ad_%s_split" % _s, _adiantum(_alg, (64,), split=32))
    add("ad_%s_driver_names" % _s,
        _adiantum("adiantum(%s-generic,aes-generic,nhpoly1305-generic)" % _s, (48,)))

    def _short(c, alg=_alg):
        t, o = opfd(c, "skcipher", alg, K32)
        crypt(c, o, pat(15), ALG_OP_ENCRYPT, TWEAK)
        c.read(o, 15)
        crypt(c, o, b"", ALG_OP_ENCRYPT, TWEAK)
        c.read(o, 16)
        crypt(c, o, pat(16), ALG_OP_DECRYPT, TWEAK[:16])   # a 16-byte IV
    add("ad_%s_short" % _s, _short)

    def _keys(c, alg=_alg):
        t = c.socket()
        c.bind(t, "skcipher", alg)
        c.accept(t)
        c.setkey(t, K32[:16])
        c.setkey(t, K32 + b"\x00")
        c.setkey(t, b"")
        c.setkey(t, K32)
        o = c.accept(t)
        crypt(c, o, pat(20), ALG_OP_ENCRYPT, TWEAK)
        c.read(o, 20)
    add("ad_%s_keys" % _s, _keys)


@case
def ad_adiantum_names(c):
    for name in ("adiantum(xchacha12-generic,aes-generic)",
                 "adiantum(xchacha12,aes,nhpoly1305)",
                 "adiantum(xchacha20,aes,nhpoly1305-generic)",
                 "adiantum(chacha20,aes)",
                 "adiantum(xchacha12,des3_ede)",
                 "adiantum(xchacha12,aes,sha256)",
                 "adiantum(xchacha12)",
                 "adiantum(xchacha20,aes)"):
        t = c.socket()
        c.bind(t, "skcipher", name)
        c.close(t)


# ====================================================================== aegis128

AK = pat(16, 31)
NONCE = pat(16, 32)


def _aegis(name, aad, pt, authsize):
    return lambda c: roundtrip(c, name, AK, NONCE, aad, pt, authsize)


for _i, (_aad, _pt, _as) in enumerate([(b"", b"", None), (b"", pat(1), None), (pat(16, 1), pat(16, 2), None),
                                       (pat(13, 1), pat(47, 2), 8), (pat(100, 1), pat(300, 2), 12),
                                       (pat(33, 1), b"", 16)], 1):
    add("ad_aegis128_roundtrip_%d" % _i, _aegis("aegis128", _aad, _pt, _as))
add("ad_aegis128_generic_driver", _aegis("aegis128-generic", pat(20, 3), pat(40, 4), None))


@case
def ad_aegis128_authsizes(c):
    t = c.socket()
    c.bind(t, "aead", "aegis128")
    c.setkey(t, AK)
    for n in (0, 4, 7, 8, 15, 16, 17):
        c.setsockopt(t, SOL_ALG, ALG_SET_AEAD_AUTHSIZE, None, optlen=n)


@case
def ad_aegis128_keys(c):
    t = c.socket()
    c.bind(t, "aead", "aegis128")
    c.accept(t)
    c.setkey(t, AK[:15])
    c.setkey(t, AK + b"\x00")
    c.setkey(t, pat(32))
    c.setkey(t, AK)
    o = c.accept(t)
    aead_send(c, o, pat(8) + pat(10), ENC, NONCE, 8)
    c.recv(o, 8 + 10 + 16)


@case
def ad_aegis128_bad_tag(c):
    t, o = aead_op(c, "aegis128", AK)
    aead_send(c, o, pat(8) + pat(24), ENC, NONCE, 8)
    out = c.recv(o, 8 + 24 + 16)
    if out is None:
        return
    for i in (len(out) - 1, len(out) - 16, 8, 0):     # tag, tag, ciphertext, associated data
        bad = bytearray(out)
        bad[i] ^= 0x80
        aead_send(c, o, bytes(bad), DEC, NONCE, 8)
        c.recv(o, 8 + 24)
    aead_send(c, o, out[:8 + 10], DEC, NONCE, 8)       # shorter than a tag
    c.recv(o, 8 + 24)
    aead_send(c, o, out, DEC, NONCE, 8)
    c.recv(o, 8 + 24)
