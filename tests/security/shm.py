#!/usr/bin/env python3
"""The shim's payload area (UALG_MSG_SHM_SETUP, SEND_SHM, RECV_SHM in
src/proto/proto.h) against a hostile client, then through the shim itself.

Part 1 talks the wire protocol directly: bad offsets and wrapping lengths,
the area missing, the area rewritten by a thread while algd works on it,
input changed after a send, AEAD decryption with a bad tag (nothing may
reach the area), writes outside the named output range.  Part 2 (run
under ualg-run) sends large buffers, splices and forks through AF_ALG.
Expected values: NIST SP 800-38A F.5.1 (CTR-AES128), Python's hashlib and
the cryptography package (OpenSSL) as reference peers.  Prints TAP and
'N passed, N failed'."""
import fcntl
import hashlib
import mmap
import os
import socket
import struct
import sys
import threading
import time

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
# alg: an AF_ALG socket through the shim (tfm below speaks the frame protocol).
from ualgtest import check, finish, numbered, read_all, tfm as alg  # noqa: E402

PATH = os.environ["UALG_SOCKET"]
HDR = struct.Struct("=IHHiI")
HELLO, BIND, SETSOCKOPT, ACCEPT, SEND, RECV = 1, 2, 3, 4, 5, 6
SHM_SETUP, SEND_SHM, RECV_SHM = 66, 67, 68
S_MORE, S_FIRST, S_LAST, S_CTL, S_IV = 0x01, 0x04, 0x08, 0x10, 0x20
SOL_ALG, ALG_SET_KEY = 279, 1
F_GET_SEALS = 1034
F_SEAL_SEAL, F_SEAL_SHRINK, F_SEAL_GROW = 1, 2, 4
EBUSY, EOPNOTSUPP, EBADMSG = 16, 95, 74
AREA = 1 << 20
UALG_DATA_MAX = 60 * 1024
numbered()

# NIST SP 800-38A F.5.1, CTR-AES128.Encrypt
CTR_KEY = bytes.fromhex("2b7e151628aed2a6abf7158809cf4f3c")
CTR_IV = bytes.fromhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
CTR_PT = bytes.fromhex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
                       "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710")
CTR_CT = bytes.fromhex("874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
                       "5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee")


def frame(typ, body=b""):
    return HDR.pack(HDR.size + len(body), typ, 0, 0, 0) + body


def connect():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(10)
    s.connect(PATH)
    s.send(frame(HELLO, struct.pack("=IHH", 0x55414C47, 1, 1)))
    assert HDR.unpack(s.recv(64)[:HDR.size])[3] == 1
    return s


def call(s, typ, body=b""):
    """One request; returns (result, data)."""
    s.send(frame(typ, body))
    r = s.recv(70000)
    h = HDR.unpack(r[:HDR.size])
    assert h[1] == typ, h
    return h[3], r[HDR.size:]


def tfm(typ, name, key=None):
    t = connect()
    n = name.encode() + b"\0"
    assert call(t, BIND, struct.pack("=14sHIII", typ.encode(), 0, 0, 0, len(n)) + n)[0] == 0
    if key:
        assert call(t, SETSOCKOPT, struct.pack("=iiIIII", SOL_ALG, ALG_SET_KEY, len(key), 0, len(key), 0) + key)[0] == 0
    return t


def accept(t):
    t.send(frame(ACCEPT))
    _, fds, _, _ = socket.recv_fds(t, 64, 1)
    op = socket.socket(fileno=fds[0])
    op.settimeout(10)
    return op


def setup(op):
    """SHM_SETUP: (result, size, fd or None)."""
    op.send(frame(SHM_SETUP))
    data, fds, _, _ = socket.recv_fds(op, 64, 1)
    h = HDR.unpack(data[:HDR.size])
    size = struct.unpack("=Q", data[HDR.size:HDR.size + 8])[0] if h[3] == 0 else None
    return h[3], size, (fds[0] if fds else None)


