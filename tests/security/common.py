"""What the security tests share: TAP checks and the wait for a state
(tests/ualgtest.py), a scan of a process's memory for a key (through
/proc/PID/mem: needs root or ptrace rights, raises OSError otherwise), and
the frame protocol of src/proto/proto.h as a client that skips the shim
speaks it."""
import os, pickle, socket, struct, sys

# The TAP checks and the wait (tests/ualgtest.py), for the tests to import
# from here.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ualgtest import check, skip, finish, wait_for  # noqa: E402,F401


def as_uid(uid, fn, *args):
    """fn(*args) in a child running as uid (no groups); its result."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            try:
                res = fn(*args)
            except Exception as e:
                res = repr(e)
            os.write(w, pickle.dumps(res))
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    return pickle.loads(data) if data else None


def scan(pid, needle):
    """Copies of needle in pid's readable memory."""
    with open(f"/proc/{pid}/maps") as f:
        maps = [l.split() for l in f]
    hits = 0
    with open(f"/proc/{pid}/mem", "rb", 0) as mem:
        for m in maps:
            a, b = (int(v, 16) for v in m[0].split("-"))
            if "r" not in m[1] or b - a > 1 << 30:
                continue
            try:
                mem.seek(a)
                hits += mem.read(b - a).count(needle)
            except OSError:
                pass
    return hits


# ---- the frame protocol (src/proto/proto.h) ----------------------------------

HDR = struct.Struct("=IHHiI")          # len, type, flags, result, reserved
HELLO, BIND, SETSOCKOPT, ACCEPT, SEND, RECV = 1, 2, 3, 4, 5, 6


def frame(typ, body=b""):
    return HDR.pack(HDR.size + len(body), typ, 0, 0, 0) + body


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(10)
    s.connect(path)
    s.send(frame(HELLO, struct.pack("=IHH", 0x55414C47, 1, 1)))
    r = HDR.unpack(s.recv(64)[:HDR.size])[3]
    if r != 1:
        raise OSError(-r, "HELLO refused")
    return s


def call(s, typ, body=b"", nfds=0):
    """One request; returns (result, data, fds)."""
    s.send(frame(typ, body))
    msg, anc, _, _ = s.recvmsg(70000, socket.CMSG_SPACE(4 * max(nfds, 1)))
    fds = []
    for lvl, t, d in anc:
        if lvl == socket.SOL_SOCKET and t == socket.SCM_RIGHTS:
            fds += struct.unpack(f"={len(d) // 4}i", d[:len(d) // 4 * 4])
    if not msg:
        raise ConnectionResetError("algd hung up")
    return HDR.unpack(msg[:HDR.size])[3], msg[HDR.size:], fds


def bind(s, typ, name):
    n = name.encode() + b"\0"
    return call(s, BIND, typ.encode().ljust(14, b"\0") + struct.pack("=HIII", 0, 0, 0, len(n)) + n)[0]


def op_socket(tfm):
    """ACCEPT on tfm (a transform or an op socket): the new op socket."""
    r, _, fds = call(tfm, ACCEPT)
    if r or not fds:
        raise OSError(-r, "accept")
    op = socket.socket(fileno=fds[0])
    op.settimeout(10)
    return op
