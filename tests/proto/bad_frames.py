#!/usr/bin/env python3
"""algd against hostile bytes: each malformed frame gets an error reply (or
none) and a closed connection for that client only, while another client's
transform and operation sockets keep working.  Talks the wire protocol
directly (see src/proto/proto.h); prints TAP and 'N passed, N failed'."""
import os
import socket
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ualgtest import check, finish, numbered  # noqa: E402

PATH = os.environ["UALG_SOCKET"]
HDR = struct.Struct("=IHHiI")          # len, type, flags, result, reserved
HELLO, BIND, SETSOCKOPT, ACCEPT, SEND, RECV, POLL = 1, 2, 3, 4, 5, 6, 7
REPLY, QUIET = 0x1, 0x4                 # UALG_HDR_REPLY, UALG_HDR_QUIET
ALG_GET, ALG_DUMP, ALG_UPDATE = 32, 33, 34
ALG_REQ = struct.Struct("=128s128sIIIIII")  # name, driver, type, mask, flags, priority, start, reserved
numbered()


def frame(typ, body=b"", flags=0, result=0, length=None, reserved=0):
    n = HDR.size + len(body) if length is None else length
    return HDR.pack(n, typ, flags, result, reserved) + body


def connect(hello=True):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(5)
    s.connect(PATH)
    if hello:
        s.send(frame(HELLO, struct.pack("=IHH", 0x55414C47, 1, 1)))
        assert HDR.unpack(s.recv(64)[:HDR.size])[3] == 1
    return s


def closed_after(s, data):
    """Sends data; True when algd answers at most an error and closes."""
    s.send(data)
    got = []
    try:
        while True:
            m = s.recv(70000)
            if not m:
                return all(HDR.unpack(x[:HDR.size])[3] < 0 for x in got)
            got.append(m)
    except socket.timeout:
        return False
    except ConnectionResetError:
        return True


def sha1_abc(tfm):
    """A full hash round trip over the protocol on a bound tfm socket."""
    tfm.send(frame(ACCEPT))
    msg, anc, _, _ = tfm.recvmsg(64, socket.CMSG_SPACE(4))
    fd = struct.unpack("=i", anc[0][2][:4])[0]
    op = socket.socket(fileno=fd)
    op.settimeout(5)
    op.send(frame(SEND, struct.pack("=IIII", 0x04 | 0x08, 0, 0, 0) + b"abc"))
    op.recv(64)
    op.send(frame(RECV, struct.pack("=IIII", 0, 20, 20, 0)))
    r = op.recv(64)
    op.close()
    return r[HDR.size:].hex()


good = connect()
good.send(frame(BIND, b"hash".ljust(14, b"\0") + struct.pack("=HIII", 0, 0, 0, 5) + b"sha1\0"))
check("a well-formed bind works", HDR.unpack(good.recv(64)[:HDR.size])[3] == 0)
admin = connect()
admin.send(frame(ALG_GET, ALG_REQ.pack(b"sha1", b"", 0, 0, 0, 0, 0, 0)))
r = admin.recv(4096)
check("a well-formed GET answers one record", HDR.unpack(r[:HDR.size])[3] == 0 and len(r) == HDR.size + 408)  # struct ualg_alg_rec
admin.close()

