#!/usr/bin/env python3
"""Generate src/core/testvec_asym_data.c: self-test vectors for the
akcipher, kpp and compression types (see src/core/testvec.h).

Sources, never our own output:
  * rsa, pkcs1pad(rsa,sha256): NIST CAVP SigGen15_186-2 (SHA-256, 2048-bit
    modulus) from Debian's python3-cryptography-vectors.  The file gives n,
    e, d; p and q are recovered from them (RFC 8017's key is the same key),
    the RSAPrivateKey DER is built here, the encoded message EM is
    EMSA-PKCS1-v1_5 (RFC 8017 9.2) of the message, so raw rsa maps S to EM.
  * ecdsa-nist-p256: CAVP FIPS 186-3 SigVer.rsp [P-256,SHA-256], passing and
    failing cases; the signature is DER-encoded here, the digest is SHA-256
    of the message (hashlib).
  * dh: RFC 5114 A.2 (2048-bit MODP group) as that package ships it.
  * ecdh-nist-p256/p384: CAVP KAS ECC ZZOnly response file, passing cases.
  * deflate, lz4, lzo, zstd: streams made by real peers at generation time:
    Python's zlib (raw, wbits -11 and -15), `lz4 -l` (legacy frames hold
    plain LZ4 blocks), `lzop` (its blocks are plain LZO1X-1), `zstd`.

  tools/gen-testvec-asym.py [--vectors DIR] [-o src/core/testvec_asym_data.c]
"""
import argparse
import hashlib
import math
import os
import struct
import subprocess
import tempfile
import zlib

DEFAULT_VECTORS = "/usr/lib/python3/dist-packages/cryptography_vectors"


def cstr(b):
    out = []
    for i in range(0, len(b), 16):
        out.append('\t\t"' + "".join("\\x%02x" % c for c in b[i:i + 16]) + '"')
    return "\n".join(out) if out else '\t\t""'


def der_len(n):
    if n < 0x80:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(b)]) + b


