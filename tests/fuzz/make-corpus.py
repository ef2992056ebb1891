#!/usr/bin/env python3
"""Writes the seed corpus in tests/fuzz/corpus/: valid inputs for each
harness, so that fuzzing starts from the protocol's real paths.  Frame
layouts are those of src/proto/proto.h; cmsg layouts are the kernel's."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
HDR = struct.Struct("=IHHiI")
HELLO, BIND, SETSOCKOPT, ACCEPT, SEND, RECV, POLL, CANCEL = range(1, 9)
UNKNOWN = 9	# a type algd does not know: the connection ends
SOL_ALG, ALG_SET_KEY, ALG_SET_IV, ALG_SET_OP, ALG_SET_AEAD_ASSOCLEN = 279, 1, 2, 3, 4
SEND_MORE, SEND_FIRST, SEND_LAST, SEND_CTL, SEND_IV = 0x01, 0x04, 0x08, 0x10, 0x20


def frame(typ, body=b""):
    return HDR.pack(HDR.size + len(body), typ, 0, 0, 0) + body


def hello():
    return frame(HELLO, struct.pack("=IHH", 0x55414C47, 1, 1))


def bind(typ, name):
    n = name.encode() + b"\0"
    return frame(BIND, struct.pack("=14sHIII", typ.encode(), 0, 0, 0, len(n)) + n)


def setkey(key, optname=ALG_SET_KEY):
    return frame(SETSOCKOPT, struct.pack("=iiIIII", SOL_ALG, optname, len(key), 0, len(key), 0) + key)


KEY_ADD, KEY_DEL, KEY_LIST, BY_NAME = 48, 49, 50, 0x7501


def key_add(name, allow, key):
    n, a = name.encode(), allow.encode()
    return frame(KEY_ADD, struct.pack("=IIII", len(n), len(a), len(key), 0) + n + a + key)


def key_del(name):
    return frame(KEY_DEL, struct.pack("=II", len(name), 0) + name.encode())


def key_list():
    return frame(KEY_LIST, struct.pack("=II", 0, 0))


def by_name(name):
    return frame(SETSOCKOPT, struct.pack("=iiIIII", SOL_ALG, BY_NAME, len(name), 0, len(name), 0) + name)


def send(data, flags=SEND_FIRST | SEND_LAST, op=0, iv=b""):
    if iv:
        flags |= SEND_IV | SEND_CTL
    return frame(SEND, struct.pack("=IIII", flags, op, 0, len(iv)) + iv + data)


def recv(n):
    return frame(RECV, struct.pack("=II", 0, n))


SHM_SETUP, SEND_SHM, RECV_SHM = 66, 67, 68
AREA = 0x80     # fuzz_request's target that writes the payload area


def send_shm(off, n, flags=SEND_FIRST | SEND_LAST, op=0, iv=b""):
    if iv:
        flags |= SEND_IV | SEND_CTL
    return frame(SEND_SHM, struct.pack("=IIII", flags, op, 0, len(iv)) + iv + struct.pack("=QQ", off, n))


def recv_shm(off, n, total=None):
    return frame(RECV_SHM, struct.pack("=IIII", 0, n, n if total is None else total, 0) +
                 struct.pack("=QQ", off, n))


RFC_MODE, RFC_LISTEN, RFC_WRITE, RFC_READ = 96, 97, 98, 99	# RFC mode
RFC_MORE, RFC_OOB = 0x1, 0x2


def rfc_write(data, flags=0):
    return frame(RFC_WRITE, struct.pack("=II", flags, len(data)) + data)


def rfc_read(n):
    return frame(RFC_READ, struct.pack("=II", 0, n))


def rfc_opt(name, value):
    return frame(SETSOCKOPT, struct.pack("=iiIIII", SOL_ALG, name, len(value), 0, len(value), 0) + value)


ENGINE, ADOPT, ADOPT_PART = 69, 70, 0x1
CLOSE = 0x81    # fuzz_request's targets that close op socket 0 (0x82: 1, ...)


def adopt(flags=0, state=0, driver="", key=b"", data=b""):
    return frame(ADOPT, struct.pack("=IIII32s64s128sII", flags, state, 0, 0, b"", b"", driver.encode(),
                                    len(key), len(data)) + key + data)


def seq(*parts):
    """fuzz_request's input: [target][len LE16][frame]..."""
    return b"".join(bytes([t]) + struct.pack("<H", len(f)) + f for t, f in parts)


def cmsg(level, typ, data):
    n = 16 + len(data)
    return struct.pack("=QII", n, level, typ) + data + b"\0" * ((8 - n % 8) % 8)