bad = [
    ("a frame shorter than its header", b"\x01\x02\x03"),
    ("a length field larger than the frame", frame(BIND, b"x" * 8, length=4096)),
    ("a length field smaller than the frame", frame(BIND, b"x" * 64, length=20)),
    ("an unknown message type", frame(30)),
    ("reply flags on a request", frame(ACCEPT, flags=1)),
    ("the quiet flag on a request other than HELLO, BIND or SETSOCKOPT", frame(ACCEPT, flags=QUIET)),
    ("a non-zero reserved field", frame(ACCEPT, reserved=7)),
    ("a bind with a name length past the frame",
     frame(BIND, b"hash".ljust(14, b"\0") + struct.pack("=HIII", 0, 0, 0, 200) + b"sha1\0")),
    ("a bind whose name is not terminated",
     frame(BIND, b"hash".ljust(14, b"\0") + struct.pack("=HIII", 0, 0, 0, 4) + b"sha1")),
    ("a setsockopt value length past the frame", frame(SETSOCKOPT, struct.pack("=iiIIII", 279, 1, 16, 0, 16, 0))),
    ("a send with an oversized IV length", frame(SEND, struct.pack("=IIII", 0x2c, 1, 0, 4096))),
    ("a receive larger than a frame", frame(RECV, struct.pack("=IIII", 0, 1 << 20, 1 << 20, 0))),
    ("a receive whose total is below its part", frame(RECV, struct.pack("=IIII", 0, 64, 32, 0))),
    ("an administration request one byte short", frame(ALG_GET, ALG_REQ.pack(b"sha1", b"", 0, 0, 0, 0, 0, 0)[:-1])),
    ("an administration request with an unterminated name", frame(ALG_GET, ALG_REQ.pack(b"a" * 128, b"", 0, 0, 0, 0, 0, 0))),
    ("an update with an unterminated driver", frame(ALG_UPDATE, ALG_REQ.pack(b"", b"d" * 128, 0, 0, 3, 1, 0, 0))),
    ("an administration request with unknown flags", frame(ALG_GET, ALG_REQ.pack(b"sha1", b"", 0, 0, 0x80, 0, 0, 0))),
    ("an administration request with a non-zero reserved field", frame(ALG_GET, ALG_REQ.pack(b"sha1", b"", 0, 0, 0, 0, 0, 1))),
    ("garbage", os.urandom(300)),
    ("an oversized datagram", b"\0" * 200000),
]
for name, data in bad:
    try:
        c = connect()
        check(name + ": error and close", closed_after(c, data))
    except OSError as e:
        check(name + ": error and close (%s)" % e, False)
    finally:
        c.close()

c = connect(hello=False)
check("a request before the greeting: close", closed_after(c, frame(ACCEPT)))
c.close()

check("the other client still works", sha1_abc(good) == "a9993e364706816aba3e25717850c26c9cd0d89d")
fresh = connect()
fresh.send(frame(BIND, b"hash".ljust(14, b"\0") + struct.pack("=HIII", 0, 0, 0, 5) + b"sha1\0"))
fresh.recv(64)
check("new clients are served", sha1_abc(fresh) == "a9993e364706816aba3e25717850c26c9cd0d89d")

# Requests sent ahead (UALG_HDR_QUIET on HELLO, BIND and SETSOCKOPT): a success has no
# reply, the next request's shows it; a failure is answered, flagged quiet.
q = connect(hello=False)
q.send(frame(HELLO, struct.pack("=IHH", 0x55414C47, 1, 1), flags=QUIET))
q.send(frame(BIND, b"hash".ljust(14, b"\0") + struct.pack("=HIII", 0, 0, 0, 5) + b"sha1\0", flags=QUIET))
q.send(frame(POLL))
r = HDR.unpack(q.recv(64)[:HDR.size])
check("a quiet HELLO and BIND that succeed: no replies, the next request's comes (%s)" % (r,),
      r[1:3] == (POLL, REPLY) and r[3] >= 0)
check("... and the socket is bound: a hash through it", sha1_abc(q) == "a9993e364706816aba3e25717850c26c9cd0d89d")
q.close()
q = connect()
q.send(frame(BIND, b"hash".ljust(14, b"\0") + struct.pack("=HIII", 0, 0, 0, 9) + b"nosuchmd\0", flags=QUIET))
q.send(frame(POLL))
r1, r2 = HDR.unpack(q.recv(64)[:HDR.size]), HDR.unpack(q.recv(64)[:HDR.size])
check("a quiet BIND that fails: its reply, flagged quiet, with ENOENT, then the next request's (%s %s)"
      % (r1, r2), r1[1:4] == (BIND, REPLY | QUIET, -2) and r2[1] == POLL)
q.close()

# An op socket that is the client's own connection (ACCEPT_HERE: a bound
# transform connection becomes the op socket accepted from it, its bind and
# key sent ahead), and that op socket's transform reached again from a
# fresh connection of the same uid (ATTACH_TFM, by the op socket's token).
ACCEPT_HERE, ATTACH_TFM = 76, 77
ENOENT, EBUSY, EINVAL = 2, 16, 22


