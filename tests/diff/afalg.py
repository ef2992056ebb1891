"""Tiny AF_ALG library over ctypes, calling libc's exported symbols directly.

Every call under test goes through ctypes.CDLL(None) (the process's global
symbol scope), so an LD_PRELOAD shim interposes it exactly as it would for a
C program.  Never use os.* or the socket module for the calls under test.

Two layers:
  * raw wrappers (socket, bind, ..., recvmsg) returning plain tuples;
  * Recorder, which runs one named case: it guards every call with a timer
    (so a hang shows as errno=TIMEOUT instead of hanging the run), names fds
    symbolically, and prints one canonical line per call:

      CASE STEP CALL ret=R errno=NAME [data=HEX] [msg_flags=F] [extra=...]

    ret=fd for a successful call that returns a new fd; errno=0 for success;
    errno=TIMEOUT when the call was still running after the timeout (ret is
    then what the call returned after being interrupted by SIGALRM).
"""

import ctypes
import errno as _errno
import hashlib
import signal
import struct
import time

# <linux/if_alg.h>
AF_ALG = 38
SOL_ALG = 279
ALG_SET_KEY = 1
ALG_SET_IV = 2
ALG_SET_OP = 3
ALG_SET_AEAD_ASSOCLEN = 4
ALG_SET_AEAD_AUTHSIZE = 5
ALG_SET_DRBG_ENTROPY = 6
ALG_SET_KEY_BY_KEY_SERIAL = 7
ALG_OP_DECRYPT = 0
ALG_OP_ENCRYPT = 1

# <linux/crypto.h>
CRYPTO_ALG_KERN_DRIVER_ONLY = 0x1000

# sockets (x86_64 / generic Linux values)
AF_UNIX = 1
AF_INET = 2
SOCK_STREAM = 1
SOCK_DGRAM = 2
SOCK_RAW = 3
SOCK_SEQPACKET = 5
SOCK_NONBLOCK = 0o4000
SOCK_CLOEXEC = 0o2000000
SOL_SOCKET = 1
SO_ERROR = 4
SO_TYPE = 3
SO_ACCEPTCONN = 30
SO_PROTOCOL = 38
SO_DOMAIN = 39
SCM_RIGHTS = 1
MSG_OOB = 0x1
MSG_PEEK = 0x2
MSG_CTRUNC = 0x8
MSG_TRUNC = 0x20
MSG_DONTWAIT = 0x40
MSG_EOR = 0x80
MSG_WAITALL = 0x100
MSG_NOSIGNAL = 0x4000
MSG_MORE = 0x8000
MSG_CMSG_CLOEXEC = 0x40000000
SHUT_RDWR = 2
F_DUPFD = 0
F_GETFD = 1
F_SETFD = 2
F_GETFL = 3
F_SETFL = 4
F_DUPFD_CLOEXEC = 1030
FD_CLOEXEC = 1
O_NONBLOCK = 0o4000
POLLIN = 0x1
POLLPRI = 0x2
POLLOUT = 0x4
POLLERR = 0x8
POLLHUP = 0x10
POLLNVAL = 0x20
POLLRDNORM = 0x40
POLLWRNORM = 0x100
POLLWRBAND = 0x200

SOCKADDR_ALG_SIZE = 88          # {u16 family; u8 type[14]; u32 feat; u32 mask; u8 name[64]}
SOCKADDR_ALG_NAME_OFFSET = 24

libc = ctypes.CDLL(None, use_errno=True)

_vp = ctypes.c_void_p
_int = ctypes.c_int
_uint = ctypes.c_uint
_sz = ctypes.c_size_t
_ssz = ctypes.c_ssize_t


class iovec(ctypes.Structure):
    _fields_ = [("iov_base", _vp), ("iov_len", _sz)]


class msghdr(ctypes.Structure):
    _fields_ = [("msg_name", _vp), ("msg_namelen", _uint),
                ("msg_iov", ctypes.POINTER(iovec)), ("msg_iovlen", _sz),
                ("msg_control", _vp), ("msg_controllen", _sz),
                ("msg_flags", _int)]


class cmsghdr(ctypes.Structure):
    _fields_ = [("cmsg_len", _sz), ("cmsg_level", _int), ("cmsg_type", _int)]