# crypto_user (linux/cryptouser.h): struct crypto_user_alg is 64+64+64
# bytes of names, then type, mask, refcnt, flags (u32 each).
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 0x1, 0x4, 0x300
NEWALG, DELALG, UPDATEALG, GETALG, DELRNG, GETSTAT = 0x10, 0x11, 0x12, 0x13, 0x14, 0x15
CRYPTOCFGA_PRIORITY_VAL = 2


def nlmsg(typ, flags, payload=b""):
    n = 16 + len(payload)
    return struct.pack("=IHHII", n, typ, flags, 1, 0) + payload + b"\0" * ((4 - n % 4) % 4)


def cru(name=b"", driver=b""):
    return name.ljust(64, b"\0") + driver.ljust(64, b"\0") + b"\0" * 64 + struct.pack("=IIII", 0, 0, 0, 0)


def nla(typ, data):
    return struct.pack("=HH", 4 + len(data), typ) + data


# fuzz_netlink's input: 8 answer bytes for the stand-in algd, then requests.
ANSWERS = bytes([0, 1, 2, 3, 0x80, 0x81, 0x82, 0x83])


def authenc_key(authkey, enckey):
    """crypto_authenc_key_param in its rtattr, then the keys (fuzz_authenc
    input: variant byte first)."""
    return struct.pack("=HH", 8, 1) + struct.pack(">I", len(enckey)) + authkey + enckey


