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

B = sys.argv[1] if len(sys.argv) > 1 else "build"
RUN = os.path.join(B, "src/tools/ualg-run")
TOOL = os.path.join(B, "tests/kcapi-asym")
EBADMSG, EINVAL, ENOSYS, EOVERFLOW = 74, 22, 38, 75
passed = failed = 0


def result(name, cond):
    global passed, failed
    if cond:
        passed += 1
        print("ok - " + name)
    else:
        failed += 1
        print("not ok - " + name)


def openssl(*args, data=None):
    return subprocess.run(["openssl"] + list(args), input=data, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, check=True).stdout


def ours(*args):
    """(exit status, stdout, stderr) of kcapi-asym under ualg-run."""
    p = subprocess.run([RUN, TOOL] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
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
    result("pkcs1pad sign: setkey answers the modulus size (256)", "maxsize 256" in err)
    ref = openssl("pkeyutl", "-sign", "-inkey", key, "-pkeyopt", "digest:sha256", "-in", dig)
    result("pkcs1pad sign: the signature is openssl pkeyutl's, byte for byte", rc == 0 and sig == ref)
    sigf = write(d, "sig", sig)
    v = subprocess.run(["openssl", "dgst", "-sha256", "-verify", pub_pem, "-signature", sigf, msg],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    result("pkcs1pad sign: openssl dgst -verify accepts it", v.returncode == 0)

    rc, out, _ = ours("akcipher", alg, "verify", "pub", pub, write(d, "osig", ref))
    result("pkcs1pad verify (public key, signature alone): gives the digest", rc == 0 and out == digest)
    rc, out, _ = ours("akcipher", alg, "verify", "pub", pub, write(d, "both", ref + digest))
    result("pkcs1pad verify (signature || digest): accepted, no output", rc == 0 and out == b"")
    bad = bytearray(ref + digest)
    bad[-1] ^= 1
    rc, out, _ = ours("akcipher", alg, "verify", "pub", pub, write(d, "bad", bytes(bad)))
    result("pkcs1pad verify: another digest is EBADMSG, no output", rc == EBADMSG and out == b"")
    bad = bytearray(ref)
    bad[10] ^= 1
    rc, out, _ = ours("akcipher", alg, "verify", "pub", pub, write(d, "bad2", bytes(bad)))
    result("pkcs1pad verify: a damaged signature is EBADMSG", rc == EBADMSG and out == b"")
    rc, out, _ = ours("akcipher", alg, "sign", "pub", pub, dig)
    result("pkcs1pad sign with the public key only: EINVAL", rc == EINVAL and out == b"")

    plain = b"a secret of thirty-two bytes...!"
    rc, ct, _ = ours("akcipher", alg, "encrypt", "pub", pub, write(d, "plain", plain))
    dec = openssl("pkeyutl", "-decrypt", "-inkey", key, "-in", write(d, "ct", ct)) if rc == 0 else b""
    result("pkcs1pad encrypt (public key): openssl pkeyutl -decrypt recovers it", dec == plain)
    ct2 = openssl("pkeyutl", "-encrypt", "-pubin", "-inkey", pub_pem, "-in", os.path.join(d, "plain"))
    rc, out, _ = ours("akcipher", alg, "decrypt", "priv", priv, write(d, "ct2", ct2))
    result("pkcs1pad decrypt: openssl pkeyutl -encrypt's ciphertext", rc == 0 and out == plain)
    rc, out, _ = ours("akcipher", alg, "decrypt", "priv", priv, write(d, "ct3", bytes(256)))
    result("pkcs1pad decrypt of a bad ciphertext: EINVAL (pkcs1pad_decrypt_complete), no output",
           rc == EINVAL and out == b"")

    block = bytes([0]) + os.urandom(255)
    blk = write(d, "block", block)
    rc, out, _ = ours("akcipher", "rsa", "encrypt", "pub", pub, blk)
    ref = openssl("pkeyutl", "-encrypt", "-pubin", "-inkey", pub_pem, "-pkeyopt",
                  "rsa_padding_mode:none", "-in", blk)
    result("rsa encrypt (m^e): openssl pkeyutl with no padding, byte for byte", rc == 0 and out == ref)
    rc, out, _ = ours("akcipher", "rsa", "decrypt", "priv", priv, write(d, "rct", ref))
    result("rsa decrypt (c^d): the block again", rc == 0 and out == block)
    rc, out, _ = ours("akcipher", "rsa", "encrypt", "pub", write(d, "junk", b"\x30\x03\x02\x01\x05"), blk)
    result("rsa: a malformed public key is EINVAL", rc == EINVAL)


def ecdsa_tests(d):
    key = os.path.join(d, "ec.pem")
    openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key)
    spki = openssl("pkey", "-in", key, "-pubout", "-outform", "DER")
    point = write(d, "ecpoint", spki[-65:])
    digest = openssl("dgst", "-sha256", "-binary", write(d, "emsg", b"ecdsa message\n"))
    sig = openssl("pkeyutl", "-sign", "-inkey", key, "-in", write(d, "edig", digest))
    alg = "ecdsa-nist-p256"
    rc, out, err = ours("akcipher", alg, "verify", "pub", point, write(d, "esig", sig + digest))
    result("ecdsa-nist-p256 verify: openssl pkeyutl's DER signature || digest", rc == 0 and out == b"")
    bad = bytearray(sig + digest)
    bad[-3] ^= 0x40
    rc, out, _ = ours("akcipher", alg, "verify", "pub", point, write(d, "ebad", bytes(bad)))
    result("ecdsa-nist-p256 verify: another digest is EBADMSG", rc == EBADMSG)
    rc, out, _ = ours("akcipher", alg, "sign", "pub", point, write(d, "edig2", digest))
    result("ecdsa-nist-p256 sign: ENOSYS (verification only, as Linux 6.1)", rc == ENOSYS)


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
    result("dh keygen: PKCS#3 parameters answer 256, the public key is openssl's",
           rc == 0 and "params 256" in err and len(out) == 256 and out.lstrip(b"\0") == ya)
    rc, ss, _ = ours("dh", "dh", params, xa, yb)
    ref = openssl("pkeyutl", "-derive", "-inkey", a, "-peerkey", b_pub)
    result("dh ssgen: the shared secret is openssl pkeyutl -derive's (p-sized)",
           rc == 0 and len(ss) == 256 and ss.lstrip(b"\0") == ref.lstrip(b"\0"))
    rc, pub, _ = ours("dh", "dh", params, "-")
    result("dh: an empty key generates one (p-sized public key)", rc == 0 and len(pub) == 256)
    rc, _, _ = ours("dh", "dh", params, xa, write(d, "one", b"\x01"))
    result("dh ssgen: a peer key of 1 is EINVAL", rc == EINVAL)


def ecdh_tests(d, alg, curve, cid, n):
    a, a_pub, a_text = kpp_pair(d, alg + "a", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:" + curve])
    b, b_pub, b_text = kpp_pair(d, alg + "b", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:" + curve])
    da = write(d, alg + "da", text_field(a_text, "priv").lstrip(b"\0").rjust(n, b"\0"))
    qa = text_field(a_text, "pub")
    qb = write(d, alg + "qb", text_field(b_text, "pub")[1:])
    rc, out, err = ours("ecdh", alg, str(cid), da)
    result("%s keygen: X || Y of openssl's key" % alg, rc == 0 and out == qa[1:] and
           "maxsize %d" % (2 * n) in err)
    rc, ss, _ = ours("ecdh", alg, str(cid), da, qb)
    ref = openssl("pkeyutl", "-derive", "-inkey", a, "-peerkey", b_pub)
    result("%s ssgen: openssl pkeyutl -derive's secret" % alg, rc == 0 and ss == ref)
    bad = bytearray(open(qb, "rb").read())
    bad[-1] ^= 1
    rc, out, _ = ours("ecdh", alg, str(cid), da, write(d, alg + "bad", bytes(bad)))
    result("%s ssgen: a point off the curve is EINVAL, no output" % alg, rc == EINVAL and out == b"")
    rc, _, _ = ours("ecdh", alg, str(cid % 3 + 1), da)
    result("%s: another curve id is EINVAL" % alg, rc == EINVAL)
    rc, pub, _ = ours("ecdh", alg, str(cid), "-")
    result("%s: an empty key generates one" % alg, rc == 0 and len(pub) == 2 * n)


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
    result("%s encrypt, RSAPublicKey with a %d-byte e: openssl's m^e" % (tag, size),
           rc == 0 and ct == ref and "maxsize %d" % size in err)
    rc, out, err = ours("akcipher", "rsa", "decrypt", "priv", ned, write(d, "kct%d" % bits, ref))
    result("%s decrypt, key of n, e, d and zero CRT fields (version 1): the block" % tag,
           rc == 0 and out == block and "maxsize %d" % size in err)
    rc, sig, _ = ours("akcipher", "rsa", "sign", "priv", ned, blk)
    ref = openssl("pkeyutl", "-decrypt", "-inkey", key, "-pkeyopt", "rsa_padding_mode:none", "-in", blk)
    result("%s sign (m^d), n/e/d key: openssl pkeyutl's m^d (-decrypt, no padding)" % tag,
           rc == 0 and sig == ref)
    rc, out, _ = ours("akcipher", "rsa", "verify", "pub", pub, write(d, "ksig%d" % bits, ref))
    result("%s verify (s^e): the block again" % tag, rc == 0 and out == block)
    indef = der_seq(der_int(0), der_int(n), der_int(e), der_int(dd), zeros, indef=True)
    rc, out, _ = ours("akcipher", "rsa", "sign", "priv", write(d, "kind%d" % bits, indef), blk)
    result("%s: an indefinite-length (BER) private key signs alike" % tag, rc == 0 and out == ref)
    tail = write(d, "ktail%d" % bits, open(ned, "rb").read() + b"\x05\x00junk")
    rc, out, _ = ours("akcipher", "rsa", "sign", "priv", tail, blk)
    result("%s: bytes after the key's SEQUENCE are ignored, as asn1_ber_decoder() does" % tag,
           rc == 0 and out == ref)

    alg = "pkcs1pad(rsa,sha256)"
    msg = write(d, "kmsg%d" % bits, os.urandom(100))
    digest = openssl("dgst", "-sha256", "-binary", msg)
    dig = write(d, "kdig%d" % bits, digest)
    rc, sig, _ = ours("akcipher", alg, "sign", "priv", ned, dig)
    ref = openssl("pkeyutl", "-sign", "-inkey", key, "-pkeyopt", "digest:sha256", "-in", dig)
    result("%s pkcs1pad sign, n/e/d key: openssl pkeyutl's signature" % tag, rc == 0 and sig == ref)
    rc, out, _ = ours("akcipher", alg, "verify", "pub", pub, write(d, "kboth%d" % bits, ref + digest))
    result("%s pkcs1pad verify, RSAPublicKey: signature || digest accepted" % tag,
           rc == 0 and out == b"")
    bad = bytearray(ref)
    bad[5] ^= 0x10
    rc, out, _ = ours("akcipher", alg, "verify", "pub", pub, write(d, "kbad%d" % bits, bytes(bad) + digest))
    result("%s pkcs1pad verify: a damaged signature is EBADMSG" % tag, rc == EBADMSG and out == b"")
    plain = os.urandom(size - 11)
    pf = write(d, "kplain%d" % bits, plain)
    ct = openssl("pkeyutl", "-encrypt", "-pubin", "-inkey", pub_pem, "-in", pf)
    rc, out, _ = ours("akcipher", alg, "decrypt", "priv", v0, write(d, "kpct%d" % bits, ct))
    result("%s pkcs1pad decrypt, n/e/d key (version 0): openssl's ciphertext" % tag,
           rc == 0 and out == plain)
    rc, ct, _ = ours("akcipher", alg, "encrypt", "pub", pub, pf)
    dec = openssl("pkeyutl", "-decrypt", "-inkey", key, "-in", write(d, "kpct2%d" % bits, ct)) \
        if rc == 0 else b""
    result("%s pkcs1pad encrypt of k - 11 bytes: openssl pkeyutl -decrypt recovers it" % tag,
           dec == plain)
    rc, _, _ = ours("akcipher", alg, "encrypt", "pub", pub, write(d, "klong%d" % bits, plain + b"x"))
    result("%s pkcs1pad encrypt of k - 10 bytes: EOVERFLOW" % tag, rc == EOVERFLOW)

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
        result("%s setkey, %s: %s" % (tag, what, errno.errorcode.get(want)), rc == want and out == b"")


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
        result("dh PKCS#3 %s: answers 384; openssl's public key" % what,
               rc == 0 and "params 384" in err and out == ya.to_bytes(384, "big"))
        rc, ss, _ = ours("dh", "dh", params, xa, yb)
        result("dh PKCS#3 %s: openssl pkeyutl -derive's secret" % what,
               rc == 0 and ss.lstrip(b"\0") == ref.lstrip(b"\0") and len(ss) == 384)
    params = os.path.join(d, "kdhparams0")
    rc, out, _ = ours("dh", "dh", params, "-", yb)
    ok = rc == 0 and len(out) == 768
    if ok:
        peer = write(d, "kdhours", dh_spki(p, g, int.from_bytes(out[:384], "big")))
        ref2 = openssl("pkeyutl", "-derive", "-inkey", b, "-peerkey", peer, "-peerform", "DER")
        ok = out[384:].lstrip(b"\0") == ref2.lstrip(b"\0")
    result("dh generated key: its public key and secret agree with openssl pkeyutl -derive", ok)

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
        result("dh PKCS#3 %s: %s at ALG_SET_DH_PARAMETERS" % (what, errno.errorcode.get(want)),
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
    result("%s generated key: its X || Y and secret agree with openssl pkeyutl -derive" % alg, ok)


def main():
    with tempfile.TemporaryDirectory() as d:
        rsa_tests(d)
        ecdsa_tests(d)
        dh_tests(d)
        ecdh_tests(d, "ecdh-nist-p256", "P-256", 2, 32)
        ecdh_tests(d, "ecdh-nist-p384", "P-384", 3, 48)
        kernel_rsa_tests(d, 2048)
        kernel_rsa_tests(d, 1024)
        kernel_dh_tests(d)
        kernel_ecdh_generated(d, "ecdh-nist-p256", "P-256", 2, 32)
        kernel_ecdh_generated(d, "ecdh-nist-p384", "P-384", 3, 48)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
