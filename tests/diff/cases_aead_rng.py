"""Differential cases for AF_ALG "aead" and "rng" (reference: Linux 6.1).

Same rules as cases_hash_skcipher.py: every call prints one canonical line,
the golden file recorded on the real kernel (tests/golden/aead_rng.txt) is
the truth, cases assert nothing.  Inputs are standard vectors (NIST GCM test
case 4 from McGrew-Viega, RFC 3610, RFC 7539, RFC 3602 keys); a decryption
that needs a valid tag takes it from the encryption done in the same case.
Random output (rng, the geniv templates' IVs) is recorded by length only.
"""

import struct

from afalg import *  # noqa: F401,F403
from casekit import Cases, pat, h, tfm, opfd

CASES = Cases()
case, add = CASES.case, CASES.add


ENC, DEC = ALG_OP_ENCRYPT, ALG_OP_DECRYPT

# NIST GCM test case 4 (AES-128, 60-byte text, 20-byte AAD).
GCM_K = h("feffe9928665731c6d6a8f9467308308")
GCM_IV = h("cafebabefacedbaddecaf888")
GCM_P = h("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
          "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39")
GCM_A = h("feedfacedeadbeeffeedfacedeadbeefabaddad2")
GCM_C = h("42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
          "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091")
GCM_T = h("5bc94fbc3221a5db94fae95ae7121a47")
# RFC 3610 packet vector 1 (M = 8, L = 2).
CCM_K = h("c0c1c2c3c4c5c6c7c8c9cacbcccdcecf")
CCM_IV = bytes([1]) + h("00000003020100a0a1a2a3a4a5") + bytes(2)
CCM_A = h("0001020304050607")
CCM_P = h("08090a0b0c0d0e0f101112131415161718191a1b1c1d1e")
# RFC 7539 section 2.8.2.
CP_K = h("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f")
CP_IV = h("070000004041424344454647")
CP_A = h("50515253c0c1c2c3c4c5c6c7")
CP_P = (b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip "
        b"for the future, sunscreen would be it.")
AES_K = h("06a9214036b8a15b512e03d534120006")      # RFC 3602 case 1
AES_IV = h("3dafba429d9eb430b422da802c9fac41")
HMAC_K = b"ualg authenc hmac key 0123456789"


def authenc_key(authkey, enckey, rta_len=8, rta_type=1, enckeylen=None):
    """crypto_authenc_key_param in an rtattr, then authkey || enckey."""
    if enckeylen is None:
        enckeylen = len(enckey)
    return struct.pack("=HH", rta_len, rta_type) + struct.pack(">I", enckeylen) + authkey + enckey


def aead_op(c, name, key, authsize=None):
    t = tfm(c, "aead", name, key)
    if authsize is not None:
        c.setsockopt(t, SOL_ALG, ALG_SET_AEAD_AUTHSIZE, None, optlen=authsize)
    return t, c.accept(t)


def aead_send(c, o, data, op, iv, assoclen, flags=0, extra=()):
    cm = [cmsg_op(op)] + ([cmsg_iv(iv)] if iv is not None else [])
    if assoclen is not None:
        cm.append(cmsg_assoclen(assoclen))
    return c.sendmsg(o, data, cm + list(extra), flags)


def roundtrip(c, name, key, iv, aad, pt, authsize=None, tag=16):
    """Encrypt, then decrypt what came out, then decrypt it with a flipped tag."""
    t, o = aead_op(c, name, key, authsize)
    tag = authsize if authsize is not None else tag
    aead_send(c, o, aad + pt, ENC, iv, len(aad))
    out = c.recv(o, len(aad) + len(pt) + tag)
    if out is None:
        return
    aead_send(c, o, out, DEC, iv, len(aad))
    c.recv(o, len(aad) + len(pt))
    if tag:
        bad = out[:-1] + bytes([out[-1] ^ 1])
        aead_send(c, o, bad, DEC, iv, len(aad))
        c.recv(o, len(aad) + len(pt))
        aead_send(c, o, out, DEC, iv, len(aad))     # still usable after EBADMSG
        c.recv(o, len(aad) + len(pt))