def area_of(op):
    r, size, fd = setup(op)
    assert r == 0 and size == AREA, (r, size)
    m = mmap.mmap(fd, size)
    os.close(fd)
    return m


def send_shm(op, off, n, flags=S_FIRST | S_LAST, op_code=0, assoclen=0, iv=b""):
    if iv:
        flags |= S_CTL | S_IV
    elif op_code or assoclen:
        flags |= S_CTL
    return call(op, SEND_SHM, struct.pack("=IIII", flags, op_code, assoclen, len(iv)) + iv +
                struct.pack("=QQ", off, n))[0]


def recv_shm(op, off, n, total=None):
    return call(op, RECV_SHM, struct.pack("=IIII", 0, n, n if total is None else total, 0) +
                struct.pack("=QQ", off, n))


def closed_after(s, data):
    s.send(data)
    try:
        while True:
            m = s.recv(70000)
            if not m:
                return True
            if HDR.unpack(m[:HDR.size])[3] >= 0:
                return False
    except socket.timeout:
        return False
    except ConnectionResetError:
        return True


def ctr_ref(key, iv, data):
    e = Cipher(algorithms.AES(key), modes.CTR(iv)).encryptor()
    return e.update(data) + e.finalize()


def sha1_abc_works():
    t = tfm("hash", "sha1")
    op = accept(t)
    call(op, SEND, struct.pack("=IIII", S_FIRST | S_LAST, 0, 0, 0) + b"abc")
    r, d = call(op, RECV, struct.pack("=IIII", 0, 20, 20, 0))
    op.close()
    t.close()
    return d.hex() == "a9993e364706816aba3e25717850c26c9cd0d89d"


# ---- part 1: the wire protocol -----------------------------------------

t = tfm("skcipher", "ctr(aes)", CTR_KEY)
r, _, fd = setup(t)
check("SHM_SETUP on a transform socket: EOPNOTSUPP, no fd", r == -EOPNOTSUPP and fd is None)
op = accept(t)
r, size, fd = setup(op)
check("SHM_SETUP on an op socket: a 1 MiB memfd", r == 0 and size == AREA and fd is not None)
seals = fcntl.fcntl(fd, F_GET_SEALS)
check("the area is sealed against shrinking, growing and new seals",
      seals & (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW) == F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW)
try:
    os.ftruncate(fd, 4096)
    shrunk = True
except OSError:
    shrunk = False
check("the client cannot shrink it", not shrunk and os.fstat(fd).st_size == AREA)
area = mmap.mmap(fd, AREA)
os.close(fd)
check("a second SHM_SETUP: EBUSY, connection kept", setup(op)[0] == -EBUSY)

# A known answer through the area, with a sentinel everywhere else.
area[:] = b"\xa5" * AREA
area[4096:4096 + 64] = CTR_PT
check("SEND_SHM takes 64 bytes", send_shm(op, 4096, 64, op_code=1, iv=CTR_IV) == 64)
area[4096:4096 + 64] = bytes(64)     # changed after the send: must not matter
r, d = recv_shm(op, 8192, 64)
check("RECV_SHM: NIST SP 800-38A F.5.1 ciphertext at the named offset, no inline data",
      r == 64 and d == b"" and area[8192:8192 + 64] == CTR_CT)
check("input rewritten after the send did not change the result (copied out at once)",
      area[8192:8192 + 64] == CTR_CT)
rest = area[:4096] + area[4096 + 64:8192] + area[8192 + 64:]
check("nothing outside the output range was written", rest.count(b"\xa5") == len(rest))

# Large: 192 KiB of random data (under the 208 KiB send buffer).
data = os.urandom(192 * 1024)
iv = os.urandom(16)
area[:len(data)] = data
ok = send_shm(op, 0, len(data), op_code=1, iv=iv) == len(data)
r, _ = recv_shm(op, 256 * 1024, len(data))
check("192 KiB through the area match OpenSSL's AES-CTR",
      ok and r == len(data) and area[256 * 1024:256 * 1024 + len(data)] == ctr_ref(CTR_KEY, iv, data))