SEEDS = {
    "name": [b"sha256", b"hmac(sha256)", b"cbc(aes)", b"xts(aes)", b"cts(cbc(aes))",
             b"ctr(aes-generic)", b"ecb(des3_ede)", b"hmac(sha3-512)", b"xts(ecb(aes-generic))"],
    "cmsg": [cmsg(SOL_ALG, ALG_SET_OP, struct.pack("=I", 1)),
             cmsg(SOL_ALG, ALG_SET_OP, struct.pack("=I", 0)) +
             cmsg(SOL_ALG, ALG_SET_IV, struct.pack("=I", 16) + b"\1" * 16),
             cmsg(SOL_ALG, ALG_SET_AEAD_ASSOCLEN, struct.pack("=I", 8)),
             cmsg(1, 1, b"\0" * 4)],
    "netlink": [
        ANSWERS + nlmsg(GETALG, NLM_F_REQUEST, cru(b"sha256")),
        ANSWERS + nlmsg(GETALG, NLM_F_REQUEST | NLM_F_DUMP, cru()),
        ANSWERS + nlmsg(UPDATEALG, NLM_F_REQUEST | NLM_F_ACK,
                        cru(b"", b"cbc-aes-openssl") + nla(CRYPTOCFGA_PRIORITY_VAL, struct.pack("=I", 500))),
        ANSWERS + nlmsg(NEWALG, NLM_F_REQUEST | NLM_F_ACK, cru(b"cbc(aes)")) +
        nlmsg(DELALG, NLM_F_REQUEST | NLM_F_ACK, cru(b"", b"cbc(aes-openssl)")),
        ANSWERS + nlmsg(DELRNG, NLM_F_REQUEST | NLM_F_ACK) + nlmsg(GETSTAT, NLM_F_REQUEST, cru(b"sha1")),
        ANSWERS + nlmsg(UPDATEALG, NLM_F_REQUEST, cru(b"", b"x") + nla(CRYPTOCFGA_PRIORITY_VAL, b"\1\2")),
    ],
    "authenc": [
        b"\0" + authenc_key(b"k" * 20, b"K" * 16),
        b"\1" + authenc_key(b"k" * 20, b"K" * 32),
        b"\2" + authenc_key(b"k" * 32, b"K" * 24 + b"N" * 4),
        b"\3" + authenc_key(b"", b"K" * 16),
        b"\0" + authenc_key(b"k" * 100, b"K" * 15),
        b"\0" + struct.pack("=HH", 12, 1) + b"\0" * 8,
    ],
    "request": [
        seq((0, hello()), (0, bind("hash", "sha256")), (0, frame(ACCEPT)),
            (1, send(b"abc")), (1, recv(32))),
        seq((0, hello()), (0, bind("hash", "hmac(sha256)")), (0, setkey(b"k" * 32)),
            (0, frame(ACCEPT)), (1, send(b"abc", SEND_FIRST | SEND_LAST | SEND_MORE)),
            (1, frame(ACCEPT)), (1, recv(32))),
        seq((0, hello()), (0, bind("skcipher", "cbc(aes)")), (0, setkey(b"K" * 16)),
            (0, frame(ACCEPT)), (1, send(b"x" * 32, op=1, iv=b"\0" * 16)), (1, recv(32)),
            (1, frame(POLL))),
        seq((0, hello()), (0, bind("skcipher", "xts(aes)")), (0, frame(ACCEPT)),
            (0, setkey(bytes(range(64)))), (1, recv(16)), (1, frame(CANCEL))),
        seq((0, hello()), (0, key_add("k1", "uid:1000,gid:27", b"K" * 16)), (0, key_list()),
            (0, bind("skcipher", "cbc(aes)")), (0, by_name(b"k1")), (0, frame(ACCEPT)),
            (1, send(b"x" * 16, op=1, iv=b"\0" * 16)), (1, recv(16)), (0, key_del("k1"))),
        seq((0, hello()), (0, frame(UNKNOWN, b"cbc(aes)".ljust(64, b"\0") + b"\0" * 64))),
        seq((0, hello()), (0, bind("skcipher", "ctr(aes)")), (0, setkey(b"K" * 16)),
            (0, frame(ACCEPT)), (1, frame(SHM_SETUP)), (AREA, b"p" * 4096),
            (1, send_shm(0, 4096, op=1, iv=b"\0" * 16)), (AREA, b"q" * 64),
            (1, recv_shm(8192, 4096)), (1, frame(SHM_SETUP))),
        seq((0, hello()), (0, bind("hash", "sha256")), (0, frame(ACCEPT)),
            (1, frame(SHM_SETUP)), (AREA, b"abc"), (1, send_shm(0, 3)), (1, recv(32))),
        seq((0, hello()), (0, bind("aead", "gcm(aes)")), (0, setkey(b"K" * 16)),
            (0, frame(ACCEPT)), (1, frame(SHM_SETUP)), (AREA, b"a" * 48),
            (1, send_shm(0, 48, op=0, iv=b"\0" * 12)), (1, recv_shm(4096, 32, 32)),
            (1, recv_shm((1 << 64) - 8, 16))),
        # akcipher, kpp, compression (ualg(7), EXTENSIONS)
        seq((0, hello()), (0, bind("compression", "deflate")), (0, frame(ACCEPT)),
            (1, send(b"abc" * 40, SEND_FIRST | SEND_LAST | SEND_CTL | SEND_MORE, op=1)),
            (1, send(b"def")), (1, recv(64)), (1, recv(64))),
        seq((0, hello()), (0, bind("kpp", "ecdh-nist-p256")), (0, setkey(b"2".ljust(8, b"\0"), 8)),
            (0, setkey(b"")), (0, frame(ACCEPT)), (1, send(b"", SEND_FIRST | SEND_LAST | SEND_CTL, op=4)),
            (1, recv(64)), (1, send(b"\1" * 64, SEND_FIRST | SEND_LAST | SEND_CTL, op=5)), (1, recv(64))),
        seq((0, hello()), (0, bind("kpp", "dh")), (0, setkey(b"\x30\x06\x02\x01\x17\x02\x01\x02", 7)),
            (0, setkey(b"\5")), (0, frame(ACCEPT)), (1, send(b"", SEND_FIRST | SEND_LAST | SEND_CTL, op=4)),
            (1, recv(256))),
        seq((0, hello()), (0, bind("akcipher", "ecdsa-nist-p256")), (0, setkey(b"\4" + b"\1" * 64, 6)),
            (0, frame(ACCEPT)), (1, send(b"\x30\x06\x02\x01\x01\x02\x01\x01" + b"d" * 32,
                                         SEND_FIRST | SEND_LAST | SEND_CTL, op=3)), (1, recv(64))),
        seq((0, hello()), (0, frame(RFC_MODE)), (0, bind("hash", "hmac(sha256)")),
            (0, rfc_opt(0x7510, b"k" * 32)), (0, frame(RFC_LISTEN)), (0, frame(ACCEPT)),
            (1, rfc_write(b"abc", RFC_MORE)), (1, rfc_read(512)),
            (1, rfc_write(b"U" * 512, RFC_OOB)), (1, rfc_write(b"def")), (1, rfc_read(32))),
        seq((0, hello()), (0, frame(RFC_MODE)), (0, bind("skcipher", "cbc(aes)")),
            (0, rfc_opt(0x7511, b"K" * 16)), (0, frame(RFC_LISTEN)), (0, frame(ACCEPT)),
            (1, rfc_opt(0x7513, struct.pack("=i", 1))), (1, rfc_opt(0x7514, b"\0" * 16)),
            (1, rfc_write(b"x" * 40, RFC_MORE)), (1, rfc_read(16)), (1, rfc_write(b"y" * 8)),
            (1, rfc_read(64)), (1, frame(POLL))),
        seq((0, hello()), (0, frame(RFC_MODE)), (0, bind("aead", "ccm(aes)")),
            (0, rfc_opt(0x7512, b"K" * 16)), (0, frame(RFC_LISTEN)), (0, frame(ACCEPT)),
            (1, rfc_opt(0x7515, struct.pack("=i", 1))), (1, rfc_opt(0x7516, b"\1" + b"\0" * 15)),
            (1, rfc_write(b"p" * 24)), (0, frame(ACCEPT)), (1, rfc_write(b"a" * 32)),
            (1, rfc_read(8)), (1, frame(POLL))),
        seq((0, hello()), (0, frame(RFC_MODE)), (0, bind("compression", "deflate")),
            (0, frame(RFC_LISTEN)), (0, frame(ACCEPT)), (1, rfc_opt(0x7517, struct.pack("=i", 1))),
            (1, rfc_write(b"abc" * 40, RFC_MORE)), (1, rfc_write(b"def")), (1, rfc_write(b"g")),
            (1, frame(POLL)), (1, rfc_read(16)), (1, rfc_read(4096)),
            (1, rfc_opt(0x7517, struct.pack("=i", 0))), (1, rfc_write(b"\xff" * 9)), (1, rfc_read(64))),
    ],
}



