#!/usr/bin/env python3
"""akcipher and kpp sockets against OpenSSL's command line.

Keys are made at run time with `openssl genpkey`; build/tests/kcapi-asym
(libkcapi's calls, made directly) runs under ualg-run and its answers are
checked with `openssl pkeyutl`, `openssl dgst` and `openssl pkeyutl -derive`
on the same keys, both ways.  Ends with "N passed, N failed".

  tests/real/asym.py BUILD_DIR
"""
import os
import re
import subprocess
import sys
import tempfile

B = sys.argv[1] if len(sys.argv) > 1 else "build"
RUN = os.path.join(B, "src/tools/ualg-run")
TOOL = os.path.join(B, "tests/kcapi-asym")
EBADMSG, EINVAL, ENOSYS = 74, 22, 38
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


def main():
    with tempfile.TemporaryDirectory() as d:
        rsa_tests(d)
        ecdsa_tests(d)
        dh_tests(d)
        ecdh_tests(d, "ecdh-nist-p256", "P-256", 2, 32)
        ecdh_tests(d, "ecdh-nist-p384", "P-384", 3, 48)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
