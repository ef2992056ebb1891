#!/usr/bin/env python3
"""Objects two sockets share, and the in-process engine's handover
(UALG_MSG_ADOPT), against a client that speaks the frame protocol directly:
an op socket cloned from one that adopted a transform of its own outlives
its source; ADOPT fills only a fresh op socket, once, within its send
buffer, with the driver algd's own verdict names and under the caller's
driver rules; a channel (UALG_MSG_ATTACH) joins only the op socket whose
token it names, from a fresh connection of the opener's uid, wakes what the
socket's other channels wait for and keeps the socket after the others
close; the control page every client maps is algd's alone to write, one
file for all, and moves when the registry does.  Runs its own algd.  Prints TAP lines and 'N passed, N failed'."""
import errno, hashlib, os, socket, struct, subprocess, sys, tempfile, time
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from common import check, skip, finish
from common import HDR, SEND, RECV, call, bind, op_socket, connect, as_uid

ALGD = sys.argv[1]
ROOT = os.geteuid() == 0
USER = 4244
TMP = tempfile.mkdtemp(prefix="ualg-own.")
os.chmod(TMP, 0o711)

SETSOCKOPT, SNDBUF, ENGINE, ADOPT, ATTACH, CONTROL_SETUP = 3, 65, 69, 70, 74, 75
ACCEPT = 4
SEND_CTL, SEND_IV = 0x10, 0x20
SEND_MORE, SEND_FIRST, SEND_LAST = 0x1, 0x4, 0x8
ADOPT_PART = 0x1
ENGINE_INFO = struct.Struct("=II14sH128sII")
ADOPT_HDR = struct.Struct("=IIII32s64s128sII")
STATE_INIT, STATE_MORE = 0x1, 0x2
KEY = bytes(range(16))


class Algd:
    def __init__(self, name, *opts):
        self.path = os.path.join(TMP, name, "algd.sock")
        r, w = os.pipe()
        allow = ["--allow", f"uid:{USER}", "--user", "nobody"] if ROOT else []
        self.proc = subprocess.Popen([ALGD, "--socket", self.path, "--ready-fd", str(w)] + allow +
                                     list(opts), pass_fds=[w], env=dict(os.environ, LD_PRELOAD=""),
                                     stderr=subprocess.DEVNULL)
        os.close(w)
        ok = os.read(r, 1) == b"1"
        os.close(r)
        assert ok, f"algd {opts} did not start"

    def alive(self):
        return self.proc.poll() is None

    def fds(self):
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def stop(self):
        if self.alive():
            self.proc.terminate()
        self.proc.wait()


def send(op, data, flags=SEND_FIRST | SEND_LAST):
    return call(op, SEND, struct.pack("=IIII", flags, 0, 0, 0) + data)[0]


def recv(op, n):
    r, data, _ = call(op, RECV, struct.pack("=IIII", 0, n, n, 0))
    return r, data[:max(r, 0)]


def engine(op):
    """The driver algd's verdict lets the program serve op with, or None."""
    r, body, _ = call(op, ENGINE)
    flags, _, _, _, driver, _, _ = ENGINE_INFO.unpack(body[:ENGINE_INFO.size])
    return driver.split(b"\0")[0].decode() if r == 0 and flags & 1 else None


def adopt(op, flags=0, state=0, driver="", key=b"", data=b""):
    body = ADOPT_HDR.pack(flags, state, 0, 0, b"", b"", driver.encode(), len(key), len(data))
    return call(op, ADOPT, body + key + data)[0]


def hash_op(algd, name="sha256"):
    tfm = connect(algd.path)
    assert bind(tfm, "hash", name) == 0
    return tfm, op_socket(tfm)


def cbc_op(algd):
    tfm = connect(algd.path)
    assert bind(tfm, "skcipher", "cbc(aes)") == 0
    assert call(tfm, SETSOCKOPT, struct.pack("=iiIIII", 279, 1, 16, 0, 16, 0) + KEY)[0] == 0
    return tfm, op_socket(tfm)