bad = [
    ("an offset past the area", lambda o: send_shm_frame(AREA + 1, 0)),
    ("a length past the area", lambda o: send_shm_frame(0, AREA + 1)),
    ("a range ending past the area", lambda o: send_shm_frame(AREA - 8, 16)),
    ("a wrapping offset + length", lambda o: send_shm_frame(2**64 - 16, 32)),
    ("a huge length", lambda o: send_shm_frame(16, 2**64 - 8)),
    ("a RECV_SHM range past the area", lambda o: recv_shm_frame(AREA - 16, 64, 64)),
    ("a RECV_SHM wrapping offset", lambda o: recv_shm_frame(2**64 - 32, 64, 64)),
    ("a RECV_SHM whose range length differs from its length", lambda o: frame(
        RECV_SHM, struct.pack("=IIII", 0, 64, 64, 0) + struct.pack("=QQ", 0, 32))),
    ("a SEND_SHM without its range", lambda o: frame(SEND_SHM, struct.pack("=IIII", S_FIRST | S_LAST, 0, 0, 0))),
    ("a SEND_SHM with inline data after its range", lambda o: frame(
        SEND_SHM, struct.pack("=IIII", S_FIRST | S_LAST, 0, 0, 0) + struct.pack("=QQ", 0, 16) + b"x")),
    ("an SHM_SETUP with a body", lambda o: frame(SHM_SETUP, b"\0" * 8)),
]


def send_shm_frame(off, n):
    return frame(SEND_SHM, struct.pack("=IIII", S_FIRST | S_LAST, 0, 0, 0) + struct.pack("=QQ", off, n))


def recv_shm_frame(off, n, total):
    return frame(RECV_SHM, struct.pack("=IIII", 0, n, total, 0) + struct.pack("=QQ", off, n))


for name, make in bad:
    o = accept(t)
    a = area_of(o)
    a[:] = b"\x5a" * AREA
    check(name + ": error and close", closed_after(o, make(o)))
    check(name + ": the area is untouched", a[:].count(b"\x5a") == AREA)
    a.close()
    o.close()

o = accept(t)
check("SEND_SHM with no area: close", closed_after(o, send_shm_frame(0, 16)))
o.close()
o = accept(t)
check("RECV_SHM with no area: close", closed_after(o, recv_shm_frame(0, 16, 16)))
o.close()
o = accept(t)
a = area_of(o)
check("an empty range at the area's end is valid", send_shm(o, AREA, 0, op_code=1, iv=CTR_IV) == 0)
a.close()
o.close()

# A thread rewrites the whole area while algd reads and writes it.
stop = threading.Event()


def scribble(m):
    junk = os.urandom(4096)
    while not stop.is_set():
        for off in range(0, AREA, 4096):
            m[off:off + 4096] = junk
        time.sleep(0)   # lets the requests' thread have the GIL between rounds


o = accept(t)
a = area_of(o)
h = tfm("hash", "sha256")
ho = accept(h)
ha = area_of(ho)
th = [threading.Thread(target=scribble, args=(a,)), threading.Thread(target=scribble, args=(ha,))]
for x in th:
    x.start()
shapes = True
for i in range(100):
    shapes &= send_shm(o, 0, 65536, op_code=1, iv=CTR_IV) == 65536
    shapes &= recv_shm(o, 65536, 65536)[0] == 65536
    shapes &= send_shm(ho, 0, 65536) == 65536
    r, d = call(ho, RECV, struct.pack("=IIII", 0, 32, 32, 0))
    shapes &= r == 32 and len(d) == 32
stop.set()
for x in th:
    x.join()
check("cipher and hash requests on an area a thread keeps rewriting: every answer well-formed", shapes)
check("algd still serves another client", sha1_abc_works())