# ====================================================================== gcm

@case
def gcm_encrypt_nist4(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, GCM_A + GCM_P, ENC, GCM_IV, len(GCM_A))
    c.recv(o, len(GCM_A) + len(GCM_P) + 16)


@case
def gcm_decrypt_nist4(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, GCM_A + GCM_C + GCM_T, DEC, GCM_IV, len(GCM_A))
    c.recv(o, len(GCM_A) + len(GCM_C))


@case
def gcm_decrypt_bad_tag(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, GCM_A + GCM_C + GCM_T[:-1] + b"\0", DEC, GCM_IV, len(GCM_A))
    c.recv(o, len(GCM_A) + len(GCM_C))
    c.poll(o)


def two_requests(c, second_tag):
    """One read with room for two decryptions (NIST's GCM case 4 twice): the
    first request is decrypted, the read waits for the second, which
    another process sends meanwhile with second_tag."""
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, GCM_A + GCM_C + GCM_T, DEC, GCM_IV, len(GCM_A))
    ctl = control([cmsg_op(DEC), cmsg_iv(GCM_IV), cmsg_assoclen(len(GCM_A))])
    data = GCM_A + GCM_C + second_tag
    c.read_while(o, 2 * (len(GCM_A) + len(GCM_C)), "sendmsg(%s,second request)" % c._fdn(o),
                 lambda: sendmsg(o.fd, [data], ctl))


@case
def gcm_two_requests_in_one_read(c):
    two_requests(c, GCM_T)


@case
def gcm_two_requests_second_tag_bad(c):
    two_requests(c, GCM_T[:-1] + bytes([GCM_T[-1] ^ 1]))


@case
def gcm_decrypt_bad_aad(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, b"\1" + GCM_A[1:] + GCM_C + GCM_T, DEC, GCM_IV, len(GCM_A))
    c.recv(o, len(GCM_A) + len(GCM_C))


for _as in (4, 8, 12, 13, 14, 15, 16, 0, 1, 3, 5, 17, 255):
    add("gcm_authsize_%d" % _as,
        lambda c, a=_as: roundtrip(c, "gcm(aes)", GCM_K, GCM_IV, GCM_A, GCM_P, authsize=a))


@case
def gcm_authsize_with_value(c):
    t = tfm(c, "aead", "gcm(aes)", GCM_K)
    c.setsockopt(t, SOL_ALG, ALG_SET_AEAD_AUTHSIZE, b"\x08\0\0\0")     # optlen 4 is the size
    o = c.accept(t)
    aead_send(c, o, GCM_A + GCM_P, ENC, GCM_IV, len(GCM_A))
    c.recv(o, 200)