def closed(algd, sock, before):
    """Closes sock, then waits (5 s at most) until algd has closed its end."""
    sock.close()
    for _ in range(500):
        if algd.fds() < before:
            return True
        time.sleep(0.01)
    return False


def test_clone_outlives_source(algd):
    """The op socket's own transform (a hash moved in from another driver)
    is shared by accept() on it: closing the source leaves the clone's."""
    tfm, a = hash_op(algd)
    driver = engine(a)
    check("ENGINE names a driver for a sha256 op socket", driver, driver)
    check("ADOPT of an empty state with that driver", adopt(a, driver=driver) == 0)
    check("a MSG_MORE send on the adopted socket", send(a, b"abc", SEND_FIRST | SEND_LAST | SEND_MORE) == 3)
    b = op_socket(a)
    check("algd closed the source socket", closed(algd, a, algd.fds()))
    r = send(b, b"def")
    check("the clone goes on after its source closed", r == 3, r)
    r, d = recv(b, 32)
    check("... and digests what both were sent", d == hashlib.sha256(b"abcdef").digest(), (r, d.hex()))
    r = send(b, b"xyz")
    r, d = recv(b, 32)
    check("... and a hash of its own after that", d == hashlib.sha256(b"xyz").digest(), (r, d.hex()))
    c = op_socket(b)
    check("algd closed the clone", closed(algd, b, algd.fds()))
    r = send(c, b"q")
    r, d = recv(c, 32)
    check("a clone of the clone after both closed", d == hashlib.sha256(b"q").digest(), (r, d.hex()))
    c.close()
    tfm.close()
    check("algd is alive", algd.alive())


def test_adopt_fresh_only(algd):
    tfm, op = hash_op(algd)
    driver = engine(op)
    send(op, b"abc", SEND_FIRST | SEND_LAST | SEND_MORE)
    r = adopt(op, driver=driver)
    check("ADOPT on an op socket that was sent data: EBUSY", r == -errno.EBUSY, r)
    op2 = op_socket(tfm)
    recv(op2, 32)
    r = adopt(op2, driver=driver)
    check("ADOPT on an op socket that was read: EBUSY", r == -errno.EBUSY, r)
    op3 = op_socket(tfm)
    check("ADOPT on a fresh op socket", adopt(op3, driver=driver) == 0)
    r = adopt(op3, driver=driver)
    check("a second ADOPT: EBUSY", r == -errno.EBUSY, r)
    _, c = cbc_op(algd)
    check("ADOPT of a skcipher's request", adopt(c, state=STATE_INIT | STATE_MORE, data=b"x" * 16) == 0)
    r = adopt(c, state=STATE_INIT, data=b"y" * 16)
    check("a second ADOPT on the skcipher socket: EBUSY", r == -errno.EBUSY, r)
    for s in (op, op2, op3, c, tfm):
        s.close()


def test_adopt_within_sndbuf(algd):
    """Parts append queued data: all of them together within SO_SNDBUF."""
    tfm, op = cbc_op(algd)
    total, r = 0, 0
    for _ in range(200):
        r = adopt(op, flags=ADOPT_PART, data=b"z" * 4095)
        if r:
            break
        total += 4095
    check("ADOPT parts past the send buffer: EINVAL", r == -errno.EINVAL, r)
    check("... after no more than the send buffer and a page", total <= 212992 + 4095, total)
    _, op2 = cbc_op(algd)
    call(op2, SNDBUF, struct.pack("=I", 8192))
    r = adopt(op2, flags=ADOPT_PART, data=b"z" * 12288)
    check("ADOPT of more than a smaller SO_SNDBUF: EINVAL", r == -errno.EINVAL, r)
    for s in (op, op2, tfm):
        s.close()


def test_adopt_driver(algd):
    tfm, op = hash_op(algd)
    _, other = hash_op(algd, "sha1")
    sha1_driver = engine(other)
    r = adopt(op, driver=sha1_driver)
    check("ADOPT naming another algorithm's driver: EINVAL", r == -errno.EINVAL, r)
    op2 = op_socket(tfm)
    r = adopt(op2, driver="hmac(" + engine(op2) + ")")
    check("ADOPT naming a template over the driver: EINVAL", r == -errno.EINVAL, r)
    for s in (op, op2, other, tfm):
        s.close()