# Input copied out at the send: rewriting it during the receive changes nothing.
data = os.urandom(65536)
a[:65536] = data
stop.clear()
send_shm(o, 0, 65536, op_code=1, iv=CTR_IV)
x = threading.Thread(target=lambda: [a.__setitem__(slice(0, 65536), bytes(65536)) for _ in range(50)])
x.start()
r, _ = recv_shm(o, 131072, 65536)
x.join()
check("input rewritten while the receive runs: the output is that of the input sent",
      r == 65536 and a[131072:131072 + 65536] == ctr_ref(CTR_KEY, CTR_IV, data))
a.close()
o.close()

def gcm_case(n):
    """A gcm(aes) transform socket on a random key, and n random bytes
    sealed under it by the cryptography package: (socket, nonce, aad,
    plaintext, {tag_ok: associated data and ciphertext, with the right
    tag or one bit of it flipped})."""
    key, nonce, aad = os.urandom(16), os.urandom(12), os.urandom(20)
    pt = os.urandom(n)
    ct = AESGCM(key).encrypt(nonce, pt, aad)
    return (tfm("aead", "gcm(aes)", key), nonce, aad, pt,
            {True: aad + ct, False: aad + ct[:-1] + bytes([ct[-1] ^ 1])})


# AEAD: a bad tag releases nothing into the area; a good one the plaintext.
g, nonce, aad, pt, msgs = gcm_case(40000)
for tag_ok in (False, True):
    go = accept(g)
    ga = area_of(go)
    ga[:] = b"\x3c" * AREA
    msg = msgs[tag_ok]
    ga[:len(msg)] = msg
    taken = send_shm(go, 0, len(msg), op_code=0, assoclen=len(aad), iv=nonce)
    r, _ = recv_shm(go, 512 * 1024, len(aad) + len(pt))
    out = ga[512 * 1024:512 * 1024 + len(aad) + len(pt)]
    if tag_ok:
        check("gcm(aes) decryption through the area: plaintext as OpenSSL's",
              taken == len(msg) and r == len(aad) + len(pt) and out[len(aad):] == pt)
    else:
        check("gcm(aes) with a bad tag: EBADMSG and not one byte in the output range",
              taken == len(msg) and r == -EBADMSG and out.count(b"\x3c") == len(out))
    ga.close()
    go.close()
check("algd still serves another client after all that", sha1_abc_works())

# ---- the shared request page of an op socket (FAST_SETUP) --------------

NOTIFY_SETUP, FAST_SETUP, FAST_KICK = 71, 72, 73
FAST_SIZE, FAST_MAX, REQ, REP = 8192, 4032, 128, 4160
REPLIES = 76        # struct ualg_fast's replies: the reply counter where it counts
FAST_COUNTS = 1     # FAST_SETUP's result then
U32 = struct.Struct("=I")
SHA1_ABC = "a9993e364706816aba3e25717850c26c9cd0d89d"   # FIPS 180-2 B.1's "abc"


def fast_setup(op):
    op.send(frame(FAST_SETUP))
    data, fds, _, _ = socket.recv_fds(op, 64, 1)
    return HDR.unpack(data[:HDR.size])[3], (fds[0] if fds else None)


def page_of(op):
    r, fd = fast_setup(op)
    assert r in (0, FAST_COUNTS) and fd is not None, r
    m = mmap.mmap(fd, FAST_SIZE)
    os.close(fd)
    return m


def settles(m, off, want, seconds=10):
    """Whether the word at off becomes want: algd bumps a reply counter
    just after the reply's send, so a client may see the reply first."""
    end = time.monotonic() + seconds
    while U32.unpack(m[off:off + 4])[0] != want and time.monotonic() < end:
        time.sleep(0.001)
    return U32.unpack(m[off:off + 4])[0] == want


def word(m, off):
    return U32.unpack(m[off:off + 4])[0]


