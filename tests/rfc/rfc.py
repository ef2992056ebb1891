#!/usr/bin/env python3
"""RFC mode: the 2010 mail's interface under `ualg-run --rfc`.
Run as `ualg-run --rfc python3 tests/rfc/rfc.py`.  Vectors: NIST CAVP CCM
(python3-cryptography-vectors, VADT128.rsp), RFC 3602 case 1 (cbc(aes)),
RFC 4231 case 2 (hmac(sha256)); digests of random data from Python's
hashlib/hmac, ciphertexts from the cryptography package, and compressed
streams from Python's zlib and the zstd CLI (real peers).
Prints TAP lines and 'N passed, N failed'."""
import errno, hashlib, hmac, os, socket, struct, subprocess, sys, tempfile, threading, zlib
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ualgtest import check, read_all, finish as finish_checks  # noqa: E402

ALG_HASH_SET_KEY, ALG_SKCIPHER_SET_KEY, ALG_AEAD_SET_KEY = 0x7510, 0x7511, 0x7512
ALG_SKCIPHER_OP, ALG_SKCIPHER_SET_IV, ALG_AEAD_OP, ALG_AEAD_SET_IV = 0x7513, 0x7514, 0x7515, 0x7516
ALG_COMPRESS_OP = 0x7517
ENC, DEC = 1, 0
COMPRESS, DECOMPRESS = 1, 0
STATE_LEN = 512


def err_of(f, *a, **kw):
    try:
        f(*a, **kw)
        return 0
    except OSError as e:
        return e.errno


def tfm(typ, name, key=None, keyopt=None, listen=True):
    s = socket.socket(socket.AF_ALG, socket.SOCK_STREAM, 0)
    s.bind((typ, name))
    if key is not None:
        s.setsockopt(socket.SOL_ALG, keyopt, key)
    if listen:
        s.listen(0)
    return s


def hash_tfm(name, key=None):
    return tfm("hash", name, key, ALG_HASH_SET_KEY)


def export(op, data):
    op.sendall(data, socket.MSG_MORE) if data else op.send(b"", socket.MSG_MORE)
    return read_all(op, STATE_LEN)


def finish(op, digestsize):
    op.send(b"", 0)
    return read_all(op, digestsize)


# ---- opting in -------------------------------------------------------------

def test_opt_in():
    env = {k: v for k, v in os.environ.items() if k != "UALG_RFC"}
    code = ("import socket,errno\n"
            "try: socket.socket(socket.AF_ALG, socket.SOCK_STREAM, 0); print('created')\n"
            "except OSError as e: print(errno.errorcode[e.errno])\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True).stdout
    check("without --rfc, socket(AF_ALG, SOCK_STREAM) is ESOCKTNOSUPPORT as on Linux 6.1",
          out.strip() == "ESOCKTNOSUPPORT", out)
    # Kernel-style sockets are unchanged in RFC mode.
    s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)
    s.bind(("hash", "sha256"))
    op, _ = s.accept()
    op.send(b"abc")
    check("under --rfc, SOCK_SEQPACKET sockets are the kernel's (sha256 of abc, accept without listen)",
          op.recv(32) == hashlib.sha256(b"abc").digest())
    check("under --rfc, listen() on a SOCK_SEQPACKET transform socket is EOPNOTSUPP",
          err_of(s.listen, 0) == errno.EOPNOTSUPP)