def bind_body(name):
    return b"hash".ljust(14, b"\0") + struct.pack("=HIII", 0, 0, 0, len(name) + 1) + name + b"\0"


def setkey(key, flags=0):
    return frame(SETSOCKOPT, struct.pack("=iiIIII", 279, 1, len(key), 0, len(key), 0) + key, flags=flags)


def answer(s, data):
    s.send(data)
    m = s.recv(4096)
    return HDR.unpack(m[:HDR.size]), m[HDR.size:]


def digest(op, data, n):
    op.send(frame(SEND, struct.pack("=IIII", 0x04 | 0x08, 0, 0, 0) + data))
    op.recv(64)
    op.send(frame(RECV, struct.pack("=IIII", 0, n, n, 0)))
    return op.recv(64)[HDR.size:].hex()


h = connect()
h.send(frame(BIND, bind_body(b"hmac(sha1)"), flags=QUIET))
h.send(setkey(b"Jefe", flags=QUIET))
r, body = answer(h, frame(ACCEPT_HERE))
token = body[:16]
check("a quiet BIND and key, then ACCEPT_HERE: ACCEPT's reply, no fd (%s, %d bytes)" % (r, len(body)),
      r[1:4] == (ACCEPT_HERE, REPLY, 0) and len(body) == 176)