def post(op, m, raw, seq):
    """A raw request frame on the page, then the kick; the reply frame
    (None when none came within 5 s)."""
    m[REQ:REQ + len(raw)] = raw
    m[0:4] = U32.pack(seq)
    op.send(frame(FAST_KICK))
    end = time.monotonic() + 5
    while word(m, 64) != seq and time.monotonic() < end:
        time.sleep(0.0005)
    if word(m, 64) != seq:
        return None
    n = HDR.unpack(m[REP:REP + HDR.size])[0]
    return m[REP:REP + n]


def hangs_up(op, m):
    """algd closed the connection (and said so on the page)."""
    op.settimeout(5)
    try:
        return op.recv(64) == b"" and word(m, 72) == 1
    except (socket.timeout, ConnectionResetError):
        return False


t = tfm("hash", "sha1")
check("FAST_SETUP on a transform socket: EOPNOTSUPP, no fd", fast_setup(t) == (-EOPNOTSUPP, None))
r_ = tfm("rng", "stdrng")
ro = accept(r_)
check("FAST_SETUP on an rng op socket (a type that does not say when it would wait): EOPNOTSUPP",
      fast_setup(ro) == (-EOPNOTSUPP, None))
ro.close()
r_.close()
o = accept(t)
r, fd = fast_setup(o)
seals = fcntl.fcntl(fd, F_GET_SEALS) if fd is not None else 0
check("FAST_SETUP on a hash op socket: an 8 KiB memfd sealed against resizing",
      r == FAST_COUNTS and os.fstat(fd).st_size == FAST_SIZE and
      seals & (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW) == F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW)
m = mmap.mmap(fd, FAST_SIZE)
os.close(fd)
check("a second FAST_SETUP: EBUSY, connection kept", fast_setup(o) == (-EBUSY, None))
check("a connection without a reply counter: the page's counts the replies after the setup (1)",
      settles(m, REPLIES, 1))
o2 = accept(t)
o2.send(frame(NOTIFY_SETUP))
_, nfds, _, _ = socket.recv_fds(o2, 64, 1)
counter = mmap.mmap(nfds[0], 4096, prot=mmap.PROT_READ)
os.close(nfds[0])
r2, fd2 = fast_setup(o2)
m2 = mmap.mmap(fd2, FAST_SIZE)
os.close(fd2)
fast_setup(o2)      # EBUSY: one more reply on the socket
check("a connection with its reply counter: FAST_SETUP's result 0, that counter still counts (2), "
      "the page's does not (0)", r2 == 0 and settles(counter, 0, 2) and word(m2, REPLIES) == 0)
m2.close()
counter.close()
o2.close()
send_abc = frame(SEND, struct.pack("=IIII", S_FIRST | S_LAST, 0, 0, 0) + b"abc")
rep = post(o, m, send_abc, 1)
check("a SEND on the page: its reply there (3 bytes taken)",
      rep is not None and HDR.unpack(rep[:HDR.size])[1:4] == (SEND, 1, 3))
rep = post(o, m, frame(RECV, struct.pack("=IIII", 0, 20, 20, 0)), 2)
check("a RECV on the page: SHA-1 of \"abc\" there (FIPS 180-2)",
      rep is not None and HDR.unpack(rep[:HDR.size])[3] == 20 and rep[HDR.size:].hex() == SHA1_ABC)
o.setblocking(False)
try:
    o.recv(64)
    quiet = False
except BlockingIOError:
    quiet = True
o.setblocking(True)
check("... and nothing on the socket: a kick has no reply", quiet)
m.close()
o.close()