def test_adopt_policy():
    kept = Algd("kept", "--engine", "algd")
    try:
        tfm, op = hash_op(kept)
        r = adopt(op, driver="sha256-generic")
        check("ADOPT where algd keeps every socket (--engine algd): EACCES", r == -errno.EACCES, r)
        tfm.close()
    finally:
        kept.stop()
    if not ROOT:
        skip("ADOPT under a driver rule (needs root to run as another uid)")
        return
    probe = Algd("probe")
    try:
        _, op = hash_op(probe)
        driver = engine(op)
    finally:
        probe.stop()
    ruled = Algd("ruled", "--alg-allow", f"{driver}=uid:0")

    def attempt():
        tfm, op = hash_op(ruled)
        return adopt(op, driver=driver)
    try:
        r = as_uid(USER, attempt)
        check(f"ADOPT with a driver a rule denies the caller ({driver}): EACCES", r == -errno.EACCES, r)
    finally:
        ruled.stop()


def cbc_op_token(algd):
    """A cbc(aes) op socket and the token ACCEPT's reply gives it (its
    first 16 bytes; the engine's verdict follows)."""
    tfm = connect(algd.path)
    assert bind(tfm, "skcipher", "cbc(aes)") == 0
    assert call(tfm, SETSOCKOPT, struct.pack("=iiIIII", 279, 1, 16, 0, 16, 0) + KEY)[0] == 0
    r, body, fds = call(tfm, ACCEPT)
    assert r == 0 and fds, r
    op = socket.socket(fileno=fds[0])
    op.settimeout(10)
    return tfm, op, body[:16]


def test_attach(algd):
    """Channels: another connection that is the same op socket."""
    tfm, op, token = cbc_op_token(algd)
    check("ACCEPT's reply carries a token of 16 bytes", len(token) == 16 and any(token), token.hex())
    ch = connect(algd.path)
    r = call(ch, ATTACH, bytes(16))[0]
    check("ATTACH naming no op socket: ENOENT", r == -errno.ENOENT, r)
    bound = connect(algd.path)
    bind(bound, "hash", "sha256")
    r = call(bound, ATTACH, token)[0]
    check("ATTACH on a bound transform socket: EINVAL", r == -errno.EINVAL, r)
    r = call(op, ATTACH, token)[0]
    check("ATTACH on an op socket: EINVAL", r == -errno.EINVAL, r)
    bad = connect(algd.path)
    r = call(bad, ATTACH, token[:15])[0]
    check("ATTACH with a short body: EPROTO, and algd hangs up", r == -errno.EPROTO and not bad.recv(64), r)
    if ROOT:
        r = as_uid(USER, lambda: call(connect(algd.path), ATTACH, token)[0])
        check("ATTACH from another uid with the token: ENOENT", r == -errno.ENOENT, r)
    else:
        skip("ATTACH from another uid needs root")
    r = call(ch, ATTACH, token)[0]
    check("ATTACH with the op socket's token", r == 0, r)
    # The op socket starts a stream and waits in a receive; the channel
    # sends the data, which answers the wait (OpenSSL's ciphertext).
    iv = bytes(range(16))
    pt = bytes.fromhex("6bc1bee22e409f96e93d7e117393172a")
    enc = Cipher(algorithms.AES(KEY), modes.CBC(iv)).encryptor()
    ct = enc.update(pt) + enc.finalize()
    head = struct.pack("=IIII", SEND_FIRST | SEND_LAST | SEND_MORE | SEND_CTL | SEND_IV, 1, 0, 16)
    r = call(op, SEND, head + iv)[0]
    check("the op socket starts an encryption (MSG_MORE, IV)", r == 0, r)
    op.send(HDR.pack(HDR.size + 16, RECV, 0, 0, 0) + struct.pack("=IIII", 0, 16, 16, 0))
    time.sleep(0.1)
    r = send(ch, pt)
    check("the channel sends the plaintext", r == 16, r)
    msg = op.recv(256)
    r = HDR.unpack(msg[:HDR.size])[3]
    check("the op socket's waiting receive answers with the ciphertext",
          r == 16 and msg[HDR.size:] == ct, (r, msg.hex()))
    before = algd.fds()
    check("algd closed the op socket's first connection", closed(algd, op, before))
    head = struct.pack("=IIII", SEND_FIRST | SEND_LAST | SEND_CTL | SEND_IV, 1, 0, 16)
    r = call(ch, SEND, head + iv + pt)[0]
    r2, data = recv(ch, 16)
    check("the channel goes on after the first connection closed",
          r == 16 and data == ct, (r, r2, data.hex()))
    extra = []
    r = 0
    for _ in range(70):
        c = connect(algd.path)
        r = call(c, ATTACH, token)[0]
        if r:
            break
        extra.append(c)
    check("channels to one op socket are bounded: EMFILE", r == -errno.EMFILE and len(extra) < 70, (r, len(extra)))
    check("algd is alive", algd.alive())