def test_errors():
    s = hash_tfm("sha256")
    t = socket.socket(socket.AF_ALG, socket.SOCK_STREAM, 0)
    t.bind(("hash", "sha256"))
    check("accept() before listen() is EINVAL", err_of(t.accept) == errno.EINVAL)
    u = socket.socket(socket.AF_ALG, socket.SOCK_STREAM, 0)
    check("listen() before bind() is EINVAL", err_of(u.listen, 0) == errno.EINVAL)
    check("RFC hash without an exporting driver (vmac64(aes)) is ENOENT",
          err_of(u.bind, ("hash", "vmac64(aes)")) == errno.ENOENT)
    c = socket.socket(socket.AF_ALG, socket.SOCK_STREAM, 0)
    c.bind(("skcipher", "cbc(aes)"))
    check("ALG_HASH_SET_KEY on a skcipher transform is ENOPROTOOPT",
          err_of(c.setsockopt, socket.SOL_ALG, ALG_HASH_SET_KEY, b"k" * 16) == errno.ENOPROTOOPT)
    c.setsockopt(socket.SOL_ALG, ALG_SKCIPHER_SET_KEY, b"k" * 16)
    c.listen(0)
    op, _ = c.accept()
    check("ALG_SKCIPHER_OP of 2 is EINVAL",
          err_of(op.setsockopt, socket.SOL_ALG, ALG_SKCIPHER_OP, struct.pack("i", 2)) == errno.EINVAL)
    check("ALG_SKCIPHER_SET_IV of 15 bytes on cbc(aes) is EINVAL",
          err_of(op.setsockopt, socket.SOL_ALG, ALG_SKCIPHER_SET_IV, b"i" * 15) == errno.EINVAL)
    check("ALG_AEAD_OP on a skcipher op fd is ENOPROTOOPT",
          err_of(op.setsockopt, socket.SOL_ALG, ALG_AEAD_OP, struct.pack("i", 1)) == errno.ENOPROTOOPT)
    check("MSG_OOB on a skcipher op fd is EOPNOTSUPP",
          err_of(op.send, b"x" * 16, socket.MSG_OOB) == errno.EOPNOTSUPP)
    op.send(b"x" * 16, socket.MSG_MORE)
    check("ALG_SKCIPHER_SET_IV while data waits is EBUSY",
          err_of(op.setsockopt, socket.SOL_ALG, ALG_SKCIPHER_SET_IV, b"i" * 16) == errno.EBUSY)
    check("setkey with an op fd open is EBUSY",
          err_of(c.setsockopt, socket.SOL_ALG, ALG_SKCIPHER_SET_KEY, b"k" * 16) == errno.EBUSY)
    k = tfm("hash", "hmac(sha256)", listen=False)
    k.listen(0)
    kop, _ = k.accept()
    check("an RFC hmac op fd before a key: ENOKEY", err_of(kop.send, b"x") == errno.ENOKEY)
    op2, _ = s.accept()
    op2.setblocking(False)
    check("a read with nothing to give on a non-blocking op fd is EAGAIN",
          err_of(op2.recv, 10) == errno.EAGAIN)
    n = 0
    while n < 5000 and not err_of(op2.send, b"m"):
        n += 1
    first = op2.recv(32)
    check("unread digests stop at 64 KiB (2048 of sha256): then a hash write is EAGAIN, a read frees it",
          n == 2048 and first == hashlib.sha256(b"m").digest() and not err_of(op2.send, b"m"), str(n))


# ---- hash states -------------------------------------------------------------