fast_bad = [
    ("a frame longer than the page", lambda: HDR.pack(FAST_MAX + 1, SEND, 0, 0, 0)),
    ("a frame shorter than its header", lambda: HDR.pack(4, SEND, 0, 0, 0)),
    ("a frame with a reply flag", lambda: HDR.pack(HDR.size + 16, SEND, 1, 0, 0) + bytes(16)),
    ("a frame with its reserved word set", lambda: HDR.pack(HDR.size + 16, SEND, 0, 0, 1) + bytes(16)),
    ("a BIND on the page", lambda: frame(BIND, bytes(24))),
    ("a SEND_SHM on the page", lambda: send_shm_frame(0, 16)),
    ("a SEND asking for no reply (UALG_SEND_QUIET)",
     lambda: frame(SEND, struct.pack("=IIII", S_FIRST | S_LAST | 0x100, 0, 0, 0) + b"abc")),
    ("a RECV whose total is under its length",
     lambda: frame(RECV, struct.pack("=IIII", 0, 20, 10, 0))),
]
for name, make in fast_bad:
    o = accept(t)
    m = page_of(o)
    m[REQ:REQ + FAST_MAX] = b"\xee" * FAST_MAX
    raw = make()
    check(name + ": algd ends the connection and says so on the page",
          post(o, m, raw, 1) is None and hangs_up(o, m))
    m.close()
    o.close()
o = accept(t)
check("FAST_KICK without a page: close", closed_after(o, frame(FAST_KICK)))
o.close()

# A cipher's page: a request that would wait is not served there but sent
# back for the socket, and changes nothing.
DECLINED = 0x9  # UALG_HDR_REPLY | UALG_HDR_SOCKET


def declined(rep, typ):
    return rep is not None and HDR.unpack(rep[:HDR.size]) == (HDR.size, typ, DECLINED, 0, 0)


def send_frame(data, flags=S_FIRST | S_LAST, op_code=0, iv=b"", assoclen=0):
    if iv:
        flags |= S_CTL | S_IV
    return frame(SEND, struct.pack("=IIII", flags, op_code, assoclen, len(iv)) + iv + data)


def recv_frame(n, total=None):
    return frame(RECV, struct.pack("=IIII", 0, n, n if total is None else total, 0))


def served(rep, typ, result):
    return rep is not None and HDR.unpack(rep[:HDR.size])[1:4] == (typ, 1, result)


c = tfm("skcipher", "ctr(aes)", CTR_KEY)
co = accept(c)
m = page_of(co)
check("a cipher's RECV on the page with nothing queued (it would wait): sent back for the socket",
      declined(post(co, m, recv_frame(64), 1), RECV))
check("a cipher's SEND on the page: 64 bytes taken",
      served(post(co, m, send_frame(CTR_PT, op_code=1, iv=CTR_IV), 2), SEND, 64))
check("a RECV larger than the queue (it would wait for more): sent back for the socket",
      declined(post(co, m, recv_frame(80), 3), RECV))
rep = post(co, m, recv_frame(64), 4)
check("... and the queue is whole: ctr(aes) as SP 800-38A F.5.1 on the page",
      served(rep, RECV, 64) and rep[HDR.size:] == CTR_CT)
# Fill the send buffer (net.core.wmem_default) on the socket, so that a
# send of a page's worth would wait.
filled = 0
while filled < 210000:
    n = min(UALG_DATA_MAX, 210000 - filled)
    fl = (S_FIRST if not filled else 0) | S_MORE | (S_LAST if filled + n == 210000 else 0)
    r, _ = call(co, SEND, struct.pack("=IIII", fl | (S_CTL | S_IV if not filled else 0), 1, 0,
                                      16 if not filled else 0) + (CTR_IV if not filled else b"") +
                bytes(n))
    filled += r if r > 0 else 210000
check("a SEND on the page into a full send buffer (it would wait): sent back for the socket",
      filled == 210000 and declined(post(co, m, send_frame(bytes(4000), flags=S_FIRST | S_LAST | S_MORE), 5), SEND))
r, data = call(co, RECV, struct.pack("=IIII", 0, 4096, 4096, 0))
check("... and the connection goes on: the queue's first 4096 bytes read on the socket",
      r == 4096 and len(data) == 4096)
check("a RECV on the page whose reply would not fit it: algd ends the connection",
      post(co, m, recv_frame(FAST_MAX), 6) is None and hangs_up(co, m))