@case
def gcm_authsize_after_accept(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    c.setsockopt(t, SOL_ALG, ALG_SET_AEAD_AUTHSIZE, None, optlen=8)
    c.setsockopt(o, SOL_ALG, ALG_SET_AEAD_AUTHSIZE, None, optlen=8)
    c.close(o)
    c.setsockopt(t, SOL_ALG, ALG_SET_AEAD_AUTHSIZE, None, optlen=8)


@case
def gcm_authsize_before_key(c):
    t = tfm(c, "aead", "gcm(aes)")
    c.setsockopt(t, SOL_ALG, ALG_SET_AEAD_AUTHSIZE, None, optlen=12)
    c.setkey(t, GCM_K)
    o = c.accept(t)
    aead_send(c, o, GCM_A + GCM_P, ENC, GCM_IV, len(GCM_A))
    c.recv(o, len(GCM_A) + len(GCM_P) + 12)


@case
def gcm_authsize_on_hash(c):
    t = tfm(c, "hash", "sha256")
    c.setsockopt(t, SOL_ALG, ALG_SET_AEAD_AUTHSIZE, None, optlen=8)
    t2 = tfm(c, "skcipher", "cbc(aes)")
    c.setsockopt(t2, SOL_ALG, ALG_SET_AEAD_AUTHSIZE, None, optlen=8)


for _k in (16, 24, 32, 0, 15, 20, 33):
    add("gcm_keylen_%d" % _k, lambda c, k=_k: (lambda t: c.accept(t))(tfm(c, "aead", "gcm(aes)", pat(k))))


@case
def gcm_no_key(c):
    t = tfm(c, "aead", "gcm(aes)")
    o = c.accept(t)
    aead_send(c, o, GCM_A + GCM_P, ENC, GCM_IV, len(GCM_A))
    c.recv(o, 100)
    c.setkey(t, GCM_K)
    aead_send(c, o, GCM_A + GCM_P, ENC, GCM_IV, len(GCM_A))
    c.recv(o, len(GCM_A) + len(GCM_P) + 16)


@case
def gcm_empty(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, b"", ENC, GCM_IV, 0)
    c.recv(o, 16)
    aead_send(c, o, GCM_A, ENC, GCM_IV, len(GCM_A))     # GMAC: AAD only
    c.recv(o, len(GCM_A) + 16)


@case
def gcm_decrypt_tag_only(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, b"", ENC, GCM_IV, 0)
    tag = c.recv(o, 16)
    if tag:
        aead_send(c, o, tag, DEC, GCM_IV, 0)
        c.recv(o, 16)
        aead_send(c, o, tag, DEC, GCM_IV, 0)
        c.recv(o, 0)


@case
def gcm_no_assoclen_cmsg(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, GCM_A + GCM_P, ENC, GCM_IV, None)
    c.recv(o, len(GCM_A) + len(GCM_P) + 16)


@case
def gcm_no_iv(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, GCM_A + GCM_P, ENC, None, len(GCM_A))
    c.recv(o, len(GCM_A) + len(GCM_P) + 16)


@case
def gcm_iv_wrong_length(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, GCM_A + GCM_P, ENC, GCM_IV + b"\0\0\0\0", len(GCM_A))
    aead_send(c, o, GCM_A + GCM_P, ENC, GCM_IV[:8], len(GCM_A))
    c.recv(o, 100, MSG_DONTWAIT)


@case
def gcm_assoclen_too_long(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, GCM_A, ENC, GCM_IV, len(GCM_A) + 1)
    c.recv(o, 100)
    aead_send(c, o, GCM_A + GCM_C + GCM_T, DEC, GCM_IV, len(GCM_A) + len(GCM_C) + 1)
    c.recv(o, 100)


@case
def gcm_assoclen_huge(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, GCM_A, ENC, GCM_IV, 0xffffffff)
    c.recv(o, 100)


@case
def gcm_assoclen_bad_cmsg(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    c.sendmsg(o, GCM_A + GCM_P, [cmsg_op(ENC), cmsg_iv(GCM_IV),
                                 Cmsg(SOL_ALG, ALG_SET_AEAD_ASSOCLEN, b"\x14\0", label="assoclen2B")])
    c.sendmsg(o, GCM_A + GCM_P, [cmsg_op(ENC), cmsg_iv(GCM_IV),
                                 Cmsg(SOL_ALG, ALG_SET_AEAD_ASSOCLEN, b"\x14\0\0\0\0\0\0\0",
                                      label="assoclen8B")])
    c.recv(o, 200, MSG_DONTWAIT)


@case
def gcm_decrypt_short(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, GCM_A + GCM_T[:15], DEC, GCM_IV, len(GCM_A))
    c.recv(o, 100)
    aead_send(c, o, GCM_T[:15], DEC, GCM_IV, 0)
    c.recv(o, 100)


@case
def gcm_recv_small_buffer(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, GCM_A + GCM_P, ENC, GCM_IV, len(GCM_A))
    c.recv(o, len(GCM_A) + 16 + 16)
    c.recv(o, 200, MSG_DONTWAIT)


@case
def gcm_recv_tiny_buffer(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, GCM_A + GCM_P, ENC, GCM_IV, len(GCM_A))
    c.recv(o, 8)
    c.recv(o, 200, MSG_DONTWAIT)


@case
def gcm_recv_large_buffer(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, GCM_A + GCM_P, ENC, GCM_IV, len(GCM_A))
    c.recv(o, 1000)
    c.poll(o)


@case
def gcm_recv_large_buffer_dontwait(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, GCM_A + GCM_P, ENC, GCM_IV, len(GCM_A))
    c.recv(o, 1000, MSG_DONTWAIT)


@case
def gcm_decrypt_small_buffer(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, GCM_A + GCM_C + GCM_T, DEC, GCM_IV, len(GCM_A))
    c.recv(o, len(GCM_A) + 16)
    c.recv(o, 200, MSG_DONTWAIT)


@case
def gcm_more_then_final(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, GCM_A, ENC, GCM_IV, len(GCM_A), MSG_MORE)
    c.recv(o, 200, MSG_DONTWAIT)
    c.poll(o)
    c.send(o, GCM_P[:30], MSG_MORE)
    c.send(o, GCM_P[30:])
    c.poll(o)
    c.recv(o, len(GCM_A) + len(GCM_P) + 16)


@case
def gcm_more_recv_blocks(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, GCM_A + GCM_P, ENC, GCM_IV, len(GCM_A), MSG_MORE)
    c.recv(o, len(GCM_A) + len(GCM_P) + 16)


@case
def gcm_recv_nothing_sent(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    c.poll(o)
    c.recv(o, 100, MSG_DONTWAIT)


@case
def gcm_two_requests(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, GCM_A + GCM_P, ENC, GCM_IV, len(GCM_A))
    aead_send(c, o, GCM_A + GCM_P, ENC, GCM_IV, len(GCM_A))
    c.recv(o, len(GCM_A) + len(GCM_P) + 16)
    c.recv(o, len(GCM_A) + len(GCM_P) + 16, MSG_DONTWAIT)


@case
def gcm_recvmsg_iovecs(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, GCM_A + GCM_P, ENC, GCM_IV, len(GCM_A))
    c.recvmsg(o, [10, 30, 40, 16])


@case
def gcm_write_then_read(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    c.sendmsg(o, b"", [cmsg_op(ENC), cmsg_iv(GCM_IV), cmsg_assoclen(len(GCM_A))], MSG_MORE)
    c.write(o, GCM_A + GCM_P)
    c.read(o, len(GCM_A) + len(GCM_P) + 16)


@case
def gcm_aes256_zero(c):
    roundtrip(c, "gcm(aes)", bytes(32), bytes(12), b"", bytes(16))


@case
def gcm_long_text(c):
    roundtrip(c, "gcm(aes)", GCM_K, GCM_IV, pat(33, 1), pat(5000, 2))


@case
def gcm_driver_names(c):
    for n in ("gcm_base(ctr(aes-generic),ghash-generic)", "generic-gcm-aesni", "gcm(aes-generic)",
              "gcm_base(ctr(aes),ghash)", "gcm(des3_ede)", "gcm(sha256)", "gcm(aes"):
        t = c.socket()
        c.bind(t, "aead", n)
        c.close(t)


@case
def aead_bind_wrong_type(c):
    for typ, n in (("skcipher", "gcm(aes)"), ("hash", "gcm(aes)"), ("aead", "cbc(aes)"), ("aead", "sha256"),
                   ("aead", "nonexistent")):
        t = c.socket()
        c.bind(t, typ, n)
        c.close(t)


@case
def aead_accept_on_op(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    c.accept(o)


@case
def aead_sndbuf_limit(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, b"", ENC, GCM_IV, 0, MSG_MORE)
    c.send(o, pat(65536), MSG_MORE | MSG_DONTWAIT)
    c.send(o, pat(200000), MSG_MORE | MSG_DONTWAIT)
    c.send(o, pat(65536), MSG_MORE | MSG_DONTWAIT)
    c.poll(o)


# ====================================================================== ccm

@case
def ccm_rfc3610_v1(c):
    roundtrip(c, "ccm(aes)", CCM_K, CCM_IV, CCM_A, CCM_P, authsize=8)


for _as in (4, 6, 8, 10, 12, 14, 16, 0, 2, 5, 7, 18):
    add("ccm_authsize_%d" % _as,
        lambda c, a=_as: roundtrip(c, "ccm(aes)", CCM_K, CCM_IV, CCM_A, CCM_P, authsize=a))


for _l in (0, 1, 2, 3, 7, 8, 255):
    add("ccm_iv0_%d" % _l,
        lambda c, l=_l: roundtrip(c, "ccm(aes)", CCM_K, bytes([l]) + CCM_IV[1:], CCM_A, CCM_P, authsize=8))


@case
def ccm_empty_and_aad_only(c):
    roundtrip(c, "ccm(aes)", CCM_K, CCM_IV, b"", b"")
    roundtrip(c, "ccm(aes)", CCM_K, CCM_IV, CCM_A, b"")


@case
def ccm_long(c):
    roundtrip(c, "ccm(aes)", pat(32), CCM_IV, pat(300, 3), pat(4000, 4))


# ====================================================================== rfc4106 / rfc4543 / rfc4309

def esp_aad(iv8):
    return h("00004321") + h("0000000a") + iv8      # SPI, sequence, IV


for _name, _key, _sizes in (("rfc4106(gcm(aes))", GCM_K + h("cafebabe"), (8, 12, 16, 4, 13)),
                            ("rfc4543(gcm(aes))", GCM_K + h("cafebabe"), (16, 8, 12)),
                            ("rfc4309(ccm(aes))", CCM_K + h("000003"), (8, 12, 16, 4, 10))):
    _tag = _name.split("(")[0]
    for _as in _sizes:
        add("%s_authsize_%d" % (_tag, _as),
            lambda c, n=_name, k=_key, a=_as: roundtrip(c, n, k, h("facedbaddecaf888"),
                                                        esp_aad(h("facedbaddecaf888")), GCM_P, authsize=a))
    for _al in (8, 12, 15, 16, 20, 24):
        add("%s_assoclen_%d" % (_tag, _al),
            lambda c, n=_name, k=_key, al=_al: roundtrip(c, n, k, h("facedbaddecaf888"),
                                                         pat(al, 5), pat(48, 6)))
    for _kl in (len(_key), len(_key) - 4, len(_key) - 3, 36, 14):
        add("%s_keylen_%d" % (_tag, _kl),
            lambda c, n=_name, k=_key, kl=_kl: (lambda t: c.accept(t))(tfm(c, "aead", n, (k * 3)[:kl])))
    add("%s_iv_in_aad_ignored" % _tag,
        lambda c, n=_name, k=_key: roundtrip(c, n, k, h("facedbaddecaf888"), esp_aad(bytes(8)), GCM_P))


# ====================================================================== chacha20poly1305

@case
def rfc7539_vector(c):
    roundtrip(c, "rfc7539(chacha20,poly1305)", CP_K, CP_IV, CP_A, CP_P)


for _as in (16, 8, 12, 0, 17):
    add("rfc7539_authsize_%d" % _as,
        lambda c, a=_as: roundtrip(c, "rfc7539(chacha20,poly1305)", CP_K, CP_IV, CP_A, CP_P, authsize=a))


for _kl in (32, 16, 31, 36):
    add("rfc7539_keylen_%d" % _kl,
        lambda c, kl=_kl: (lambda t: c.accept(t))(tfm(c, "aead", "rfc7539(chacha20,poly1305)", pat(kl))))


@case
def rfc7539esp_vector(c):
    roundtrip(c, "rfc7539esp(chacha20,poly1305)", CP_K + CP_IV[:4], CP_IV[4:], CP_A + CP_IV[4:], CP_P)


for _al in (0, 4, 8, 16, 20):
    add("rfc7539esp_assoclen_%d" % _al,
        lambda c, al=_al: roundtrip(c, "rfc7539esp(chacha20,poly1305)", CP_K + CP_IV[:4], CP_IV[4:],
                                    pat(al, 7), CP_P))


@case
def rfc7539_empty(c):
    roundtrip(c, "rfc7539(chacha20,poly1305)", CP_K, CP_IV, b"", b"")


# ====================================================================== authenc / authencesn

AUTHENC = [("authenc(hmac(sha1),cbc(aes))", 20), ("authenc(hmac(sha256),cbc(aes))", 32),
           ("authenc(hmac(sha512),cbc(aes))", 64)]

for _name, _ds in AUTHENC:
    _tag = "authenc_" + _name.split("(")[2].rstrip(")")
    add(_tag + "_roundtrip",
        lambda c, n=_name, ds=_ds: roundtrip(c, n, authenc_key(HMAC_K, AES_K), AES_IV, pat(24, 8), pat(64, 9),
                                             tag=ds))
    add(_tag + "_authsize_12",
        lambda c, n=_name: roundtrip(c, n, authenc_key(HMAC_K, AES_K), AES_IV, pat(16, 8), pat(32, 9),
                                     authsize=12))

for _as in (0, 1, 20, 31, 33):
    add("authenc_sha256_authsize_%d" % _as,
        lambda c, a=_as: roundtrip(c, "authenc(hmac(sha256),cbc(aes))", authenc_key(HMAC_K, AES_K), AES_IV,
                                   pat(8, 8), pat(32, 9), authsize=a))


@case
def authenc_partial_block(c):
    roundtrip(c, "authenc(hmac(sha256),cbc(aes))", authenc_key(HMAC_K, AES_K), AES_IV, pat(8), pat(20), tag=32)


@case
def authenc_empty(c):
    roundtrip(c, "authenc(hmac(sha256),cbc(aes))", authenc_key(HMAC_K, AES_K), AES_IV, b"", b"", tag=32)


@case
def authenc_aes256_long_hmac_key(c):
    roundtrip(c, "authenc(hmac(sha256),cbc(aes))", authenc_key(pat(100), pat(32, 1)), AES_IV, pat(13), pat(4096),
              tag=32)


_BLOBS = [("ok_empty_authkey", authenc_key(b"", AES_K)),
          ("rta_len_4", authenc_key(HMAC_K, AES_K, rta_len=4)),
          ("rta_len_12", authenc_key(HMAC_K, AES_K, rta_len=12)),
          ("rta_len_300", authenc_key(HMAC_K, AES_K, rta_len=300)),
          ("rta_type_2", authenc_key(HMAC_K, AES_K, rta_type=2)),
          ("enckeylen_big", authenc_key(HMAC_K, AES_K, enckeylen=100)),
          ("enckeylen_15", authenc_key(HMAC_K, AES_K[:15])),
          ("enckeylen_0", authenc_key(HMAC_K, b"")),
          ("short_3", b"\x08\x00\x01"),
          ("only_rtattr", authenc_key(b"", b"")),
          ("raw_aes_key", AES_K)]
for _bn, _blob in _BLOBS:
    add("authenc_key_" + _bn,
        lambda c, b=_blob: (lambda t: c.accept(t))(tfm(c, "aead", "authenc(hmac(sha256),cbc(aes))", b)))


for _al in (8, 12, 16, 4, 0):
    add("authencesn_sha256_assoclen_%d" % _al,
        lambda c, al=_al: roundtrip(c, "authencesn(hmac(sha256),cbc(aes))", authenc_key(HMAC_K, AES_K), AES_IV,
                                    pat(al, 10), pat(32, 11), tag=32))


@case
def authencesn_sha1(c):
    roundtrip(c, "authencesn(hmac(sha1),cbc(aes))", authenc_key(HMAC_K, AES_K), AES_IV, pat(16, 10), pat(48, 11),
              tag=20)


# ====================================================================== geniv templates

for _gn in ("seqiv(rfc4106(gcm(aes)))", "echainiv(authenc(hmac(sha256),cbc(aes)))", "seqiv(gcm(aes))",
            "echainiv(gcm(aes))"):
    add("geniv_bind_" + _gn.split("(")[0] + "_" + _gn.split("(")[1],
        lambda c, n=_gn: c.bind(c.socket(), "aead", n))


# ====================================================================== rng

def rng_op(c, name, seed=None):
    t = tfm(c, "rng", name, seed)
    return t, c.accept(t)


@case
def rng_stdrng_reads(c):
    t, o = rng_op(c, "stdrng")
    for n in (16, 0, 1, 128, 129, 1000):
        c.recv(o, n, random=True)
    c.read(o, 64, random=True)


@case
def rng_stdrng_seeded(c):
    t, o = rng_op(c, "stdrng", pat(48))
    c.recv(o, 32, random=True)


@case
def rng_no_seed_accept(c):
    t = tfm(c, "rng", "stdrng")
    o = c.accept(t)
    c.recv(o, 16, random=True)


for _d in ("drbg_nopr_hmac_sha256", "drbg_pr_hmac_sha256", "drbg_nopr_sha256", "drbg_pr_sha512",
           "drbg_nopr_ctr_aes128", "drbg_pr_ctr_aes256", "drbg_nopr_hmac_sha1", "drbg_pr_sha1",
           "ansi_cprng", "jitterentropy_rng", "drbg_nopr_hmac_sha384"):
    add("rng_driver_" + _d, lambda c, d=_d: (lambda r: c.recv(r[1], 48, random=True))(rng_op(c, d)))


for _sl in (0, 1, 16, 32, 48, 64, 1024, 4096):
    add("rng_seedlen_%d" % _sl, lambda c, sl=_sl: (lambda r: c.recv(r[1], 16, random=True))(
        rng_op(c, "drbg_nopr_hmac_sha256", pat(sl))))


@case
def rng_entropy_option(c):
    t = tfm(c, "rng", "drbg_nopr_hmac_sha256")
    c.setsockopt(t, SOL_ALG, ALG_SET_DRBG_ENTROPY, pat(32))
    c.setsockopt(t, SOL_ALG, ALG_SET_DRBG_ENTROPY, None, optlen=0)


@case
def rng_send_and_misc(c):
    t, o = rng_op(c, "stdrng")
    c.send(o, b"abc")
    c.write(o, b"abc")
    c.poll(o)
    c.accept(o)
    c.recv(o, 30, MSG_DONTWAIT, random=True)
    c.recv(o, 16, MSG_TRUNC, random=True)


@case
def rng_setkey_after_accept(c):
    t, o = rng_op(c, "stdrng")
    c.setkey(t, pat(32))
    c.close(o)
    c.setkey(t, pat(32))


@case
def rng_bad_names(c):
    for n in ("drbg_nopr_hmac_sha3", "rng", "sha256", "hmac(sha256)", "cbc(aes)"):
        t = c.socket()
        c.bind(t, "rng", n)
        c.close(t)


# ====================================================================== limits found on the oracle

for _al in (0x7fffffff, 0x80000000, 1 << 20, 212992, 212993, 65536, 4096, 4097, 65535):
    add("aead_assoclen_limit_%d" % _al,
        lambda c, al=_al: (lambda t_o: (aead_send(c, t_o[1], GCM_A, ENC, GCM_IV, al),
                                        c.recv(t_o[1], 100, MSG_DONTWAIT)))(aead_op(c, "gcm(aes)", GCM_K)))


@case
def aead_assoclen_then_more(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, GCM_A, ENC, GCM_IV, 0x80000000, MSG_MORE)
    c.send(o, GCM_P)
    c.recv(o, 100, MSG_DONTWAIT)


@case
def rng_seeded_chunks(c):
    t, o = rng_op(c, "drbg_nopr_hmac_sha256", pat(32))
    for n in (1, 127, 128, 129, 1000, 4096):
        c.recv(o, n, random=True)
    c.read(o, 300, random=True)
    c.recvmsg(o, [100, 100], random=True)


@case
def rng_stdrng_seeded_reads(c):
    t, o = rng_op(c, "stdrng", b"")
    c.recv(o, 200, random=True)
    o2 = c.accept(t)
    c.recv(o2, 16, random=True)
    c.setkey(t, pat(16))


# ====================================================================== geniv round trips (random IVs)

def geniv_roundtrip(c, name, key, aadlen, ivsize, ptlen, tag, seq=1):
    t, o = aead_op(c, name, key)
    aad, data = pat(aadlen, 12), bytes(ivsize) + pat(ptlen, 13)
    iv = seq.to_bytes(ivsize, "big")
    aead_send(c, o, aad + data, ENC, iv, aadlen)
    out = c.recv(o, aadlen + len(data) + tag, random=True)
    if out is None:
        return
    aead_send(c, o, out, DEC, iv, aadlen)
    c.recv(o, aadlen + len(data), random=True)
    aead_send(c, o, out[:-1] + bytes([out[-1] ^ 1]), DEC, iv, aadlen)
    c.recv(o, aadlen + len(data), random=True)
    aead_send(c, o, aad + bytes(ivsize - 1), ENC, iv, aadlen)     # shorter than the IV
    c.recv(o, aadlen + ivsize + tag, random=True)


for _al in (8, 12, 16, 4):
    add("geniv_seqiv_rfc4106_assoclen_%d" % _al,
        lambda c, al=_al: geniv_roundtrip(c, "seqiv(rfc4106(gcm(aes)))", GCM_K + h("cafebabe"), al, 8, 48, 16))
for _al in (8, 16, 0):
    add("geniv_echainiv_authenc_assoclen_%d" % _al,
        lambda c, al=_al: geniv_roundtrip(c, "echainiv(authenc(hmac(sha256),cbc(aes)))",
                                          authenc_key(HMAC_K, AES_K), al, 16, 32, 32))
add("geniv_seqiv_rfc4309", lambda c: geniv_roundtrip(c, "seqiv(rfc4309(ccm(aes)))", CCM_K + h("000003"),
                                                      8, 8, 40, 16))
add("geniv_seqiv_rfc7539esp", lambda c: geniv_roundtrip(c, "seqiv(rfc7539esp(chacha20,poly1305))",
                                                         CP_K + CP_IV[:4], 8, 8, 40, 16))
add("geniv_seqiv_authenc_refused", lambda c: c.bind(c.socket(), "aead", "seqiv(authenc(hmac(sha256),cbc(aes)))"))


# ====================================================================== answers longer than one algd frame

@case
def gcm_100k_roundtrip(c):
    roundtrip(c, "gcm(aes)", GCM_K, GCM_IV, pat(16, 14), pat(100000, 15))


@case
def gcm_200k_recvmsg_iovecs(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, pat(20, 16) + pat(200000, 17), ENC, GCM_IV, 20)
    c.recvmsg(o, [70000, 70000, 60036])


@case
def gcm_150k_small_buffer(c):
    t, o = aead_op(c, "gcm(aes)", GCM_K)
    aead_send(c, o, pat(150016, 18), ENC, GCM_IV, 16)
    c.recv(o, 100000)
    c.recv(o, 100000, MSG_DONTWAIT)
