"""Differential cases for the rest of the AF_ALG system-call surface (reference:
Linux 6.1): zero-copy input (splice, vmsplice, sendfile), readiness (poll,
select, epoll), blocking and buffer limits, process semantics (fork, dup,
exec), AIO, and misuse.  tests/diff/cases_hash_skcipher.py has the socket
calls themselves; nothing here repeats it.  The golden file recorded on the
real kernel is tests/golden/surface.txt.
"""

import struct

from afalg import *  # noqa: F401,F403
from casekit import pat, h, tfm, opfd

CASES = []


def case(fn):
    CASES.append((fn.__name__, fn))
    return fn


def skc(c, alg="cbc(aes)", iv=None, setup=True):
    """An skcipher op fd keyed with SP 800-38A's key; setup sends the
    encrypt op and IV with MSG_MORE and no data, so that what follows
    (splice, sendfile) carries only data."""
    t, o = opfd(c, "skcipher", alg, key=SP_K)
    if setup:
        cm = [cmsg_op(ALG_OP_ENCRYPT)] + ([cmsg_iv(iv if iv is not None else SP_IV)] if alg != "ecb(aes)" else [])
        c.sendmsg(o, b"", cm, MSG_MORE)
    return t, o


def int32(v):
    return struct.pack("<i", v)