m.close()
co.close()
# A RECV parked on the socket (another process's, as after fork), then a
# SEND on the page that completes its request: both are answered.
co = accept(c)
m = page_of(co)
co.send(frame(RECV, struct.pack("=IIII", 0, 64, 64, 0)))
time.sleep(0.2)
check("a SEND on the page while a RECV waits on the socket: served",
      served(post(co, m, send_frame(CTR_PT, op_code=1, iv=CTR_IV), 1), SEND, 64))
r = co.recv(70000)
check("... and the waiting RECV gets SP 800-38A F.5.1's ciphertext on the socket",
      HDR.unpack(r[:HDR.size])[1:4] == (RECV, 1, 64) and r[HDR.size:] == CTR_CT)
m.close()
co.close()
c.close()

# An AEAD on its page: a bad tag answers EBADMSG with no data; a good one
# the associated data and plaintext (checked against the cryptography
# package's AES-GCM).
g, nonce, aad, pt, msgs = gcm_case(100)
for tag_ok in (False, True):
    go = accept(g)
    m = page_of(go)
    msg = msgs[tag_ok]
    taken = served(post(go, m, send_frame(msg, op_code=0, iv=nonce, assoclen=len(aad)), 1), SEND, len(msg))
    rep = post(go, m, recv_frame(len(aad) + len(pt)), 2)
    if tag_ok:
        check("gcm(aes) decryption on the page: associated data and plaintext",
              taken and served(rep, RECV, len(aad) + len(pt)) and rep[HDR.size:] == aad + pt)
    else:
        check("gcm(aes) with a bad tag on the page: EBADMSG and no data",
              taken and served(rep, RECV, -EBADMSG) and len(rep) == HDR.size)
    m.close()
    go.close()
# An answer longer than its first part keeps the rest for UALG_RECV_REST;
# a RECV declined on the page in between leaves it there.
go = accept(g)
m = page_of(go)
msg = msgs[True]
taken = served(post(go, m, send_frame(msg, op_code=0, iv=nonce, assoclen=len(aad)), 1), SEND, len(msg))
r, first = call(go, RECV, struct.pack("=IIII", 0, 16, len(aad) + len(pt), 0))
check("gcm(aes) answer read in parts: the first 16 bytes, the whole length counted",
      taken and r == len(aad) + len(pt) and first == aad[:16])
check("... a RECV on the page with nothing queued comes back unserved",
      declined(post(go, m, recv_frame(64), 2), RECV))
r, rest = call(go, RECV, struct.pack("=IIII", 0x02, 200, 200, 0))
check("... and the rest is still there for UALG_RECV_REST", r == len(aad) + len(pt) - 16 and
      first + rest == aad + pt)
m.close()
go.close()
g.close()
check("algd still serves another client after the pages", sha1_abc_works())

# A thread rewrites the request while algd copies it: every request gets
# a well-formed reply or ends the connection; others are served.
o = accept(t)
m = page_of(o)
stop.clear()
junk = os.urandom(FAST_MAX)


def scribble_req():
    while not stop.is_set():
        m[REQ:REQ + FAST_MAX] = junk
        m[REQ:REQ + len(send_abc)] = send_abc
        time.sleep(0)


x = threading.Thread(target=scribble_req)
x.start()
shapes, seq = True, 0
for i in range(200):
    seq += 1
    rep = post(o, m, send_abc, seq)
    if rep is None:
        shapes &= hangs_up(o, m)
        break
    h = HDR.unpack(rep[:HDR.size])
    shapes &= h[0] == HDR.size and h[1] == SEND and h[2] == 1
stop.set()
x.join()
m.close()
o.close()
check("a SEND rewritten while algd takes it: every reply well-formed, or the connection ended", shapes)
check("algd still serves another client", sha1_abc_works())
t.close()


# ---- part 2: through the shim ------------------------------------------

