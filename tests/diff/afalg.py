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
SO_SNDBUF = 7
SO_RCVBUF = 8
SO_RCVTIMEO = 20
SO_SNDTIMEO = 21
SO_PEERCRED = 17
SO_LINGER = 13
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
O_CLOEXEC = 0o2000000
SPLICE_F_MOVE = 1
SPLICE_F_NONBLOCK = 2
SPLICE_F_MORE = 4
SPLICE_F_GIFT = 8
EPOLL_CTL_ADD = 1
EPOLL_CTL_DEL = 2
EPOLL_CTL_MOD = 3
EPOLLONESHOT = 1 << 30
EPOLLET = 1 << 31
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
_pipe2 = _proto("pipe2", _int, _vp, _int)
_dup2 = _proto("dup2", _int, _int, _int)
_dup3 = _proto("dup3", _int, _int, _int, _int)
_splice = _proto("splice", _ssz, _int, _vp, _int, _vp, _sz, _uint)
_vmsplice = _proto("vmsplice", _ssz, _int, _vp, _sz, _uint)
_sendfile = _proto("sendfile", _ssz, _int, _int, _vp, _sz)
_select = _proto("select", _int, _int, _vp, _vp, _vp, _vp)
_epoll_create1 = _proto("epoll_create1", _int, _int)
_epoll_ctl = _proto("epoll_ctl", _int, _int, _int, _int, _vp)
_epoll_wait = _proto("epoll_wait", _int, _int, _vp, _int, _int)
_readv = _proto("readv", _ssz, _int, _vp, _int)
_writev = _proto("writev", _ssz, _int, _vp, _int)
_ioctl = _proto("ioctl", _int, _int, ctypes.c_ulong, _vp)
_pread = _proto("pread", _ssz, _int, _vp, _sz, ctypes.c_long)
_pwrite = _proto("pwrite", _ssz, _int, _vp, _sz, ctypes.c_long)
_lseek = _proto("lseek", ctypes.c_long, _int, ctypes.c_long, _int)
_sendmmsg = _proto("sendmmsg", _int, _int, _vp, _uint, _int)
_recvmmsg = _proto("recvmmsg", _int, _int, _vp, _uint, _int, _vp)
_syscall = _proto("syscall", ctypes.c_long, ctypes.c_long, ctypes.c_long, ctypes.c_long, ctypes.c_long,
                  ctypes.c_long, ctypes.c_long)


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


def pipe2(flags=0):
    a = (_int * 2)()
    r, e = _errret(_pipe2(ctypes.cast(a, _vp), flags))
    return r, e, a[0], a[1]


def dup2(fd, n):
    return _errret(_dup2(fd, n))


def dup3(fd, n, flags):
    return _errret(_dup3(fd, n, flags))


def splice(fin, fout, n, flags=0, off_in=None, off_out=None):
    """off_in/off_out: None (NULL) or an int offset; returns (ret, errno, off_in', off_out')."""
    oi = None if off_in is None else ctypes.c_longlong(off_in)
    oo = None if off_out is None else ctypes.c_longlong(off_out)
    r, e = _errret(_splice(fin, None if oi is None else ctypes.addressof(oi), fout,
                           None if oo is None else ctypes.addressof(oo), n, flags))
    return r, e, None if oi is None else oi.value, None if oo is None else oo.value


def _iovecs(bufs):
    """A ctypes iovec array over bytes objects (kept alive by the caller)."""
    keep = [_buf(b) for b in bufs]
    arr = (iovec * max(len(bufs), 1))()
    for i, (k, b) in enumerate(zip(keep, bufs)):
        arr[i].iov_base = _addr(k)
        arr[i].iov_len = len(b)
    return arr, keep


def vmsplice(fd, bufs, flags=0):
    arr, keep = _iovecs(bufs)
    return _errret(_vmsplice(fd, ctypes.addressof(arr), len(bufs), flags))


def writev(fd, bufs):
    arr, keep = _iovecs(bufs)
    return _errret(_writev(fd, ctypes.addressof(arr), len(bufs)))


def readv(fd, sizes):
    bufs = [ctypes.create_string_buffer(max(s, 1)) for s in sizes]
    arr = (iovec * max(len(sizes), 1))()
    for i, (b, s) in enumerate(zip(bufs, sizes)):
        arr[i].iov_base = _addr(b)
        arr[i].iov_len = s
    r, e = _errret(_readv(fd, ctypes.addressof(arr), len(sizes)))
    data, left = b"", max(r, 0)
    for b, s in zip(bufs, sizes):
        data += b.raw[:min(left, s)]
        left -= min(left, s)
    return r, e, data