SP_K = h("2b7e151628aed2a6abf7158809cf4f3c")          # SP 800-38A
SP_IV = h("000102030405060708090a0b0c0d0e0f")
SP_CTR = h("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
SP_P = h("6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51"
         "30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710")
HMAC_K = b"Jefe"                                       # RFC 4231 case 2
HMAC_M = b"what do ya want for nothing?"


# ====================================================================== splice

@case
def splice_hash_whole_pipe(c):
    t, o = opfd(c, "hash", "sha256")
    r, w = c.pipe()
    c.write(w, b"abc")
    c.splice(r, o, 3)
    c.read(o, 32)


@case
def splice_hash_len_beyond_pipe(c):
    t, o = opfd(c, "hash", "sha256")
    r, w = c.pipe()
    c.write(w, b"abc")
    c.splice(r, o, 100)
    c.read(o, 32)


@case
def splice_hash_partial_pipe(c):
    t, o = opfd(c, "hash", "sha256")
    r, w = c.pipe()
    c.write(w, b"abcdef")
    c.splice(r, o, 3)
    c.read(o, 32)
    c.read(r, 16)


@case
def splice_hash_more(c):
    t, o = opfd(c, "hash", "sha256")
    r, w = c.pipe()
    c.write(w, b"a")
    c.splice(r, o, 1, SPLICE_F_MORE)
    c.write(w, b"bc")
    c.splice(r, o, 2)
    c.read(o, 32)


@case
def splice_hash_more_then_read(c):
    t, o = opfd(c, "hash", "sha256")
    r, w = c.pipe()
    c.write(w, b"abc")
    c.splice(r, o, 3, SPLICE_F_MORE)
    c.read(o, 32)


@case
def splice_hash_more_then_send(c):
    t, o = opfd(c, "hash", "sha256")
    r, w = c.pipe()
    c.write(w, b"ab")
    c.splice(r, o, 2, SPLICE_F_MORE)
    c.send(o, b"c")
    c.read(o, 32)


@case
def splice_hash_nonblock_empty_pipe(c):
    t, o = opfd(c, "hash", "sha256")
    r, w = c.pipe()
    c.splice(r, o, 16, SPLICE_F_NONBLOCK)
    c.write(w, b"abc")
    c.splice(r, o, 16, SPLICE_F_NONBLOCK)
    c.read(o, 32)


@case
def splice_hash_writer_closed(c):
    t, o = opfd(c, "hash", "sha256")
    r, w = c.pipe()
    c.close(w)
    c.splice(r, o, 16)
    c.read(o, 32)


@case
def splice_hash_len_zero(c):
    t, o = opfd(c, "hash", "sha256")
    r, w = c.pipe()
    c.write(w, b"abc")
    c.splice(r, o, 0)
    c.read(r, 16)
    c.read(o, 32)


@case
def splice_hash_64k(c):
    t, o = opfd(c, "hash", "sha256")
    r, w = c.pipe()
    c.write(w, pat(65536, 1))
    c.splice(r, o, 65536)
    c.read(o, 32)


@case
def splice_hash_chunks_more(c):
    t, o = opfd(c, "hash", "sha512")
    r, w = c.pipe()
    for i in range(3):
        c.write(w, pat(40000, i))
        c.splice(r, o, 40000, SPLICE_F_MORE)
    c.write(w, b"end")
    c.splice(r, o, 3)
    c.read(o, 64)


@case
def splice_hmac(c):
    t, o = opfd(c, "hash", "hmac(sha256)", key=HMAC_K)
    r, w = c.pipe()
    c.write(w, HMAC_M)
    c.splice(r, o, len(HMAC_M))
    c.read(o, 32)


@case
def splice_from_file(c):
    t, o = opfd(c, "hash", "sha256")
    f = c.tmpfile(b"abc")
    c.splice(f, o, 3)
    c.splice(f, o, 3, off_in=0)
    c.read(o, 32)


@case
def splice_from_socket(c):
    t, o = opfd(c, "hash", "sha256")
    t2, o2 = opfd(c, "hash", "sha1")
    c.write(o2, b"abc")
    c.splice(o2, o, 20)
    c.read(o, 32)


@case
def splice_offsets(c):
    t, o = opfd(c, "hash", "sha256")
    r, w = c.pipe()
    c.write(w, b"abc")
    c.splice(r, o, 3, off_in=0)
    c.splice(r, o, 3, off_out=0)
    c.splice(r, o, 3, off_in=0, off_out=0)
    c.read(r, 16)


@case
def splice_to_tfm(c):
    t = tfm(c, "hash", "sha256")
    r, w = c.pipe()
    c.write(w, b"abc")
    c.splice(r, t, 3)
    c.read(r, 16)


@case
def splice_to_unbound(c):
    t = c.socket()
    r, w = c.pipe()
    c.write(w, b"abc")
    c.splice(r, t, 3)


@case
def splice_out_of_hash_op(c):
    t, o = opfd(c, "hash", "sha256")
    r, w = c.pipe()
    c.write(o, b"abc")
    c.splice(o, w, 32, SPLICE_F_NONBLOCK)
    c.read(r, 64)


@case
def splice_out_of_skcipher_op(c):
    t, o = skc(c)
    c.send(o, SP_P[:16])
    r, w = c.pipe()
    c.splice(o, w, 16, SPLICE_F_NONBLOCK)
    c.read(r, 64)


@case
def splice_skc_whole(c):
    t, o = skc(c)
    r, w = c.pipe()
    c.write(w, SP_P)
    c.splice(r, o, 64)
    c.read(o, 64)


@case
def splice_skc_more(c):
    t, o = skc(c)
    r, w = c.pipe()
    c.write(w, SP_P[:16])
    c.splice(r, o, 16, SPLICE_F_MORE)
    c.write(w, SP_P[16:32])
    c.splice(r, o, 16)
    c.read(o, 32)


@case
def splice_skc_no_setup(c):
    t, o = skc(c, setup=False)
    r, w = c.pipe()
    c.write(w, SP_P[:16])
    c.splice(r, o, 16)
    c.read(o, 16)


@case
def splice_skc_partial_block(c):
    t, o = skc(c)
    r, w = c.pipe()
    c.write(w, SP_P[:10])
    c.splice(r, o, 10)
    c.read(o, 16)


@case
def splice_skc_ctr_64k(c):
    t, o = skc(c, "ctr(aes)", iv=SP_CTR)
    r, w = c.pipe()
    c.write(w, pat(65536, 2))
    c.splice(r, o, 65536)
    c.read(o, 65536)


@case
def splice_skc_nonblock_empty(c):
    t, o = skc(c)
    r, w = c.pipe()
    c.splice(r, o, 16, SPLICE_F_NONBLOCK)
    c.write(w, SP_P[:16])
    c.splice(r, o, 16, SPLICE_F_NONBLOCK)
    c.read(o, 16)


@case
def splice_skc_then_sendmsg(c):
    t, o = skc(c)
    r, w = c.pipe()
    c.write(w, SP_P[:16])
    c.splice(r, o, 16, SPLICE_F_MORE)
    c.sendmsg(o, SP_P[16:32])
    c.read(o, 32)


# ====================================================================== vmsplice

@case
def vmsplice_hash(c):
    t, o = opfd(c, "hash", "sha256")
    r, w = c.pipe()
    c.vmsplice(w, [b"abc"])
    c.splice(r, o, 3)
    c.read(o, 32)


@case
def vmsplice_hash_gift(c):
    t, o = opfd(c, "hash", "sha256")
    r, w = c.pipe()
    c.vmsplice(w, [pat(4096, 3)], SPLICE_F_GIFT)
    c.splice(r, o, 4096, SPLICE_F_MOVE)
    c.read(o, 32)


@case
def vmsplice_hash_iovecs(c):
    t, o = opfd(c, "hash", "sha1")
    r, w = c.pipe()
    c.vmsplice(w, [b"a", b"", b"bc"])
    c.splice(r, o, 3)
    c.read(o, 20)


@case
def vmsplice_skc(c):
    t, o = skc(c)
    r, w = c.pipe()
    c.vmsplice(w, [SP_P[:16], SP_P[16:48]])
    c.splice(r, o, 48)
    c.read(o, 48)


@case
def vmsplice_onto_op_fd(c):
    t, o = opfd(c, "hash", "sha256")
    c.vmsplice(o, [b"abc"])
    c.vmsplice(t, [b"abc"])
    c.read(o, 32)


# ====================================================================== sendfile

@case
def sendfile_hash_whole(c):
    t, o = opfd(c, "hash", "sha256")
    f = c.tmpfile(b"abc")
    c.sendfile(o, f, 3)
    c.lseek(f)
    c.read(o, 32)


@case
def sendfile_hash_offset(c):
    t, o = opfd(c, "hash", "sha256")
    f = c.tmpfile(b"xabc")
    c.sendfile(o, f, 3, offset=1)
    c.lseek(f)
    c.read(o, 32)


@case
def sendfile_hash_beyond_eof(c):
    t, o = opfd(c, "hash", "sha256")
    f = c.tmpfile(b"abc")
    c.sendfile(o, f, 100)
    c.lseek(f)
    c.read(o, 32)


@case
def sendfile_hash_at_eof(c):
    t, o = opfd(c, "hash", "sha256")
    f = c.tmpfile(b"abc")
    c.sendfile(o, f, 10, offset=3)
    c.read(o, 32)


@case
def sendfile_hash_count_zero(c):
    t, o = opfd(c, "hash", "sha256")
    f = c.tmpfile(b"abc")
    c.sendfile(o, f, 0)
    c.lseek(f)
    c.read(o, 32)


@case
def sendfile_hash_1m(c):
    t, o = opfd(c, "hash", "sha256")
    f = c.tmpfile(pat(1 << 20, 4))
    c.sendfile(o, f, 1 << 20)
    c.read(o, 32)


@case
def sendfile_hash_twice(c):
    t, o = opfd(c, "hash", "sha256")
    f = c.tmpfile(b"abcdef")
    c.sendfile(o, f, 3)
    c.sendfile(o, f, 3)
    c.read(o, 32)


@case
def sendfile_hmac(c):
    t, o = opfd(c, "hash", "hmac(sha256)", key=HMAC_K)
    f = c.tmpfile(HMAC_M)
    c.sendfile(o, f, len(HMAC_M))
    c.read(o, 32)


@case
def sendfile_skc(c):
    t, o = skc(c)
    f = c.tmpfile(SP_P)
    c.sendfile(o, f, 64)
    c.read(o, 64)


@case
def sendfile_skc_offset(c):
    t, o = skc(c)
    f = c.tmpfile(b"x" * 16 + SP_P)
    c.sendfile(o, f, 32, offset=16)
    c.lseek(f)
    c.read(o, 32)


@case
def sendfile_skc_beyond_eof(c):
    t, o = skc(c)
    f = c.tmpfile(SP_P[:32])
    c.sendfile(o, f, 100)
    c.poll(o)
    c.recv(o, 32, MSG_DONTWAIT)
    c.recv(o, 32, MSG_DONTWAIT)


@case
def sendfile_from_pipe(c):
    t, o = opfd(c, "hash", "sha256")
    r, w = c.pipe()
    c.write(w, b"abc")
    c.sendfile(o, r, 3)
    c.read(r, 16)


@case
def sendfile_to_tfm(c):
    t = tfm(c, "hash", "sha256")
    f = c.tmpfile(b"abc")
    c.sendfile(t, f, 3)
    c.lseek(f)


@case
def sendfile_from_op_fd(c):
    t, o = opfd(c, "hash", "sha256")
    t2, o2 = opfd(c, "hash", "sha1")
    c.write(o2, b"abc")
    c.sendfile(o, o2, 20)


# ====================================================================== readiness

@case
def select_hash(c):
    t, o = opfd(c, "hash", "sha256")
    c.select([t, o], [t, o])
    c.write(o, b"abc")
    c.select([o], [o])


@case
def select_skcipher_states(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    c.select([o], [o])
    c.sendmsg(o, b"", [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(SP_IV)], MSG_MORE)
    c.select([o], [o])
    c.send(o, SP_P[:16], MSG_MORE)
    c.select([o], [o])
    c.read(o, 16)
    c.select([o], [o])
    c.send(o, b"")
    c.select([o], [o])


@case
def select_with_pipe(c):
    t, o = skc(c)
    r, w = c.pipe()
    c.select([r, o], [w, o])
    c.write(w, b"x")
    c.select([r, o], [w, o])


@case
def select_unbound_and_tfm(c):
    t = c.socket()
    c.select([t], [t])
    c.bind(t, "skcipher", "cbc(aes)")
    c.select([t], [t])


@case
def epoll_skcipher(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    e = c.epoll_create()
    c.epoll_ctl(e, EPOLL_CTL_ADD, o, POLLIN | POLLOUT)
    c.epoll_wait(e)
    c.sendmsg(o, b"", [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(SP_IV)], MSG_MORE)
    c.epoll_wait(e)
    c.send(o, SP_P[:16], MSG_MORE)
    c.epoll_wait(e)
    c.read(o, 16)
    c.epoll_wait(e)


@case
def epoll_hash(c):
    t, o = opfd(c, "hash", "sha256")
    e = c.epoll_create(SOCK_CLOEXEC)
    c.epoll_ctl(e, EPOLL_CTL_ADD, o, POLLIN | POLLOUT)
    c.epoll_ctl(e, EPOLL_CTL_ADD, t, POLLIN | POLLOUT)
    c.epoll_wait(e)
    c.write(o, b"abc")
    c.epoll_wait(e)


@case
def epoll_mod_del(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    e = c.epoll_create()
    c.epoll_ctl(e, EPOLL_CTL_ADD, o, POLLIN)
    c.epoll_ctl(e, EPOLL_CTL_ADD, o, POLLIN)
    c.epoll_wait(e)
    c.epoll_ctl(e, EPOLL_CTL_MOD, o, POLLOUT)
    c.epoll_wait(e)
    c.epoll_ctl(e, EPOLL_CTL_DEL, o)
    c.epoll_wait(e)
    c.epoll_ctl(e, EPOLL_CTL_DEL, o)
    c.epoll_ctl(e, EPOLL_CTL_MOD, o, POLLOUT)


@case
def epoll_oneshot_et(c):
    t, o = opfd(c, "skcipher", "ctr(aes)", key=SP_K)
    t2, o2 = opfd(c, "skcipher", "ctr(aes)", key=SP_K)
    e = c.epoll_create()
    c.epoll_ctl(e, EPOLL_CTL_ADD, o, POLLOUT | EPOLLONESHOT)
    c.epoll_ctl(e, EPOLL_CTL_ADD, o2, POLLOUT | EPOLLET)
    c.epoll_wait(e)
    c.epoll_wait(e)


@case
def epoll_with_pipe(c):
    t, o = skc(c)
    r, w = c.pipe()
    e = c.epoll_create()
    c.epoll_ctl(e, EPOLL_CTL_ADD, o, POLLIN | POLLOUT)
    c.epoll_ctl(e, EPOLL_CTL_ADD, r, POLLIN)
    c.epoll_wait(e)
    c.write(w, b"x")
    c.epoll_wait(e)


@case
def epoll_closed_op(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    e = c.epoll_create()
    c.epoll_ctl(e, EPOLL_CTL_ADD, o, POLLIN | POLLOUT)
    c.close(o)
    c.epoll_wait(e)


@case
def poll_skc_more_no_data(c):
    t, o = skc(c)
    c.poll(o)
    c.poll(o, POLLIN)
    c.poll(o, POLLOUT)


@case
def poll_tx_full(c):
    t, o = skc(c, "ctr(aes)", iv=SP_CTR)
    c.send(o, pat(1 << 20, 5), MSG_DONTWAIT | MSG_MORE)
    c.poll(o)
    c.send(o, b"x" * 16, MSG_DONTWAIT | MSG_MORE)
    c.recv(o, 65536, MSG_DONTWAIT)
    c.poll(o)


# ====================================================================== blocking, buffers

@case
def nonblock_skc_send_over_limit(c):
    t = c.socket(SOCK_SEQPACKET | SOCK_NONBLOCK)
    c.bind(t, "skcipher", "ctr(aes)")
    c.setkey(t, SP_K)
    o = c.accept4(t, SOCK_NONBLOCK)
    c.fcntl(o, F_GETFL)
    c.sendmsg(o, pat(1 << 20, 6), [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(SP_CTR)])
    c.send(o, b"x" * 16)
    c.recv(o, 1 << 20)


@case
def dontwait_skc_send_over_limit(c):
    t, o = skc(c, "ctr(aes)", iv=SP_CTR)
    c.send(o, pat(300000, 7), MSG_DONTWAIT)
    c.send(o, b"x" * 16, MSG_DONTWAIT)
    c.read(o, 300000)


@case
def nonblock_via_fcntl(c):
    t, o = skc(c)
    c.fcntl(o, F_SETFL, O_NONBLOCK)
    c.fcntl(o, F_GETFL)
    c.read(o, 16)
    c.send(o, SP_P[:16])
    c.read(o, 16)
    c.fcntl(o, F_SETFL, 0)
    c.fcntl(o, F_GETFL)


@case
def nonblock_tfm_inherited_by_accept(c):
    t = c.socket(SOCK_SEQPACKET | SOCK_NONBLOCK)
    c.bind(t, "skcipher", "cbc(aes)")
    c.setkey(t, SP_K)
    o = c.accept(t)
    c.fcntl(o, F_GETFL)
    c.read(o, 16)


@case
def sndbuf_get(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    c.getsockopt(t, SOL_SOCKET, SO_SNDBUF)
    c.getsockopt(o, SOL_SOCKET, SO_SNDBUF)
    c.getsockopt(o, SOL_SOCKET, SO_RCVBUF)


@case
def sndbuf_small_limits_tx(c):
    t, o = skc(c, "ctr(aes)", iv=SP_CTR)
    c.setsockopt(o, SOL_SOCKET, SO_SNDBUF, int32(4096))
    c.getsockopt(o, SOL_SOCKET, SO_SNDBUF)
    c.send(o, pat(65536, 8), MSG_DONTWAIT | MSG_MORE)
    c.send(o, b"y" * 16, MSG_DONTWAIT | MSG_MORE)
    c.poll(o)
    c.recv(o, 65536, MSG_DONTWAIT)


@case
def sndbuf_minimum(c):
    t, o = opfd(c, "skcipher", "ctr(aes)", key=SP_K)
    c.setsockopt(o, SOL_SOCKET, SO_SNDBUF, int32(1))
    c.getsockopt(o, SOL_SOCKET, SO_SNDBUF)
    c.setsockopt(o, SOL_SOCKET, SO_SNDBUF, int32(100000))   # under any wmem_max
    c.getsockopt(o, SOL_SOCKET, SO_SNDBUF)
    c.setsockopt(o, SOL_SOCKET, SO_SNDBUF, b"\1\0")
    c.setsockopt(o, SOL_SOCKET, SO_SNDBUF, None, optlen=4)


@case
def sndbuf_on_tfm_not_inherited(c):
    t = tfm(c, "skcipher", "ctr(aes)", key=SP_K)
    c.setsockopt(t, SOL_SOCKET, SO_SNDBUF, int32(4096))
    c.getsockopt(t, SOL_SOCKET, SO_SNDBUF)
    o = c.accept(t)
    c.getsockopt(o, SOL_SOCKET, SO_SNDBUF)


@case
def sndbuf_hash_unlimited(c):
    t, o = opfd(c, "hash", "sha256")
    c.setsockopt(o, SOL_SOCKET, SO_SNDBUF, int32(4096))
    c.send(o, pat(65536, 9), MSG_DONTWAIT)
    c.read(o, 32)


@case
def rcvtimeo_skc(c):
    t, o = skc(c)
    c.setsockopt(o, SOL_SOCKET, SO_RCVTIMEO, struct.pack("<qq", 0, 200000))
    c.getsockopt(o, SOL_SOCKET, SO_RCVTIMEO, 16)
    c.read(o, 16)


@case
def sndtimeo_skc(c):
    t, o = skc(c, "ctr(aes)", iv=SP_CTR)
    c.setsockopt(o, SOL_SOCKET, SO_SNDTIMEO, struct.pack("<qq", 0, 200000))
    c.send(o, pat(300000, 10), MSG_MORE)
    c.recv(o, 300000, MSG_DONTWAIT)


@case
def waitall_skc(c):
    t, o = skc(c)
    c.send(o, SP_P[:32])
    c.recv(o, 32, MSG_WAITALL)
    c.send(o, SP_P[:16])
    c.recv(o, 32, MSG_WAITALL | MSG_DONTWAIT)


@case
def waitall_skc_more(c):
    t, o = skc(c)
    c.send(o, SP_P[:16], MSG_MORE)
    c.recv(o, 32, MSG_WAITALL | MSG_DONTWAIT)
    c.send(o, SP_P[16:32])
    c.recv(o, 32, MSG_WAITALL)


@case
def waitall_hash(c):
    t, o = opfd(c, "hash", "sha256")
    c.send(o, b"abc")
    c.recv(o, 64, MSG_WAITALL)
    c.recv(o, 64, MSG_WAITALL | MSG_DONTWAIT)


@case
def dontwait_hash_nothing(c):
    t, o = opfd(c, "hash", "sha256")
    c.recv(o, 32, MSG_DONTWAIT)
    c.send(o, b"abc", MSG_DONTWAIT | MSG_MORE)
    c.recv(o, 32, MSG_DONTWAIT)


@case
def signal_sa_restart(c):
    t, o = skc(c)
    c.read_signalled(o, 16, restart=True)


@case
def signal_no_restart(c):
    t, o = skc(c)
    c.read_signalled(o, 16, restart=False)
    c.send(o, SP_P[:16])
    c.read(o, 16)


# ====================================================================== fork, dup, exec

@case
def fork_child_hashes(c):
    t, o = opfd(c, "hash", "sha256")

    def child(c):
        c.write(o, b"abc")
        c.read(o, 32)
    c.fork(child)
    c.write(o, b"abc")
    c.read(o, 32)


@case
def fork_shared_stream(c):
    t, o = opfd(c, "hash", "sha256")
    c.send(o, b"a", MSG_MORE)

    def child(c):
        c.send(o, b"b", MSG_MORE)
    c.fork(child)
    c.send(o, b"c")
    c.read(o, 32)


@case
def fork_child_encrypts(c):
    t, o = skc(c)

    def child(c):
        c.send(o, SP_P[:16])
    c.fork(child)
    c.read(o, 16)


@case
def fork_child_accepts(c):
    t = tfm(c, "hash", "hmac(sha256)")

    def child(c):
        c.setkey(t, HMAC_K)
        o = c.accept(t)
        c.write(o, HMAC_M)
        c.read(o, 32)
        c.close(o)
    c.fork(child)
    o = c.accept(t)
    c.write(o, HMAC_M)
    c.read(o, 32)


@case
def fork_child_closes(c):
    t, o = opfd(c, "hash", "sha256")

    def child(c):
        c.close(o)
        c.close(t)
    c.fork(child)
    c.write(o, b"abc")
    c.read(o, 32)
    c.accept(t)


@case
def dup2_op_fd(c):
    t, o = opfd(c, "hash", "sha256")
    d = c.dup2(o, 200)
    c.send(d, b"a", MSG_MORE)
    c.close(o)
    c.send(d, b"bc")
    c.read(d, 32)


@case
def dup2_same_fd(c):
    t, o = opfd(c, "hash", "sha256")
    c.dup2(o, o)
    c.write(o, b"abc")
    c.read(o, 32)


@case
def dup2_over_alg_fd(c):
    t, o = opfd(c, "hash", "sha256")
    t2, o2 = opfd(c, "hash", "sha1")
    c.dup2(o, o2)
    c.write(o2, b"abc")
    c.read(o2, 32)
    c.read(o, 32)


@case
def dup2_pipe_over_alg_fd(c):
    t, o = opfd(c, "hash", "sha256")
    r, w = c.pipe()
    c.dup2(w, o)
    c.write(o, b"xyz")
    c.read(r, 16)
    c.getsockopt(o, SOL_SOCKET, SO_TYPE)


@case
def dup2_alg_over_pipe(c):
    t, o = opfd(c, "hash", "sha256")
    r, w = c.pipe()
    c.dup2(o, w)
    c.write(w, b"abc")
    c.read(w, 32)


@case
def dup3_flags(c):
    t, o = opfd(c, "hash", "sha256")
    d = c.dup2(o, 201, O_CLOEXEC)
    c.fcntl(d, F_GETFD)
    c.dup2(o, o, 0)
    c.dup2(o, 202, 0x40)
    c.write(d, b"abc")
    c.read(d, 32)


@case
def fdupfd_op_and_tfm(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    d = c.fcntl(o, F_DUPFD, 50)
    c.fcntl(d, F_GETFD)
    dt = c.fcntl(t, F_DUPFD_CLOEXEC, 60)
    c.fcntl(dt, F_GETFD)
    c.sendmsg(d, SP_P[:16], [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(SP_IV)])
    c.read(o, 16)
    c.close(t)
    o2 = c.accept(dt)
    c.sendmsg(o2, SP_P[:16], [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(SP_IV)])
    c.read(o2, 16)


@case
def close_one_dup_midstream(c):
    t, o = skc(c)
    d = c.dup(o)
    c.send(o, SP_P[:16], MSG_MORE)
    c.close(o)
    c.send(d, SP_P[16:32])
    c.read(d, 32)
    c.close(d)
    c.read(d, 32)


def exec_hash_finish(c, fds):
    o = fds["o1"]
    c.send(o, b"bc")
    c.read(o, 32)


@case
def exec_inherits_op(c):
    t, o = opfd(c, "hash", "sha256")
    c.send(o, b"a", MSG_MORE)
    c.exec(exec_hash_finish, [o])
    c.write(o, b"abc")
    c.read(o, 32)


def exec_accept_hmac(c, fds):
    o = c.accept(fds["t1"])
    c.write(o, HMAC_M)
    c.read(o, 32)
    c.getsockname(fds["t1"])


@case
def exec_inherits_tfm(c):
    t = tfm(c, "hash", "hmac(sha256)", key=HMAC_K)
    c.exec(exec_accept_hmac, [t])


def exec_use_closed(c, fds):
    for name in sorted(fds):
        c.write(fds[name], b"abc")
        c.fcntl(fds[name], F_GETFD)


@case
def exec_cloexec_op(c):
    t = c.socket(SOCK_SEQPACKET | SOCK_CLOEXEC)
    c.bind(t, "hash", "sha256")
    o = c.accept4(t, SOCK_CLOEXEC)
    c.exec(exec_use_closed, [t, o])
    c.write(o, b"abc")
    c.read(o, 32)


def exec_skc_encrypt(c, fds):
    o = fds["o1"]
    c.fcntl(o, F_GETFL)
    c.sendmsg(o, SP_P[:16], [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(SP_IV)])
    c.read(o, 16)


@case
def exec_inherits_skc_nonblock(c):
    t = tfm(c, "skcipher", "cbc(aes)", key=SP_K)
    o = c.accept4(t, SOCK_NONBLOCK)
    c.exec(exec_skc_encrypt, [o])


def exec_mixed(c, fds):
    c.write(fds["d1"], b"abc")
    c.read(fds["d1"], 32)
    c.write(fds["d2"], b"abc")


@case
def exec_dup_cloexec_mixed(c):
    t, o = opfd(c, "hash", "sha256")
    c.fcntl(o, F_DUPFD, 70)
    c.fcntl(o, F_DUPFD_CLOEXEC, 80)
    c.close(o)
    c.exec(exec_mixed, c.fds[-2:])


@case
def exec_setfd_cleared(c):
    t = c.socket(SOCK_SEQPACKET | SOCK_CLOEXEC)
    c.bind(t, "hash", "sha256")
    o = c.accept4(t, SOCK_CLOEXEC)
    c.fcntl(o, F_SETFD, 0)
    c.send(o, b"a", MSG_MORE)
    c.exec(exec_hash_finish, [o])


@case
def thread_shares_op(c):
    import threading
    t, o = opfd(c, "hash", "sha256")
    c.send(o, b"a", MSG_MORE)
    th = threading.Thread(target=lambda: c.send(o, b"b", MSG_MORE))
    th.start()
    th.join()
    c.send(o, b"c")
    c.read(o, 32)


# ====================================================================== AIO

@case
def aio_hash_pread(c):
    t, o = opfd(c, "hash", "sha256")
    c.write(o, b"abc")
    c.aio(o, 0, 32)


@case
def aio_hash_pread_eventfd(c):
    t, o = opfd(c, "hash", "sha256")
    c.write(o, b"abc")
    c.aio(o, 0, 32, resfd=True)


@case
def aio_hash_pwrite(c):
    t, o = opfd(c, "hash", "sha256")
    c.aio(o, 1, b"abc")
    c.read(o, 32)


@case
def aio_skc_pread(c):
    t, o = skc(c)
    c.send(o, SP_P[:32])
    c.aio(o, 0, 32, resfd=True)


@case
def aio_skc_pread_short(c):
    t, o = skc(c)
    c.send(o, SP_P[:32])
    c.aio(o, 0, 16)
    c.aio(o, 0, 16)


@case
def aio_skc_pwrite(c):
    t, o = skc(c)
    c.aio(o, 1, SP_P[:16])
    c.read(o, 16)


@case
def aio_tfm(c):
    t = tfm(c, "hash", "sha256")
    c.aio(t, 0, 32)
    c.aio(t, 1, b"abc")


# ====================================================================== introspection, misuse

@case
def getsockname_sizes(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    c.getsockname(t, 0)
    c.getsockname(t, 2)
    c.getsockname(t, 200)
    c.getsockname(o, 0)
    c.getsockname(o, 200)
    c.getsockname(t, 200, peer=True)


@case
def getsockopt_sol_alg_all(c):
    t, o = opfd(c, "hash", "sha256")
    for opt in (1, 2, 3, 4, 5, 6, 7, 8, 100):
        c.getsockopt(t, SOL_ALG, opt)
    c.getsockopt(o, SOL_ALG, ALG_SET_KEY)


@case
def getsockopt_sol_socket_misc(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    c.getsockopt(t, SOL_SOCKET, SO_ACCEPTCONN)
    c.getsockopt(o, SOL_SOCKET, SO_ACCEPTCONN)
    c.getsockopt(o, SOL_SOCKET, SO_TYPE)
    c.getsockopt(o, SOL_SOCKET, SO_PROTOCOL)
    c.getsockopt(o, SOL_SOCKET, SO_ERROR)
    c.getsockopt(o, SOL_SOCKET, SO_LINGER, 8)
    c.getsockopt(o, SOL_SOCKET, SO_RCVTIMEO, 16)


@case
def shutdown_variants(c):
    t, o = opfd(c, "hash", "sha256")
    for how in (0, 1, 2, 3, -1):
        c.shutdown(o, how)
    c.shutdown(t, 0)
    c.write(o, b"abc")
    c.read(o, 32)


@case
def listen_connect_misc(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    c.listen(t, 0)
    c.listen(t, -1)
    c.listen(o, 5)
    c.connect(o, struct.pack("<H", 0) + bytes(14))
    c.connect(t, struct.pack("<H", 0) + bytes(14))
    c.accept(t)


@case
def accept4_bad_flags(c):
    t = tfm(c, "hash", "sha256")
    c.accept4(t, 0x1)
    c.accept4(t, O_NONBLOCK | SOCK_CLOEXEC)


@case
def bind_twice_after_accept_skc(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    c.bind(t, "skcipher", "ecb(aes)")
    c.bind(t, "hash", "sha256")
    c.sendmsg(o, SP_P[:16], [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(SP_IV)])
    c.read(o, 16)


@case
def setsockopt_key_serial(c):
    t = tfm(c, "skcipher", "cbc(aes)")
    c.setsockopt(t, SOL_ALG, ALG_SET_KEY_BY_KEY_SERIAL, int32(12345))
    c.setsockopt(t, SOL_ALG, ALG_SET_KEY_BY_KEY_SERIAL, int32(0), optlen=2)
    t2 = tfm(c, "hash", "hmac(sha256)")
    c.setsockopt(t2, SOL_ALG, ALG_SET_KEY_BY_KEY_SERIAL, int32(12345))


@case
def setsockopt_sol_socket_on_tfm(c):
    t = tfm(c, "hash", "sha256")
    c.setsockopt(t, SOL_SOCKET, SO_RCVBUF, int32(8192))
    c.getsockopt(t, SOL_SOCKET, SO_RCVBUF)
    c.setsockopt(t, SOL_SOCKET, 9999, int32(1))


@case
def cmsg_sol_socket_rights(c):
    t, o = skc(c, setup=False)
    r, w = c.pipe()
    rights = Cmsg(SOL_SOCKET, SCM_RIGHTS, struct.pack("<i", r.fd), label="SCM_RIGHTS")
    c.sendmsg(o, SP_P[:16], [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(SP_IV), rights])
    c.read(o, 16)
    t2, o2 = opfd(c, "hash", "sha256")
    c.sendmsg(o2, b"abc", [rights])
    c.read(o2, 32)


@case
def cmsg_iv_len_variants(c):
    t, o = skc(c, setup=False)
    c.sendmsg(o, SP_P[:16], [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(SP_IV, cmsg_len=CMSG_LEN(4))])
    c.sendmsg(o, SP_P[:16], [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(SP_IV, cmsg_len=CMSG_LEN(19))])
    c.sendmsg(o, SP_P[:16], [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(SP_IV + b"\0" * 16, ivlen=16)])
    c.recv(o, 64, MSG_DONTWAIT)


@case
def cmsg_op_len_variants(c):
    t, o = skc(c, setup=False)
    c.sendmsg(o, SP_P[:16], [cmsg_op(ALG_OP_ENCRYPT, cmsg_len=CMSG_LEN(8)), cmsg_iv(SP_IV)])
    c.sendmsg(o, SP_P[:16], [cmsg_op(ALG_OP_ENCRYPT, cmsg_len=CMSG_LEN(2)), cmsg_iv(SP_IV)])
    c.recv(o, 64, MSG_DONTWAIT)


@case
def iovec_many_hash(c):
    t, o = opfd(c, "hash", "sha256")
    c.sendmsg(o, [b"a"] * 1024)
    c.read(o, 32)
    c.sendmsg(o, [b"a"] * 1025)
    c.read(o, 32)


@case
def iovec_many_recv(c):
    t, o = skc(c)
    c.send(o, SP_P)
    c.recvmsg(o, [1] * 1025)
    c.recvmsg(o, [1] * 64)
    c.recvmsg(o, [0, 0, 0])
    c.recv(o, 64, MSG_DONTWAIT)


@case
def iovec_zero_entries_skc(c):
    t, o = skc(c, setup=False)
    c.sendmsg(o, [b"", SP_P[:8], b"", SP_P[8:16], b""], [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(SP_IV)])
    c.recvmsg(o, [0, 4, 0, 12])


@case
def readv_writev_hash(c):
    t, o = opfd(c, "hash", "sha256")
    c.writev(o, [b"a", b"b", b"c"])
    c.readv(o, [16, 16])
    c.writev(o, [])
    c.readv(o, [])
    c.readv(o, [32])


@case
def readv_writev_skc(c):
    t, o = skc(c)
    c.writev(o, [SP_P[:10], SP_P[10:32]])
    c.readv(o, [5, 27])


@case
def zero_length_sends(c):
    t, o = opfd(c, "hash", "sha256")
    c.sendmsg(o, [])
    c.read(o, 32)
    c.sendto(o, b"", 0, None)
    c.read(o, 32)
    t2, o2 = skc(c, setup=False)
    c.sendmsg(o2, [], [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(SP_IV)])
    c.recv(o2, 16, MSG_DONTWAIT)
    c.sendmsg(o2, [], [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(SP_IV)], MSG_MORE)
    c.send(o2, SP_P[:16])
    c.read(o2, 16)


@case
def sendmsg_with_name(c):
    t, o = opfd(c, "hash", "sha256")
    c.sendto(o, b"abc", 0, sockaddr_alg("hash", "sha1"))
    c.read(o, 32)
    c.sendto(o, b"abc", MSG_MORE, b"\0" * 200)
    c.read(o, 32)


@case
def unknown_flags_send_recv(c):
    t, o = skc(c)
    c.send(o, SP_P[:16], MSG_OOB)
    c.send(o, SP_P[:16], MSG_NOSIGNAL | MSG_EOR)
    c.recv(o, 16, MSG_OOB)
    c.recv(o, 16, MSG_PEEK)
    c.recv(o, 32, MSG_TRUNC)


# ====================================================================== aead and rng (main's types)

# NIST GCM test case 4 (AES-128, 60-byte text, 20-byte AAD), as cases_aead_rng.py.
GCM_K = h("feffe9928665731c6d6a8f9467308308")
GCM_IV = h("cafebabefacedbaddecaf888")
GCM_P = h("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
          "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39")
GCM_A = h("feedfacedeadbeeffeedfacedeadbeefabaddad2")


def aead(c, setup=True, assoclen=len(GCM_A)):
    t, o = opfd(c, "aead", "gcm(aes)", key=GCM_K)
    if setup:
        c.sendmsg(o, b"", [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(GCM_IV), cmsg_assoclen(assoclen)], MSG_MORE)
    return t, o


@case
def splice_aead_gcm(c):
    t, o = aead(c)
    r, w = c.pipe()
    c.write(w, GCM_A + GCM_P)
    c.splice(r, o, len(GCM_A) + len(GCM_P))
    c.read(o, len(GCM_A) + len(GCM_P) + 16)


@case
def splice_aead_more(c):
    t, o = aead(c)
    r, w = c.pipe()
    c.write(w, GCM_A)
    c.splice(r, o, len(GCM_A), SPLICE_F_MORE)
    c.poll(o)
    c.write(w, GCM_P)
    c.splice(r, o, len(GCM_P))
    c.read(o, len(GCM_A) + len(GCM_P) + 16)


@case
def vmsplice_aead_gcm(c):
    t, o = aead(c)
    r, w = c.pipe()
    c.vmsplice(w, [GCM_A, GCM_P])
    c.splice(r, o, len(GCM_A) + len(GCM_P))
    c.read(o, len(GCM_A) + len(GCM_P) + 16)


@case
def sendfile_aead_gcm(c):
    t, o = aead(c)
    f = c.tmpfile(GCM_A + GCM_P)
    c.sendfile(o, f, len(GCM_A) + len(GCM_P))
    c.read(o, len(GCM_A) + len(GCM_P) + 16)


@case
def sendfile_aead_beyond_eof(c):
    t, o = aead(c)
    f = c.tmpfile(GCM_A + GCM_P)
    c.sendfile(o, f, 4096)
    c.poll(o)
    c.recv(o, 256, MSG_DONTWAIT)


@case
def readiness_aead(c):
    t, o = opfd(c, "aead", "gcm(aes)", key=GCM_K)
    e = c.epoll_create()
    c.epoll_ctl(e, EPOLL_CTL_ADD, o, POLLIN | POLLOUT)
    c.select([o], [o])
    c.epoll_wait(e)
    c.sendmsg(o, GCM_A, [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(GCM_IV), cmsg_assoclen(len(GCM_A))], MSG_MORE)
    c.select([o], [o])
    c.epoll_wait(e)
    c.send(o, GCM_P)
    c.select([o], [o])
    c.epoll_wait(e)


@case
def sndbuf_aead_limit(c):
    t, o = aead(c, assoclen=0)
    c.setsockopt(o, SOL_SOCKET, SO_SNDBUF, int32(4096))
    c.send(o, pat(65536, 11), MSG_DONTWAIT | MSG_MORE)
    c.send(o, b"z" * 16, MSG_DONTWAIT | MSG_MORE)
    c.poll(o)


@case
def nonblock_aead_read_nothing(c):
    t, o = opfd(c, "aead", "gcm(aes)", key=GCM_K)
    c.fcntl(o, F_SETFL, O_NONBLOCK)
    c.read(o, 32)
    c.recv(o, 32, MSG_WAITALL)


@case
def fork_aead(c):
    t, o = aead(c)

    def child(c):
        c.send(o, GCM_A + GCM_P)
    c.fork(child)
    c.read(o, len(GCM_A) + len(GCM_P) + 16)


def exec_aead_encrypt(c, fds):
    o = fds["o1"]
    c.send(o, GCM_A + GCM_P)
    c.read(o, len(GCM_A) + len(GCM_P) + 16)


@case
def exec_inherits_aead(c):
    t, o = aead(c)
    c.exec(exec_aead_encrypt, [o])


@case
def aio_aead_pread(c):
    t, o = aead(c)
    c.send(o, GCM_A + GCM_P)
    c.aio(o, 0, len(GCM_A) + len(GCM_P) + 16, resfd=True)


@case
def aio_aead_pwrite(c):
    t, o = aead(c)
    c.aio(o, 1, GCM_A + GCM_P)
    c.read(o, len(GCM_A) + len(GCM_P) + 16)


@case
def accept_on_op_aead_rng(c):
    t, o = opfd(c, "aead", "gcm(aes)", key=GCM_K)
    c.accept(o)
    t2 = tfm(c, "rng", "stdrng")
    o2 = c.accept(t2)
    c.accept(o2)


@case
def rng_readiness_and_misuse(c):
    t = tfm(c, "rng", "stdrng")
    o = c.accept(t)
    c.poll(o)
    c.select([o], [o])
    e = c.epoll_create()
    c.epoll_ctl(e, EPOLL_CTL_ADD, o, POLLIN | POLLOUT)
    c.epoll_wait(e)
    r, w = c.pipe()
    c.write(w, b"abc")
    c.splice(r, o, 3)
    c.write(o, b"abc")
    c.getsockopt(o, SOL_SOCKET, SO_SNDBUF)
    c.shutdown(o)
    c.getsockname(o)


@case
def splice_aead_to_tfm(c):
    t = tfm(c, "aead", "gcm(aes)", key=GCM_K)
    f = c.tmpfile(b"abc")
    c.sendfile(t, f, 3)
    r, w = c.pipe()
    c.write(w, b"abc")
    c.splice(r, t, 3)


# ====================================================================== output iovec count

def _rsgl_probe(n, seglen):
    def f(c):
        t, o = skc(c)
        c.send(o, SP_P)
        c.recvmsg(o, [seglen] * n)
        c.recv(o, 64, MSG_DONTWAIT)
    return f


for _n in (4, 8, 16, 20, 22, 24, 26, 28, 32):
    CASES.append(("iovec_rsgl_1B_x%d" % _n, _rsgl_probe(_n, 1)))
CASES.append(("iovec_rsgl_16B_x4", _rsgl_probe(4, 16)))


# ====================================================================== calls the shim did not emulate before

FIONREAD, FIONBIO, FIOCLEX, FIONCLEX, SIOCGIFINDEX, TCGETS = 0x541B, 0x5421, 0x5451, 0x5450, 0x8933, 0x5401


@case
def sendmmsg_hash(c):
    t, o = opfd(c, "hash", "sha256")
    c.sendmmsg(o, [b"a", b"bc"], MSG_MORE)
    c.read(o, 32)
    c.sendmmsg(o, [b"a", b"bc"])
    c.read(o, 32)
    c.sendmmsg(o, [])


@case
def sendmmsg_recvmmsg_skc(c):
    t, o = skc(c)
    c.sendmmsg(o, [SP_P[:16], SP_P[16:32]], MSG_MORE)
    c.send(o, b"")
    c.recvmmsg(o, [16, 16])
    c.send(o, SP_P[:16])
    c.recvmmsg(o, [16, 16], MSG_DONTWAIT)
    c.recvmmsg(o, [16], MSG_DONTWAIT)


@case
def recvmmsg_hash(c):
    t, o = opfd(c, "hash", "sha256")
    c.write(o, b"abc")
    c.recvmmsg(o, [32, 32], MSG_DONTWAIT)


@case
def ioctl_on_alg_fds(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    c.sendmsg(o, SP_P[:16], [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(SP_IV)], MSG_MORE)
    for f in (t, o):
        c.ioctl_int(f, FIONREAD, "FIONREAD")
        c.ioctl_int(f, TCGETS, "TCGETS")
        c.ioctl_int(f, SIOCGIFINDEX, "SIOCGIFINDEX")
    c.ioctl_int(o, FIONBIO, "FIONBIO", 1)
    c.fcntl(o, F_GETFL)
    c.ioctl_int(o, FIOCLEX, "FIOCLEX")
    c.fcntl(o, F_GETFD)
    c.read(o, 32)


@case
def file_ops_on_alg_fds(c):
    t, o = opfd(c, "hash", "sha256")
    c.pread(o, 32, 0)
    c.pread(o, 3, 0, write=b"abc")
    c.lseek_call(o, 0, 0)
    c.lseek_call(t, 0, 1)
    c.fstat_type(o)
    c.fstat_type(t)
    c.read(o, 32)


# ====================================================================== stream reads
# _skcipher_recvmsg(): the RX list takes as much of the caller's buffer as
# there is queued data (af_alg_get_rsgl with ctx->used), the cipher runs the
# whole blocks of it while more may follow, and the rest stays queued; the
# buffer is then used up, so the read returns at once (libkcapi's stream API).

STREAM = pat(6182, 3)


@case
def stream_skc_cbc_partial_blocks(c):
    t, o = skc(c)
    c.send(o, STREAM, MSG_MORE)
    c.read(o, len(STREAM))
    c.send(o, STREAM, MSG_MORE)
    c.read(o, len(STREAM))
    c.send(o, b"\x00" * 4)
    c.read(o, 16)


@case
def stream_skc_cbc_decrypt_partial(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    c.sendmsg(o, SP_P[:40], [cmsg_op(ALG_OP_DECRYPT), cmsg_iv(SP_IV)], MSG_MORE)
    c.read(o, 40)
    c.send(o, SP_P[40:], MSG_MORE)
    c.recvmsg(o, [10, 14])
    c.send(o, b"")
    c.read(o, 16)


@case
def stream_skc_ctr_partial(c):
    t, o = skc(c, "ctr(aes)", iv=SP_CTR)
    c.send(o, SP_P[:20], MSG_MORE)
    c.read(o, 20)
    c.send(o, SP_P[20:])
    c.read(o, 48)


@case
def stream_skc_buffer_larger_dontwait(c):
    t, o = skc(c)
    c.send(o, SP_P[:40], MSG_MORE)
    c.recv(o, 64, MSG_DONTWAIT)
    c.poll(o)
    c.recv(o, 64, MSG_DONTWAIT)


@case
def stream_skc_buffer_smaller_than_queue(c):
    t, o = skc(c)
    c.send(o, SP_P[:40], MSG_MORE)
    c.read(o, 24)
    c.read(o, 8)
    c.send(o, SP_P[40:48])
    c.read(o, 24)


@case
def stream_skc_final_partial_buffer(c):
    t, o = skc(c, "ctr(aes)", iv=SP_CTR)
    c.send(o, SP_P[:40])
    c.read(o, 20)
    c.read(o, 24)


# ====================================================================== threads
# A thread sleeping in read() on an op socket does not hold the socket:
# af_alg_wait_for_data() releases the socket lock while it sleeps, so
# another thread's sendmsg() goes through and wakes it.

def _thread_read(c, o, n, delay=0.3):
    import threading
    import time as _time
    res = {}

    def reader():
        res["r"] = read(o.fd, n)
    th = threading.Thread(target=reader, daemon=True)
    th.start()
    _time.sleep(delay)
    return th, res


def _thread_done(c, o, th, res, n):
    th.join(5)
    if "r" not in res:
        c.emit("%s thread read(%s,%d) still blocked" % (c.case, o.name, n))
        return
    r, e, d = res["r"]
    c._line("thread:read(%s,%d)" % (o.name, n), r, e, False, data=hexdata(d) if r >= 0 else None)


@case
def thread_read_waits_send_goes_through(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    th, res = _thread_read(c, o, 64)
    c.sendmsg(o, SP_P, [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(SP_IV)])
    _thread_done(c, o, th, res, 64)


@case
def thread_read_waits_stream(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    th, res = _thread_read(c, o, len(STREAM))
    c.sendmsg(o, STREAM, [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(SP_IV)], MSG_MORE)
    _thread_done(c, o, th, res, len(STREAM))
    th, res = _thread_read(c, o, 16)
    c.send(o, b"\x00" * 10)
    _thread_done(c, o, th, res, 16)


# ====================================================================== pcrypt, cryptd
# Scheduling wrappers: their instances compute what the inner algorithm does.

@case
def wrap_cryptd_sha256(c):
    t, o = opfd(c, "hash", "cryptd(sha256)")
    c.send(o, b"abc")
    c.read(o, 32)


@case
def wrap_cryptd_hmac_sha256(c):
    t, o = opfd(c, "hash", "cryptd(hmac(sha256))", key=HMAC_K)
    c.send(o, HMAC_M)
    c.read(o, 32)


@case
def wrap_cryptd_cbc_aes(c):
    t, o = opfd(c, "skcipher", "cryptd(cbc(aes))", key=SP_K)
    c.sendmsg(o, SP_P, [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(SP_IV)])
    c.read(o, 64)


@case
def wrap_cryptd_gcm_aes(c):
    t, o = opfd(c, "aead", "cryptd(gcm(aes))", key=GCM_K)
    c.sendmsg(o, GCM_A + GCM_P, [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(GCM_IV), cmsg_assoclen(len(GCM_A))])
    c.read(o, len(GCM_A) + len(GCM_P) + 16)


@case
def wrap_pcrypt_gcm_aes(c):
    t, o = opfd(c, "aead", "pcrypt(gcm(aes))", key=GCM_K)
    c.sendmsg(o, GCM_A + GCM_P, [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(GCM_IV), cmsg_assoclen(len(GCM_A))])
    c.read(o, len(GCM_A) + len(GCM_P) + 16)


@case
def wrap_pcrypt_authenc(c):
    t = c.socket()
    c.bind(t, "aead", "pcrypt(authenc(hmac(sha256-generic),cbc(aes-generic)))")


@case
def wrap_bad_binds(c):
    for typ, name in (("skcipher", "pcrypt(cbc(aes))"), ("hash", "pcrypt(sha256)"),
                      ("skcipher", "cryptd(aes)"), ("hash", "cryptd()"), ("hash", "cryptd(sha256,sha1)"),
                      ("hash", "cryptd(cryptd(sha256))"), ("rng", "cryptd(stdrng)"),
                      ("skcipher", "cryptd(ecb(cipher_null))")):
        t = c.socket()
        c.bind(t, typ, name)
        c.close(t)


@case
def driver_names_bind(c):
    for typ, name in (("hash", "sha1-generic"), ("hash", "hmac(sha1-generic)"), ("skcipher", "cbc(aes-generic)"),
                      ("hash", "md5-generic"), ("hash", "hmac(md5-generic)"), ("skcipher", "aes-generic")):
        t = c.socket()
        c.bind(t, typ, name)
        c.close(t)