if os.environ.get("LD_PRELOAD", "").find("ualg") < 0:
    check("part 2 runs under ualg-run", False)
else:
    big = os.urandom(3 << 20)
    ht = alg("hash", "sha256")
    hop, _ = ht.accept()
    hop.sendall(big)
    check("sha256 of 3 MiB in one sendall() matches hashlib", hop.recv(32) == hashlib.sha256(big).digest())
    with open("/proc/self/maps") as f:
        check("the shim mapped an op socket's payload area (memfd:ualg-shm)", "memfd:ualg-shm" in f.read())

    key, iv = os.urandom(16), os.urandom(16)
    ct_ = alg("skcipher", "ctr(aes)", key)
    cop, _ = ct_.accept()
    part = big[:150000]
    cop.sendmsg_afalg([part[:70000], part[70000:100000], part[100000:]], op=socket.ALG_OP_ENCRYPT, iv=iv)
    out = bytearray(len(part))
    views = [memoryview(out)[:50000], memoryview(out)[50000:]]
    n = cop.recvmsg_into(views)[0]
    check("ctr(aes): 150000 bytes from three iovecs into two match OpenSSL's",
          n == len(part) and bytes(out) == ctr_ref(key, iv, part))

    # splice: a pipe into the op socket, the data through the area.
    rp, wp = os.pipe()
    cop.sendmsg_afalg([], op=socket.ALG_OP_ENCRYPT, iv=iv, flags=socket.MSG_MORE)
    chunk = big[:65536]
    os.write(wp, chunk)
    moved = os.splice(rp, cop.fileno(), 65536)
    got = read_all(cop, 65536)
    check("splice() of 64 KiB from a pipe: all moved, AES-CTR as OpenSSL's, pipe empty",
          moved == 65536 and got == ctr_ref(key, iv, chunk) and
          fcntl.ioctl(rp, 0x541B, b"\0\0\0\0") == b"\0\0\0\0")
    os.close(rp)
    os.close(wp)

    # fork: the child shares the op socket (and the parent's area).
    hop.sendall(big[:1 << 20])
    first = hop.recv(32) == hashlib.sha256(big[:1 << 20]).digest()
    pid = os.fork()
    if pid == 0:
        hop.sendall(big[1 << 20:])
        ok = hop.recv(32) == hashlib.sha256(big[1 << 20:]).digest()
        cop.sendmsg_afalg([big[:100000]], op=socket.ALG_OP_ENCRYPT, iv=iv)
        out = read_all(cop, 100000)
        os._exit(0 if ok and out == ctr_ref(key, iv, big[:100000]) else 1)
    _, status = os.waitpid(pid, 0)
    check("after fork the child's large hash and cipher calls on the shared op sockets are right",
          first and status == 0)
    hop.sendall(big[2 << 20:])
    check("... and the parent's still are afterwards", hop.recv(32) == hashlib.sha256(big[2 << 20:]).digest())

    gk, gn = os.urandom(32), os.urandom(12)
    gt = alg("aead", "gcm(aes)", gk)
    gop, _ = gt.accept()
    pt = big[:60000]
    gop.sendmsg_afalg([pt], op=socket.ALG_OP_ENCRYPT, iv=gn, assoclen=0)
    enc = read_all(gop, len(pt) + 16)
    check("gcm(aes) encryption of 60000 bytes matches OpenSSL's", enc == AESGCM(gk).encrypt(gn, pt, None))
    gop2, _ = gt.accept()
    gop2.sendmsg_afalg([enc[:-1] + bytes([enc[-1] ^ 0x80])], op=socket.ALG_OP_DECRYPT, iv=gn, assoclen=0)
    buf = bytearray(b"\x77" * len(pt))
    try:
        gop2.recv_into(buf)
        err = 0
    except OSError as e:
        err = e.errno
    check("gcm(aes) decryption with a bad tag: EBADMSG, the caller's buffer untouched",
          err == EBADMSG and buf.count(b"\x77") == len(buf))

finish()