class pollfd(ctypes.Structure):
    _fields_ = [("fd", _int), ("events", ctypes.c_short), ("revents", ctypes.c_short)]


def _proto(name, restype, *argtypes):
    f = getattr(libc, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_socket = _proto("socket", _int, _int, _int, _int)
_bind = _proto("bind", _int, _int, _vp, _uint)
_connect = _proto("connect", _int, _int, _vp, _uint)
_listen = _proto("listen", _int, _int, _int)
_shutdown = _proto("shutdown", _int, _int, _int)
_setsockopt = _proto("setsockopt", _int, _int, _int, _int, _vp, _uint)
_getsockopt = _proto("getsockopt", _int, _int, _int, _int, _vp, ctypes.POINTER(_uint))
_getsockname = _proto("getsockname", _int, _int, _vp, ctypes.POINTER(_uint))
_getpeername = _proto("getpeername", _int, _int, _vp, ctypes.POINTER(_uint))
_accept = _proto("accept", _int, _int, _vp, ctypes.POINTER(_uint))
_accept4 = _proto("accept4", _int, _int, _vp, ctypes.POINTER(_uint), _int)
_send = _proto("send", _ssz, _int, _vp, _sz, _int)
_sendto = _proto("sendto", _ssz, _int, _vp, _sz, _int, _vp, _uint)
_sendmsg = _proto("sendmsg", _ssz, _int, ctypes.POINTER(msghdr), _int)
_write = _proto("write", _ssz, _int, _vp, _sz)
_read = _proto("read", _ssz, _int, _vp, _sz)
_recv = _proto("recv", _ssz, _int, _vp, _sz, _int)
_recvmsg = _proto("recvmsg", _ssz, _int, ctypes.POINTER(msghdr), _int)
_close = _proto("close", _int, _int)
_dup = _proto("dup", _int, _int)
_fcntl = _proto("fcntl", _int, _int, _int, _int)   # variadic; int arg is fine on x86_64
_poll = _proto("poll", _int, ctypes.POINTER(pollfd), ctypes.c_ulong, _int)


def _errret(r):
    """(ret, errno) with errno read right after the call (ctypes use_errno)."""
    e = ctypes.get_errno()
    return r, (e if r < 0 else 0)


def _buf(data):
    """A ctypes buffer holding bytes `data` (None stays None = NULL)."""
    if data is None:
        return None
    return ctypes.create_string_buffer(bytes(data), max(len(data), 1))


def _addr(b):
    return None if b is None else ctypes.cast(b, _vp)


# ---------------------------------------------------------------- sockaddr_alg

def sockaddr_alg(typ, name, family=AF_ALG, feat=0, mask=0, size=SOCKADDR_ALG_SIZE):
    """Raw sockaddr_alg bytes.  typ/name are bytes or str, copied verbatim (no
    NUL added beyond the zero padding; a 14-byte type or a name that fills the
    area is therefore not NUL-terminated).  size may exceed 88 for long names."""
    typ = typ.encode() if isinstance(typ, str) else typ
    name = name.encode() if isinstance(name, str) else name
    b = struct.pack("<H", family) + typ[:14].ljust(14, b"\0") + struct.pack("<II", feat, mask)
    b += name
    return b[:size].ljust(size, b"\0") if len(b) <= size else b


# ---------------------------------------------------------------- cmsg building

def CMSG_ALIGN(n):
    return (n + 7) & ~7


def CMSG_LEN(n):
    return 16 + n


def CMSG_SPACE(n):
    return 16 + CMSG_ALIGN(n)


class Cmsg:
    """One control message.  cmsg_len overrides the length field (e.g. too
    short), space overrides how many bytes it occupies in the buffer."""

    def __init__(self, level, type, data=b"", cmsg_len=None, space=None, label=None):
        self.level, self.type, self.data = level, type, bytes(data)
        self.cmsg_len = CMSG_LEN(len(self.data)) if cmsg_len is None else cmsg_len
        self.space = CMSG_SPACE(len(self.data)) if space is None else space
        self.label = label or "L%d:T%d:%d" % (level, type, len(self.data))
        if cmsg_len is not None:
            self.label += ":len=%d" % cmsg_len

    def pack(self):
        b = struct.pack("<Qii", self.cmsg_len, self.level, self.type) + self.data
        return b[:self.space].ljust(self.space, b"\0")


def cmsg_op(op, cmsg_len=None):
    label = {ALG_OP_ENCRYPT: "OP:ENC", ALG_OP_DECRYPT: "OP:DEC"}.get(op, "OP:%d" % op)
    return Cmsg(SOL_ALG, ALG_SET_OP, struct.pack("<I", op & 0xffffffff), cmsg_len=cmsg_len, label=label)


def cmsg_iv(iv, ivlen=None, cmsg_len=None):
    """struct af_alg_iv { u32 ivlen; u8 iv[]; }; ivlen defaults to len(iv)."""
    iv = bytes(iv)
    n = len(iv) if ivlen is None else ivlen
    label = "IV:%d" % n + ("" if ivlen is None else "/%dB" % len(iv))
    return Cmsg(SOL_ALG, ALG_SET_IV, struct.pack("<I", n & 0xffffffff) + iv, cmsg_len=cmsg_len, label=label)


def cmsg_assoclen(n):
    return Cmsg(SOL_ALG, ALG_SET_AEAD_ASSOCLEN, struct.pack("<I", n), label="ASSOCLEN:%d" % n)


def control(cmsgs):
    return b"".join(c.pack() for c in cmsgs)


# ---------------------------------------------------------------- raw wrappers

def socket(domain, type, proto):
    return _errret(_socket(domain, type, proto))


def bind(fd, addr, addrlen=None):
    """addr: raw bytes (None = NULL).  The buffer is made at least addrlen long
    so that the kernel never reads outside it unless addr is None."""
    if addrlen is None:
        addrlen = len(addr)
    b = None if addr is None else _buf(bytes(addr).ljust(min(max(addrlen, 0), 4096), b"\0"))
    return _errret(_bind(fd, _addr(b), addrlen & 0xffffffff))


def connect(fd, addr, addrlen=None):
    if addrlen is None:
        addrlen = len(addr)
    b = _buf(addr)
    return _errret(_connect(fd, _addr(b), addrlen))


def listen(fd, backlog):
    return _errret(_listen(fd, backlog))


def shutdown(fd, how):
    return _errret(_shutdown(fd, how))


def setsockopt(fd, level, opt, val, optlen=None):
    """val: bytes or None (NULL).  optlen defaults to len(val)."""
    if optlen is None:
        optlen = 0 if val is None else len(val)
    b = _buf(val)
    return _errret(_setsockopt(fd, level, opt, _addr(b), optlen & 0xffffffff))


def getsockopt(fd, level, opt, size=4):
    b = ctypes.create_string_buffer(max(size, 1))
    n = _uint(size)
    r, e = _errret(_getsockopt(fd, level, opt, _addr(b), ctypes.byref(n)))
    return r, e, b.raw[:min(n.value, size)] if r == 0 else b"", n.value


def _name_call(f, fd, size):
    b = ctypes.create_string_buffer(max(size, 1))
    n = _uint(size)
    r, e = _errret(f(fd, _addr(b), ctypes.byref(n)))
    return r, e, b.raw[:min(n.value, size)] if r == 0 else b"", n.value


def getsockname(fd, size=SOCKADDR_ALG_SIZE):
    return _name_call(_getsockname, fd, size)


def getpeername(fd, size=SOCKADDR_ALG_SIZE):
    return _name_call(_getpeername, fd, size)


def accept(fd, addrsize=None):
    """addrsize None: accept(fd, NULL, NULL).  Else pass a buffer of addrsize
    bytes (filled with 0xAA) and report (ret, errno, addrlen_out, addr_bytes)."""
    if addrsize is None:
        return _errret(_accept(fd, None, None)) + (None, None)
    b = ctypes.create_string_buffer(b"\xaa" * max(addrsize, 1))
    n = _uint(addrsize)
    r, e = _errret(_accept(fd, _addr(b), ctypes.byref(n)))
    return r, e, n.value, b.raw[:min(n.value, addrsize)]


def accept4(fd, flags, addrsize=None):
    if addrsize is None:
        return _errret(_accept4(fd, None, None, flags)) + (None, None)
    b = ctypes.create_string_buffer(b"\xaa" * max(addrsize, 1))
    n = _uint(addrsize)
    r, e = _errret(_accept4(fd, _addr(b), ctypes.byref(n), flags))
    return r, e, n.value, b.raw[:min(n.value, addrsize)]


def send(fd, data, flags=0, length=None):
    b = _buf(data)
    n = len(data) if length is None else length
    return _errret(_send(fd, _addr(b), n, flags))


def sendto(fd, data, flags, addr, addrlen=None):
    b = _buf(data)
    a = _buf(addr)
    if addrlen is None:
        addrlen = 0 if addr is None else len(addr)
    return _errret(_sendto(fd, _addr(b), len(data), flags, _addr(a), addrlen))


def write(fd, data, length=None):
    b = _buf(data)
    n = len(data) if length is None else length
    return _errret(_write(fd, _addr(b), n))


def sendmsg(fd, iovs, ctrl=None, controllen=None, flags=0, name=None, namelen=None):
    """iovs: list of bytes (None entry = iovec with NULL base and length 0,
    or give (None, n) for NULL base with length n).  ctrl: raw control bytes
    (see control()); controllen overrides msg_controllen."""
    keep = []
    arr = (iovec * max(len(iovs), 1))()
    for i, v in enumerate(iovs):
        if isinstance(v, tuple):
            base, n = v
            b = _buf(base)
        else:
            b = _buf(v)
            n = 0 if v is None else len(v)
        keep.append(b)
        arr[i].iov_base = _addr(b)
        arr[i].iov_len = n
    m = msghdr()
    m.msg_iov = arr if iovs else None
    m.msg_iovlen = len(iovs)
    cb = _buf(ctrl) if ctrl is not None else None
    m.msg_control = _addr(cb)
    m.msg_controllen = (0 if ctrl is None else len(ctrl)) if controllen is None else controllen
    nb = _buf(name)
    m.msg_name = _addr(nb)
    m.msg_namelen = (0 if name is None else len(name)) if namelen is None else namelen
    r, e = _errret(_sendmsg(fd, ctypes.byref(m), flags))
    return r, e


def read(fd, n, null=False):
    b = None if null else ctypes.create_string_buffer(max(n, 1))
    r, e = _errret(_read(fd, _addr(b), n))
    return r, e, (b.raw[:min(r, n)] if r >= 0 and b is not None else b"")


def recv(fd, n, flags=0):
    b = ctypes.create_string_buffer(max(n, 1))
    r, e = _errret(_recv(fd, _addr(b), n, flags))
    return r, e, (b.raw[:min(r, n)] if r >= 0 else b"")


def recvmsg(fd, sizes, flags=0, controllen=0):
    """sizes: list of iovec lengths.  Returns (ret, errno, data, msg_flags,
    controllen_out); data is the bytes written into the iovecs (up to ret)."""
    bufs = [ctypes.create_string_buffer(max(s, 1)) for s in sizes]
    arr = (iovec * max(len(sizes), 1))()
    for i, (b, s) in enumerate(zip(bufs, sizes)):
        arr[i].iov_base = _addr(b)
        arr[i].iov_len = s
    m = msghdr()
    m.msg_iov = arr if sizes else None
    m.msg_iovlen = len(sizes)
    cb = ctypes.create_string_buffer(max(controllen, 1)) if controllen else None
    m.msg_control = _addr(cb)
    m.msg_controllen = controllen
    m.msg_flags = 0x7fff0000  # garbage in: the kernel must overwrite it
    r, e = _errret(_recvmsg(fd, ctypes.byref(m), flags))
    data = b""
    if r >= 0:
        left = r
        for b, s in zip(bufs, sizes):
            take = min(left, s)
            data += b.raw[:take]
            left -= take
    return r, e, data, m.msg_flags, m.msg_controllen


def close(fd):
    return _errret(_close(fd))


def dup(fd):
    return _errret(_dup(fd))


def fcntl(fd, cmd, arg=0):
    return _errret(_fcntl(fd, cmd, arg))


def poll(fds_events, timeout_ms=0):
    """fds_events: list of (fd, events).  Returns (ret, errno, [revents])."""
    arr = (pollfd * len(fds_events))()
    for i, (fd, ev) in enumerate(fds_events):
        arr[i].fd, arr[i].events, arr[i].revents = fd, ev, 0
    r, e = _errret(_poll(arr, len(fds_events), timeout_ms))
    return r, e, [arr[i].revents & 0xffff for i in range(len(fds_events))]


# ---------------------------------------------------------------- formatting

_MSG_FLAG_NAMES = [(MSG_OOB, "MSG_OOB"), (MSG_PEEK, "MSG_PEEK"), (MSG_CTRUNC, "MSG_CTRUNC"),
                   (MSG_TRUNC, "MSG_TRUNC"), (MSG_DONTWAIT, "MSG_DONTWAIT"), (MSG_EOR, "MSG_EOR"),
                   (MSG_WAITALL, "MSG_WAITALL"), (MSG_NOSIGNAL, "MSG_NOSIGNAL"), (MSG_MORE, "MSG_MORE"),
                   (MSG_CMSG_CLOEXEC, "MSG_CMSG_CLOEXEC")]
_POLL_NAMES = [(POLLIN, "IN"), (POLLPRI, "PRI"), (POLLOUT, "OUT"), (POLLERR, "ERR"), (POLLHUP, "HUP"),
               (POLLNVAL, "NVAL"), (POLLRDNORM, "RDNORM"), (POLLWRNORM, "WRNORM"), (POLLWRBAND, "WRBAND")]


def flag_names(v, table, empty="0"):
    out = []
    for bit, name in table:
        if v & bit:
            out.append(name)
            v &= ~bit
    if v:
        out.append("0x%x" % (v & 0xffffffff))
    return "|".join(out) or empty


def msg_flags_str(v):
    return flag_names(v, _MSG_FLAG_NAMES)


# Where Linux has two names for one value, print the one the kernel source uses.
_ERRNO_PREFERRED = {_errno.EOPNOTSUPP: "EOPNOTSUPP", _errno.EAGAIN: "EAGAIN", _errno.EDEADLK: "EDEADLK"}


def errno_name(e):
    if e == 0:
        return "0"
    return _ERRNO_PREFERRED.get(e) or _errno.errorcode.get(e, "E%d" % e)


def hexdata(b):
    if len(b) <= 64:
        return b.hex()
    return "sha256:" + hashlib.sha256(b).hexdigest()


# ---------------------------------------------------------------- recorder

class Fd:
    """A symbolic fd: name is what the canonical lines show."""

    def __init__(self, name, fd):
        self.name, self.fd, self.open = name, fd, fd >= 0

    def __repr__(self):
        return self.name


class Timeout(Exception):
    pass


def _on_alarm(signum, frame):
    pass


class Recorder:
    """Runs one case.  Each method performs one call and emits one line."""

    def __init__(self, case, emit, timeout=2.0):
        self.case, self.emit, self.timeout = case, emit, timeout
        self.step = 0
        self.fds = []
        self.counters = {}
        signal.signal(signal.SIGALRM, _on_alarm)
        signal.siginterrupt(signal.SIGALRM, True)

    # -- plumbing
    def _new_fd(self, prefix, ret):
        n = self.counters.get(prefix, 0) + 1
        self.counters[prefix] = n
        f = Fd("%s%d" % (prefix, n), ret)
        self.fds.append(f)
        return f

    def _guard(self, fn):
        """Run fn with SIGALRM armed (repeating, so a call that restarts after
        EINTR is interrupted again).  Returns (result, timed_out)."""
        t0 = time.monotonic()
        signal.setitimer(signal.ITIMER_REAL, self.timeout, 0.2)
        try:
            res = fn()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        return res, (time.monotonic() - t0) >= self.timeout

    def _line(self, call, ret, err, timed_out, fdret=False, **extra):
        self.step += 1
        r = "fd" if (fdret and ret >= 0) else str(ret)
        parts = [self.case, str(self.step), call, "ret=" + r,
                 "errno=" + ("TIMEOUT" if timed_out else errno_name(err))]
        for k, v in extra.items():
            if v is not None:
                parts.append("%s=%s" % (k, v))
        self.emit(" ".join(parts))

    @staticmethod
    def _fdv(f):
        return f.fd if isinstance(f, Fd) else f

    @staticmethod
    def _fdn(f):
        return f.name if isinstance(f, Fd) else str(f)

    # -- calls
    def socket(self, type=SOCK_SEQPACKET, proto=0, family=AF_ALG, label=None):
        (r, e), to = self._guard(lambda: socket(family, type, proto))
        self._line("socket(%s)" % (label or "%d,%s,%d" % (family, _type_str(type), proto)), r, e, to, fdret=True)
        return self._new_fd("t", r)

    def bind(self, f, typ, name, family=AF_ALG, feat=0, mask=0, addrlen=None, raw=None, label=None, null=False):
        """raw: sockaddr bytes instead of typ/name; null: pass a NULL address."""
        addr = None if null else raw if raw is not None else sockaddr_alg(typ, name, family, feat, mask)
        if addrlen is None:
            addrlen = len(addr) if addr is not None else SOCKADDR_ALG_SIZE
        if label is None:
            label = "%s,%s" % (_printable(typ), _printable(name))
            if family != AF_ALG:
                label += ",family=%d" % family
            if feat or mask:
                label += ",feat=0x%x,mask=0x%x" % (feat, mask)
        (r, e), to = self._guard(lambda: bind(self._fdv(f), addr, addrlen))
        self._line("bind(%s,%s,addrlen=%d)" % (self._fdn(f), label, addrlen), r, e, to)
        return r

    def setsockopt(self, f, level, opt, val, optlen=None, label=None):
        if label is None:
            label = "NULL" if val is None else "%dB" % len(val)
        if optlen is not None:
            label += ",optlen=%d" % optlen
        (r, e), to = self._guard(lambda: setsockopt(self._fdv(f), level, opt, val, optlen))
        self._line("setsockopt(%s,%s,%s,%s)" % (self._fdn(f), _level_str(level), _opt_str(level, opt), label),
                   r, e, to)
        return r

    def setkey(self, f, key, optlen=None):
        return self.setsockopt(f, SOL_ALG, ALG_SET_KEY, key, optlen,
                               label="key=%s" % (("%dB" % len(key)) if key is not None else "NULL"))

    def getsockopt(self, f, level, opt, size=4):
        (r, e, v, n), to = self._guard(lambda: getsockopt(self._fdv(f), level, opt, size))
        self._line("getsockopt(%s,%s,%s,%d)" % (self._fdn(f), _level_str(level), _opt_str(level, opt), size),
                   r, e, to, data=hexdata(v) if r == 0 else None, optlen=n if r == 0 else None)
        return r, v

    def getsockname(self, f, size=SOCKADDR_ALG_SIZE, peer=False):
        fn = getpeername if peer else getsockname
        (r, e, v, n), to = self._guard(lambda: fn(self._fdv(f), size))
        self._line("%s(%s,%d)" % ("getpeername" if peer else "getsockname", self._fdn(f), size), r, e, to,
                   data=hexdata(v) if r == 0 else None, addrlen=n if r == 0 else None)
        return r

    def connect(self, f, addr):
        (r, e), to = self._guard(lambda: connect(self._fdv(f), addr))
        self._line("connect(%s,len=%d)" % (self._fdn(f), len(addr)), r, e, to)
        return r

    def listen(self, f, backlog=1):
        (r, e), to = self._guard(lambda: listen(self._fdv(f), backlog))
        self._line("listen(%s,%d)" % (self._fdn(f), backlog), r, e, to)
        return r

    def shutdown(self, f, how=SHUT_RDWR):
        (r, e), to = self._guard(lambda: shutdown(self._fdv(f), how))
        self._line("shutdown(%s,%d)" % (self._fdn(f), how), r, e, to)
        return r

    def accept(self, f, addrsize=None):
        (r, e, n, a), to = self._guard(lambda: accept(self._fdv(f), addrsize))
        self._line("accept(%s%s)" % (self._fdn(f), "" if addrsize is None else ",addr=%d" % addrsize), r, e, to,
                   fdret=True, addrlen=n if (addrsize is not None and r >= 0) else None,
                   addr=hexdata(a) if (addrsize is not None and r >= 0) else None)
        return self._new_fd("o", r)

    def accept4(self, f, flags, addrsize=None):
        (r, e, n, a), to = self._guard(lambda: accept4(self._fdv(f), flags, addrsize))
        self._line("accept4(%s,%s%s)" % (self._fdn(f), _sockflags_str(flags),
                                         "" if addrsize is None else ",addr=%d" % addrsize), r, e, to,
                   fdret=True, addrlen=n if (addrsize is not None and r >= 0) else None,
                   addr=hexdata(a) if (addrsize is not None and r >= 0) else None)
        return self._new_fd("o", r)

    def send(self, f, data, flags=0, length=None):
        (r, e), to = self._guard(lambda: send(self._fdv(f), data, flags, length))
        self._line("send(%s,%s,%s)" % (self._fdn(f), _datalabel(data, length), msg_flags_str(flags)), r, e, to)
        return r

    def sendto(self, f, data, flags, addr, addrlen=None):
        (r, e), to = self._guard(lambda: sendto(self._fdv(f), data, flags, addr, addrlen))
        self._line("sendto(%s,%s,%s,addr=%s)" % (self._fdn(f), _datalabel(data), msg_flags_str(flags),
                                                 "NULL" if addr is None else len(addr)), r, e, to)
        return r

    def write(self, f, data, length=None):
        (r, e), to = self._guard(lambda: write(self._fdv(f), data, length))
        self._line("write(%s,%s)" % (self._fdn(f), _datalabel(data, length)), r, e, to)
        return r

    def sendmsg(self, f, iovs, cmsgs=None, flags=0, controllen=None, ctrl=None, label=None):
        """iovs: bytes or list of bytes.  cmsgs: list of Cmsg.  ctrl: raw
        control bytes instead of cmsgs.  controllen: override."""
        if isinstance(iovs, (bytes, bytearray)):
            iovs = [iovs]
        if ctrl is None and cmsgs:
            ctrl = control(cmsgs)
        lab = label or ",".join(c.label for c in (cmsgs or []))
        if ctrl is not None and not cmsgs and label is None:
            lab = "raw%d" % len(ctrl)
        desc = "sendmsg(%s,iov=[%s],cmsg=[%s]%s,%s)" % (
            self._fdn(f), ",".join(_datalabel(v if not isinstance(v, tuple) else v[0],
                                              None if not isinstance(v, tuple) else v[1]) for v in iovs),
            lab, "" if controllen is None else ",controllen=%d" % controllen, msg_flags_str(flags))
        (r, e), to = self._guard(lambda: sendmsg(self._fdv(f), iovs, ctrl, controllen, flags))
        self._line(desc, r, e, to)
        return r

    def read(self, f, n, null=False, random=False):
        """random: the bytes are random (an rng socket): record only what
        can be compared, their count and whether they are all zero."""
        (r, e, d), to = self._guard(lambda: read(self._fdv(f), n, null))
        self._line("read(%s,%s%d)" % (self._fdn(f), "NULL," if null else "", n), r, e, to,
                   data=_shown(d, random) if (r >= 0 and not null) else None)
        return d if r >= 0 else None

    def recv(self, f, n, flags=0, random=False):
        (r, e, d), to = self._guard(lambda: recv(self._fdv(f), n, flags))
        self._line("recv(%s,%d,%s)" % (self._fdn(f), n, msg_flags_str(flags)), r, e, to,
                   data=_shown(d, random) if r >= 0 else None)
        return d if r >= 0 else None

    def recvmsg(self, f, sizes, flags=0, controllen=0, random=False):
        if isinstance(sizes, int):
            sizes = [sizes]
        (r, e, d, mf, cl), to = self._guard(lambda: recvmsg(self._fdv(f), sizes, flags, controllen))
        self._line("recvmsg(%s,iov=[%s],%s%s)" % (self._fdn(f), ",".join(map(str, sizes)), msg_flags_str(flags),
                                                 ",control=%d" % controllen if controllen else ""),
                   r, e, to, data=_shown(d, random) if r >= 0 else None,
                   msg_flags=msg_flags_str(mf) if r >= 0 else None,
                   controllen=cl if (r >= 0 and controllen) else None)
        return d if r >= 0 else None

    def poll(self, f, events=POLLIN | POLLOUT):
        (r, e, rev), to = self._guard(lambda: poll([(self._fdv(f), events)], 0))
        self._line("poll(%s,%s,0)" % (self._fdn(f), flag_names(events, _POLL_NAMES)), r, e, to,
                   revents=flag_names(rev[0], _POLL_NAMES) if r >= 0 else None)
        return r

    def close(self, f):
        (r, e), to = self._guard(lambda: close(self._fdv(f)))
        self._line("close(%s)" % self._fdn(f), r, e, to)
        if isinstance(f, Fd):
            f.open = False
        return r

    def dup(self, f):
        (r, e), to = self._guard(lambda: dup(self._fdv(f)))
        self._line("dup(%s)" % self._fdn(f), r, e, to, fdret=True)
        return self._new_fd("d", r)

    def fcntl(self, f, cmd, arg=0):
        (r, e), to = self._guard(lambda: fcntl(self._fdv(f), cmd, arg))
        isdup = cmd in (F_DUPFD, F_DUPFD_CLOEXEC)
        ret = r
        self._line("fcntl(%s,%s,%s)" % (self._fdn(f), _FCNTL_NAMES.get(cmd, str(cmd)), arg), ret, e, to,
                   fdret=isdup)
        return self._new_fd("d", r) if isdup else r

    def finish(self):
        """Close every fd the case opened and did not close, newest first."""
        for f in reversed(self.fds):
            if f.open:
                self.close(f)


_FCNTL_NAMES = {F_DUPFD: "F_DUPFD", F_GETFD: "F_GETFD", F_SETFD: "F_SETFD", F_GETFL: "F_GETFL",
                F_SETFL: "F_SETFL", F_DUPFD_CLOEXEC: "F_DUPFD_CLOEXEC"}


def _shown(d, random):
    if not random:
        return hexdata(d)
    return "random:%d%s" % (len(d), ":allzero" if d and not any(d) else "")


def _printable(s):
    """s as it may appear inside a CALL token (no spaces or commas)."""
    if isinstance(s, str):
        s = s.encode()
    if len(s) > 40:
        return "len%d:sha256:%s" % (len(s), hashlib.sha256(s).hexdigest()[:16])
    if all(33 <= c < 127 and c != 44 for c in s):
        return s.decode()
    return "hex:" + s.hex()


def _datalabel(data, length=None):
    if data is None:
        return "NULL" + ("" if length is None else ":%d" % length)
    s = "%dB" % len(data)
    if length is not None and length != len(data):
        s += ":len=%d" % length
    return s


def _type_str(t):
    base = {SOCK_STREAM: "STREAM", SOCK_DGRAM: "DGRAM", SOCK_RAW: "RAW", SOCK_SEQPACKET: "SEQPACKET"}
    flags = t & (SOCK_NONBLOCK | SOCK_CLOEXEC)
    s = base.get(t & 0xf, str(t & 0xf)) if not (t & ~(0xf | SOCK_NONBLOCK | SOCK_CLOEXEC)) else "0x%x" % t
    if flags and not s.startswith("0x"):
        s += "|" + _sockflags_str(flags)
    return s


def _sockflags_str(f):
    out = []
    if f & SOCK_CLOEXEC:
        out.append("CLOEXEC")
    if f & SOCK_NONBLOCK:
        out.append("NONBLOCK")
    rest = f & ~(SOCK_CLOEXEC | SOCK_NONBLOCK)
    if rest:
        out.append("0x%x" % rest)
    return "|".join(out) or "0"


def _level_str(l):
    return {SOL_ALG: "SOL_ALG", SOL_SOCKET: "SOL_SOCKET"}.get(l, str(l))


def _opt_str(level, opt):
    if level == SOL_ALG:
        return {1: "ALG_SET_KEY", 2: "ALG_SET_IV", 3: "ALG_SET_OP", 4: "ALG_SET_AEAD_ASSOCLEN",
                5: "ALG_SET_AEAD_AUTHSIZE", 6: "ALG_SET_DRBG_ENTROPY",
                7: "ALG_SET_KEY_BY_KEY_SERIAL"}.get(opt, str(opt))
    if level == SOL_SOCKET:
        return {SO_TYPE: "SO_TYPE", SO_ERROR: "SO_ERROR", SO_DOMAIN: "SO_DOMAIN", SO_PROTOCOL: "SO_PROTOCOL",
                SO_ACCEPTCONN: "SO_ACCEPTCONN"}.get(opt, str(opt))
    return str(opt)