def der_int(v):
    b = v.to_bytes(max(1, (v.bit_length() + 8) // 8), "big")
    return b"\x02" + der_len(len(b)) + b


def der_seq(*items):
    body = b"".join(items)
    return b"\x30" + der_len(len(body)) + body


def rsa_factor(n, e, d):
    k = d * e - 1
    for g in range(2, 1000):
        t = k
        while t % 2 == 0:
            t //= 2
            x = pow(g, t, n)
            if x > 1 and math.gcd(x - 1, n) > 1:
                p = math.gcd(x - 1, n)
                return max(p, n // p), min(p, n // p)
    raise SystemExit("cannot factor n")


def parse_blocks(path):
    """key = value records, a new one at each blank line."""
    recs, cur, section = [], {}, None
    for line in open(path):
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            continue
        if not line or line.startswith("#"):
            if cur:
                recs.append(cur)
                cur = {}
            continue
        if "=" in line:
            k, v = [x.strip() for x in line.split("=", 1)]
            cur[k] = v
            cur.setdefault("_section", section)
    if cur:
        recs.append(cur)
    return recs


def rsa_vectors(vdir):
    """The first SHA-256 case of the 2048-bit key."""
    path = os.path.join(vdir, "asymmetric/RSA/FIPS_186-2/SigGen15_186-2.txt")
    n = e = d = alg = msg = sig = None
    for line in open(path):
        k, _, val = [x.strip() for x in line.partition("=")]
        if k == "n":
            n = int(val, 16)
        elif k == "e":
            e = int(val, 16)
        elif k == "d":
            d = int(val, 16)
        elif k == "SHAAlg":
            alg = val
        elif k == "Msg" and alg == "SHA256" and n.bit_length() == 2048:
            msg = bytes.fromhex(val)
        elif k == "S" and msg is not None:
            sig = bytes.fromhex(val)
            break
    p, q = rsa_factor(n, e, d)
    key = der_seq(der_int(0), der_int(n), der_int(e), der_int(d), der_int(p), der_int(q),
                  der_int(d % (p - 1)), der_int(d % (q - 1)), der_int(pow(q, -1, p)))
    pub = der_seq(der_int(n), der_int(e))
    digest = hashlib.sha256(msg).digest()
    prefix = bytes.fromhex("3031300d060960864801650304020105000420")
    k = (n.bit_length() + 7) // 8
    t = prefix + digest
    em = b"\x00\x01" + b"\xff" * (k - len(t) - 3) + b"\x00" + t
    assert pow(int.from_bytes(sig, "big"), e, n) == int.from_bytes(em, "big")
    return key, pub, digest, sig, em


def ecdsa_vectors(vdir):
    path = os.path.join(vdir, "asymmetric/ECDSA/FIPS_186-3/SigVer.rsp")
    out = []
    for r in parse_blocks(path):
        if r.get("_section") != "P-256,SHA-256" or "Msg" not in r:
            continue
        pub = b"\x04" + bytes.fromhex(r["Qx"]) + bytes.fromhex(r["Qy"])
        sig = der_seq(der_int(int(r["R"], 16)), der_int(int(r["S"], 16)))
        digest = hashlib.sha256(bytes.fromhex(r["Msg"])).digest()
        out.append((pub, sig + digest, r["Result"].startswith("P")))
    return out[:6]


def kpp_secret(type_, body):
    return struct.pack("<HH", type_, 4 + len(body)) + body


def dh_vectors(vdir):
    recs = parse_blocks(os.path.join(vdir, "asymmetric/DH/RFC5114.txt"))
    r = [x for x in recs if x.get("_section", "").startswith("A.2")]
    merged = {}
    for x in r:
        merged.update(x)
    p, g = bytes.fromhex(merged["P"]), bytes.fromhex(merged["G"])
    out = []
    for who, peer in (("IUT", "CAVS"), ("CAVS", "IUT")):
        x = bytes.fromhex(merged["Xstat" + who])
        body = struct.pack("<III", len(x), len(p), len(g)) + x + p + g
        y = bytes.fromhex(merged["Ystat" + who]).rjust(len(p), b"\0")
        peer_y = bytes.fromhex(merged["Ystat" + peer]).rjust(len(p), b"\0")
        z = bytes.fromhex(merged["Z"]).rjust(len(p), b"\0")
        out.append((kpp_secret(1, body), peer_y, y, z))
    return out


def ecdh_vectors(vdir, section, nbytes):
    path = os.path.join(vdir, "asymmetric/ECDH/KASValidityTest_ECCStaticUnified_NOKC_ZZOnly_resp.fax")
    out = []
    for r in parse_blocks(path):
        if not (r.get("_section") or "").startswith(section) or not r.get("Result", "").startswith("P"):
            continue
        d = bytes.fromhex(r["dsIUT"]).rjust(nbytes, b"\0")
        peer = bytes.fromhex(r["QsCAVSx"]).rjust(nbytes, b"\0") + bytes.fromhex(r["QsCAVSy"]).rjust(nbytes, b"\0")
        pub = bytes.fromhex(r["QsIUTx"]).rjust(nbytes, b"\0") + bytes.fromhex(r["QsIUTy"]).rjust(nbytes, b"\0")
        z = bytes.fromhex(r["Z"]).rjust(nbytes, b"\0")
        out.append((kpp_secret(2, struct.pack("<H", nbytes) + d), peer, pub, z))
        if len(out) == 3:
            break
    return out


# Plain text with repeats, as the kernel's comp vectors use.
COMP_TEXT = (b"Join us now and share the software; You'll be free, hackers, you'll be free. "
             b"Hoarders can get piles of money, That is true, hackers, that is true. " * 3)


def run(cmd, data):
    return subprocess.run(cmd, input=data, stdout=subprocess.PIPE, check=True).stdout


def lz4_block():
    out = run(["lz4", "-l", "-c", "-9", "-"], COMP_TEXT)
    assert struct.unpack("<I", out[:4])[0] == 0x184C2102
    size = struct.unpack("<I", out[4:8])[0]
    return out[8:8 + size]


def lzo_block():
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "t")
        open(src, "wb").write(COMP_TEXT)
        subprocess.run(["lzop", "-1", "-q", "-o", src + ".lzo", src], check=True)
        f = open(src + ".lzo", "rb").read()
    # lzop header: magic 9, version 2, lib version 2, version needed 2,
    # method 1, level 1, flags 4, [filter 4], mode 4, mtime 8, name len 1,
    # name, header checksum 4; then blocks: usize 4, csize 4, checksums.
    off = 9 + 2 + 2 + 2
    method, level = f[off], f[off + 1]
    flags = struct.unpack(">I", f[off + 2:off + 6])[0]
    off += 6 + (4 if flags & 0x800 else 0) + 4 + 8
    off += 1 + f[off] + 4
    usize, csize = struct.unpack(">II", f[off:off + 8])
    off += 8
    if flags & 0x1:      # adler32 of decompressed
        off += 4
    if flags & 0x100:    # crc32 of decompressed
        off += 4
    if csize < usize:
        if flags & 0x2:
            off += 4
        if flags & 0x200:
            off += 4
    assert method in (1, 2, 3) and usize == len(COMP_TEXT) and csize < usize, (method, level)
    return f[off:off + csize]


def comp_vectors():
    raw11 = zlib.compressobj(9, zlib.DEFLATED, -11)
    raw15 = zlib.compressobj(6, zlib.DEFLATED, -15)
    return {
        "deflate": [raw11.compress(COMP_TEXT) + raw11.flush(), raw15.compress(COMP_TEXT) + raw15.flush()],
        "lz4": [lz4_block()],
        "lzo": [lzo_block()],
        "zstd": [run(["zstd", "-q", "-c", "-19", "-"], COMP_TEXT)],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vectors", default=DEFAULT_VECTORS)
    ap.add_argument("-o", default="src/core/testvec_asym_data.c")
    a = ap.parse_args()
    v = a.vectors
    o = ["/* Generated by tools/gen-testvec-asym.py: do not edit. */",
         '#include "testvec.h"', ""]

    key, pub, digest, sig, em = rsa_vectors(v)
    o.append("static const struct ualg_akcipher_testvec rsa_tv[] = {")
    o.append("\t{ /* CAVP SigGen15_186-2, 2048 bits: S^e = EM (RFC 8017 9.2) */")
    o.append("\t.key =\n%s,\n\t.klen = %d,\n\t.pub =\n%s,\n\t.plen = %d," % (cstr(key), len(key), cstr(pub), len(pub)))
    o.append("\t.m =\n%s,\n\t.mlen = %d,\n\t.c =\n%s,\n\t.clen = %d,\n\t},\n};" % (cstr(sig), len(sig), cstr(em), len(em)))
    o.append("static const struct ualg_akcipher_testvec pkcs1pad_tv[] = {")
    o.append("\t{ /* CAVP SigGen15_186-2, 2048 bits, SHA-256: sign(digest) = S */")
    o.append("\t.key =\n%s,\n\t.klen = %d,\n\t.pub =\n%s,\n\t.plen = %d," % (cstr(key), len(key), cstr(pub), len(pub)))
    o.append("\t.m =\n%s,\n\t.mlen = %d,\n\t.c =\n%s,\n\t.clen = %d,\n\t.sign = true,\n\t},\n};" % (cstr(digest), len(digest), cstr(sig), len(sig)))

    o.append("static const struct ualg_akcipher_testvec ecdsa_p256_tv[] = {")
    for pk, msg, ok in ecdsa_vectors(v):
        o.append("\t{ /* CAVP 186-3 SigVer [P-256,SHA-256], Result %s */" % ("P" if ok else "F"))
        o.append("\t.pub =\n%s,\n\t.plen = %d,\n\t.m =\n%s,\n\t.mlen = %d,\n\t.verify_only = true,\n\t.bad = %s,\n\t}," % (
            cstr(pk), len(pk), cstr(msg), len(msg), "false" if ok else "true"))
    o.append("};")

    def kpp_table(name, vecs, src):
        o.append("static const struct ualg_kpp_testvec %s[] = {" % name)
        for sec, peer, pubk, z in vecs:
            o.append("\t{ /* %s */" % src)
            o.append("\t.secret =\n%s,\n\t.slen = %d,\n\t.peer =\n%s,\n\t.peerlen = %d," % (cstr(sec), len(sec), cstr(peer), len(peer)))
            o.append("\t.pub =\n%s,\n\t.publen = %d,\n\t.ss =\n%s,\n\t.sslen = %d,\n\t}," % (cstr(pubk), len(pubk), cstr(z), len(z)))
        o.append("};")

    kpp_table("dh_tv", dh_vectors(v), "RFC 5114 A.2")
    kpp_table("ecdh_p256_tv", ecdh_vectors(v, "EC", 32), "CAVP KAS ECC ZZOnly, P-256")
    kpp_table("ecdh_p384_tv", ecdh_vectors(v, "ED", 48), "CAVP KAS ECC ZZOnly, P-384")

    comp = comp_vectors()
    o.append("static const char comp_text[] =\n%s;" % cstr(COMP_TEXT))
    for name, streams in comp.items():
        o.append("static const struct ualg_comp_testvec %s_tv[] = {" % name)
        for s in streams:
            o.append("\t{ .plain = comp_text, .plen = %d,\n\t.stream =\n%s,\n\t.slen = %d },"
                     % (len(COMP_TEXT), cstr(s), len(s)))
        o.append("};")

    descs = [
        ("deflate", "UALG_TEST_COMP", "deflate_tv", "Python zlib, raw, wbits -11 and -15"),
        ("dh", "UALG_TEST_KPP", "dh_tv", "RFC 5114 A.2"),
        ("ecdh-nist-p256", "UALG_TEST_KPP", "ecdh_p256_tv", "CAVP KAS ECC"),
        ("ecdh-nist-p384", "UALG_TEST_KPP", "ecdh_p384_tv", "CAVP KAS ECC"),
        ("ecdsa-nist-p256", "UALG_TEST_AKCIPHER", "ecdsa_p256_tv", "CAVP FIPS 186-3 SigVer"),
        ("lz4", "UALG_TEST_COMP", "lz4_tv", "lz4 -l (legacy frame's block)"),
        ("lzo", "UALG_TEST_COMP", "lzo_tv", "lzop -1 (its LZO1X-1 block)"),
        ("pkcs1pad(rsa,sha256)", "UALG_TEST_AKCIPHER", "pkcs1pad_tv", "CAVP SigGen15_186-2"),
        ("rsa", "UALG_TEST_AKCIPHER", "rsa_tv", "CAVP SigGen15_186-2, RFC 8017 EMSA"),
        ("zstd", "UALG_TEST_COMP", "zstd_tv", "zstd -19"),
    ]
    o.append("")
    o.append("const struct ualg_test_desc ualg_test_descs_asym[] = {")
    for alg, kind, tab, src in sorted(descs):
        o.append('\t{ "%s", %s, %s, sizeof(%s) / sizeof(%s[0]), "%s" },' % (alg, kind, tab, tab, tab, src))
    o.append("};")
    o.append("const size_t ualg_test_descs_asym_count = sizeof(ualg_test_descs_asym) / sizeof(ualg_test_descs_asym[0]);")
    open(a.o, "w").write("\n".join(o) + "\n")


if __name__ == "__main__":
    main()
