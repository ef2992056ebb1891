#!/usr/bin/env python3
"""akcipher and kpp sockets against OpenSSL's command line.

Keys are made at run time with `openssl genpkey`; build/tests/kcapi-asym
(libkcapi's calls, made directly) runs under ualg-run and its answers are
checked with `openssl pkeyutl`, `openssl dgst` and `openssl pkeyutl -derive`
on the same keys, both ways.  Ends with "N passed, N failed".

  tests/real/asym.py BUILD_DIR
"""
import errno
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ualgtest import check, finish  # noqa: E402

B = sys.argv[1] if len(sys.argv) > 1 else "build"
RUN = os.path.join(B, "src/tools/ualg-run")
TOOL = os.path.join(B, "tests/kcapi-asym")
ENOENT, EBADMSG, EINVAL, ENOSYS, EOVERFLOW = 2, 74, 22, 38, 75


def openssl(*args, data=None):
    return subprocess.run(["openssl"] + list(args), input=data, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, check=True).stdout


def ours(*args, supervise=False, numbers=None):
    """(exit status, stdout, stderr) of kcapi-asym under ualg-run (with
    supervise, under ualg-run --supervise; numbers="libkcapi": the option
    numbers of libkcapi 1.4 rather than its kernel patches')."""
    run = [RUN, "--supervise"] if supervise else [RUN]
    env = dict(os.environ)
    env.pop("KCAPI_ASYM_NUMBERS", None)
    if numbers:
        env["KCAPI_ASYM_NUMBERS"] = numbers
    p = subprocess.run(run + [TOOL] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def write(d, name, data):
    path = os.path.join(d, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def text_field(text, label):
    """The hex block after 'label:' in `openssl pkey -text`."""
    m = re.search(r"^%s:\s*\n((?:\s+[0-9a-f:]+\n)+)" % re.escape(label), text, re.M)
    return bytes.fromhex(re.sub(r"[\s:]", "", m.group(1)))


def rsa_tests(d):
    key = os.path.join(d, "rsa.pem")
    openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key)
    pub_pem = write(d, "rsa.pub.pem", openssl("rsa", "-in", key, "-pubout"))
    priv = write(d, "rsa.der", openssl("rsa", "-in", key, "-outform", "DER", "-traditional"))
    pub = write(d, "rsapub.der", openssl("rsa", "-in", key, "-RSAPublicKey_out", "-outform", "DER"))
    msg = write(d, "msg", b"The quick brown fox jumps over the lazy dog\n" * 7)
    digest = openssl("dgst", "-sha256", "-binary", msg)
    dig = write(d, "dig", digest)
    alg = "pkcs1pad(rsa,sha256)"

    rc, sig, err = ours("akcipher", alg, "sign", "priv", priv, dig)
    check("pkcs1pad sign: setkey answers the modulus size (256)", "maxsize 256" in err)
    ref = openssl("pkeyutl", "-sign", "-inkey", key, "-pkeyopt", "digest:sha256", "-in", dig)
    check("pkcs1pad sign: the signature is openssl pkeyutl's, byte for byte", rc == 0 and sig == ref)
    sigf = write(d, "sig", sig)
    v = subprocess.run(["openssl", "dgst", "-sha256", "-verify", pub_pem, "-signature", sigf, msg],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check("pkcs1pad sign: openssl dgst -verify accepts it", v.returncode == 0)

    rc, out, _ = ours("akcipher", alg, "verify", "pub", pub, write(d, "osig", ref))
    check("pkcs1pad verify (public key, signature alone): gives the digest", rc == 0 and out == digest)
    rc, out, _ = ours("akcipher", alg, "verify", "pub", pub, write(d, "both", ref + digest))
    check("pkcs1pad verify (signature || digest): accepted, no output", rc == 0 and out == b"")
    bad = bytearray(ref + digest)
    bad[-1] ^= 1
    rc, out, _ = ours("akcipher", alg, "verify", "pub", pub, write(d, "bad", bytes(bad)))
    check("pkcs1pad verify: another digest is EBADMSG, no output", rc == EBADMSG and out == b"")
    bad = bytearray(ref)
    bad[10] ^= 1
    rc, out, _ = ours("akcipher", alg, "verify", "pub", pub, write(d, "bad2", bytes(bad)))
    check("pkcs1pad verify: a damaged signature is EBADMSG", rc == EBADMSG and out == b"")
    rc, out, _ = ours("akcipher", alg, "sign", "pub", pub, dig)
    check("pkcs1pad sign with the public key only: EINVAL", rc == EINVAL and out == b"")

    plain = b"a secret of thirty-two bytes...!"
    rc, ct, _ = ours("akcipher", alg, "encrypt", "pub", pub, write(d, "plain", plain))
    dec = openssl("pkeyutl", "-decrypt", "-inkey", key, "-in", write(d, "ct", ct)) if rc == 0 else b""
    check("pkcs1pad encrypt (public key): openssl pkeyutl -decrypt recovers it", dec == plain)
    ct2 = openssl("pkeyutl", "-encrypt", "-pubin", "-inkey", pub_pem, "-in", os.path.join(d, "plain"))
    rc, out, _ = ours("akcipher", alg, "decrypt", "priv", priv, write(d, "ct2", ct2))
    check("pkcs1pad decrypt: openssl pkeyutl -encrypt's ciphertext", rc == 0 and out == plain)
    rc, out, _ = ours("akcipher", alg, "decrypt", "priv", priv, write(d, "ct3", bytes(256)))
    check("pkcs1pad decrypt of a bad ciphertext: EINVAL (pkcs1pad_decrypt_complete), no output",
          rc == EINVAL and out == b"")

    block = bytes([0]) + os.urandom(255)
    blk = write(d, "block", block)
    rc, out, _ = ours("akcipher", "rsa", "encrypt", "pub", pub, blk)
    ref = openssl("pkeyutl", "-encrypt", "-pubin", "-inkey", pub_pem, "-pkeyopt",
                  "rsa_padding_mode:none", "-in", blk)
    check("rsa encrypt (m^e): openssl pkeyutl with no padding, byte for byte", rc == 0 and out == ref)
    rc, out, _ = ours("akcipher", "rsa", "decrypt", "priv", priv, write(d, "rct", ref))
    check("rsa decrypt (c^d): the block again", rc == 0 and out == block)
    rc, out, _ = ours("akcipher", "rsa", "encrypt", "pub", write(d, "junk", b"\x30\x03\x02\x01\x05"), blk)
    check("rsa: a malformed public key is EINVAL", rc == EINVAL)


def ecdsa_tests(d):
    key = os.path.join(d, "ec.pem")
    openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key)
    spki = openssl("pkey", "-in", key, "-pubout", "-outform", "DER")
    point = write(d, "ecpoint", spki[-65:])
    digest = openssl("dgst", "-sha256", "-binary", write(d, "emsg", b"ecdsa message\n"))
    sig = openssl("pkeyutl", "-sign", "-inkey", key, "-in", write(d, "edig", digest))
    alg = "ecdsa-nist-p256"
    rc, out, err = ours("akcipher", alg, "verify", "pub", point, write(d, "esig", sig + digest))
    check("ecdsa-nist-p256 verify: openssl pkeyutl's DER signature || digest", rc == 0 and out == b"")
    bad = bytearray(sig + digest)
    bad[-3] ^= 0x40
    rc, out, _ = ours("akcipher", alg, "verify", "pub", point, write(d, "ebad", bytes(bad)))
    check("ecdsa-nist-p256 verify: another digest is EBADMSG", rc == EBADMSG)
    rc, out, _ = ours("akcipher", alg, "sign", "pub", point, write(d, "edig2", digest))
    check("ecdsa-nist-p256 sign: ENOSYS (verification only, as Linux 6.1)", rc == ENOSYS)


def kpp_pair(d, name, genargs):
    key = os.path.join(d, name + ".pem")
    openssl("genpkey", *genargs, "-out", key)
    text = openssl("pkey", "-in", key, "-text", "-noout").decode()
    pub_pem = write(d, name + ".pub.pem", openssl("pkey", "-in", key, "-pubout"))
    return key, pub_pem, text


def dh_tests(d):
    ppem = os.path.join(d, "dhp.pem")
    openssl("genpkey", "-genparam", "-algorithm", "DH", "-pkeyopt", "group:ffdhe2048", "-out", ppem)
    params = write(d, "dhp.der", openssl("dhparam", "-in", ppem, "-outform", "DER"))
    a, a_pub, a_text = kpp_pair(d, "dha", ["-paramfile", ppem])
    b, b_pub, b_text = kpp_pair(d, "dhb", ["-paramfile", ppem])
    xa = write(d, "xa", text_field(a_text, "private-key"))
    ya = text_field(a_text, "public-key").lstrip(b"\0")
    yb = write(d, "yb", text_field(b_text, "public-key").lstrip(b"\0"))
    rc, out, err = ours("dh", "dh", params, xa)
    check("dh keygen: PKCS#3 parameters answer 256, the public key is openssl's",
          rc == 0 and "params 256" in err and len(out) == 256 and out.lstrip(b"\0") == ya)
    rc, ss, _ = ours("dh", "dh", params, xa, yb)
    ref = openssl("pkeyutl", "-derive", "-inkey", a, "-peerkey", b_pub)
    check("dh ssgen: the shared secret is openssl pkeyutl -derive's (p-sized)",
          rc == 0 and len(ss) == 256 and ss.lstrip(b"\0") == ref.lstrip(b"\0"))
    rc, pub, _ = ours("dh", "dh", params, "-")
    check("dh: an empty key generates one (p-sized public key)", rc == 0 and len(pub) == 256)
    rc, _, _ = ours("dh", "dh", params, xa, write(d, "one", b"\x01"))
    check("dh ssgen: a peer key of 1 is EINVAL", rc == EINVAL)


def ecdh_tests(d, alg, curve, cid, n):
    a, a_pub, a_text = kpp_pair(d, alg + "a", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:" + curve])
    b, b_pub, b_text = kpp_pair(d, alg + "b", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:" + curve])
    da = write(d, alg + "da", text_field(a_text, "priv").lstrip(b"\0").rjust(n, b"\0"))
    qa = text_field(a_text, "pub")
    qb = write(d, alg + "qb", text_field(b_text, "pub")[1:])
    rc, out, err = ours("ecdh", alg, str(cid), da)
    check("%s keygen: X || Y of openssl's key" % alg, rc == 0 and out == qa[1:] and
          "maxsize %d" % (2 * n) in err)
    rc, ss, _ = ours("ecdh", alg, str(cid), da, qb)
    ref = openssl("pkeyutl", "-derive", "-inkey", a, "-peerkey", b_pub)
    check("%s ssgen: openssl pkeyutl -derive's secret" % alg, rc == 0 and ss == ref)
    bad = bytearray(open(qb, "rb").read())
    bad[-1] ^= 1
    rc, out, _ = ours("ecdh", alg, str(cid), da, write(d, alg + "bad", bytes(bad)))
    check("%s ssgen: a point off the curve is EINVAL, no output" % alg, rc == EINVAL and out == b"")
    rc, _, _ = ours("ecdh", alg, str(cid % 3 + 1), da)
    check("%s: another curve id is EINVAL" % alg, rc == EINVAL)
    rc, pub, _ = ours("ecdh", alg, str(cid), "-")
    check("%s: an empty key generates one" % alg, rc == 0 and len(pub) == 2 * n)


# ---- the kernel's key formats -------------------------------------------
# DER/BER built here from the numbers openssl generated, as libkcapi's
# users hand them over: RSAPrivateKey with only n, e and d (crypto/
# rsa_helper.c uses no other field), RSAPublicKey with non-minimal
# INTEGERs, PKCS#3 DHParameter with or without privateValueLength.

def der_len(n):
    if n < 0x80:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(b)]) + b


def tlv(tag, content):
    return bytes([tag]) + der_len(len(content)) + content


def der_int(v, width=0):
    """INTEGER of v (int or big-endian bytes), zero-extended to width bytes."""
    b = v if isinstance(v, bytes) else v.to_bytes(max(1, (v.bit_length() + 7) // 8), "big")
    if b[0] & 0x80:
        b = b"\0" + b
    return tlv(0x02, b.rjust(width, b"\0"))


def der_seq(*items, indef=False):
    body = b"".join(items)
    return b"\x30\x80" + body + b"\0\0" if indef else tlv(0x30, body)


def der_ints(der):
    """The INTEGERs of a DER SEQUENCE, as ints."""
    out, i = [], 0
    def length(i):
        n = der[i]
        if n < 0x80:
            return n, i + 1
        k = n - 0x80
        return int.from_bytes(der[i + 1:i + 1 + k], "big"), i + 1 + k
    _, i = length(1)
    while i < len(der):
        n, j = length(i + 1)
        out.append(int.from_bytes(der[j:j + n], "big"))
        i = j + n
    return out


def rsa_numbers(key):
    t = openssl("rsa", "-in", key, "-text", "-noout").decode()
    n = int.from_bytes(text_field(t, "modulus"), "big")
    e = int(re.search(r"publicExponent: (\d+)", t).group(1))
    d = int.from_bytes(text_field(t, "privateExponent"), "big")
    return n, e, d


def kernel_rsa_tests(d, bits):
    key = os.path.join(d, "k%d.pem" % bits)
    openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:%d" % bits, "-out", key)
    pub_pem = write(d, "k%d.pub.pem" % bits, openssl("rsa", "-in", key, "-pubout"))
    n, e, dd = rsa_numbers(key)
    size = bits // 8
    zeros = der_int(0) * 5
    ned = write(d, "ned%d" % bits, der_seq(der_int(1), der_int(n), der_int(e), der_int(dd), zeros))
    v0 = write(d, "v0%d" % bits, der_seq(der_int(0), der_int(n), der_int(e), der_int(dd), zeros))
    pub = write(d, "kpub%d" % bits, der_seq(der_int(n), der_int(e, size)))
    tag = "rsa-%d" % bits

    block = bytes([0]) + os.urandom(size - 1)
    blk = write(d, "kblk%d" % bits, block)
    rc, ct, err = ours("akcipher", "rsa", "encrypt", "pub", pub, blk)
    ref = openssl("pkeyutl", "-encrypt", "-pubin", "-inkey", pub_pem, "-pkeyopt",
                  "rsa_padding_mode:none", "-in", blk)
    check("%s encrypt, RSAPublicKey with a %d-byte e: openssl's m^e" % (tag, size),
          rc == 0 and ct == ref and "maxsize %d" % size in err)
    rc, out, err = ours("akcipher", "rsa", "decrypt", "priv", ned, write(d, "kct%d" % bits, ref))
    check("%s decrypt, key of n, e, d and zero CRT fields (version 1): the block" % tag,
          rc == 0 and out == block and "maxsize %d" % size in err)
    rc, sig, _ = ours("akcipher", "rsa", "sign", "priv", ned, blk)
    ref = openssl("pkeyutl", "-decrypt", "-inkey", key, "-pkeyopt", "rsa_padding_mode:none", "-in", blk)
    check("%s sign (m^d), n/e/d key: openssl pkeyutl's m^d (-decrypt, no padding)" % tag,
          rc == 0 and sig == ref)
    rc, out, _ = ours("akcipher", "rsa", "verify", "pub", pub, write(d, "ksig%d" % bits, ref))
    check("%s verify (s^e): the block again" % tag, rc == 0 and out == block)
    indef = der_seq(der_int(0), der_int(n), der_int(e), der_int(dd), zeros, indef=True)
    rc, out, _ = ours("akcipher", "rsa", "sign", "priv", write(d, "kind%d" % bits, indef), blk)
    check("%s: an indefinite-length (BER) private key signs alike" % tag, rc == 0 and out == ref)
    tail = write(d, "ktail%d" % bits, open(ned, "rb").read() + b"\x05\x00junk")
    rc, out, _ = ours("akcipher", "rsa", "sign", "priv", tail, blk)
    check("%s: bytes after the key's SEQUENCE are ignored, as asn1_ber_decoder() does" % tag,
          rc == 0 and out == ref)

    alg = "pkcs1pad(rsa,sha256)"
    msg = write(d, "kmsg%d" % bits, os.urandom(100))
    digest = openssl("dgst", "-sha256", "-binary", msg)
    dig = write(d, "kdig%d" % bits, digest)
    rc, sig, _ = ours("akcipher", alg, "sign", "priv", ned, dig)
    ref = openssl("pkeyutl", "-sign", "-inkey", key, "-pkeyopt", "digest:sha256", "-in", dig)
    check("%s pkcs1pad sign, n/e/d key: openssl pkeyutl's signature" % tag, rc == 0 and sig == ref)
    rc, out, _ = ours("akcipher", alg, "verify", "pub", pub, write(d, "kboth%d" % bits, ref + digest))
    check("%s pkcs1pad verify, RSAPublicKey: signature || digest accepted" % tag,
          rc == 0 and out == b"")
    bad = bytearray(ref)
    bad[5] ^= 0x10
    rc, out, _ = ours("akcipher", alg, "verify", "pub", pub, write(d, "kbad%d" % bits, bytes(bad) + digest))
    check("%s pkcs1pad verify: a damaged signature is EBADMSG" % tag, rc == EBADMSG and out == b"")
    plain = os.urandom(size - 11)
    pf = write(d, "kplain%d" % bits, plain)
    ct = openssl("pkeyutl", "-encrypt", "-pubin", "-inkey", pub_pem, "-in", pf)
    rc, out, _ = ours("akcipher", alg, "decrypt", "priv", v0, write(d, "kpct%d" % bits, ct))
    check("%s pkcs1pad decrypt, n/e/d key (version 0): openssl's ciphertext" % tag,
          rc == 0 and out == plain)
    rc, ct, _ = ours("akcipher", alg, "encrypt", "pub", pub, pf)
    dec = openssl("pkeyutl", "-decrypt", "-inkey", key, "-in", write(d, "kpct2%d" % bits, ct)) \
        if rc == 0 else b""
    check("%s pkcs1pad encrypt of k - 11 bytes: openssl pkeyutl -decrypt recovers it" % tag,
          dec == plain)
    rc, _, _ = ours("akcipher", alg, "encrypt", "pub", pub, write(d, "klong%d" % bits, plain + b"x"))
    check("%s pkcs1pad encrypt of k - 10 bytes: EOVERFLOW" % tag, rc == EOVERFLOW)

    # What rsa_helper.c, rsa.c and asn1_ber_decoder() refuse.
    nb = n.to_bytes(size, "big")
    bad_keys = [
        ("priv", "d empty (rsa_get_d)", EINVAL,
         der_seq(der_int(0), der_int(n), der_int(e), tlv(0x02, b""), zeros)),
        ("priv", "a CRT field longer than n (rsa_get_p)", EINVAL,
         der_seq(der_int(0), der_int(n), der_int(e), der_int(dd), der_int(1, size + 2),
                 der_int(0) * 4)),
        ("pub", "e longer than n (rsa_get_e)", EINVAL, der_seq(der_int(n), der_int(e, size + 2))),
        ("pub", "a %d-bit n (rsa_check_key_length)" % (bits - 8), EINVAL,
         der_seq(der_int(nb[1:]), der_int(e))),
        ("pub", "n as an OCTET STRING", EBADMSG, der_seq(tlv(0x04, nb), der_int(e))),
        ("pub", "a third INTEGER", EBADMSG, der_seq(der_int(n), der_int(e), der_int(e))),
        ("priv", "cut short", EBADMSG, open(ned, "rb").read()[:-20]),
    ]
    for i, (kt, what, want, blob) in enumerate(bad_keys):
        rc, out, _ = ours("akcipher", "rsa", "encrypt", kt, write(d, "kbadkey%d" % i, blob), blk)
        check("%s setkey, %s: %s" % (tag, what, errno.errorcode.get(want)), rc == want and out == b"")


def dh_spki(p, g, y):
    """SubjectPublicKeyInfo of a PKCS#3 DH public key, for openssl -peerkey."""
    oid = bytes.fromhex("06092a864886f70d010301")	# dhKeyAgreement
    return der_seq(der_seq(oid, der_seq(der_int(p), der_int(g))), tlv(0x03, b"\0" + der_int(y)))


def kernel_dh_tests(d):
    ppem = os.path.join(d, "kdhp.pem")
    openssl("genpkey", "-genparam", "-algorithm", "DH", "-pkeyopt", "group:ffdhe3072", "-out", ppem)
    p, g = der_ints(openssl("dhparam", "-in", ppem, "-outform", "DER"))
    a, a_pub, a_text = kpp_pair(d, "kdha", ["-paramfile", ppem])
    b, b_pub, b_text = kpp_pair(d, "kdhb", ["-paramfile", ppem])
    xa = write(d, "kxa", text_field(a_text, "private-key"))
    ya = int.from_bytes(text_field(a_text, "public-key"), "big")
    yb = write(d, "kyb", text_field(b_text, "public-key").lstrip(b"\0"))
    ref = openssl("pkeyutl", "-derive", "-inkey", a, "-peerkey", b_pub)
    forms = [
        ("SEQUENCE { p, g }", der_seq(der_int(p), der_int(g))),
        ("with privateValueLength", der_seq(der_int(p), der_int(g), der_int(275))),
        ("non-minimal INTEGERs", der_seq(der_int(p, 400), der_int(g, 3))),
        ("indefinite length (BER)", der_seq(der_int(p), der_int(g), indef=True)),
    ]
    for i, (what, blob) in enumerate(forms):
        params = write(d, "kdhparams%d" % i, blob)
        rc, out, err = ours("dh", "dh", params, xa)
        check("dh PKCS#3 %s: answers 384; openssl's public key" % what,
              rc == 0 and "params 384" in err and out == ya.to_bytes(384, "big"))
        rc, ss, _ = ours("dh", "dh", params, xa, yb)
        check("dh PKCS#3 %s: openssl pkeyutl -derive's secret" % what,
              rc == 0 and ss.lstrip(b"\0") == ref.lstrip(b"\0") and len(ss) == 384)
    params = os.path.join(d, "kdhparams0")
    rc, out, _ = ours("dh", "dh", params, "-", yb)
    ok = rc == 0 and len(out) == 768
    if ok:
        peer = write(d, "kdhours", dh_spki(p, g, int.from_bytes(out[:384], "big")))
        ref2 = openssl("pkeyutl", "-derive", "-inkey", b, "-peerkey", peer, "-peerform", "DER")
        ok = out[384:].lstrip(b"\0") == ref2.lstrip(b"\0")
    check("dh generated key: its public key and secret agree with openssl pkeyutl -derive", ok)

    pb = p.to_bytes(384, "big")
    bad = [
        ("a 1024-bit p (dh_check_params_length)", EINVAL, der_seq(der_int(pb[:128]), der_int(g))),
        ("g longer than p (dh_get_g)", EINVAL, der_seq(der_int(p), der_int(g, 390))),
        ("no g", EINVAL, der_seq(der_int(p))),
        ("p as an OCTET STRING", EBADMSG, der_seq(tlv(0x04, pb), der_int(g))),
        ("a fourth INTEGER", EBADMSG, der_seq(der_int(p), der_int(g), der_int(1), der_int(1))),
    ]
    for i, (what, want, blob) in enumerate(bad):
        rc, _, err = ours("dh", "dh", write(d, "kdhbad%d" % i, blob), xa)
        check("dh PKCS#3 %s: %s at ALG_SET_DH_PARAMETERS" % (what, errno.errorcode.get(want)),
              rc == want and "setparam" in err)


def kernel_ecdh_generated(d, alg, curve, cid, n):
    b, b_pub, b_text = kpp_pair(d, alg + "gb", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:" + curve])
    qb = write(d, alg + "gqb", text_field(b_text, "pub")[1:])
    rc, out, _ = ours("ecdh", alg, str(cid), "-", qb)
    ok = rc == 0 and len(out) == 3 * n
    if ok:
        spki = openssl("pkey", "-in", b, "-pubout", "-outform", "DER")
        peer = write(d, alg + "gours", spki[:-2 * n] + out[:2 * n])
        ref = openssl("pkeyutl", "-derive", "-inkey", b, "-peerkey", peer, "-peerform", "DER")
        ok = out[2 * n:] == ref
    check("%s generated key: its X || Y and secret agree with openssl pkeyutl -derive" % alg, ok)


# libkcapi's own akcipher vectors (test/test.sh, ASYM_*_1 to _5), keys as
# its users hand them to the kernel: 1-3 an RSAPrivateKey of n, e, d with
# version 1 and zero CRT fields and the bare RSAPublicKey; 4 the CAVS
# SigGen15 2048 "SIGGEN1" key with version 0x10, a wrong e (0x100010: the
# kernel signs with d alone) and CRT fields of 0x30; 5 CAVS SigVer15
# "SIGVER-PASS0" with e as a 256-byte INTEGER.  Every answer is checked
# with openssl on the public key as well.
LK_KEY1 = bytes.fromhex(
    "3082021F02010102820100DB101AC2A3F1DCFF136BED44DFF0026D13C788DA706B54F1E827DCC30F996AFAC6"
    "67FF1D1E3C1DC1B55F6CC0B2073A6D41E42599ACFCD20F02D3D154061A5177BDB6BFEAA75C06A95D698445D7"
    "F505BA47F01BD72B24ECCB9B1B108D81A0BEB18C33E436B843EB192A818DDE810A9948B6F6BCCD49343A8F26"
    "94E328821A7C8F599F45E85D1A4576045605A1D01B8C776DAF53FA71E267E09AFE03A985D2C9AABA2ABCF4A0"
    "08F51398135DF0D933342A61C38955F0AE1A9C22EE19058D32FEEC9C84BAB7F96C3A4F07FC45EB12E57BFD55"
    "E62969D1C2E8B97859F67910C64EEB6A5EB99AC7C45B63DAA33F5E927A815ED6B0E2628F7426C20CD39A1747"
    "E68EAB0203010001028201005241F4DA7BB75955CAD42F0F3ACBA40D936CCC9DC1B2FBFDAE4031AC69522192"
    "B327DFEAEE2C82BBF74032D514C49412ECB81FCA59E3C178F385D847A5D7021A6579970D24F4F0676E752DBF"
    "103DA87DEF7F60E4E60582895DDFC6D26C0791339842F002002538C585698A7D2F956C439AB881E2D00735AA"
    "0541C91EAFE4043B19B873A2AC4B1E6648D8721FACF6CBBC9009CAEC0CDCF92CD7EBAEA3A447D7332F8ACABC"
    "5EF077E4979897C710917D2AA6FF468397DEE9E217030614E2D7B11D77AF51275B5E69B881E611C543238104"
    "62FFE946B8D844DBA5CC315434CE3E82D6BF7A0B64216D887E5B45121E638D49A71DD91E06CDE8BA2C8C6932"
    "EABE6071020100020100020100020100020100")
LK_PUB1 = bytes.fromhex(
    "3082010902820100DB101AC2A3F1DCFF136BED44DFF0026D13C788DA706B54F1E827DCC30F996AFAC667FF1D"
    "1E3C1DC1B55F6CC0B2073A6D41E42599ACFCD20F02D3D154061A5177BDB6BFEAA75C06A95D698445D7F505BA"
    "47F01BD72B24ECCB9B1B108D81A0BEB18C33E436B843EB192A818DDE810A9948B6F6BCCD49343A8F2694E328"
    "821A7C8F599F45E85D1A4576045605A1D01B8C776DAF53FA71E267E09AFE03A985D2C9AABA2ABCF4A008F513"
    "98135DF0D933342A61C38955F0AE1A9C22EE19058D32FEEC9C84BAB7F96C3A4F07FC45EB12E57BFD55E62969"
    "D1C2E8B97859F67910C64EEB6A5EB99AC7C45B63DAA33F5E927A815ED6B0E2628F7426C20CD39A1747E68EAB"
    "0203010001")
LK_MSG1 = bytes.fromhex("54859b342c49ea2a")
LK_KEY4 = bytes.fromhex(
    "308202200201100282010100d71e77828c9231e76902a2d55c78dea20c8ffe285931df409c606106b92f6240"
    "8076cb674ab55956691707faf94cbd6c377a467d70a76722b34d7a94c3ba4b7c4ba9327cb738954564a405a8"
    "9f127c4ec6c82d400630f460a691bb9bca0479111375f0aed35189c574b9aa3fb683e4786bcdf95c4c85ea52"
    "3b5193fc146b335d3070fa501b1b3881138df7a50cc08ef96352184ea9f9f85c5dcd7a0dd48e7bee917bad7d"
    "b492d5ab163b0a8ace8ede471a1701867bab99f14b0c3a0d8247c1918cbb2e229e49636e02c1c93a9ba5221b"
    "0795d6100250fdfdd19bbeabc2c074d7ec00fb1171cb7adc81799f86684663824db7f1e6166f4263f494a0ca"
    "33cc751302031000100282010062b560314f3f6616c160ac472aff6b69004ab25ce150b91874a8e4dca8eccd"
    "30bbc1c6e3c6ac202a3e5e8b12e6820809380bab7cb3cc9cce9767ddef95404e92e244e91dc114fda9b1dc71"
    "9c4621bd58886e221556c1efe0c98de5803eda7e930f52f6f5c191909e42494f8d9cba3883e933c2504fecc2"
    "f0a8b76e2825566b6267fe08f156e56f0e99f1e5957befeb0a2c92975723333607ddfbaef1b1d833b7967142"
    "36c5a4a9194b1b524c506991f00efa80374bb5d02fb7440dd4f8398dab71675905883deb484833884efef827"
    "1bd655605e48b76d9aa837f97ade1bcd5d1a30d4e99e5b3c15f89c1fdad1864855ce83ee8e51c7de3212477d"
    "46b835df41020130020130020130020130020130")
LK_DIG4 = bytes.fromhex("3ec8a12620544452480de566f3b3f504be10a84894222dddba7ab4768d799889")
LK_SIG4 = bytes.fromhex(
    "c7a398eb43d108c23d78450470c901eef885377c0bf919705c457b2f3a0bb78bc40d7b3a640b0fdb78a90bfd"
    "8d82a48639bf21b884c4ce9fc2e8b6614617b94e0b5705b44ff99c932d9bd5481d8012ef3a777fbcb58e2b6b"
    "7cfc9f8c9da2c485b087e9179bb62362d2a99f57e8f70445243a45ebeb6a088eafc8a084bc5d1338f5178ca3"
    "969ba9388df035ad328a725bdf21ab4b0ea829bb6154bf05db8484dedd163631daf3426d7a90229b1129a6f8"
    "3061dad38b541e42d1471d6fd1cd420bd1e415857e08d659644c0134919226e8b0258cf8f4fa8bc931337672"
    "fb64929fda628de12a71914340613c5abe86fc5be6f9a916311faf256dc24a236e6302a2")
LK_N5 = bytes.fromhex(
    "965f0f7526036bf956960324250b5cfd383631e17a447c9997b654ae38b11c730bd4c70f7434ab8d440267d7"
    "b08c743394ae2bd1160d3dba07190cee213f841a182a4d36a2e14d3551882c0f9a3ff12ddb048f88f1ff8c7e"
    "43db8f902c83683f72bd2fe62fc3de611dc78329618c0fb029ad1d5d573eb6c95f115eb7ce598274b98edad6"
    "41e42c7da6751e7ebaac45e33cac14490300ae2cefb788a7a69312304f190f6fed53a8b7deefc96056c85237"
    "efa2d2a94baf85358d21c14f82692e04774980b798a89a1d419a25ac2602a5e990bfce0bc975c7dbc6f3aab5"
    "463d56725d839ff05f0fff6eef5b6549f129534e45ecc752509ea7cf4814a155e39348ff")
LK_E5 = 0xe16f83
LK_MSG5 = bytes.fromhex(
    "99649579d45fdb3d09836be068cc9878811e0f0f06eebaf6d23fe55d2bd1a021449564e50663f96410ef9605"
    "fdfa4bb1e5c59ce126cb6ffb64af28dece7412bba3ec0128f573356faedd822cd0acae1701861b1e46e7a5b7"
    "0f14ce74745019d7be51b36929f55806e832757b6a4b8a53dc4ad3edefaa27d2db542046a4cd7c1d")
LK_SIG5 = bytes.fromhex(
    "3db2f89b6acd0b0eb0df5d18818145d87241b774da4e20aa97bf412a94c4e0c5ef923657a81c4ae466997006"
    "0c494d21f7cef5de40e755d85e54377f6e2ada35275b7c8ec184a585fe2ee665d96f6e086f738b49ce1eb381"
    "d96e6817d80347f29df50aaeebc4a48c67cd28d37c312d2cc80b9469cb402e28bfea5387bab6311bb2149559"
    "92f3063cd9687e1a9f3ff4426209b9e1eb47bafa364a9f71ee0c0d8affc945d708497303a2164e8f93dec94d"
    "d7303b43828721c0786d1bc4004486ed0de53b075b8f82e2ba007f516659ab129e0fcf616a9066d3de391fd7"
    "c93ac5136075c0ebb9b936e76c6014b27c7fc963eafca11d6ec9b050d211fd18a661db3a")


def pub_pem(d, name, rsapublickey):
    """An RSAPublicKey as PEM for openssl -pubin."""
    der = write(d, name + ".der", rsapublickey)
    return write(d, name + ".pem", openssl("rsa", "-RSAPublicKey_in", "-inform", "DER", "-in", der,
                                           "-pubout"))


def libkcapi_vectors(d):
    key1, pub1 = write(d, "lk1", LK_KEY1), write(d, "lkp1", LK_PUB1)
    pem1 = pub_pem(d, "lkpem1", LK_PUB1)
    msg = write(d, "lkm1", LK_MSG1.rjust(256, b"\0"))
    ref = openssl("pkeyutl", "-encrypt", "-pubin", "-inkey", pem1, "-pkeyopt",
                  "rsa_padding_mode:none", "-in", msg)
    rc, out, _ = ours("akcipher", "rsa", "encrypt", "priv", key1, write(d, "lkm1s", LK_MSG1))
    check("libkcapi ASYM 1: rsa encrypt with the n/e/d private key = openssl's m^e",
          rc == 0 and out == ref)
    rc, out, _ = ours("akcipher", "rsa", "encrypt", "pub", pub1, write(d, "lkm1s", LK_MSG1))
    check("libkcapi ASYM 2: rsa encrypt with the RSAPublicKey = openssl's m^e", rc == 0 and out == ref)
    rc, out, _ = ours("akcipher", "rsa", "decrypt", "priv", key1, write(d, "lkc1", ref))
    check("libkcapi ASYM 3: rsa decrypt gives the message back", rc == 0 and out == LK_MSG1.rjust(256, b"\0"))

    pem4 = pub_pem(d, "lkpem4", der_seq(der_int(der_ints(LK_KEY4)[1]), der_int(65537)))
    dig4 = write(d, "lkd4", LK_DIG4)
    v = subprocess.run(["openssl", "pkeyutl", "-verify", "-pubin", "-inkey", pem4, "-pkeyopt",
                        "digest:sha256", "-in", dig4, "-sigfile", write(d, "lks4", LK_SIG4)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    rc, out, _ = ours("akcipher", "pkcs1pad(rsa,sha256)", "sign", "priv", write(d, "lk4", LK_KEY4), dig4)
    check("libkcapi ASYM 4 (CAVS SigGen15): pkcs1pad sign with d alone = the CAVS signature, "
          "which openssl verifies", v.returncode == 0 and rc == 0 and out == LK_SIG4)

    pub5 = der_seq(der_int(LK_N5), der_int(LK_E5, 256))
    pem5 = pub_pem(d, "lkpem5", pub5)
    sig5 = write(d, "lks5", LK_SIG5)
    digest = openssl("dgst", "-sha256", "-binary", write(d, "lkm5", LK_MSG5))
    v = subprocess.run(["openssl", "dgst", "-sha256", "-verify", pem5, "-signature", sig5,
                        os.path.join(d, "lkm5")], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    rc, out, _ = ours("akcipher", "pkcs1pad(rsa,sha256)", "verify", "pub", write(d, "lkp5", pub5), sig5)
    check("libkcapi ASYM 5 (CAVS SigVer15): pkcs1pad verify with a 256-byte e gives the "
          "message's SHA-256, as openssl dgst -verify", v.returncode == 0 and rc == 0 and out == digest)


# libkcapi's test/kcapi-main.c, the DH example it checks against OpenSSL:
# `kcapi -x 13 -c dh -i PKCS3 -k X` prints Y, with `-p Y` the secret.
LK_DH_PARAMS = bytes.fromhex(
    "308201080282010100e0ea4b21b76a0761f6d55ddbc8c5108a3e73f1580c29ba419b6baa4a9130cc17d8d945"
    "dd1cc92c9a0a690fe52a184d2021dc039e6a9d54e15a4fc040d5db392e6bcad7926eb384793cb253a76d250b"
    "6cccd5523ca75c85942c2a5502be36c113f9afd97399c5ba6d8cc4a407eee82bf7b9d76a7ba6a2560ff17f4f"
    "bdb2861a5d4401e1848177aeae5fa93ecb1b1ad8880c85e059f8ea3909ab7f23f7606129e55280e8cc53741a"
    "6465399fd6e93bff68d52d715138111d94432462140834162f1a5e3cd230ccf82e2c2df62865d1753bf83001"
    "abb2260d2ad457441baabc023d91413668a2a3603c6ed775d15c9d9ecb36fbd285c1aec03fb9673af9b933c4"
    "53020102")
LK_DH_X = bytes.fromhex(
    "537df84c6ce223486cbdda3aef2b819a57a74bfcab09c63d1ca14327b327e8d5d7642174f4110822878eb2ee"
    "dd6d378eff3b1ad27e9197bc1ad8a08bf6f28f5b4b5f8e03f73321f7850f107f68e5ad3bad97e44e797a7989"
    "5be9bcf91586dbe9aeb47096c82135d87ccbd5aad1957fbf9d91700140849dc5116f91bd02de01105b61bcab"
    "d68c55fa317b6dd24b8cc979417ca480a5c21709c432a0b9b4549a78fbf038cfd967b1034d6897bc1a37c5c5"
    "703d152ae6f6b92cf99c4cb4b277a423f0b263f4ed64ce8ac7d2628d5cd5ae24a03d3a5e1037ebdd242fb995"
    "3ad2b6a3da4b2095400161a4d20c5eb99bd671087004e70ebd7b835b56c6a4c7cf3a5444")
LK_DH_Y = bytes.fromhex(
    "ab3bf89a2c175b34762a8476cafad361b677b0025caa7738c6816f8e1af284134ef86ce9e37bf759c911e6ae"
    "f3085e84859b0d07ef5fcd81c4f424ebb458ea9689b58db57506eb2e93f0f09305f33e01d6f0f3fd2d15e059"
    "f48836566ba340aa245b11369a5fbda21cd6bce32d00b38c09f0bab89b0d5ba9941bc011c2ed48dfada542fe"
    "a76b6add5efc7d0896c9e27d0c03d8882beee54282034c75cf7a3c5aba2d1e8c0ee1c8472c0752da2bb869d1"
    "8dddf1a342eae81f0354a7f8973bfb6d5304a0f6b5256f70b84d8c21e680c38d3f2fe90da74899d897ae13c3"
    "7e4f1efc67153b46cefd0d7edadaac1f84a7d043279527956b5ae64cefc00f9e48a4a83a")
LK_DH_SS = bytes.fromhex(
    "78fbd4d1ed7ea6fc8f1e1a6f8a5c750845401589ad3c135088b4ec78f54c57b436d1a7a25ef3f807f72b7138"
    "7f6f3624b008024fa655cf902daf11e487181ab0f59aa46ff5d0ea41574a524cc07d6d8510dcef4d550718b0"
    "42fb140fb166ade62669305380377f3958f0d91c81deda0c9c5fddea4f8dd4792629407dfc2c45622099a5fa"
    "4facd78adea5c4dc32daff9fc37e3b0248576376d2e5884a7b0f7af8d7a1d308dbcbf95fee99cc336be9e5dd"
    "9ea3874806a1b3fb390a737caf37dc884f6c0a61d3ab5a420ecb9ca34069a36264cb418d4d4520ba12170b84"
    "9762f6bc2f31cbfbfe6eadac3c3739daa49d2a96fd76b553e7e1198837df41c59f9b7f54")


def libkcapi_as_sent(d):
    """libkcapi's test.sh and kcapi-main.c vectors with the bytes and names
    kcapi sends: a modulus INTEGER without its zero byte (negative in
    strict DER), pkcs1pad bound by the kernel's driver name of its rsa,
    PKCS#3 parameters whose p has its zero byte; each also under
    ualg-run --supervise, where the options answer the output size too."""
    # test.sh's ASYM_pubkey_5: n's 256 bytes as they are, e in 256 bytes
    pub5 = b"\x30\x82\x02\x08\x02\x82\x01\x00" + LK_N5 + b"\x02\x82\x01\x00" + \
        LK_E5.to_bytes(256, "big")
    assert LK_N5[0] & 0x80 and LK_PUB1[8] & 0x80, "n is sent without its zero byte"
    n1 = int.from_bytes(LK_PUB1[8:8 + 256], "big")
    digest = openssl("dgst", "-sha256", "-binary", write(d, "lsm5", LK_MSG5))
    sig5, p5 = write(d, "lss5", LK_SIG5), write(d, "lsp5", pub5)
    dh_params, dh_x = write(d, "lsdhp", LK_DH_PARAMS), write(d, "lsdhx", LK_DH_X)
    dh_y = write(d, "lsdhy", b"\0" + LK_DH_Y)	# as kcapi-main's -p, with its zero byte
    for sup, how in ((False, ""), (True, " (--supervise)")):
        rc, out, err = ours("akcipher", "rsa", "encrypt", "pub", write(d, "lsp1", LK_PUB1),
                            write(d, "lsm1", LK_MSG1), supervise=sup)
        ref = pow(int.from_bytes(LK_MSG1, "big"), 65537, n1).to_bytes(256, "big")
        check("libkcapi ASYM 2 as sent%s: the RSAPublicKey with a negative n answers 256 and "
              "encrypts as test.sh expects" % how, rc == 0 and "maxsize 256" in err and out == ref)
        for alg in ("pkcs1pad(rsa-generic,sha256)", "pkcs1pad(rsa,sha256)"):
            rc, out, err = ours("akcipher", alg, "verify", "pub", p5, sig5, supervise=sup)
            check("libkcapi ASYM 5 as sent%s: %s verifies with the negative n, gives the "
                  "digest" % (how, alg), rc == 0 and "maxsize 256" in err and out == digest)
        rc, out, err = ours("dh", "dh", dh_params, dh_x, supervise=sup)
        check("libkcapi kcapi-main DH example%s: the parameters answer 256, the public key "
              "is the one OpenSSL printed" % how,
              rc == 0 and "params 256" in err and "maxsize 256" in err and out == LK_DH_Y)
        rc, out, err = ours("dh", "dh", dh_params, dh_x, dh_y, supervise=sup)
        check("libkcapi kcapi-main DH example%s: the shared secret is openssl pkeyutl "
              "-derive's" % how, rc == 0 and out == LK_DH_SS)
    p = int.from_bytes(LK_DH_PARAMS[8:8 + 257], "big")
    for what, y in (("p - 1 behind zero bytes", b"\0" * 10 + (p - 1).to_bytes(256, "big")),
                    ("p + 5 in 300 bytes", (p + 5).to_bytes(300, "big"))):
        rc, _, _ = ours("dh", "dh", dh_params, dh_x, write(d, "lsbad", y))
        check("dh ssgen: a peer key of %s is EINVAL (dh_is_pubkey_valid)" % what, rc == EINVAL)

    # The kernel's pkcs1pad takes its rsa as a spawn, by driver name as
    # well, and its hash as a name compared as it is (rsa_lookup_asn1()).
    key4, dig4 = write(d, "ls4", LK_KEY4), write(d, "lsd4", LK_DIG4)
    for alg in ("pkcs1pad(rsa-generic,sha256)", "pkcs1pad(rsa-openssl,sha256)"):
        rc, out, _ = ours("akcipher", alg, "sign", "priv", key4, dig4)
        check("%s signs as pkcs1pad(rsa,sha256): the CAVS signature" % alg,
              rc == 0 and out == LK_SIG4)
    for alg in ("pkcs1pad(rsa-generic,sha256-generic)", "pkcs1pad(rsa-nosuch,sha256)",
                "pkcs1pad(rsa-generic,nosuch)", "pkcs1pad(aes-generic,sha256)"):
        rc, _, err = ours("akcipher", alg, "verify", "pub", p5, sig5)
        check("%s: bind is ENOENT, as the kernel's template refuses it" % alg,
              rc == ENOENT and "bind" in err)


def libkcapi_numbers(d):
    """libkcapi 1.4 (Debian 12's) numbers its options one above its kernel
    patches, ALG_SET_DRBG_ENTROPY having taken 6: ALG_SET_PUBKEY 7,
    ALG_SET_DH_PARAMETERS 8, ALG_SET_ECDH_CURVE 9.  Both are served; a 7
    of four bytes on akcipher stays ALG_SET_KEY_BY_KEY_SERIAL."""
    pub5 = b"\x30\x82\x02\x08\x02\x82\x01\x00" + LK_N5 + b"\x02\x82\x01\x00" + \
        LK_E5.to_bytes(256, "big")
    n1 = int.from_bytes(LK_PUB1[8:8 + 256], "big")
    digest = openssl("dgst", "-sha256", "-binary", write(d, "lnm5", LK_MSG5))
    for sup, how in ((False, ""), (True, " (--supervise)")):
        rc, out, err = ours("akcipher", "rsa", "encrypt", "pub", write(d, "lnp1", LK_PUB1),
                            write(d, "lnm1", LK_MSG1), supervise=sup, numbers="libkcapi")
        ref = pow(int.from_bytes(LK_MSG1, "big"), 65537, n1).to_bytes(256, "big")
        check("libkcapi 1.4 numbers%s: ALG_SET_PUBKEY (7) sets rsa's public key, answers 256"
              % how, rc == 0 and "maxsize 256" in err and out == ref)
        rc, out, err = ours("akcipher", "pkcs1pad(rsa-generic,sha256)", "verify", "pub",
                            write(d, "lnp5", pub5), write(d, "lns5", LK_SIG5), supervise=sup,
                            numbers="libkcapi")
        check("libkcapi 1.4 numbers%s: pkcs1pad verifies with the public key of 7" % how,
              rc == 0 and out == digest)
        rc, out, err = ours("dh", "dh", write(d, "lndhp", LK_DH_PARAMS), write(d, "lndhx", LK_DH_X),
                            supervise=sup, numbers="libkcapi")
        check("libkcapi 1.4 numbers%s: ALG_SET_DH_PARAMETERS (8) on dh answers 256, keygen "
              "gives OpenSSL's public key" % how,
              rc == 0 and "params 256" in err and out == LK_DH_Y)
    rc, out, err = ours("ecdh", "ecdh-nist-p256", "2", "-", numbers="libkcapi")
    check("libkcapi 1.4 numbers: ALG_SET_ECDH_CURVE (9) on ecdh-nist-p256, keygen",
          rc == 0 and len(out) == 64)
    rc, _, _ = ours("ecdh", "ecdh-nist-p256", "3", "-", numbers="libkcapi")
    check("libkcapi 1.4 numbers: another curve id at 9 is EINVAL", rc == EINVAL)
    rc, _, _ = ours("ecdh", "ecdh-nist-p256", "2", "-")
    check("kernel patches' numbers: ALG_SET_ECDH_CURVE (8) on ecdh-nist-p256 still", rc == 0)
    rc, _, _ = ours("dh", "dh", write(d, "lndhp2", LK_DH_PARAMS), "-")
    check("kernel patches' numbers: ALG_SET_DH_PARAMETERS (7) on dh still", rc == 0)
    rc, _, err = ours("serial", "rsa", "0x7ffffff0")
    check("akcipher: 7 of four bytes is ALG_SET_KEY_BY_KEY_SERIAL (no such key: ENOKEY)",
          rc == errno.ENOKEY)


def main():
    with tempfile.TemporaryDirectory() as d:
        rsa_tests(d)
        ecdsa_tests(d)
        dh_tests(d)
        ecdh_tests(d, "ecdh-nist-p256", "P-256", 2, 32)
        ecdh_tests(d, "ecdh-nist-p384", "P-384", 3, 48)
        kernel_rsa_tests(d, 2048)
        libkcapi_vectors(d)
        libkcapi_as_sent(d)
        libkcapi_numbers(d)
        kernel_rsa_tests(d, 1024)
        kernel_dh_tests(d)
        kernel_ecdh_generated(d, "ecdh-nist-p256", "P-256", 2, 32)
        kernel_ecdh_generated(d, "ecdh-nist-p384", "P-384", 3, 48)
    finish()


if __name__ == "__main__":
    main()