def asym_seeds():
    """fuzz-asym: [variant][bytes] of valid keys, secrets and streams, from
    the self-test generator's sources (tools/gen-testvec-asym.py)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "gen", os.path.join(HERE, "..", "..", "tools", "gen-testvec-asym.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    v = gen.DEFAULT_VECTORS
    key, pub, _, _, _ = gen.rsa_vectors(v)
    point = gen.ecdsa_vectors(v)[0][0]
    dh_secret = gen.dh_vectors(v)[0][0]
    ecdh_secret = gen.ecdh_vectors(v, "EC", 32)[0][0]
    p_len, g_len = struct.unpack("<II", dh_secret[8:16])
    k_len = struct.unpack("<I", dh_secret[4:8])[0]
    p = dh_secret[16 + k_len:16 + k_len + p_len]
    g = dh_secret[16 + k_len + p_len:]
    pkcs3 = gen.der_seq(gen.der_int(int.from_bytes(p, "big")), gen.der_int(int.from_bytes(g, "big")))
    comp = gen.comp_vectors()
    streams = [comp["deflate"][0], comp["lz4"][0], comp["lzo"][0], comp["zstd"][0]]
    return ([bytes([0]) + key, bytes([1]) + pub, bytes([2]) + point, bytes([3]) + dh_secret,
             bytes([4]) + ecdh_secret, bytes([5]) + pkcs3] +
            [bytes([6 + i]) + st for i, st in enumerate(streams)])


SEEDS["asym"] = asym_seeds()


def msg_seeds():
    """fuzz-msg: a decoder's number (tests/fuzz/fuzz_msg.c), then a body."""
    def body(f):
        return f[HDR.size:]
    recv_body = struct.pack("=IIII", 0, 64, 64, 0)
    return [bytes([0]) + body(hello()),
            bytes([1]) + body(bind("skcipher", "cbc(aes)")),
            bytes([2]) + body(setkey(b"k" * 16)),
            bytes([3]) + body(send(b"abc", iv=b"i" * 16)),
            bytes([4]) + body(send_shm(0, 64)),
            bytes([5]) + recv_body,
            bytes([6]) + recv_body + struct.pack("=QQ", 0, 64),
            bytes([7]) + body(rfc_write(b"abc", RFC_MORE)),
            bytes([8]) + body(rfc_read(16)),
            bytes([12]) + body(key_add("k1", "uid:0", b"x" * 16)),
            bytes([13]) + body(key_del("k1")),
            bytes([14]) + body(key_list()),
            bytes([16]) + struct.pack("=14sHI", b"aead", 0, 9) + b"gcm(aes)\0",
            bytes([17]) + struct.pack("=II", 0, 16) + b"k" * 16]


# Op sockets sharing state, closed in turn: a clone of one that adopted a
# transform of its own, used after its source closed; ADOPT in parts.
SEEDS["request"] += [
    seq((0, hello()), (0, bind("hash", "sha256")), (0, frame(ACCEPT)), (1, frame(ENGINE)),
        (1, adopt(driver="sha256-openssl-ll")), (1, send(b"abc", SEND_FIRST | SEND_LAST | SEND_MORE)),
        (1, frame(ACCEPT)), (CLOSE, b""), (3, send(b"def")), (3, recv(32)), (CLOSE + 1, b"")),
    seq((0, hello()), (0, bind("skcipher", "cbc(aes)")), (0, setkey(b"K" * 16)), (0, frame(ACCEPT)),
        (1, adopt(ADOPT_PART, data=b"x" * 4000)), (1, adopt(state=1, data=b"y" * 16)),
        (1, frame(ACCEPT)), (3, send(b"x" * 16, op=1, iv=b"\0" * 16)), (CLOSE, b""), (3, recv(32))),
]
SEEDS["msg"] = msg_seeds()

for harness, seeds in SEEDS.items():
    d = os.path.join(HERE, "corpus", harness)
    os.makedirs(d, exist_ok=True)
    for i, s in enumerate(seeds):
        with open(os.path.join(d, f"seed-{i}"), "wb") as f:
            f.write(s)