def sendfile(out, fin, n, offset=None):
    o = None if offset is None else ctypes.c_long(offset)
    r, e = _errret(_sendfile(out, fin, None if o is None else ctypes.addressof(o), n))
    return r, e, None if o is None else o.value


class fd_set(ctypes.Structure):
    _fields_ = [("bits", ctypes.c_ulong * 16)]


class timeval(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("usec", ctypes.c_long)]


def select(rfds, wfds, timeout_ms=0):
    """Returns (ret, errno, ready read fds, ready write fds)."""
    sets = []
    for fds in (rfds, wfds):
        s = fd_set()
        for fd in fds:
            s.bits[fd // 64] |= 1 << (fd % 64)
        sets.append(s)
    tv = timeval(timeout_ms // 1000, (timeout_ms % 1000) * 1000)
    n = max(list(rfds) + list(wfds) + [-1]) + 1
    r, e = _errret(_select(n, ctypes.addressof(sets[0]), ctypes.addressof(sets[1]), None, ctypes.addressof(tv)))
    out = [[fd for fd in fds if s.bits[fd // 64] >> (fd % 64) & 1] if r >= 0 else [] for fds, s in
           zip((rfds, wfds), sets)]
    return r, e, out[0], out[1]


class epoll_event(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("events", ctypes.c_uint32), ("data", ctypes.c_uint64)]


def epoll_ctl(ep, op, fd, events, data):
    ev = epoll_event(events, data)
    return _errret(_epoll_ctl(ep, op, fd, ctypes.addressof(ev)))


def epoll_wait(ep, maxevents=8, timeout_ms=0):
    arr = (epoll_event * maxevents)()
    r, e = _errret(_epoll_wait(ep, ctypes.addressof(arr), maxevents, timeout_ms))
    return r, e, [(arr[i].data, arr[i].events) for i in range(max(r, 0))]


class mmsghdr(ctypes.Structure):
    _fields_ = [("msg_hdr", msghdr), ("msg_len", _uint)]


def _mmsg(vecs):
    """An mmsghdr array with one iovec per message over bytes (send) or
    sizes (receive); returns the array and the buffers."""
    arr = (mmsghdr * max(len(vecs), 1))()
    keep = []
    for i, v in enumerate(vecs):
        b = ctypes.create_string_buffer(v, max(len(v), 1)) if isinstance(v, bytes) else \
            ctypes.create_string_buffer(max(v, 1))
        io = (iovec * 1)()
        io[0].iov_base = _addr(b)
        io[0].iov_len = len(v) if isinstance(v, bytes) else v
        keep += [b, io]
        arr[i].msg_hdr.msg_iov = io
        arr[i].msg_hdr.msg_iovlen = 1
        arr[i].msg_len = 0xdead
    return arr, keep


def sendmmsg(fd, datas, flags=0):
    arr, keep = _mmsg(datas)
    r, e = _errret(_sendmmsg(fd, ctypes.addressof(arr), len(datas), flags))
    return r, e, [arr[i].msg_len for i in range(max(r, 0))]


def recvmmsg(fd, sizes, flags=0):
    arr, keep = _mmsg(sizes)
    r, e = _errret(_recvmmsg(fd, ctypes.addressof(arr), len(sizes), flags, None))
    out = []
    for i in range(max(r, 0)):
        out.append(keep[2 * i].raw[:arr[i].msg_len])
    return r, e, out


def sys_call(nr, *args):
    a = list(args) + [0] * (5 - len(args))
    return _errret(_syscall(nr, *a))


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

    # A call the golden lines say blocks on Linux (errno=TIMEOUT) is given
    # this long to show that it blocks here too, not the whole timeout.
    BLOCK_WAIT = 0.5
    # bind() never waits for another caller; on the oracle it may load and
    # self-test modules under emulation for longer than the timeout, which
    # must not be taken for blocking.
    BIND_WAIT = 120.0

    def __init__(self, case, emit, timeout=2.0, blocking=()):
        """blocking: the steps ("3", "c2") expected to block."""
        self.case, self.emit, self.timeout = case, emit, timeout
        self.blocking = frozenset(blocking)
        self.step = 0
        self.prefix = ""        # c for a forked child's steps, x for an exec'd one's
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

    def _guard(self, fn, wait=None):
        """Run fn with SIGALRM armed (repeating, so a call that restarts after
        EINTR is interrupted again) after wait (the timeout by default).
        Returns (result, timed_out)."""
        wait = wait or self.timeout
        if self.prefix + str(self.step + 1) in self.blocking:
            wait = min(wait, self.BLOCK_WAIT)
        t0 = time.monotonic()
        signal.setitimer(signal.ITIMER_REAL, wait, 0.2)
        try:
            res = fn()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        return res, (time.monotonic() - t0) >= wait

    def _line(self, call, ret, err, timed_out, fdret=False, **extra):
        self.step += 1
        r = "fd" if (fdret and ret >= 0) else str(ret)
        parts = [self.case, self.prefix + str(self.step), call, "ret=" + r,
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
        (r, e), to = self._guard(lambda: bind(self._fdv(f), addr, addrlen), self.BIND_WAIT)
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

    # -- pipes, files, zero-copy input
    def pipe(self, flags=0):
        (r, e, rd, wr), to = self._guard(lambda: pipe2(flags))
        self._line("pipe2(%s)" % _sockflags_str(flags), r, e, to)
        return self._new_fd("p", rd if r == 0 else -1), self._new_fd("p", wr if r == 0 else -1)

    def tmpfile(self, data):
        """A regular file holding data, positioned at 0 (set-up, not a call under test)."""
        import os
        import tempfile
        fd, path = tempfile.mkstemp(prefix="ualg-diff-")
        os.unlink(path)
        os.write(fd, bytes(data))
        os.lseek(fd, 0, 0)
        self._line("tmpfile(%dB)" % len(data), fd, 0, False, fdret=True)
        return self._new_fd("f", fd)

    def lseek(self, f):
        import os
        try:
            r, e = os.lseek(self._fdv(f), 0, 1), 0
        except OSError as x:
            r, e = -1, x.errno
        self._line("lseek(%s,0,SEEK_CUR)" % self._fdn(f), r, e, False)
        return r

    def splice(self, fin, fout, n, flags=0, off_in=None, off_out=None):
        (r, e, oi, oo), to = self._guard(lambda: splice(self._fdv(fin), self._fdv(fout), n, flags, off_in, off_out))
        self._line("splice(%s,%s,%s,%s,%d,%s)" % (self._fdn(fin), "NULL" if off_in is None else "&%d" % off_in,
                                                  self._fdn(fout), "NULL" if off_out is None else "&%d" % off_out,
                                                  n, flag_names(flags, _SPLICE_NAMES)), r, e, to,
                   off_in=oi, off_out=oo)
        return r

    def vmsplice(self, f, bufs, flags=0):
        (r, e), to = self._guard(lambda: vmsplice(self._fdv(f), bufs, flags))
        self._line("vmsplice(%s,[%s],%s)" % (self._fdn(f), ",".join("%dB" % len(b) for b in bufs),
                                             flag_names(flags, _SPLICE_NAMES)), r, e, to)
        return r

    def sendfile(self, out, fin, n, offset=None):
        (r, e, o), to = self._guard(lambda: sendfile(self._fdv(out), self._fdv(fin), n, offset))
        self._line("sendfile(%s,%s,%s,%d)" % (self._fdn(out), self._fdn(fin),
                                              "NULL" if offset is None else "&%d" % offset, n), r, e, to, offset=o)
        return r

    def writev(self, f, bufs):
        (r, e), to = self._guard(lambda: writev(self._fdv(f), bufs))
        self._line("writev(%s,[%s])" % (self._fdn(f), ",".join("%dB" % len(b) for b in bufs)), r, e, to)
        return r

    def readv(self, f, sizes):
        (r, e, d), to = self._guard(lambda: readv(self._fdv(f), sizes))
        self._line("readv(%s,[%s])" % (self._fdn(f), ",".join(map(str, sizes))), r, e, to,
                   data=hexdata(d) if r >= 0 else None)
        return d if r >= 0 else None

    def sendmmsg(self, f, datas, flags=0):
        (r, e, lens), to = self._guard(lambda: sendmmsg(self._fdv(f), datas, flags))
        self._line("sendmmsg(%s,[%s],%s)" % (self._fdn(f), ",".join("%dB" % len(d) for d in datas),
                                             msg_flags_str(flags)), r, e, to,
                   lens=",".join(map(str, lens)) if r >= 0 else None)
        return r

    def recvmmsg(self, f, sizes, flags=0):
        (r, e, outs), to = self._guard(lambda: recvmmsg(self._fdv(f), sizes, flags))
        self._line("recvmmsg(%s,[%s],%s)" % (self._fdn(f), ",".join(map(str, sizes)), msg_flags_str(flags)),
                   r, e, to, data=",".join(hexdata(o) for o in outs) if r > 0 else None)
        return r

    def ioctl_int(self, f, req, name, val=0):
        """ioctl with a pointer to an int (FIONREAD, FIONBIO...)."""
        v = _int(val)
        (r, e), to = self._guard(lambda: _errret(_ioctl(self._fdv(f), req, ctypes.addressof(v))))
        self._line("ioctl(%s,%s,%d)" % (self._fdn(f), name, val), r, e, to, out=v.value if r >= 0 else None)
        return r

    def pread(self, f, n, off, write=None):
        b = ctypes.create_string_buffer(write if write is not None else b"\0" * max(n, 1))
        fn = _pwrite if write is not None else _pread
        (r, e), to = self._guard(lambda: _errret(fn(self._fdv(f), ctypes.addressof(b),
                                                    len(write) if write is not None else n, off)))
        self._line("%s(%s,%d,%d)" % ("pwrite" if write is not None else "pread", self._fdn(f),
                                     len(write) if write is not None else n, off), r, e, to)
        return r

    def lseek_call(self, f, off, whence):
        (r, e), to = self._guard(lambda: _errret(_lseek(self._fdv(f), off, whence)))
        self._line("lseek(%s,%d,%d)" % (self._fdn(f), off, whence), r, e, to)
        return r

    def fstat_type(self, f):
        import os
        import stat
        try:
            m, e = os.fstat(self._fdv(f)).st_mode, 0
            r = 0
        except OSError as x:
            m, r, e = 0, -1, x.errno
        self._line("fstat(%s)" % self._fdn(f), r, e, False,
                   type=("sock" if stat.S_ISSOCK(m) else oct(stat.S_IFMT(m))) if r == 0 else None)
        return r

    # -- readiness
    def select(self, rd=(), wr=(), timeout_ms=0):
        (r, e, rr, ww), to = self._guard(lambda: select([self._fdv(f) for f in rd], [self._fdv(f) for f in wr],
                                                        timeout_ms))
        name = {self._fdv(f): self._fdn(f) for f in list(rd) + list(wr)}
        self._line("select(r=[%s],w=[%s],%d)" % (",".join(map(self._fdn, rd)), ",".join(map(self._fdn, wr)),
                                                 timeout_ms), r, e, to,
                   rset="[%s]" % ",".join(name[x] for x in rr) if r >= 0 else None,
                   wset="[%s]" % ",".join(name[x] for x in ww) if r >= 0 else None)
        return r

    def epoll_create(self, flags=0):
        (r, e), to = self._guard(lambda: _errret(_epoll_create1(flags)))
        self._line("epoll_create1(%s)" % _sockflags_str(flags), r, e, to, fdret=True)
        return self._new_fd("e", r)

    def epoll_ctl(self, ep, op, f, events=0):
        tag = self.fds.index(f) if f in self.fds else 999
        (r, e), to = self._guard(lambda: epoll_ctl(self._fdv(ep), op, self._fdv(f), events, tag))
        self._line("epoll_ctl(%s,%s,%s,%s)" % (self._fdn(ep), {1: "ADD", 2: "DEL", 3: "MOD"}.get(op, str(op)),
                                               self._fdn(f), flag_names(events, _EPOLL_NAMES)), r, e, to)
        return r

    def epoll_wait(self, ep, maxevents=8, timeout_ms=0):
        (r, e, evs), to = self._guard(lambda: epoll_wait(self._fdv(ep), maxevents, timeout_ms))
        names = sorted("%s:%s" % (self.fds[d].name if d < len(self.fds) else d, flag_names(v, _EPOLL_NAMES))
                       for d, v in evs)
        self._line("epoll_wait(%s,%d,%d)" % (self._fdn(ep), maxevents, timeout_ms), r, e, to,
                   events="[%s]" % ",".join(names) if r >= 0 else None)
        return r

    # -- descriptors and processes
    def dup2(self, f, n, flags=None):
        """n: an Fd (which the call replaces) or a number.  flags: dup3's."""
        target = self._fdv(n)
        if flags is None:
            (r, e), to = self._guard(lambda: dup2(self._fdv(f), target))
            self._line("dup2(%s,%s)" % (self._fdn(f), self._fdn(n)), r, e, to, fdret=True)
        else:
            (r, e), to = self._guard(lambda: dup3(self._fdv(f), target, flags))
            self._line("dup3(%s,%s,%s)" % (self._fdn(f), self._fdn(n), _sockflags_str(flags)), r, e, to,
                       fdret=True)
        if isinstance(n, Fd):
            if r >= 0:
                n.open = True
            return n
        return self._new_fd("d", r)

    def fork(self, child):
        """Runs child(self) in a forked process (its steps are numbered c1, c2...)
        and waits for it; the parent's numbering goes on after."""
        import os
        pid = os.fork()
        if pid == 0:
            status = 0
            try:
                self.prefix, self.step = "c", 0
                child(self)
            except BaseException as x:
                self.emit("%s - CHILD EXCEPTION %s" % (self.case, type(x).__name__))
                status = 3
            os._exit(status)
        _, st = os.waitpid(pid, 0)
        self._line("fork()", 0, 0, False, child=_status_str(st))

    def exec(self, fn, fds):
        """Runs fn(recorder, {name: Fd}) in a new program (exec of python3 on
        exec_child.py) that inherits the fds as they are (CLOEXEC or not);
        its steps are numbered x1, x2..."""
        import os
        import sys
        here = os.path.dirname(os.path.abspath(__file__))
        rfd, wfd = os.pipe()
        args = [sys.executable, os.path.join(here, "exec_child.py"), fn.__code__.co_filename, fn.__name__,
                self.case, str(self.timeout)] + ["%s=%d" % (f.name, f.fd) for f in fds]
        pid = os.fork()
        if pid == 0:
            try:
                os.dup2(wfd, 1)
                os.execv(sys.executable, args)
            finally:
                os._exit(127)
        os.close(wfd)
        out = b""
        deadline = time.monotonic() + 30
        import select as _sel
        while time.monotonic() < deadline:
            r, _, _ = _sel.select([rfd], [], [], 1)
            if r:
                chunk = os.read(rfd, 65536)
                if not chunk:
                    break
                out += chunk
        os.close(rfd)
        _, st = os.waitpid(pid, 0)
        for line in out.decode(errors="replace").splitlines():
            self.emit(line)
        self._line("exec(%s)" % ",".join(f.name for f in fds), 0, 0, False, child=_status_str(st))

    def read_signalled(self, f, n, restart, wait=10.0):
        """read() interrupted by SIGUSR1, whose handler has SA_RESTART when
        restart is true, sent once the read sleeps: the process seen asleep
        ('S' in /proc/PID/stat) twice 20 ms apart, or after wait."""
        import os
        old = signal.signal(signal.SIGUSR1, lambda s, fr: None)
        signal.siginterrupt(signal.SIGUSR1, not restart)
        me = os.getpid()
        pid = os.fork()
        if pid == 0:
            deadline, asleep = time.monotonic() + wait, 0
            while asleep < 2 and time.monotonic() < deadline:
                time.sleep(0.02)
                asleep = asleep + 1 if _proc_state(me) == "S" else 0
            os.kill(me, signal.SIGUSR1)
            os._exit(0)
        (r, e, d), to = self._guard(lambda: read(self._fdv(f), n))
        os.waitpid(pid, 0)
        signal.signal(signal.SIGUSR1, old)
        self._line("read(%s,%d,SIGUSR1%s)" % (self._fdn(f), n, "+SA_RESTART" if restart else ""), r, e, to,
                   data=hexdata(d) if r >= 0 else None)
        return d if r >= 0 else None

    def read_while(self, f, n, label, later, delay=0.5):
        """read() of n bytes while another thread, after delay, makes a call
        on the same socket: later() returns (ret, errno), retried while it
        is EINVAL (a request still queued: the read has not taken it yet).
        The read is recorded first, then that call, so that the lines come
        in one order whatever the timing.  (A thread, not a process: one
        socket in two processes is another matter, fork_* cases.)"""
        import threading
        res = {}

        def run():
            time.sleep(delay)
            deadline, r, e = time.monotonic() + 60, -1, 0
            while time.monotonic() < deadline:
                r, e = later()
                if r >= 0 or e != _errno.EINVAL:
                    break
                time.sleep(0.05)
            res["r"] = (r, e)
        th = threading.Thread(target=run)
        th.start()
        # The read ends when the other call is served: it is given the
        # delay and that call's time on a loaded machine, not the timeout.
        (r, e, d), to = self._guard(lambda: read(self._fdv(f), n), wait=delay + 30)
        th.join()
        self._line("read(%s,%d)" % (self._fdn(f), n), r, e, to, data=hexdata(d) if r >= 0 else None)
        lr, le = res.get("r", (-1, 0))
        self._line("meanwhile:%s" % label, lr, le, False)
        return d if r >= 0 else None

    def aio(self, f, opcode, arg, resfd=False):
        """One iocb through io_setup/io_submit/io_getevents/io_destroy (by
        syscall(), as libkcapi and OpenSSL's afalg engine): opcode 0 PREAD
        (arg: length) or 1 PWRITE (arg: data); resfd: notify an eventfd."""
        import os
        ctx = ctypes.c_ulong(0)
        res = {}
        r, e = sys_call(206, 8, ctypes.addressof(ctx))
        res["setup"] = r if r >= 0 else errno_name(e)
        buf = ctypes.create_string_buffer(arg if opcode == 1 else max(arg, 1))
        nbytes = len(arg) if opcode == 1 else arg
        efd = os.eventfd(0, os.EFD_NONBLOCK) if resfd else -1
        iocb = struct.pack("<QIIHhIQQqQII", 0x1234, 0, 0, opcode, 0, self._fdv(f) & 0xffffffff, ctypes.addressof(buf), nbytes,
                           0, 0, 1 if resfd else 0, max(efd, 0))
        cb = ctypes.create_string_buffer(iocb, len(iocb))
        cbp = (ctypes.c_void_p * 1)(ctypes.addressof(cb))
        ev = ctypes.create_string_buffer(32)

        def run():
            if r < 0:
                return
            s, se = sys_call(209, ctx.value, 1, ctypes.addressof(cbp))
            res["submit"] = s if s >= 0 else errno_name(se)
            if s != 1:
                return
            ts = struct.pack("<qq", 1, 0)
            tsb = ctypes.create_string_buffer(ts, 16)
            g, ge = sys_call(208, ctx.value, 1, 1, ctypes.addressof(ev), ctypes.addressof(tsb))
            res["events"] = g if g >= 0 else errno_name(ge)
            if g == 1:
                data, _, rv, rv2 = struct.unpack("<QQqq", ev.raw)
                res["res"] = rv if rv >= 0 else errno_name(-rv)
                res["data"] = "0x%x" % data
                if opcode == 0 and rv > 0:
                    res["buf"] = hexdata(buf.raw[:rv])
        _, to = self._guard(run)
        if resfd:
            try:
                res["eventfd"] = int.from_bytes(os.read(efd, 8), "little")
            except OSError as x:
                res["eventfd"] = errno_name(x.errno)
            os.close(efd)
        if r >= 0:
            sys_call(207, ctx.value)
        self._line("aio(%s,%s,%s%s)" % (self._fdn(f), {0: "PREAD", 1: "PWRITE"}[opcode],
                                        "%dB" % len(arg) if opcode == 1 else arg, ",RESFD" if resfd else ""),
                   0, 0, to, **res)

    def finish(self):
        """Close every fd the case opened and did not close, newest first."""
        for f in reversed(self.fds):
            if f.open:
                self.close(f)


_SPLICE_NAMES = [(SPLICE_F_MOVE, "MOVE"), (SPLICE_F_NONBLOCK, "NONBLOCK"), (SPLICE_F_MORE, "MORE"),
                 (SPLICE_F_GIFT, "GIFT")]
_EPOLL_NAMES = _POLL_NAMES + [(EPOLLONESHOT, "ONESHOT"), (EPOLLET, "ET")]


def _status_str(st):
    import os
    if os.WIFSIGNALED(st):
        return "signal:%d" % os.WTERMSIG(st)
    return "exit:%d" % os.WEXITSTATUS(st)


def _proc_state(pid):
    """pid's main thread's state letter in /proc/PID/stat (S: asleep), or
    "" if it cannot be read."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


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
                SO_ACCEPTCONN: "SO_ACCEPTCONN", SO_SNDBUF: "SO_SNDBUF", SO_RCVBUF: "SO_RCVBUF",
                SO_RCVTIMEO: "SO_RCVTIMEO", SO_SNDTIMEO: "SO_SNDTIMEO", SO_PEERCRED: "SO_PEERCRED",
                SO_LINGER: "SO_LINGER"}.get(opt, str(opt))
    return str(opt)