def test_control_page(algd):
    import fcntl, mmap
    c = connect(algd.path)
    r, _, fds = call(c, CONTROL_SETUP, b"", 1)
    check("CONTROL_SETUP passes one memfd", r == 0 and len(fds) == 1, (r, fds))
    if r or len(fds) != 1:
        return
    fd = fds[0]
    F_GET_SEALS, SEALS = 1034, 0x1 | 0x2 | 0x4 | 0x10   # SEAL, SHRINK, GROW, FUTURE_WRITE
    check("it is sealed against resizing, further seals and writes",
          fcntl.fcntl(fd, F_GET_SEALS) & SEALS == SEALS, fcntl.fcntl(fd, F_GET_SEALS))
    refused = []
    for what, attempt in (
            ("a writable mapping", lambda f: mmap.mmap(f, 4096, mmap.MAP_SHARED,
                                                       mmap.PROT_READ | mmap.PROT_WRITE)),
            ("write()", lambda f: os.pwrite(f, b"\0", 0))):
        for f, how in ((fd, "the fd"), (None, "the file reopened read-write")):
            try:
                if f is None:
                    f = os.open(f"/proc/self/fd/{fd}", os.O_RDWR)
                attempt(f)
                refused.append(f"{what} through {how}: allowed")
            except PermissionError:
                pass
            except OSError as e:
                refused.append(f"{what} through {how}: {e}")
    check("a client can neither map it writable nor write it, through its fd or reopened",
          not refused, refused)
    page = mmap.mmap(fd, 4096, mmap.MAP_SHARED, mmap.PROT_READ)
    magic, gen = struct.unpack_from("=II", page, 0)
    other = connect(algd.path)
    r2, _, fds2 = call(other, CONTROL_SETUP, b"", 1)
    same = r2 == 0 and fds2 and os.fstat(fds2[0]).st_ino == os.fstat(fd).st_ino
    check("every client gets the same page", magic == 0x75616c67 and same, (hex(magic), r2))
    t = connect(algd.path)
    r3 = bind(t, "skcipher", "xctr(aes)")      # builds and registers an instance
    gen2 = struct.unpack_from("=II", page, 0)[1]
    check("a template instance registered moves the generation, before BIND's reply",
          r3 == 0 and gen2 != gen, (r3, gen, gen2))
    bad = connect(algd.path)
    r4, _, fds4 = call(bad, CONTROL_SETUP, b"x", 1)
    check("CONTROL_SETUP with a body is malformed: EPROTO, no fd", r4 == -errno.EPROTO and not fds4,
          (r4, fds4))
    check("algd is alive", algd.alive())


for t in (test_clone_outlives_source, test_adopt_fresh_only, test_adopt_within_sndbuf,
          test_adopt_driver, test_attach, test_control_page):
    algd = Algd(t.__name__)
    try:
        t(algd)
    except Exception as e:
        check(f"{t.__name__} ran to the end", False, repr(e))
    check(f"algd survived {t.__name__}", algd.alive())
    algd.stop()
try:
    test_adopt_policy()
except Exception as e:
    check("test_adopt_policy ran to the end", False, repr(e))
subprocess.run(["rm", "-rf", TMP])
finish()