check("... the connection is the op socket: HMAC-SHA1 of RFC 2202 case 2",
      digest(h, b"what do ya want for nothing?", 20) == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
check("... ACCEPT_HERE again on it (an op socket now): EINVAL",
      answer(h, frame(ACCEPT_HERE))[0][1:4] == (ACCEPT_HERE, REPLY, -EINVAL))
t = connect()
check("ATTACH_TFM with the op socket's token: 0", answer(t, frame(ATTACH_TFM, token))[0][3] == 0)
r = answer(t, setkey(b"Jefe"))[0]
check("... that connection is the transform: another key is EBUSY while the keyed op socket lives (%d)"
      % r[3], r[1:4] == (SETSOCKOPT, REPLY, -EBUSY))
h.close()
r = answer(t, setkey(b"Jefe"))[0]
check("... and 0 once the op socket is closed (%d)" % r[3], r[3] == 0)
r, body = answer(t, frame(ACCEPT))
check("... and op sockets are accepted from it", r[1:4] == (ACCEPT, REPLY, 0))
t.close()
u = connect()
check("ATTACH_TFM with a token no op socket has: ENOENT",
      answer(u, frame(ATTACH_TFM, b"\1" * 16))[0][1:4] == (ATTACH_TFM, REPLY, -ENOENT))
check("ACCEPT_HERE on a connection never bound: EINVAL",
      answer(u, frame(ACCEPT_HERE))[0][1:4] == (ACCEPT_HERE, REPLY, -EINVAL))
r = answer(u, setkey(b"Jefe", flags=QUIET))[0]
check("a quiet SETSOCKOPT that fails: its reply, flagged quiet (%s)" % (r,),
      r[1:3] == (SETSOCKOPT, REPLY | QUIET) and r[3] < 0)
r = answer(u, frame(ACCEPT_HERE, flags=QUIET))[0]
check("a quiet ACCEPT_HERE that fails: its reply, flagged quiet, EINVAL (%s)" % (r,),
      r[1:4] == (ACCEPT_HERE, REPLY | QUIET, -EINVAL))
u.send(frame(BIND, bind_body(b"sha1")))
u.recv(64)
DESCRIBE = 64
r, body = answer(u, frame(DESCRIBE))
check("DESCRIBE of a bound transform socket: not an op socket, no token",
      r[3] == 0 and struct.unpack_from("=I", body)[0] & 1 == 0 and body[24:40] == b"\0" * 16)
w = connect()
w.send(frame(BIND, bind_body(b"sha1"), flags=QUIET))
w.send(frame(ACCEPT_HERE, flags=QUIET))
r, body = answer(w, frame(DESCRIBE))
check("a quiet ACCEPT_HERE that succeeds: no reply; DESCRIBE's says an op socket, with its token (%s)" % (r,),
      r[1:4] == (DESCRIBE, REPLY, 0) and struct.unpack_from("=I", body)[0] & 1 and body[24:40] != b"\0" * 16)
check("... and it hashes: SHA-1 of \"abc\"", digest(w, b"abc", 20) == "a9993e364706816aba3e25717850c26c9cd0d89d")
w.close()
check("ATTACH_TFM on a bound connection: EINVAL",
      answer(u, frame(ATTACH_TFM, token))[0][1:4] == (ATTACH_TFM, REPLY, -EINVAL))
check("ATTACH_TFM's body must be a token: a short one closes the connection",
      closed_after(u, frame(ATTACH_TFM, b"\1" * 8)))
u.close()

# RESET: the connection's socket closes, as at the connection's end, and
# the connection is a fresh transform socket of the same opener (the shim
# keeps such a connection for its next op socket).
RESET, ATTACH, ENOKEY = 78, 74, 126


def send_result(op, data):
    op.send(frame(SEND, struct.pack("=IIII", 0x04, 0, 0, 0) + data))
    return HDR.unpack(op.recv(64)[:HDR.size])[3]


v = connect()
v.send(frame(BIND, bind_body(b"hmac(sha1)"), flags=QUIET))
v.send(setkey(b"Jefe", flags=QUIET))
vtoken = answer(v, frame(ACCEPT_HERE))[1][:16]
check("RESET: an HMAC-SHA1 op socket first (RFC 2202 case 2)",
      digest(v, b"what do ya want for nothing?", 20) == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
v.send(frame(RESET))
r, body = answer(v, frame(DESCRIBE))
check("... RESET has no reply; DESCRIBE's then says an unbound transform socket, no token (%s)" % (r,),
      r[1:4] == (DESCRIBE, REPLY, 0) and struct.unpack_from("=I", body)[0] & 3 == 0 and
      body[24:40] == b"\0" * 16)
x = connect()
check("... the old op socket's token names nothing: ATTACH_TFM with it is ENOENT",
      answer(x, frame(ATTACH_TFM, vtoken))[0][1:4] == (ATTACH_TFM, REPLY, -ENOENT))
x.close()
v.send(frame(BIND, bind_body(b"hmac(sha1)"), flags=QUIET))
v.send(frame(ACCEPT_HERE, flags=QUIET))
check("... bound again to hmac(sha1), its op socket has no key: a send is ENOKEY (the key went with "
      "the old socket)", send_result(v, b"abc") == -ENOKEY)
v.send(frame(RESET))
v.send(frame(BIND, bind_body(b"sha1"), flags=QUIET))
check("... RESET again, bound to sha1: its op socket hashes SHA-1 of \"abc\"",
      answer(v, frame(ACCEPT_HERE))[0][3] == 0 and
      digest(v, b"abc", 20) == "a9993e364706816aba3e25717850c26c9cd0d89d")
check("RESET with a body closes the connection", closed_after(v, frame(RESET, b"\0" * 4)))
y = connect()
y.send(frame(BIND, bind_body(b"sha1"), flags=QUIET))
ytoken = answer(y, frame(ACCEPT_HERE))[1][:16]
z = connect()
check("RESET on another op socket's channel: ATTACH, then RESET closes that connection",
      answer(z, frame(ATTACH, ytoken))[0][3] == 0 and closed_after(z, frame(RESET)))
check("... and the op socket itself still hashes", digest(y, b"abc", 20) == "a9993e364706816aba3e25717850c26c9cd0d89d")
y.close()
check("RESET before HELLO closes the connection", closed_after(connect(hello=False), frame(RESET)))


def dump_from(s, start):
    """One ALG_DUMP page from record start on: the reply's count."""
    s.send(frame(ALG_DUMP, ALG_REQ.pack(b"", b"", 0, 0, 0, 0, start, 0)))
    m = s.recv(70000)
    if not m:
        return None
    return HDR.unpack(m[:HDR.size])[3]


# A well-formed dump whose page holds exactly one record is an answer, not
# a malformed frame (a count of 1 once equalled the bad-frame marker).
d = connect()
total = 0
while True:
    n = dump_from(d, total)
    if not n:
        break
    total += n
check("ALG_DUMP pages through %d algorithms" % total, total > 0)
check("ALG_DUMP from the last record answers 1 record and keeps the connection",
      dump_from(d, total - 1) == 1 and dump_from(d, total) == 0)
d.close()
finish()