def test_hash_basics():
    op, _ = hash_tfm("sha256").accept()
    st = export(op, b"abc")
    check("a read after send(MSG_MORE) gives a 512-byte state", len(st) == STATE_LEN)
    op.send(b"def")
    check("reading the state does not finish the hash", op.recv(32) == hashlib.sha256(b"abcdef").digest())
    k = hash_tfm("hmac(sha256)", b"Jefe")
    a, _ = k.accept()
    st = export(a, b"what do ya ")
    b, _ = k.accept()
    b.send(st, socket.MSG_OOB)
    b.send(b"want for nothing?")
    check("hmac(sha256) state moved to another op fd: RFC 4231 case 2",
          b.recv(32).hex() == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    k2 = hash_tfm("hmac(sha256)", b"Jefe")
    c, _ = k2.accept()
    c.send(st, socket.MSG_OOB)
    c.send(b"want for nothing?")
    check("... and to an op fd of another transform with the same key",
          c.recv(32) == hmac.new(b"Jefe", b"what do ya want for nothing?", "sha256").digest())
    x, _ = hash_tfm("xcbc(aes)", bytes(range(16))).accept()
    st = export(x, bytes(range(10)))
    y, _ = hash_tfm("xcbc(aes)", bytes(range(16))).accept()
    y.send(st, socket.MSG_OOB)
    y.send(bytes(range(10, 34)))
    check("xcbc(aes) state handed over mid-block: RFC 3566 case 6",
          y.recv(16).hex() == "becbb3bccdb518a30677d5481fb6b4d8")
    check("the test's own AES-XCBC-MAC (cryptography's AES) gives RFC 3566 cases 1, 4 and 6",
          xcbc_aes(bytes(range(16)), b"").hex() == "75f0251d528ac01c4573dfd584d79f29" and
          xcbc_aes(bytes(range(16)), bytes(range(32))).hex() == "f54f0ec8d2b9f3d36807734bd5283fd4" and
          xcbc_aes(bytes(range(16)), bytes(range(34))).hex() == "becbb3bccdb518a30677d5481fb6b4d8")
    m, _ = hash_tfm("cmac(aes)", bytes(16)).accept()
    st = export(m, b"")
    check("cmac(aes) exports a state before any data", len(st) == STATE_LEN)


def xcbc_aes(key, data):
    """AES-XCBC-MAC-128 (RFC 3566) with the cryptography package: the chain
    over all but the last block is AES-CBC under K1 with a zero IV."""
    ecb = lambda k, b: Cipher(algorithms.AES(k), modes.ECB()).encryptor().update(b)
    k1, k2, k3 = (ecb(key, bytes([i]) * 16) for i in (1, 2, 3))
    n = max(1, (len(data) + 15) // 16)
    head, last = data[:16 * (n - 1)], data[16 * (n - 1):]
    e = Cipher(algorithms.AES(k1), modes.CBC(bytes(16))).encryptor().update(head)[-16:] if head else bytes(16)
    if len(last) == 16:
        last, k = last, k2
    else:
        last, k = last + b"\x80" + bytes(15 - len(last)), k3
    return ecb(k1, bytes(a ^ b ^ c for a, b, c in zip(last, e, k)))


def test_handover():
    """10 MiB in three pieces, three processes, each its own sockets."""
    data = os.urandom(10 << 20)
    dbg = lambda *a: print("#", *a, file=sys.stderr, flush=True) if os.environ.get("RFC_DEBUG") else None
    fd, path = tempfile.mkstemp()
    os.write(fd, data)
    os.close(fd)
    cuts = [0, 3 << 20, 7 << 20, 10 << 20]
    for name, key, ds in (("sha256", None, 32), ("hmac(sha512)", b"\x0b" * 20, 64),
                          ("xcbc(aes)", bytes(range(16)), 16)):
        state = b""
        for i in range(3):
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(r)
                code = 1
                try:
                    op, _ = hash_tfm(name, key).accept()
                    dbg("child", i, name)
                    if state:
                        op.send(state, socket.MSG_OOB)
                    with open(path, "rb") as f:
                        f.seek(cuts[i])
                        left = cuts[i + 1] - cuts[i]
                        while left:
                            chunk = f.read(min(left, 1 << 20))
                            op.sendall(chunk, socket.MSG_MORE)
                            left -= len(chunk)
                    out = read_all(op, STATE_LEN) if i < 2 else finish(op, ds)
                    dbg("child out", i, len(out))
                    os.write(w, out)
                    code = 0
                finally:
                    os._exit(code)
            os.close(w)
            out = b""
            while True:
                b = os.read(r, 4096)
                if not b:
                    break
                out += b
            os.close(r)
            _, status = os.waitpid(pid, 0)
            state = out
        if name == "sha256":
            want = hashlib.sha256(data).digest()
        elif name.startswith("hmac"):
            want = hmac.new(key, data, "sha512").digest()
        else:
            want = xcbc_aes(key, data)
        check(f"{name}: 10 MiB in 3 pieces over 3 processes handing the state on = the digest computed apart",
              state == want and status == 0, state.hex())
    os.unlink(path)


def sha256_compress(h, block):
    K = [int(x, 16) for x in (
        "428a2f98 71374491 b5c0fbcf e9b5dba5 3956c25b 59f111f1 923f82a4 ab1c5ed5 d807aa98 12835b01 "
        "243185be 550c7dc3 72be5d74 80deb1fe 9bdc06a7 c19bf174 e49b69c1 efbe4786 0fc19dc6 240ca1cc "
        "2de92c6f 4a7484aa 5cb0a9dc 76f988da 983e5152 a831c66d b00327c8 bf597fc7 c6e00bf3 d5a79147 "
        "06ca6351 14292967 27b70a85 2e1b2138 4d2c6dfc 53380d13 650a7354 766a0abb 81c2c92e 92722c85 "
        "a2bfe8a1 a81a664b c24b8b70 c76c51a3 d192e819 d6990624 f40e3585 106aa070 19a4c116 1e376c08 "
        "2748774c 34b0bcb5 391c0cb3 4ed8aa4a 5b9cca4f 682e6ff3 748f82ee 78a5636f 84c87814 8cc70208 "
        "90befffa a4506ceb bef9a3f7 c67178f2").split()]
    rot = lambda x, n: ((x >> n) | (x << (32 - n))) & 0xffffffff
    w = list(struct.unpack(">16I", block))
    for i in range(16, 64):
        s0 = rot(w[i - 15], 7) ^ rot(w[i - 15], 18) ^ (w[i - 15] >> 3)
        s1 = rot(w[i - 2], 17) ^ rot(w[i - 2], 19) ^ (w[i - 2] >> 10)
        w.append((w[i - 16] + s0 + w[i - 7] + s1) & 0xffffffff)
    a, b, c, d, e, f, g, hh = h
    for i in range(64):
        t1 = (hh + (rot(e, 6) ^ rot(e, 11) ^ rot(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) & 0xffffffff
        t2 = ((rot(a, 2) ^ rot(a, 13) ^ rot(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) & 0xffffffff
        a, b, c, d, e, f, g, hh = (t1 + t2) & 0xffffffff, a, b, c, (d + t1) & 0xffffffff, e, f, g
    return [(x + y) & 0xffffffff for x, y in zip(h, (a, b, c, d, e, f, g, hh))]


def test_blob_secrecy():
    H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
    # The compression function checks itself: one block of "abc" padding.
    pad = b"abc" + b"\x80" + bytes(52) + struct.pack(">Q", 24)
    ok = struct.pack(">8I", *sha256_compress(H0, pad)) == hashlib.sha256(b"abc").digest()
    key1, key2 = bytes([0xa5] * 16) + b"key-one!", bytes([0xa5] * 16) + b"key-two!"
    blobs = []
    for key in (key1, key2, key1):
        op, _ = hash_tfm("hmac(sha256)", key).accept()
        blobs.append(export(op, b"the same message"))
    secrets = []
    for key in (key1, key2):
        k = key.ljust(64, b"\0")
        for x in (0x36, 0x5c):
            padded = bytes(c ^ x for c in k)
            st = sha256_compress(H0, padded)
            secrets += [padded, struct.pack("<8I", *st), struct.pack(">8I", *st)]
            secrets += [struct.pack("<I", v) + struct.pack("<I", st[i + 1]) for i, v in enumerate(st[:-1])]
        secrets += [key, key[16:]]
    leaks = [s.hex() for s in secrets for b in blobs if s in b]
    check("no blob holds a key, its ipad/opad blocks or their SHA-256 states (either byte order)",
          ok and not leaks, ",".join(leaks[:3]))
    common = {blobs[0][i:i + 8] for i in range(12, STATE_LEN - 8)} & \
             {blobs[1][i:i + 8] for i in range(12, STATE_LEN - 8)}
    check("blobs of one message under two keys share no 8 bytes past the header", not common)
    check("two exports of the same key and message differ (fresh nonce)", blobs[0] != blobs[2])


def test_blob_rejected():
    key = b"k" * 32
    a, _ = hash_tfm("hmac(sha256)", key).accept()
    st = export(a, b"hello ")
    op, _ = hash_tfm("hmac(sha256)", key).accept()
    cases = [
        ("a byte of the sealed state flipped", bytes([st[0]]) + st[1:100] + bytes([st[100] ^ 1]) + st[101:], errno.EBADMSG),
        ("the tag flipped", st[:-1] + bytes([st[-1] ^ 0x80]), errno.EBADMSG),
        ("the nonce changed", st[:14] + bytes([st[14] ^ 1]) + st[15:], errno.EBADMSG),
        ("version 2", st[:4] + b"\x02" + st[5:], errno.EBADMSG),
        ("the magic changed", b"XAHS" + st[4:], errno.EBADMSG),
        ("truncated to 511 bytes", st[:-1], errno.EINVAL),
        ("one byte longer", st + b"\0", errno.EINVAL),
        ("empty", b"", errno.EINVAL),
        ("512 random bytes behind the right header", st[:20] + os.urandom(STATE_LEN - 20), errno.EBADMSG),
    ]
    for what, blob, want in cases:
        e = err_of(op.send, blob, socket.MSG_OOB)
        check(f"state {what}: {errno.errorcode[want]}", e == want, errno.errorcode.get(e, e))
    other, _ = hash_tfm("hmac(sha256)", b"K" * 32).accept()
    check("a state replayed on a transform with another key of the same length: EBADMSG",
          err_of(other.send, st, socket.MSG_OOB) == errno.EBADMSG)
    plain, _ = hash_tfm("sha256").accept()
    check("an hmac(sha256) state on sha256: EBADMSG", err_of(plain.send, st, socket.MSG_OOB) == errno.EBADMSG)
    s256 = export(hash_tfm("sha256").accept()[0], b"x")
    s224, _ = hash_tfm("sha224").accept()
    check("a sha256 state on sha224 (same state size): EBADMSG",
          err_of(s224.send, s256, socket.MSG_OOB) == errno.EBADMSG)
    op.send(b"hello world")
    check("after rejected states the op fd still hashes right",
          op.recv(32) == hmac.new(key, b"hello world", "sha256").digest())
    op.send(st, socket.MSG_OOB)
    op.send(b"world")
    check("... and the genuine state still restores",
          op.recv(32) == hmac.new(key, b"hello world", "sha256").digest())


# ---- ciphers -------------------------------------------------------------------

def cbc_op(key, iv, enc=True):
    op, _ = tfm("skcipher", "cbc(aes)", key, ALG_SKCIPHER_SET_KEY).accept()
    op.setsockopt(socket.SOL_ALG, ALG_SKCIPHER_OP, struct.pack("i", ENC if enc else DEC))
    op.setsockopt(socket.SOL_ALG, ALG_SKCIPHER_SET_IV, iv)
    return op


def test_skcipher():
    K = bytes.fromhex("06a9214036b8a15b512e03d534120006")
    IV = bytes.fromhex("3dafba429d9eb430b422da802c9fac41")
    op = cbc_op(K, IV)
    op.send(b"Single block msg")
    check("cbc(aes) encryption: RFC 3602 case 1", op.recv(16).hex() == "e353779c1079aeb82708942dbe77181a")
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    data = os.urandom(4096)
    want = Cipher(algorithms.AES(K), modes.CBC(IV)).encryptor().update(data)
    op = cbc_op(K, IV)
    op.send(data[:1000], socket.MSG_MORE)
    first = op.recv(4096)
    op.send(data[1000:])
    rest = b""
    while len(first) + len(rest) < 4096:
        rest += op.recv(7)
    check("stream semantics: whole blocks as they come (992 of 1000 bytes), then 7-byte reads",
          len(first) == 992 and first + rest == want)
    dec = cbc_op(K, IV, enc=False)
    dec.send(want)
    check("cbc(aes) decryption of 4 KiB", read_all(dec, 4096) == data)


def test_blocking():
    K, IV = b"\x01" * 16, b"\x02" * 16
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    data = os.urandom(1 << 20)
    want = Cipher(algorithms.AES(K), modes.CBC(IV)).encryptor().update(data)
    op = cbc_op(K, IV)
    op.setblocking(False)
    n = op.send(data)
    e = err_of(op.send, data[n:])
    check("a non-blocking 1 MiB write takes what fits (212992 bytes), then EAGAIN",
          n == 212992 and e == errno.EAGAIN, f"{n} {e}")
    op = cbc_op(K, IV)
    out = []
    def reader():
        got = 0
        while got < len(data):
            b = op.recv(65536)
            out.append(b)
            got += len(b)
    t = threading.Thread(target=reader)
    t.start()
    op.sendall(data)	# blocks until the reader has taken the rest
    t.join()
    check("a blocked 1 MiB writer is relieved by a reader thread; output = cryptography's CBC",
          b"".join(out) == want)
    import select
    p = select.poll()
    op2 = cbc_op(K, IV)
    p.register(op2.fileno(), select.POLLIN | select.POLLOUT)
    before = dict(p.poll(0)).get(op2.fileno(), 0)
    op2.send(b"x" * 16)
    after = dict(p.poll(0)).get(op2.fileno(), 0)
    check("poll: POLLOUT only when empty, POLLIN once a block is ready",
          before == select.POLLOUT and after & select.POLLIN)


# ---- aead ----------------------------------------------------------------------

def cavp_ccm():
    path = "/usr/lib/python3/dist-packages/cryptography_vectors/ciphers/AES/CCM/VADT128.rsp"
    vec, out = {}, []
    for line in open(path):
        line = line.strip().strip("[]")	# "[Alen = 32]" opens a section
        if " = " in line:
            k, v = line.split(" = ")
            vec[k] = v
            if k == "CT" and "Key" in vec:
                out.append(dict(vec))
    return out


def ccm(key, enc, authsize=16):
    t = tfm("aead", "ccm(aes)", key, ALG_AEAD_SET_KEY, listen=False)
    t.setsockopt(socket.SOL_ALG, socket.ALG_SET_AEAD_AUTHSIZE, None, authsize)
    t.listen(0)
    op, _ = t.accept()
    ad, _ = t.accept()
    op.setsockopt(socket.SOL_ALG, ALG_AEAD_OP, struct.pack("i", ENC if enc else DEC))
    return t, op, ad


def test_aead():
    vecs = [v for v in cavp_ccm() if v["Count"] in ("0", "100", "320", "329")]
    good = 0
    for v in vecs:
        key, nonce = bytes.fromhex(v["Key"]), bytes.fromhex(v["Nonce"])
        iv = bytes([15 - len(nonce) - 1]) + nonce + bytes(16 - 1 - len(nonce))
        p, c = bytes.fromhex(v["Payload"]), bytes.fromhex(v["CT"])
        _, op, ad = ccm(key, True)
        op.setsockopt(socket.SOL_ALG, ALG_AEAD_SET_IV, iv)
        a = bytes.fromhex(v["Adata"]) if v["Alen"] != "0" else b""	# "00" stands for none
        op.send(p)
        if a:
            ad.send(a)
        enc = read_all(op, len(c))
        op.setsockopt(socket.SOL_ALG, ALG_AEAD_OP, struct.pack("i", DEC))
        op.send(c)
        if a:
            ad.send(a)
        good += enc == c and read_all(op, len(p)) == p
    check(f"ccm(aes): {len(vecs)} NIST CAVP VADT128 vectors encrypt and decrypt (text on opfd, AD on adfd)",
          good == len(vecs) == 4, f"{good}")
    v = vecs[2]
    key, nonce = bytes.fromhex(v["Key"]), bytes.fromhex(v["Nonce"])
    iv = b"\x01" + nonce + b"\0\0"
    c, a = bytes.fromhex(v["CT"]), bytes.fromhex(v["Adata"])
    _, op, ad = ccm(key, False)
    op.setsockopt(socket.SOL_ALG, ALG_AEAD_SET_IV, iv)
    op.send(c[:-1] + bytes([c[-1] ^ 1]))
    ad.send(a)
    e = err_of(op.recv, 64)
    op.setblocking(False)
    check("a flipped tag: EBADMSG, and no plaintext follows", e == errno.EBADMSG and err_of(op.recv, 64) == errno.EAGAIN)
    op.setblocking(True)
    op.send(c[:10])
    check("decryption input shorter than the tag: EINVAL", err_of(op.recv, 64) == errno.EINVAL)
    check("a read on the AD fd: EINVAL", err_of(ad.recv, 1) == errno.EINVAL)
    # splice() into both fds.
    op.send(b"")
    r1, w1 = os.pipe()
    r2, w2 = os.pipe()
    os.write(w1, c)
    os.write(w2, a)
    n1 = os.splice(r1, op.fileno(), len(c))
    n2 = os.splice(r2, ad.fileno(), len(a))
    check("splice into opfd and adfd, then a read decrypts: the CAVP plaintext",
          n1 == len(c) and n2 == len(a) and read_all(op, 24) == bytes.fromhex(v["Payload"]))
    _, op8, ad8 = ccm(key, True, authsize=8)
    op8.setsockopt(socket.SOL_ALG, ALG_AEAD_SET_IV, iv)
    op8.send(bytes.fromhex(v["Payload"]))
    ad8.send(a)
    from cryptography.hazmat.primitives.ciphers.aead import AESCCM
    check("ALG_SET_AEAD_AUTHSIZE 8 on the transform: ciphertext || 8-byte tag as cryptography's AESCCM",
          read_all(op8, 32) == AESCCM(key, tag_length=8).encrypt(nonce, bytes.fromhex(v["Payload"]), a))
    _, opa, ada = ccm(key, True)
    opa.setsockopt(socket.SOL_ALG, ALG_AEAD_SET_IV, iv)
    ada.send(a)
    check("associated data only (no text): the tag alone, as AESCCM",
          read_all(opa, 16) == AESCCM(key).encrypt(nonce, b"", a))


def test_exec_and_type():
    t = hash_tfm("sha256")
    op, _ = t.accept()
    check("SO_TYPE of an RFC transform socket and op fd: SOCK_STREAM",
          t.getsockopt(socket.SOL_SOCKET, socket.SO_TYPE) == socket.SOCK_STREAM ==
          op.getsockopt(socket.SOL_SOCKET, socket.SO_TYPE))
    op.send(b"abc", socket.MSG_MORE)
    code = ("import socket, sys\n"
            "s = socket.socket(socket.AF_ALG, socket.SOCK_STREAM, 0, int(sys.argv[1]))\n"
            "s.send(b'def')\n"
            "t = s.getsockopt(socket.SOL_SOCKET, socket.SO_TYPE)\n"
            "print(t == socket.SOCK_STREAM, s.recv(32).hex())\n")
    env = {k: v for k, v in os.environ.items() if k != "UALG_RFC"}
    out = subprocess.run([sys.executable, "-c", code, str(op.fileno())], pass_fds=(op.fileno(),),
                         env=env, capture_output=True, text=True)
    check("an RFC op fd inherited across execve (by a program that did not opt in) stays one: "
          "it finishes the hash begun before the exec",
          out.stdout.split() == ["True", hashlib.sha256(b"abcdef").hexdigest()], out.stdout + out.stderr)


# ---- op and IV through sendmsg cmsgs ---------------------------------------------

def test_cmsgs():
    K = bytes.fromhex("06a9214036b8a15b512e03d534120006")
    IV = bytes.fromhex("3dafba429d9eb430b422da802c9fac41")
    op, _ = tfm("skcipher", "cbc(aes)", K, ALG_SKCIPHER_SET_KEY).accept()
    op.sendmsg_afalg([b"Single block msg"], op=ENC, iv=IV)
    ct = op.recv(16)
    check("cbc(aes) with ALG_SET_OP and ALG_SET_IV as cmsgs: RFC 3602 case 1",
          ct.hex() == "e353779c1079aeb82708942dbe77181a", ct.hex())
    op.sendmsg_afalg([ct], op=DEC, iv=IV)
    check("... and decrypted on the same op fd by cmsgs", op.recv(16) == b"Single block msg")
    e = err_of(op.sendmsg_afalg, [ct], op=ENC, iv=IV[:15])
    check("a cmsg IV of 15 bytes on cbc(aes): EINVAL", e == errno.EINVAL, errno.errorcode.get(e, e))
    e = err_of(op.sendmsg_afalg, [ct], op=2, iv=bytes(16))
    op.send(ct)
    # The IV chained to ct: decrypting ct again gives D(ct) ^ ct, where
    # D(ct) = plaintext ^ IV; a zero IV taken from the refused cmsg would
    # give D(ct) itself.
    want = bytes(p ^ i ^ c for p, i, c in zip(b"Single block msg", IV, ct))
    check("a cmsg op of 2: EINVAL, and neither its IV nor op is taken (the IV chains on)",
          e == errno.EINVAL and op.recv(16) == want, errno.errorcode.get(e, e))
    op.send(b"x" * 16, socket.MSG_MORE)
    e = err_of(op.sendmsg_afalg, [b"y" * 16], op=ENC)
    check("a cmsg while data waits: EBUSY", e == errno.EBUSY, errno.errorcode.get(e, e))
    e = err_of(op.sendmsg, [b"z"], [(socket.SOL_ALG, 99, b"\0" * 4)])
    check("an unknown SOL_ALG cmsg: EINVAL, as af_alg_cmsg_send()", e == errno.EINVAL,
          errno.errorcode.get(e, e))
    h, _ = hash_tfm("sha256").accept()
    h.sendmsg_afalg([b"abc"], op=ENC, iv=b"whatever")
    check("a hash op fd ignores cmsgs, as algif_hash does", h.recv(32) == hashlib.sha256(b"abc").digest())
    v = [v for v in cavp_ccm() if v["Count"] == "320"][0]
    key, nonce = bytes.fromhex(v["Key"]), bytes.fromhex(v["Nonce"])
    iv = bytes([15 - len(nonce) - 1]) + nonce + bytes(16 - 1 - len(nonce))
    _, aop, ad = ccm(key, False)
    ad.send(bytes.fromhex(v["Adata"]))
    aop.sendmsg_afalg([bytes.fromhex(v["Payload"])], op=ENC, iv=iv)
    check("ccm(aes) with op and IV as cmsgs on opfd, AD on adfd: CAVP VADT128 count 320",
          read_all(aop, len(v["CT"]) // 2).hex() == v["CT"])


# ---- compression -------------------------------------------------------------------

TEXT = b"".join(b"line %d of a text that repeats itself, as text does\n" % (i % 97) for i in range(3000))


def comp_op(alg, mode):
    op, _ = tfm("compression", alg).accept()
    op.setsockopt(socket.SOL_ALG, ALG_COMPRESS_OP, struct.pack("i", mode))
    return op


def drain(op, piece=1000):
    """The output of one message: the first read runs it (and may fail),
    the rest is there at once: read in pieces until EAGAIN."""
    out = op.recv(piece)
    op.setblocking(False)
    try:
        while True:
            out += op.recv(piece)
    except BlockingIOError:
        return out
    finally:
        op.setblocking(True)


def comp_run(op, data, parts=3, piece=1000):
    """data in parts (MSG_MORE but for the last), output read in pieces;
    (output, errno or 0)."""
    step = max(1, -(-len(data) // parts))
    chunks = [data[i:i + step] for i in range(0, len(data), step)] or [b""]
    try:
        for i, c in enumerate(chunks):
            op.sendall(c, socket.MSG_MORE if i < len(chunks) - 1 else 0)
        return drain(op, piece), 0
    except OSError as e:
        return b"", e.errno


def zstd_cli(args, data):
    return subprocess.run(["zstd", "-q", "-c"] + args, input=data, stdout=subprocess.PIPE,
                          check=True).stdout


def test_compression():
    out, e = comp_run(comp_op("deflate", COMPRESS), TEXT)
    check("deflate: our stream (3 writes, 1000-byte reads) inflates with Python's zlib (raw, wbits -15)",
          not e and len(out) < len(TEXT) // 4 and zlib.decompress(out, -15) == TEXT, f"{e} {len(out)}")
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    peer = c.compress(TEXT) + c.flush()
    out, e = comp_run(comp_op("deflate", DECOMPRESS), peer, parts=5)
    check("deflate: Python zlib's raw stream decompresses to its input", not e and out == TEXT, str(e))
    out, e = comp_run(comp_op("zstd", DECOMPRESS), zstd_cli(["-19"], TEXT))
    check("zstd: the zstd CLI's frame decompresses to its input", not e and out == TEXT, str(e))
    out, e = comp_run(comp_op("zstd", COMPRESS), TEXT)
    check("zstd: our frame decompresses with the zstd CLI", not e and zstd_cli(["-d"], out) == TEXT, str(e))
    op, _ = tfm("compression", "deflate").accept()
    op.sendmsg_afalg([TEXT], op=COMPRESS)
    out = drain(op)
    check("the op as an ALG_SET_OP cmsg (compress), as the mail allows",
          zlib.decompress(out, -15) == TEXT)
    op.sendmsg_afalg([out], op=DECOMPRESS)
    check("... then decompress on the same op fd by cmsg", drain(op) == TEXT)
    check("an ALG_SET_IV cmsg with an IV on a compression op fd: EINVAL",
          err_of(op.sendmsg_afalg, [out], op=DECOMPRESS, iv=b"1234") == errno.EINVAL)
    corrupt = bytearray(peer)
    corrupt[len(corrupt) // 2] ^= 0xff
    op = comp_op("deflate", DECOMPRESS)
    out, e = comp_run(op, bytes(corrupt) + b"\xff" * 64)
    op.setblocking(False)
    check("a corrupt deflate stream: EBADMSG, and no output follows",
          e == errno.EBADMSG and err_of(op.recv, 100) == errno.EAGAIN, errno.errorcode.get(e, e))
    op.setblocking(True)
    out, e = comp_run(op, peer)
    check("... and the op fd decompresses the next message", not e and out == TEXT)
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    bomb = c.compress(bytes(64 << 20)) + c.flush()
    op = comp_op("deflate", DECOMPRESS)
    out, e = comp_run(op, bomb)
    check(f"a {len(bomb) // 1024} KiB deflate bomb of 64 MiB: EFBIG, no output",
          e == errno.EFBIG and not out, errno.errorcode.get(e, e))
    bomb = zstd_cli(["-19"], bytes(8 << 20))
    out, e = comp_run(comp_op("zstd", DECOMPRESS), bomb)
    check(f"a {len(bomb)}-byte zstd frame of 8 MiB: EFBIG", e == errno.EFBIG, errno.errorcode.get(e, e))
    import select
    op = comp_op("deflate", COMPRESS)
    p = select.poll()
    p.register(op.fileno(), select.POLLIN | select.POLLOUT)
    before = dict(p.poll(0)).get(op.fileno(), 0)
    op.send(b"first message")
    ended = dict(p.poll(0)).get(op.fileno(), 0)
    op.setblocking(False)
    e = err_of(op.send, b"second message")
    op.setblocking(True)
    first = drain(op)
    op.send(b"second message")
    second = drain(op)
    check("one message at a time: POLLOUT, then POLLIN alone once it ended; a write waits (EAGAIN) "
          "until the read, then the next message is its own",
          before == select.POLLOUT and ended == select.POLLIN and e == errno.EAGAIN and
          zlib.decompress(first, -15) == b"first message" and zlib.decompress(second, -15) == b"second message",
          f"{before} {ended} {e}")
    s, _ = tfm("skcipher", "cbc(aes)", b"k" * 16, ALG_SKCIPHER_SET_KEY).accept()
    check("ALG_COMPRESS_OP on a skcipher op fd: ENOPROTOOPT",
          err_of(s.setsockopt, socket.SOL_ALG, ALG_COMPRESS_OP, struct.pack("i", 1)) == errno.ENOPROTOOPT)
    op = comp_op("lz4", COMPRESS)
    op.send(b"q" * 100, socket.MSG_MORE)
    check("ALG_COMPRESS_OP while data waits: EBUSY",
          err_of(op.setsockopt, socket.SOL_ALG, ALG_COMPRESS_OP, struct.pack("i", 0)) == errno.EBUSY)
    op = comp_op("lzo", COMPRESS)
    op.setblocking(False)
    n = op.send(bytes(1 << 20), socket.MSG_MORE)
    check("a message larger than the buffer: a non-blocking write takes 212992 bytes, then EAGAIN",
          n == 212992 and err_of(op.send, b"x") == errno.EAGAIN, str(n))
    for alg in ("lz4", "lzo"):
        out, e = comp_run(comp_op(alg, COMPRESS), TEXT)
        back, e2 = comp_run(comp_op(alg, DECOMPRESS), out)
        check(f"{alg}: what it compresses decompresses to the input (peers: tests/real/compress.py)",
              not e and not e2 and len(out) < len(TEXT) and back == TEXT, f"{e} {e2}")


for t in (test_opt_in, test_errors, test_hash_basics, test_blob_rejected, test_blob_secrecy,
          test_skcipher, test_blocking, test_aead, test_exec_and_type, test_cmsgs, test_compression, test_handover):
    try:
        t()
    except Exception as e:
        import traceback
        traceback.print_exc()
        check(f"{t.__name__} ran to the end", False, repr(e))
finish_checks()
