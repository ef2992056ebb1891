"""Differential cases for AF_ALG "hash" and "skcipher" (reference: Linux 6.1).

Each case is a function taking a Recorder `c`; every call on `c` prints one
canonical line (see afalg.py).  Cases never assert anything: the golden file
recorded on the real kernel (tests/golden/hash_skcipher.txt) is the truth.
Cases must cope with any call failing (returned data may be None) so that a
broken implementation yields differences, not exceptions.
"""

from afalg import *  # noqa: F401,F403
from casekit import Cases, pat, h, tfm, opfd, crypt  # noqa: F401

CASES = Cases()
case, add = CASES.case, CASES.add


# vectors
RFC3602_K = h("06a9214036b8a15b512e03d534120006")
RFC3602_IV = h("3dafba429d9eb430b422da802c9fac41")
RFC3602_P = b"Single block msg"             # -> e353779c1079aeb82708942dbe77181a
RFC3602_C = h("e353779c1079aeb82708942dbe77181a")
RFC3602_K2 = h("c286696d887c9aa0611bbb3e2025a45a")
RFC3602_IV2 = h("562e17996d093d28ddb3ba695a2e6f58")
RFC3602_P2 = bytes(range(32))
SP_K = h("2b7e151628aed2a6abf7158809cf4f3c")          # SP 800-38A
SP_IV = h("000102030405060708090a0b0c0d0e0f")
SP_CTR = h("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
SP_P = h("6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51"
         "30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710")
SP_K192 = h("8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b")
SP_K256 = h("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4")
FIPS197_K = bytes(range(16))
FIPS197_P = h("00112233445566778899aabbccddeeff")
CTS_K = h("636869636b656e207465726979616b69")          # RFC 3962
CTS_P = b"I would like the General Gau's Chicken, please, and wonton soup."
XTS_K1 = bytes(32)                                     # IEEE 1619 vector 1
XTS_K2 = h("1111111111111111111111111111111122222222222222222222222222222222")
XTS_IV2 = h("33333333330000000000000000000000")
XTS_K15 = h("fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0")
XTS_IV15 = h("9a785634120000000000000000000000")
DES3_K = h("0123456789abcdef23456789abcdef01456789abcdef0123")
DES3_IV = h("f69f2445df4f9b17")
DES3_P = b"The quick brown fox jump"


# ====================================================================== socket()

@case
def socket_seqpacket(c):
    t = c.socket()
    c.getsockopt(t, SOL_SOCKET, SO_TYPE)
    c.getsockopt(t, SOL_SOCKET, SO_DOMAIN)
    c.getsockopt(t, SOL_SOCKET, SO_PROTOCOL)
    c.getsockopt(t, SOL_SOCKET, SO_ERROR)
    c.fcntl(t, F_GETFL)
    c.fcntl(t, F_GETFD)


@case
def socket_stream(c):
    c.socket(SOCK_STREAM)


@case
def socket_dgram(c):
    c.socket(SOCK_DGRAM)


@case
def socket_raw(c):
    c.socket(SOCK_RAW)


@case
def socket_protocol_nonzero(c):
    c.socket(SOCK_SEQPACKET, 1)
    c.socket(SOCK_SEQPACKET, 38)
    c.socket(SOCK_SEQPACKET, -1)


@case
def socket_stream_and_protocol(c):
    c.socket(SOCK_STREAM, 1)


@case
def socket_cloexec(c):
    t = c.socket(SOCK_SEQPACKET | SOCK_CLOEXEC)
    c.fcntl(t, F_GETFD)
    c.fcntl(t, F_GETFL)
    c.fcntl(t, F_SETFD, 0)
    c.fcntl(t, F_GETFD)


@case
def socket_nonblock(c):
    t = c.socket(SOCK_SEQPACKET | SOCK_NONBLOCK)
    c.fcntl(t, F_GETFL)
    c.fcntl(t, F_GETFD)
    c.bind(t, "hash", "sha256")
    o = c.accept(t)
    c.fcntl(o, F_GETFL)
    c.write(o, b"abc")
    c.read(o, 32)


@case
def socket_bad_flags(c):
    c.socket(SOCK_SEQPACKET | 0x40000)
    c.socket(11)
    c.socket(0)


@case
def tfm_unbound_io(c):
    t = c.socket()
    c.write(t, b"abc")
    c.send(t, b"abc")
    c.read(t, 16)
    c.recv(t, 16)
    c.sendmsg(t, b"abc")
    c.recvmsg(t, 16)
    c.accept(t)
    c.setkey(t, bytes(16))


@case
def tfm_misc_ops(c):
    t = c.socket()
    c.connect(t, sockaddr_alg("hash", "sha256"))
    c.listen(t)
    c.shutdown(t)
    c.getsockname(t)
    c.getsockname(t, peer=True)
    c.getsockopt(t, SOL_ALG, ALG_SET_KEY)
    c.getsockopt(t, SOL_SOCKET, SO_ACCEPTCONN)
    c.poll(t)


@case
def tfm_bound_io(c):
    t = tfm(c, "hash", "sha256")
    c.write(t, b"abc")
    c.read(t, 32)
    c.getsockname(t)
    c.listen(t)
    c.poll(t)


# ====================================================================== bind()

@case
def bind_hash_sha256(c):
    t = c.socket()
    c.bind(t, "hash", "sha256")
    c.getsockopt(t, SOL_SOCKET, SO_TYPE)


@case
def bind_unknown_type(c):
    t = c.socket()
    c.bind(t, "foo", "sha256")
    c.bind(t, "", "sha256")
    c.bind(t, "HASH", "sha256")
    c.bind(t, "aead", "sha256")
    c.accept(t)


@case
def bind_unknown_alg(c):
    t = c.socket()
    c.bind(t, "hash", "nosuchalg")
    c.bind(t, "hash", "")
    c.bind(t, "hash", "SHA256")
    c.bind(t, "skcipher", "nosuchalg")
    c.accept(t)


@case
def bind_wrong_family(c):
    t = c.socket()
    c.bind(t, "hash", "sha256", family=AF_INET)
    c.bind(t, "hash", "sha1", family=0)
    o = c.accept(t)
    c.write(o, b"abc")
    c.read(o, 20)


@case
def bind_short_addrlen(c):
    t = c.socket()
    c.bind(t, "hash", "sha256", addrlen=0)
    c.bind(t, "hash", "sha256", addrlen=2)
    c.bind(t, "hash", "sha256", addrlen=16)
    c.bind(t, "hash", "sha256", addrlen=24)
    c.bind(t, "hash", "sha256", addrlen=25)
    c.bind(t, "hash", "sha256", addrlen=30)
    c.bind(t, "hash", "sha256", addrlen=31)
    o = c.accept(t)
    c.write(o, b"abc")
    c.read(o, 32)


@case
def bind_long_addrlen(c):
    t = c.socket()
    c.bind(t, "hash", "sha256", addrlen=89)
    c.bind(t, "hash", "sha256", addrlen=128)
    c.bind(t, "hash", "sha256", addrlen=129)
    c.bind(t, "hash", "sha256", addrlen=4096)
    o = c.accept(t)
    c.write(o, b"abc")
    c.read(o, 32)


@case
def bind_name_not_terminated(c):
    t = c.socket()
    c.bind(t, "hash", b"sha256" + b"X" * 58)          # 64 bytes, no NUL: kernel cuts at 63
    c.bind(t, "hash", b"sha256\0" + b"X" * 57)        # NUL then garbage
    o = c.accept(t)
    c.write(o, b"abc")
    c.read(o, 32)
    c.close(o)
    raw = sockaddr_alg("hash", "") [:24] + b"sha1"    # addrlen 28: name[3] forced to NUL
    c.bind(t, None, None, raw=raw, addrlen=28, label="hash,sha1(no-NUL)")
    raw = sockaddr_alg("hash", "")[:24] + b"sha1X"
    c.bind(t, None, None, raw=raw, addrlen=29, label="hash,sha1X(no-NUL)")


@case
def bind_type_not_terminated(c):
    t = c.socket()
    c.bind(t, b"hashXXXXXXXXXX", "sha256")             # 14 bytes, no NUL
    c.bind(t, b"hash\0XXXXXXXXX", "sha256")            # NUL then garbage
    o = c.accept(t)
    c.write(o, b"abc")
    c.read(o, 32)


@case
def bind_long_name(c):
    t = c.socket()
    c.bind(t, None, None, raw=sockaddr_alg("hash", "a" * 100, size=128), addrlen=128, label="hash,a*100")
    c.bind(t, None, None, raw=sockaddr_alg("hash", "hmac(" + "sha256" + ")", size=128), addrlen=128,
           label="hash,hmac(sha256)+pad128")
    c.setkey(t, b"key")
    o = c.accept(t)
    c.write(o, b"abc")
    c.read(o, 32)


@case
def bind_null_addr(c):
    t = c.socket()
    c.bind(t, None, None, null=True, addrlen=88, label="NULL")


@case
def bind_feat_mask(c):
    t = c.socket()
    c.bind(t, "hash", "sha256", feat=1)
    c.bind(t, "hash", "sha256", mask=1)
    c.bind(t, "hash", "sha256", feat=0x2000, mask=0x2000)
    c.bind(t, "hash", "sha256", feat=CRYPTO_ALG_KERN_DRIVER_ONLY)
    c.bind(t, "hash", "sha256", mask=CRYPTO_ALG_KERN_DRIVER_ONLY)
    c.bind(t, "hash", "sha256", feat=CRYPTO_ALG_KERN_DRIVER_ONLY, mask=CRYPTO_ALG_KERN_DRIVER_ONLY)
    c.bind(t, "hash", "sha256", feat=0x80000000, mask=0)


@case
def bind_twice(c):
    t = c.socket()
    c.bind(t, "hash", "sha256")
    c.bind(t, "hash", "sha1")
    o = c.accept(t)
    c.write(o, b"abc")
    c.read(o, 64)


@case
def bind_twice_change_type(c):
    t = c.socket()
    c.bind(t, "hash", "sha256")
    c.bind(t, "skcipher", "cbc(aes)")
    c.setkey(t, RFC3602_K)
    o = c.accept(t)
    crypt(c, o, RFC3602_P, iv=RFC3602_IV)
    c.read(o, 16)


@case
def bind_failed_keeps_old(c):
    t = c.socket()
    c.bind(t, "hash", "sha256")
    c.bind(t, "hash", "nosuchalg")
    o = c.accept(t)
    c.write(o, b"abc")
    c.read(o, 64)


@case
def bind_after_accept(c):
    t = c.socket()
    c.bind(t, "hash", "sha256")
    o = c.accept(t)
    c.bind(t, "hash", "sha1")
    c.write(o, b"abc")
    c.read(o, 64)
    c.close(o)
    c.bind(t, "hash", "sha1")
    o2 = c.accept(t)
    c.write(o2, b"abc")
    c.read(o2, 64)


@case
def bind_on_op_fd(c):
    t, o = opfd(c, "hash", "sha256")
    c.bind(o, "hash", "sha1")
    c.write(o, b"abc")
    c.read(o, 64)


@case
def bind_hash_name_as_skcipher(c):
    t = c.socket()
    c.bind(t, "skcipher", "sha256")
    c.bind(t, "skcipher", "aes")
    c.bind(t, "skcipher", "hmac(sha256)")
    c.bind(t, "hash", "cbc(aes)")
    c.bind(t, "hash", "aes")


@case
def bind_bogus_template(c):
    t = c.socket()
    c.bind(t, "skcipher", "cbc(sha256)")
    c.bind(t, "skcipher", "foo(aes)")
    c.bind(t, "hash", "hmac(aes)")
    c.bind(t, "hash", "hmac(nosuchalg)")
    c.bind(t, "hash", "foo(sha256)")
    c.bind(t, "skcipher", "cbc(aes")
    c.bind(t, "skcipher", "cbc(aes))")
    c.bind(t, "skcipher", "cbc()")
    c.bind(t, "skcipher", "cbc(cbc(aes))")
    c.bind(t, "hash", "hmac(hmac(sha256))")
    c.accept(t)


@case
def bind_internal_alg(c):
    t = c.socket()
    c.bind(t, "skcipher", "__cbc-aes-aesni")
    c.bind(t, "skcipher", "__cbc(aes)")
    c.bind(t, "skcipher", "cryptd(__cbc-aes-aesni)")


def _driver_hash(drv, n):
    def f(c):
        t, o = opfd(c, "hash", drv)
        c.write(o, b"abc")
        c.read(o, n)
    return f


for _drv, _n in [("sha1-generic", 20), ("sha256-generic", 32), ("sha512-generic", 64), ("md5-generic", 16),
                 ("sha3-256-generic", 32)]:
    add("bind_driver_" + _drv.replace("-", "_"), _driver_hash(_drv, _n))


@case
def bind_driver_hmac_sha256_generic(c):
    t, o = opfd(c, "hash", "hmac(sha256-generic)", key=b"Jefe")
    c.write(o, b"what do ya want for nothing?")
    c.read(o, 32)


def _driver_skcipher(drv):
    def f(c):
        t, o = opfd(c, "skcipher", drv, key=RFC3602_K)
        crypt(c, o, RFC3602_P, iv=None if drv.startswith("ecb") else RFC3602_IV)
        c.read(o, 16)
    return f


for _n, _drv in [("cbc_of_aes_generic", "cbc(aes-generic)"), ("cbc_aes_aesni", "cbc-aes-aesni"),
                 ("ecb_of_aes_generic", "ecb(aes-generic)"), ("ctr_of_aes_generic", "ctr(aes-generic)"),
                 ("cbc_of_aes_aesni", "cbc(aes-aesni)")]:
    add("bind_driver_" + _n, _driver_skcipher(_drv))


# ====================================================================== setsockopt / getsockopt

@case
def setkey_before_bind(c):
    t = c.socket()
    c.setkey(t, bytes(16))


@case
def setkey_unkeyed_hash(c):
    t = tfm(c, "hash", "sha256")
    c.setkey(t, bytes(16))
    c.setkey(t, b"")
    o = c.accept(t)
    c.write(o, b"abc")
    c.read(o, 32)


@case
def setsockopt_wrong_level(c):
    t = tfm(c, "skcipher", "cbc(aes)")
    c.setsockopt(t, 0, ALG_SET_KEY, bytes(16))
    c.setsockopt(t, 6, ALG_SET_KEY, bytes(16))
    c.setsockopt(t, 280, ALG_SET_KEY, bytes(16))
    o = c.accept(t)
    crypt(c, o, bytes(16), iv=bytes(16))


@case
def setsockopt_unknown_optname(c):
    t = tfm(c, "hash", "hmac(sha256)")
    c.setsockopt(t, SOL_ALG, 0, bytes(16))
    c.setsockopt(t, SOL_ALG, 99, bytes(16))
    c.setsockopt(t, SOL_ALG, -1, bytes(16))
    c.setsockopt(t, SOL_ALG, ALG_SET_IV, bytes(16))
    c.setsockopt(t, SOL_ALG, ALG_SET_OP, bytes(4))
    c.setsockopt(t, SOL_ALG, ALG_SET_AEAD_ASSOCLEN, bytes(4))


@case
def setsockopt_aead_drbg_opts(c):
    t = tfm(c, "hash", "hmac(sha256)")
    c.setsockopt(t, SOL_ALG, ALG_SET_AEAD_AUTHSIZE, None, optlen=16)
    c.setsockopt(t, SOL_ALG, ALG_SET_DRBG_ENTROPY, bytes(16))
    c.setsockopt(t, SOL_ALG, ALG_SET_KEY_BY_KEY_SERIAL, bytes(4))
    t2 = tfm(c, "skcipher", "cbc(aes)")
    c.setsockopt(t2, SOL_ALG, ALG_SET_AEAD_AUTHSIZE, None, optlen=16)
    c.setsockopt(t2, SOL_ALG, ALG_SET_DRBG_ENTROPY, bytes(16))
    c.setsockopt(t2, SOL_ALG, ALG_SET_KEY_BY_KEY_SERIAL, b"\xff\xff\xff\x7f")


@case
def setsockopt_sol_socket(c):
    t = tfm(c, "hash", "sha256")
    c.setsockopt(t, SOL_SOCKET, SO_TYPE, struct.pack("<i", 1))
    c.getsockopt(t, SOL_SOCKET, SO_TYPE)
    o = c.accept(t)
    c.getsockopt(o, SOL_SOCKET, SO_TYPE)
    c.getsockopt(o, SOL_SOCKET, SO_DOMAIN)
    c.getsockopt(o, SOL_SOCKET, SO_PROTOCOL)
    c.getsockopt(o, SOL_ALG, ALG_SET_KEY)


@case
def setsockopt_on_op_fd(c):
    t, o = opfd(c, "hash", "hmac(sha256)", key=b"k1")
    c.setkey(o, b"k2")
    c.setsockopt(o, SOL_ALG, 99, bytes(4))
    c.setsockopt(o, 0, 1, bytes(4))
    c.write(o, b"abc")
    c.read(o, 32)


@case
def setkey_hmac_lengths(c):
    t = tfm(c, "hash", "hmac(sha256)")
    for n in [0, 1, 32, 64, 65, 4096, 16384]:
        c.setkey(t, pat(n))
    o = c.accept(t)
    c.write(o, b"abc")
    c.read(o, 32)


@case
def setkey_zero_length(c):
    t = tfm(c, "hash", "hmac(sha256)")
    c.setkey(t, b"")
    o = c.accept(t)
    c.write(o, b"abc")
    c.read(o, 32)
    t2 = tfm(c, "skcipher", "cbc(aes)")
    c.setkey(t2, b"")
    c.setkey(t2, None, optlen=0)


@case
def setkey_huge_length(c):
    t = tfm(c, "hash", "hmac(sha256)")
    c.setkey(t, pat(20480))
    c.setkey(t, pat(30000))
    c.setkey(t, pat(16), optlen=0x7fffffff)
    c.setkey(t, pat(16), optlen=0xffffffff)
    c.setkey(t, pat(1))
    o = c.accept(t)
    c.write(o, b"abc")
    c.read(o, 32)


@case
def setkey_null_pointer(c):
    t = tfm(c, "hash", "hmac(sha256)")
    c.setkey(t, None, optlen=16)
    t2 = tfm(c, "skcipher", "cbc(aes)")
    c.setkey(t2, None, optlen=16)
    o = c.accept(t2)
    crypt(c, o, bytes(16), iv=bytes(16))


def _keylens(alg, lens):
    def f(c):
        t = tfm(c, "skcipher", alg)
        for n in lens:
            c.setkey(t, pat(n, 1))
    return f


add("setkey_cbc_aes_lengths", _keylens("cbc(aes)", [0, 1, 8, 15, 16, 17, 23, 24, 25, 31, 32, 33, 64]))
add("setkey_ecb_aes_lengths", _keylens("ecb(aes)", [0, 15, 16, 17, 24, 32, 33]))
add("setkey_ctr_aes_lengths", _keylens("ctr(aes)", [0, 15, 16, 17, 20, 24, 28, 32, 33, 36]))
add("setkey_xts_aes_lengths", _keylens("xts(aes)", [0, 16, 31, 32, 33, 40, 48, 64, 65, 96, 128]))
add("setkey_cts_aes_lengths", _keylens("cts(cbc(aes))", [0, 15, 16, 24, 32, 33]))
add("setkey_cbc_des3_lengths", _keylens("cbc(des3_ede)", [0, 8, 16, 23, 24, 25, 32]))
add("setkey_ecb_des3_lengths", _keylens("ecb(des3_ede)", [8, 16, 24, 25]))


@case
def setkey_xts_equal_halves(c):
    t = tfm(c, "skcipher", "xts(aes)")
    c.setkey(t, bytes(32))
    c.setkey(t, pat(16) * 2)
    c.setkey(t, pat(32) * 2)
    o = c.accept(t)
    crypt(c, o, bytes(32), iv=bytes(16))
    c.read(o, 32)


@case
def setkey_des3_weak(c):
    k1, k2, k3 = DES3_K[:8], DES3_K[8:16], DES3_K[16:]
    t = tfm(c, "skcipher", "cbc(des3_ede)")
    c.setkey(t, k1 + k1 + k3)          # K1 == K2
    c.setkey(t, k1 + k2 + k2)          # K2 == K3
    c.setkey(t, k1 + k2 + k1)          # K1 == K3 (two-key 3DES)
    c.setkey(t, k1 * 3)                # single DES
    c.setkey(t, h("0101010101010101") * 3)
    o = c.accept(t)
    crypt(c, o, DES3_P, iv=DES3_IV)
    c.read(o, 24)


@case
def setkey_des3_weak_ecb(c):
    k1, k3 = DES3_K[:8], DES3_K[16:]
    t = tfm(c, "skcipher", "ecb(des3_ede)")
    c.setkey(t, k1 + k1 + k3)
    c.setkey(t, h("fefefefefefefefe") * 3)
    o = c.accept(t)
    crypt(c, o, DES3_P)
    c.read(o, 24)


@case
def setkey_after_accept(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    c.setkey(t, bytes(16))
    crypt(c, o, RFC3602_P, iv=RFC3602_IV)
    c.read(o, 16)
    c.close(o)
    c.setkey(t, bytes(16))
    o2 = c.accept(t)
    crypt(c, o2, RFC3602_P, iv=RFC3602_IV)
    c.read(o2, 16)


@case
def setkey_after_accept_hmac(c):
    t, o = opfd(c, "hash", "hmac(sha256)", key=b"k1")
    c.setkey(t, b"k2")
    c.write(o, b"abc")
    c.read(o, 32)
    o2 = c.accept(t)
    c.write(o2, b"abc")
    c.read(o2, 32)
    c.close(o)
    c.close(o2)
    c.setkey(t, b"k2")
    o3 = c.accept(t)
    c.write(o3, b"abc")
    c.read(o3, 32)


@case
def setkey_failed_clears_key(c):
    t = tfm(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    c.setkey(t, pat(15))
    o = c.accept(t)
    crypt(c, o, RFC3602_P, iv=RFC3602_IV)
    c.read(o, 16)


@case
def setkey_failed_clears_key_hmac(c):
    t = tfm(c, "hash", "hmac(sha256)", key=b"k1")
    c.setkey(t, pat(30000))
    o = c.accept(t)
    c.write(o, b"abc")
    c.read(o, 32)


@case
def setkey_on_two_tfms(c):
    t1 = tfm(c, "hash", "hmac(sha256)", key=b"k1")
    t2 = tfm(c, "hash", "hmac(sha256)", key=b"k2")
    o1 = c.accept(t1)
    o2 = c.accept(t2)
    c.write(o1, b"abc")
    c.write(o2, b"abc")
    c.read(o1, 32)
    c.read(o2, 32)


# ====================================================================== accept()

@case
def accept_before_bind(c):
    t = c.socket()
    c.accept(t)
    c.accept4(t, 0)


@case
def accept_with_addr(c):
    t = tfm(c, "hash", "sha256")
    o = c.accept(t, addrsize=88)
    o2 = c.accept(t, addrsize=4)
    o3 = c.accept(t, addrsize=0)
    o4 = c.accept4(t, 0, addrsize=128)
    for x in (o, o2, o3, o4):
        c.write(x, b"abc")
        c.read(x, 32)


@case
def accept_with_addr_leaves_no_op(c):
    t = tfm(c, "hash", "hmac(sha256)", key=b"k1")
    c.accept(t, addrsize=88)
    c.setkey(t, b"Jefe")
    c.bind(t, "hash", "hmac(sha1)")
    c.setkey(t, b"Jefe")
    o = c.accept(t)
    c.write(o, b"what do ya want for nothing?")
    c.read(o, 32)
    c.send(o, b"what do ya want ", MSG_MORE)
    c.accept(o, addrsize=88)
    c.send(o, b"for nothing?")
    c.read(o, 32)


@case
def accept4_flags(c):
    t = tfm(c, "hash", "sha256")
    o1 = c.accept4(t, SOCK_CLOEXEC)
    c.fcntl(o1, F_GETFD)
    c.fcntl(o1, F_GETFL)
    o2 = c.accept4(t, SOCK_NONBLOCK)
    c.fcntl(o2, F_GETFD)
    c.fcntl(o2, F_GETFL)
    o3 = c.accept4(t, 0)
    c.fcntl(o3, F_GETFD)
    c.fcntl(o3, F_GETFL)
    c.accept4(t, 0x1)
    c.accept4(t, SOCK_CLOEXEC | 0x10)
    c.write(o2, b"abc")
    c.read(o2, 32)


@case
def accept_nonblock_tfm(c):
    t = c.socket(SOCK_SEQPACKET | SOCK_NONBLOCK)
    c.accept(t)
    c.bind(t, "skcipher", "cbc(aes)")
    c.setkey(t, RFC3602_K)
    o = c.accept(t)
    c.fcntl(o, F_GETFL)
    c.read(o, 16)


@case
def accept_nokey_hmac(c):
    t = tfm(c, "hash", "hmac(sha256)")
    o = c.accept(t)
    c.write(o, b"abc")
    c.read(o, 32)
    c.send(o, b"ab", MSG_MORE)
    c.accept(o)
    c.setkey(t, b"Jefe")
    c.write(o, b"what do ya want for nothing?")
    c.read(o, 32)
    c.setkey(t, b"other")
    o2 = c.accept(t)
    c.write(o2, b"what do ya want for nothing?")
    c.read(o2, 32)


@case
def accept_nokey_skcipher(c):
    t = tfm(c, "skcipher", "cbc(aes)")
    o = c.accept(t)
    crypt(c, o, RFC3602_P, iv=RFC3602_IV)
    c.read(o, 16)
    c.recv(o, 16, MSG_DONTWAIT)
    c.setkey(t, RFC3602_K)
    crypt(c, o, RFC3602_P, iv=RFC3602_IV)
    c.read(o, 16)


@case
def accept_nokey_two_ops(c):
    t = tfm(c, "hash", "hmac(sha1)")
    o1 = c.accept(t)
    o2 = c.accept(t)
    c.setkey(t, b"key")
    c.write(o1, b"abc")
    c.read(o1, 20)
    c.setkey(t, b"key2")
    c.write(o2, b"abc")
    c.read(o2, 20)


@case
def accept_many_independent(c):
    t = tfm(c, "hash", "sha256")
    o1 = c.accept(t)
    o2 = c.accept(t)
    o3 = c.accept(t)
    c.send(o1, b"a", MSG_MORE)
    c.send(o2, b"b", MSG_MORE)
    c.write(o3, b"c")
    c.write(o1, b"bc")
    c.read(o3, 32)
    c.read(o2, 32)
    c.read(o1, 32)


@case
def accept_on_op_clone(c):
    t, o = opfd(c, "hash", "sha256")
    c.send(o, b"ab", MSG_MORE)
    o2 = c.accept(o)
    c.send(o, b"c")
    c.read(o, 32)
    c.send(o2, b"x")
    c.read(o2, 32)
    o3 = c.accept(o2)
    c.read(o3, 32)


@case
def accept_on_op_clone_hmac(c):
    t, o = opfd(c, "hash", "hmac(sha256)", key=b"Jefe")
    c.send(o, b"what do ya want ", MSG_MORE)
    o2 = c.accept(o)
    c.send(o2, b"for nothing?")
    c.send(o, b"for nothing?")
    c.read(o2, 32)
    c.read(o, 32)


@case
def accept_on_op_fresh(c):
    t, o = opfd(c, "hash", "sha256")
    c.write(o, b"abc")
    o2 = c.accept(o)
    c.read(o2, 32)
    c.read(o, 32)
    o3 = c.accept4(o, SOCK_CLOEXEC)
    c.fcntl(o3, F_GETFD)
    c.write(o3, b"abc")
    c.read(o3, 32)


@case
def accept_on_op_skcipher(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    c.accept(o)
    crypt(c, o, RFC3602_P, iv=RFC3602_IV, flags=MSG_MORE)
    c.accept(o)


@case
def close_tfm_then_use_op(c):
    t, o = opfd(c, "hash", "sha256")
    c.close(t)
    c.write(o, b"abc")
    c.read(o, 32)
    c.accept(o)
    t2, o2 = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    c.close(t2)
    crypt(c, o2, RFC3602_P, iv=RFC3602_IV)
    c.read(o2, 16)


@case
def dup_op_fd(c):
    t, o = opfd(c, "hash", "sha256")
    d = c.dup(o)
    c.send(d, b"a", MSG_MORE)
    c.send(o, b"bc")
    c.read(d, 32)
    c.close(o)
    c.write(d, b"abc")
    c.read(d, 32)
    d2 = c.fcntl(d, F_DUPFD_CLOEXEC, 100)
    c.fcntl(d2, F_GETFD)
    c.write(d2, b"")
    c.read(d2, 32)


@case
def dup_tfm_fd(c):
    t = tfm(c, "hash", "hmac(sha256)")
    d = c.dup(t)
    c.setkey(d, b"Jefe")
    c.close(t)
    o = c.accept(d)
    c.write(o, b"what do ya want for nothing?")
    c.read(o, 32)


@case
def op_fd_misc_ops(c):
    t, o = opfd(c, "hash", "sha256")
    c.connect(o, sockaddr_alg("hash", "sha256"))
    c.listen(o)
    c.shutdown(o)
    c.getsockname(o)
    c.getsockname(o, peer=True)
    c.fcntl(o, F_GETFL)
    c.fcntl(o, F_GETFD)
    c.poll(o)
    c.write(o, b"abc")
    c.poll(o)
    c.read(o, 32)


# ====================================================================== hash

HASHES = [("sha1", 20), ("sha224", 28), ("sha256", 32), ("sha384", 48), ("sha512", 64), ("md5", 16),
          ("sha3-224", 28), ("sha3-256", 32), ("sha3-384", 48), ("sha3-512", 64), ("md4", 16), ("rmd160", 20),
          ("blake2b-256", 32), ("crc32c", 4)]


def _hash_basic(alg):
    def f(c):
        t, o = opfd(c, "hash", alg)
        c.write(o, b"abc")
        c.read(o, 128)
        o2 = c.accept(t)
        c.read(o2, 128)
        c.write(o2, b"a" * 1000)
        c.read(o2, 128)
    return f


for _alg, _n in HASHES:
    add("hash_basic_" + _alg.replace("-", "_"), _hash_basic(_alg))

HMACS = [
    ("hmac(sha1)", b"\x0b" * 20, b"Hi There"),
    ("hmac(sha1)", b"Jefe", b"what do ya want for nothing?"),
    ("hmac(sha256)", b"\x0b" * 20, b"Hi There"),
    ("hmac(sha256)", b"Jefe", b"what do ya want for nothing?"),
    ("hmac(sha256)", b"\xaa" * 131, b"Test Using Larger Than Block-Size Key - Hash Key First"),
    ("hmac(sha512)", b"\x0b" * 20, b"Hi There"),
    ("hmac(sha512)", b"\xaa" * 131, b"Test Using Larger Than Block-Size Key - Hash Key First"),
    ("hmac(sha224)", b"Jefe", b"what do ya want for nothing?"),
    ("hmac(sha384)", b"Jefe", b"what do ya want for nothing?"),
    ("hmac(md5)", b"Jefe", b"what do ya want for nothing?"),
    ("hmac(sha3-256)", b"Jefe", b"what do ya want for nothing?"),
]


def _hmac_case(alg, key, msg):
    def f(c):
        t, o = opfd(c, "hash", alg, key=key)
        c.write(o, msg)
        c.read(o, 64)
        c.read(o, 64)
    return f


_seen = {}
for _alg, _key, _msg in HMACS:
    _base = "hmac_" + _alg[5:-1].replace("-", "_")
    _seen[_base] = _seen.get(_base, 0) + 1
    add("%s_tc%d" % (_base, _seen[_base]), _hmac_case(_alg, _key, _msg))


@case
def hmac_no_key_vs_empty_key(c):
    t = tfm(c, "hash", "hmac(sha256)")
    o = c.accept(t)
    c.write(o, b"abc")
    c.close(o)
    c.setkey(t, b"")
    o2 = c.accept(t)
    c.write(o2, b"abc")
    c.read(o2, 32)


@case
def hash_multiple_writes(c):
    t, o = opfd(c, "hash", "sha256")
    c.write(o, b"a")
    c.write(o, b"b")
    c.write(o, b"c")
    c.read(o, 32)


@case
def hash_multiple_sends_no_more(c):
    t, o = opfd(c, "hash", "sha256")
    c.send(o, b"ab")
    c.send(o, b"c")
    c.read(o, 32)


@case
def hash_more_then_empty_send(c):
    t, o = opfd(c, "hash", "sha256")
    c.send(o, b"a", MSG_MORE)
    c.send(o, b"b", MSG_MORE)
    c.send(o, b"c", MSG_MORE)
    c.send(o, b"")
    c.read(o, 32)


@case
def hash_more_then_final_data(c):
    t, o = opfd(c, "hash", "sha256")
    c.send(o, b"ab", MSG_MORE)
    c.send(o, b"c")
    c.read(o, 32)


@case
def hash_more_then_read(c):
    t, o = opfd(c, "hash", "sha256")
    c.send(o, b"ab", MSG_MORE)
    c.read(o, 32)
    c.read(o, 32)


@case
def hash_more_then_write(c):
    t, o = opfd(c, "hash", "sha256")
    c.send(o, b"ab", MSG_MORE)
    c.write(o, b"c")
    c.read(o, 32)


@case
def hash_read_truncated(c):
    t, o = opfd(c, "hash", "sha256")
    c.write(o, b"abc")
    c.read(o, 16)
    c.read(o, 32)


@case
def hash_read_one_byte(c):
    t, o = opfd(c, "hash", "sha1")
    c.write(o, b"abc")
    c.read(o, 1)
    c.write(o, b"abc")
    c.recv(o, 1)


@case
def hash_recvmsg_short(c):
    t, o = opfd(c, "hash", "sha256")
    c.write(o, b"abc")
    c.recvmsg(o, 16)
    c.write(o, b"abc")
    c.recvmsg(o, 16, MSG_TRUNC)


@case
def hash_recvmsg_exact_and_long(c):
    t, o = opfd(c, "hash", "sha256")
    c.write(o, b"abc")
    c.recvmsg(o, 32)
    c.write(o, b"abc")
    c.recvmsg(o, 100)
    c.write(o, b"abc")
    c.recvmsg(o, 100, MSG_TRUNC)


@case
def hash_recvmsg_iovecs(c):
    t, o = opfd(c, "hash", "sha256")
    c.write(o, b"abc")
    c.recvmsg(o, [10, 30])
    c.write(o, b"abc")
    c.recvmsg(o, [10, 10])
    c.write(o, b"abc")
    c.recvmsg(o, [0, 8, 100])
    c.write(o, b"abc")
    c.recvmsg(o, [])


@case
def hash_recvmsg_control(c):
    t, o = opfd(c, "hash", "sha256")
    c.write(o, b"abc")
    c.recvmsg(o, 32, controllen=64)


@case
def hash_read_twice(c):
    t, o = opfd(c, "hash", "sha256")
    c.write(o, b"abc")
    c.read(o, 32)
    c.read(o, 32)
    c.read(o, 32)


@case
def hash_read_no_data(c):
    t, o = opfd(c, "hash", "sha256")
    c.read(o, 32)
    c.recv(o, 32, MSG_DONTWAIT)
    c.recvmsg(o, 32)


@case
def hash_write_after_read(c):
    t, o = opfd(c, "hash", "sha256")
    c.write(o, b"abc")
    c.read(o, 32)
    c.write(o, b"def")
    c.read(o, 32)


@case
def hash_more_after_read(c):
    t, o = opfd(c, "hash", "sha256")
    c.write(o, b"abc")
    c.read(o, 32)
    c.send(o, b"d", MSG_MORE)
    c.send(o, b"ef")
    c.read(o, 32)


@case
def hash_zero_length_io(c):
    t, o = opfd(c, "hash", "sha256")
    c.write(o, b"abc")
    c.read(o, 0)
    c.read(o, 32)
    c.write(o, b"abc")
    c.recv(o, 0)
    c.read(o, 32)
    c.write(o, b"")
    c.read(o, 32)
    c.send(o, b"", MSG_MORE)
    c.read(o, 32)


@case
def hash_recv_flags(c):
    t, o = opfd(c, "hash", "sha256")
    c.write(o, b"abc")
    c.recv(o, 32, MSG_PEEK)
    c.recv(o, 32)
    c.write(o, b"abc")
    c.recv(o, 32, MSG_WAITALL)
    c.write(o, b"abc")
    c.recv(o, 32, MSG_DONTWAIT)


@case
def hash_send_flags(c):
    t, o = opfd(c, "hash", "sha256")
    c.send(o, b"abc", MSG_DONTWAIT | MSG_NOSIGNAL)
    c.read(o, 32)
    c.send(o, b"abc", MSG_EOR)
    c.read(o, 32)
    c.send(o, b"ab", MSG_MORE | MSG_DONTWAIT)
    c.send(o, b"c", MSG_NOSIGNAL)
    c.read(o, 32)


@case
def hash_large_write(c):
    t, o = opfd(c, "hash", "sha256")
    c.write(o, pat(65536))
    c.read(o, 32)
    c.write(o, pat(1 << 20))
    c.read(o, 32)


@case
def hash_large_more(c):
    t, o = opfd(c, "hash", "sha512")
    for i in range(8):
        c.send(o, pat(40000, i), MSG_MORE)
    c.send(o, b"")
    c.read(o, 64)


@case
def hash_sendmsg_iovecs(c):
    t, o = opfd(c, "hash", "sha256")
    c.sendmsg(o, [b"a", b"", b"bc"])
    c.read(o, 32)
    c.sendmsg(o, [b"ab"], flags=MSG_MORE)
    c.sendmsg(o, [b"c"])
    c.read(o, 32)
    c.sendmsg(o, [])
    c.read(o, 32)


@case
def hash_sendmsg_cmsg_ignored(c):
    t, o = opfd(c, "hash", "sha256")
    c.sendmsg(o, b"abc", [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(bytes(16))])
    c.read(o, 32)
    c.sendmsg(o, b"abc", [Cmsg(SOL_ALG, 99, b"xxxx")])
    c.read(o, 32)
    c.sendmsg(o, b"abc", ctrl=b"\xff" * 8)
    c.read(o, 32)


@case
def hash_sendto_with_addr(c):
    t, o = opfd(c, "hash", "sha256")
    c.sendto(o, b"abc", 0, sockaddr_alg("hash", "sha1"))
    c.read(o, 32)
    c.sendto(o, b"abc", 0, None)
    c.read(o, 32)
    c.sendto(o, b"abc", 0, b"\0" * 200)
    c.read(o, 32)


@case
def hash_efault(c):
    t, o = opfd(c, "hash", "sha256")
    c.send(o, None, 0, length=16)
    c.read(o, 32)
    c.write(o, b"abc")
    c.read(o, 32, null=True)
    c.read(o, 32)
    c.send(o, b"ab", MSG_MORE)
    c.write(o, None, length=8)
    c.write(o, b"c")
    c.read(o, 32)


@case
def hash_write_on_tfm(c):
    t = tfm(c, "hash", "sha256")
    c.write(t, b"abc")
    c.send(t, b"abc", MSG_MORE)
    c.read(t, 32)
    c.recvmsg(t, 32)


@case
def hash_after_close_op_fd_reuse(c):
    t, o = opfd(c, "hash", "sha256")
    c.write(o, b"abc")
    c.close(o)
    c.write(o, b"abc")
    o2 = c.accept(t)
    c.read(o2, 32)


@case
def hash_poll(c):
    t, o = opfd(c, "hash", "sha256")
    c.poll(t)
    c.poll(o)
    c.write(o, b"abc")
    c.poll(o)
    c.send(o, b"abc", MSG_MORE)
    c.poll(o)


@case
def hash_sha1_vectors(c):
    t, o = opfd(c, "hash", "sha1")
    c.write(o, b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
    c.read(o, 20)
    c.write(o, b"a" * 1000000)
    c.read(o, 20)


@case
def hash_md5_more_boundary(c):
    t, o = opfd(c, "hash", "md5")
    c.send(o, pat(63), MSG_MORE)
    c.send(o, pat(1, 1), MSG_MORE)
    c.send(o, pat(65, 2))
    c.read(o, 16)


# ====================================================================== skcipher

@case
def skc_cbc_rfc3602_enc(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    crypt(c, o, RFC3602_P, iv=RFC3602_IV)
    c.read(o, 16)


@case
def skc_cbc_rfc3602_dec(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    crypt(c, o, RFC3602_C, op=ALG_OP_DECRYPT, iv=RFC3602_IV)
    c.read(o, 16)


@case
def skc_cbc_rfc3602_case2(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K2)
    crypt(c, o, RFC3602_P2, iv=RFC3602_IV2)
    c.read(o, 32)
    crypt(c, o, h("d296cd94c2cccf8a3a863028b5e1dc0a7586602d253cfff91b8266bea6d61ab1"),
          op=ALG_OP_DECRYPT, iv=RFC3602_IV2)
    c.read(o, 32)


@case
def skc_cbc_sp800_38a(c):
    for k in (SP_K, SP_K192, SP_K256):
        t, o = opfd(c, "skcipher", "cbc(aes)", key=k)
        crypt(c, o, SP_P, iv=SP_IV)
        c.read(o, 64)


@case
def skc_ecb_aes_fips197(c):
    t, o = opfd(c, "skcipher", "ecb(aes)", key=FIPS197_K)
    c.sendmsg(o, FIPS197_P, [cmsg_op(ALG_OP_ENCRYPT)])
    c.read(o, 16)
    c.sendmsg(o, h("69c4e0d86a7b0430d8cdb78070b4c55a"), [cmsg_op(ALG_OP_DECRYPT)])
    c.read(o, 16)


@case
def skc_ecb_aes_sp800_38a(c):
    t, o = opfd(c, "skcipher", "ecb(aes)", key=SP_K)
    crypt(c, o, SP_P)
    c.read(o, 64)


@case
def skc_ecb_iv_cmsg(c):
    t, o = opfd(c, "skcipher", "ecb(aes)", key=FIPS197_K)
    crypt(c, o, FIPS197_P, iv=bytes(16))
    crypt(c, o, FIPS197_P, iv=b"")
    c.read(o, 16)


@case
def skc_ctr_sp800_38a(c):
    t, o = opfd(c, "skcipher", "ctr(aes)", key=SP_K)
    crypt(c, o, SP_P, iv=SP_CTR)
    c.read(o, 64)


@case
def skc_ctr_partial_final_block(c):
    t, o = opfd(c, "skcipher", "ctr(aes)", key=SP_K)
    crypt(c, o, SP_P[:20], iv=SP_CTR)
    c.read(o, 20)
    crypt(c, o, SP_P[:5], iv=SP_CTR)
    c.read(o, 64)
    crypt(c, o, SP_P[:1], iv=SP_CTR)
    c.read(o, 1)


@case
def skc_ctr_partial_with_more(c):
    t, o = opfd(c, "skcipher", "ctr(aes)", key=SP_K)
    crypt(c, o, SP_P[:20], iv=SP_CTR, flags=MSG_MORE)
    c.read(o, 32)
    c.send(o, SP_P[20:32])
    c.read(o, 32)


@case
def skc_ctr_counter_wrap(c):
    t, o = opfd(c, "skcipher", "ctr(aes)", key=SP_K)
    crypt(c, o, bytes(48), iv=b"\xff" * 16)
    c.read(o, 48)
    crypt(c, o, bytes(32), iv=b"\x00" * 8 + b"\xff" * 8)
    c.read(o, 32)


@case
def skc_ctr_iv_chain(c):
    t, o = opfd(c, "skcipher", "ctr(aes)", key=SP_K)
    crypt(c, o, SP_P[:16], iv=SP_CTR)
    c.read(o, 16)
    crypt(c, o, SP_P[16:32])
    c.read(o, 16)
    c.send(o, SP_P[32:64])
    c.read(o, 32)


@case
def skc_ctr_iv_chain_partial(c):
    t, o = opfd(c, "skcipher", "ctr(aes)", key=SP_K)
    crypt(c, o, SP_P[:20], iv=SP_CTR)
    c.read(o, 20)
    crypt(c, o, SP_P[20:32])
    c.read(o, 12)
    crypt(c, o, SP_P[32:64])
    c.read(o, 32)


@case
def skc_cbc_iv_chain(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    crypt(c, o, SP_P[:16], iv=SP_IV)
    c.read(o, 16)
    crypt(c, o, SP_P[16:32])
    c.read(o, 16)
    c.send(o, SP_P[32:64])
    c.read(o, 32)


@case
def skc_cbc_iv_chain_decrypt(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    ct = h("7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
           "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7")
    crypt(c, o, ct[:16], op=ALG_OP_DECRYPT, iv=SP_IV)
    c.read(o, 16)
    crypt(c, o, ct[16:32], op=ALG_OP_DECRYPT)
    c.read(o, 16)
    c.send(o, ct[32:])
    c.read(o, 32)


@case
def skc_cbc_iv_chain_in_one_request(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    crypt(c, o, SP_P, iv=SP_IV)
    c.read(o, 16)
    c.read(o, 16)
    c.read(o, 32)


@case
def skc_cbc_iv_after_new_accept(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    crypt(c, o, SP_P[:16], iv=SP_IV)
    c.read(o, 16)
    o2 = c.accept(t)
    crypt(c, o2, SP_P[16:32])
    c.read(o2, 16)


@case
def skc_iv_wrong_length(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    crypt(c, o, RFC3602_P, iv=RFC3602_IV[:8])
    crypt(c, o, RFC3602_P, iv=RFC3602_IV + RFC3602_IV)
    crypt(c, o, RFC3602_P, iv=b"")
    crypt(c, o, RFC3602_P, iv=RFC3602_IV[:15])
    c.recv(o, 16, MSG_DONTWAIT)
    crypt(c, o, RFC3602_P, iv=RFC3602_IV)
    c.read(o, 16)


@case
def skc_iv_len_field_mismatch(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    c.sendmsg(o, RFC3602_P, [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(RFC3602_IV, ivlen=8)])
    c.sendmsg(o, RFC3602_P, [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(RFC3602_IV[:8], ivlen=16)])
    c.sendmsg(o, RFC3602_P, [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(RFC3602_IV, ivlen=0x7fffffff)])
    c.sendmsg(o, RFC3602_P, [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(RFC3602_IV + bytes(16), ivlen=16)])
    c.read(o, 16)


@case
def skc_iv_cmsg_too_short(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    c.sendmsg(o, RFC3602_P, [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(RFC3602_IV, cmsg_len=CMSG_LEN(2))])
    c.sendmsg(o, RFC3602_P, [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(RFC3602_IV, cmsg_len=CMSG_LEN(4))])
    c.sendmsg(o, RFC3602_P, [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(RFC3602_IV, cmsg_len=CMSG_LEN(19))])
    c.sendmsg(o, RFC3602_P, [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(RFC3602_IV, cmsg_len=CMSG_LEN(20))])
    c.read(o, 16)


@case
def skc_op_cmsg_too_short(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    c.sendmsg(o, RFC3602_P, [cmsg_op(ALG_OP_ENCRYPT, cmsg_len=CMSG_LEN(2)), cmsg_iv(RFC3602_IV)])
    c.sendmsg(o, RFC3602_P, [cmsg_op(ALG_OP_ENCRYPT, cmsg_len=CMSG_LEN(0)), cmsg_iv(RFC3602_IV)])
    c.sendmsg(o, RFC3602_P, [cmsg_op(ALG_OP_ENCRYPT, cmsg_len=12), cmsg_iv(RFC3602_IV)])
    c.sendmsg(o, RFC3602_P, [cmsg_op(ALG_OP_ENCRYPT, cmsg_len=CMSG_LEN(8)), cmsg_iv(RFC3602_IV)])
    c.read(o, 16)


@case
def skc_op_invalid_value(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    crypt(c, o, RFC3602_P, op=2, iv=RFC3602_IV)
    crypt(c, o, RFC3602_P, op=0xffffffff, iv=RFC3602_IV)
    crypt(c, o, RFC3602_P, op=0x100, iv=RFC3602_IV)
    c.recv(o, 16, MSG_DONTWAIT)


@case
def skc_missing_op_cmsg(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    c.sendmsg(o, RFC3602_C, [cmsg_iv(RFC3602_IV)])
    c.read(o, 16)
    crypt(c, o, RFC3602_P, iv=RFC3602_IV)
    c.read(o, 16)
    c.sendmsg(o, RFC3602_C, [cmsg_iv(RFC3602_IV)])
    c.read(o, 16)


@case
def skc_no_cmsg_at_all(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    c.send(o, RFC3602_C)
    c.read(o, 16)


@case
def skc_no_cmsg_after_encrypt(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    crypt(c, o, RFC3602_P, iv=RFC3602_IV)
    c.read(o, 16)
    c.write(o, RFC3602_P)
    c.read(o, 16)


@case
def skc_missing_iv(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    crypt(c, o, RFC3602_P)
    c.read(o, 16)
    crypt(c, o, RFC3602_P, iv=bytes(16))
    c.read(o, 16)


@case
def skc_cmsg_wrong_level(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    c.sendmsg(o, RFC3602_C, [Cmsg(SOL_SOCKET, ALG_SET_OP, struct.pack("<I", 1), label="L1:OP:ENC"),
                             cmsg_iv(RFC3602_IV)])
    c.read(o, 16)
    c.sendmsg(o, RFC3602_C, [Cmsg(0, ALG_SET_OP, struct.pack("<I", 1), label="L0:OP:ENC")])
    c.read(o, 16)
    c.sendmsg(o, RFC3602_P, [Cmsg(SOL_SOCKET, SCM_RIGHTS, struct.pack("<i", 0), label="SCM_RIGHTS:0"),
                             cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(RFC3602_IV)])
    c.read(o, 16)


@case
def skc_cmsg_unknown_type(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    c.sendmsg(o, RFC3602_P, [cmsg_op(ALG_OP_ENCRYPT), Cmsg(SOL_ALG, 99, b"\0" * 4)])
    c.sendmsg(o, RFC3602_P, [cmsg_op(ALG_OP_ENCRYPT), Cmsg(SOL_ALG, ALG_SET_KEY, RFC3602_K)])
    c.sendmsg(o, RFC3602_P, [cmsg_op(ALG_OP_ENCRYPT), Cmsg(SOL_ALG, ALG_SET_AEAD_AUTHSIZE, b"\0" * 4)])
    c.sendmsg(o, RFC3602_P, [cmsg_op(ALG_OP_ENCRYPT), Cmsg(SOL_ALG, ALG_SET_DRBG_ENTROPY, b"\0" * 4)])
    c.sendmsg(o, RFC3602_P, [cmsg_op(ALG_OP_ENCRYPT), Cmsg(SOL_ALG, 0, b"\0" * 4)])
    c.recv(o, 16, MSG_DONTWAIT)


@case
def skc_cmsg_assoclen_ignored(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    c.sendmsg(o, RFC3602_P, [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(RFC3602_IV), cmsg_assoclen(8)])
    c.read(o, 16)
    c.sendmsg(o, RFC3602_P, [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(RFC3602_IV),
                             Cmsg(SOL_ALG, ALG_SET_AEAD_ASSOCLEN, b"\0\0", label="ASSOCLEN:short")])
    c.recv(o, 16, MSG_DONTWAIT)


@case
def skc_cmsg_len_beyond_control(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    cm = [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(RFC3602_IV)]
    full = control(cm)
    c.sendmsg(o, RFC3602_P, cm, controllen=len(full) - 8)
    c.sendmsg(o, RFC3602_P, [cmsg_op(ALG_OP_ENCRYPT, cmsg_len=200)])
    c.sendmsg(o, RFC3602_P, cm, controllen=len(full) + 8)
    c.read(o, 16)


@case
def skc_cmsg_zero_len(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    c.sendmsg(o, RFC3602_P, [cmsg_op(ALG_OP_ENCRYPT, cmsg_len=0)])
    c.sendmsg(o, RFC3602_P, [Cmsg(SOL_ALG, ALG_SET_OP, b"", cmsg_len=16, label="OP:len=16")])
    c.recv(o, 16, MSG_DONTWAIT)


@case
def skc_controllen_lt_cmsghdr(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    crypt(c, o, RFC3602_P, iv=RFC3602_IV)
    c.read(o, 16)
    c.sendmsg(o, RFC3602_C, ctrl=b"\x01" * 8, label="junk8")
    c.read(o, 16)


@case
def skc_controllen_huge(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    big = control([cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(RFC3602_IV)]).ljust(100000, b"\0")
    c.sendmsg(o, RFC3602_P, ctrl=big, label="op+iv+zeros100000")
    c.sendmsg(o, RFC3602_P, ctrl=big[:4096], label="op+iv+zeros4096")
    c.recv(o, 16, MSG_DONTWAIT)


@case
def skc_two_op_cmsgs(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    c.sendmsg(o, RFC3602_P, [cmsg_op(ALG_OP_DECRYPT), cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(RFC3602_IV)])
    c.read(o, 16)
    c.sendmsg(o, RFC3602_P, [cmsg_iv(bytes(16)), cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(RFC3602_IV)])
    c.read(o, 16)


@case
def skc_partial_block(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    crypt(c, o, RFC3602_P[:10], iv=RFC3602_IV)
    c.read(o, 16)
    c.recv(o, 16, MSG_DONTWAIT)
    crypt(c, o, RFC3602_P, iv=RFC3602_IV)
    c.read(o, 16)


@case
def skc_partial_block_read_less(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    crypt(c, o, RFC3602_P + RFC3602_P[:4], iv=RFC3602_IV)
    c.read(o, 16)
    c.read(o, 16)
    c.recv(o, 16, MSG_DONTWAIT)


@case
def skc_partial_block_more(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    crypt(c, o, RFC3602_P[:10], iv=RFC3602_IV, flags=MSG_MORE)
    c.read(o, 16)
    c.send(o, RFC3602_P[10:])
    c.read(o, 16)


@case
def skc_partial_block_decrypt(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=RFC3602_K)
    crypt(c, o, RFC3602_C[:15], op=ALG_OP_DECRYPT, iv=RFC3602_IV)
    c.read(o, 15)


@case
def skc_ecb_partial_block(c):
    t, o = opfd(c, "skcipher", "ecb(aes)", key=FIPS197_K)
    crypt(c, o, FIPS197_P + b"x")
    c.read(o, 32)
    crypt(c, o, FIPS197_P[:1])
    c.read(o, 1)


@case
def skc_multi_send_more(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    crypt(c, o, SP_P[:16], iv=SP_IV, flags=MSG_MORE)
    c.send(o, SP_P[16:32], MSG_MORE)
    c.send(o, SP_P[32:])
    c.read(o, 64)


@case
def skc_multi_send_more_unaligned(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    crypt(c, o, SP_P[:5], iv=SP_IV, flags=MSG_MORE)
    c.send(o, SP_P[5:40], MSG_MORE)
    c.send(o, SP_P[40:])
    c.read(o, 64)


@case
def skc_multi_send_more_empty_final(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    crypt(c, o, SP_P[:32], iv=SP_IV, flags=MSG_MORE)
    c.send(o, SP_P[32:], MSG_MORE)
    c.send(o, b"")
    c.read(o, 64)


@case
def skc_more_read_partial(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    crypt(c, o, SP_P[:32], iv=SP_IV, flags=MSG_MORE)
    c.read(o, 16)
    c.send(o, SP_P[32:])
    c.read(o, 64)


@case
def skc_read_less_than_sent(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    crypt(c, o, SP_P, iv=SP_IV)
    c.read(o, 16)
    c.read(o, 20)
    c.read(o, 8)
    c.read(o, 64)


@case
def skc_read_more_than_sent(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    crypt(c, o, SP_P[:32], iv=SP_IV)
    c.read(o, 64)
    c.recv(o, 16, MSG_DONTWAIT)


@case
def skc_read_more_than_sent_with_more(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    crypt(c, o, SP_P[:32], iv=SP_IV, flags=MSG_MORE)
    c.read(o, 64)
    c.send(o, SP_P[32:])
    c.read(o, 64)


@case
def skc_read_sub_block(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    crypt(c, o, SP_P[:16], iv=SP_IV)
    c.read(o, 8)
    c.recvmsg(o, 8)
    c.read(o, 16)


@case
def skc_send_again_before_read(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    crypt(c, o, SP_P[:16], iv=SP_IV)
    c.send(o, SP_P[16:32])
    crypt(c, o, SP_P[16:32], iv=SP_IV)
    c.read(o, 64)


@case
def skc_zero_length_send(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    crypt(c, o, b"", iv=SP_IV)
    c.read(o, 16)
    crypt(c, o, b"", iv=SP_IV)
    crypt(c, o, SP_P[:16])
    c.read(o, 16)


@case
def skc_zero_length_send_more(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    crypt(c, o, b"", iv=SP_IV, flags=MSG_MORE)
    c.send(o, SP_P[:16])
    c.read(o, 16)


@case
def skc_read_nothing_sent(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    c.read(o, 16)
    crypt(c, o, SP_P[:16], iv=SP_IV)
    c.read(o, 16)


@case
def skc_recvmsg_nothing_sent(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    c.recvmsg(o, 16)


@case
def skc_read_nothing_dontwait(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    c.recv(o, 16, MSG_DONTWAIT)
    c.recvmsg(o, 16, MSG_DONTWAIT)
    crypt(c, o, SP_P[:16], iv=SP_IV, flags=MSG_MORE)
    c.recv(o, 32, MSG_DONTWAIT)
    c.recv(o, 16, MSG_DONTWAIT)


@case
def skc_read_nothing_nonblock(c):
    t = tfm(c, "skcipher", "cbc(aes)", key=SP_K)
    o = c.accept4(t, SOCK_NONBLOCK)
    c.read(o, 16)
    crypt(c, o, SP_P[:10], iv=SP_IV, flags=MSG_MORE)
    c.read(o, 16)
    c.send(o, SP_P[10:16])
    c.read(o, 16)


@case
def skc_read_after_more_empty(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    crypt(c, o, b"", iv=SP_IV, flags=MSG_MORE)
    c.read(o, 16)


@case
def skc_roundtrip(c):
    data = pat(256, 3)
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K256)
    crypt(c, o, data, iv=SP_IV)
    ct = c.read(o, 256)
    crypt(c, o, ct if ct is not None else bytes(256), op=ALG_OP_DECRYPT, iv=SP_IV)
    c.read(o, 256)


@case
def skc_roundtrip_two_ops(c):
    data = pat(96, 4)
    t = tfm(c, "skcipher", "ctr(aes)", key=SP_K)
    e = c.accept(t)
    d = c.accept(t)
    crypt(c, e, data, iv=SP_CTR)
    ct = c.read(e, 96)
    crypt(c, d, ct if ct is not None else bytes(96), op=ALG_OP_DECRYPT, iv=SP_CTR)
    c.read(d, 96)


@case
def skc_ops_interleaved(c):
    t = tfm(c, "skcipher", "cbc(aes)", key=SP_K)
    o1 = c.accept(t)
    o2 = c.accept(t)
    crypt(c, o1, SP_P[:16], iv=SP_IV, flags=MSG_MORE)
    crypt(c, o2, SP_P[:16], iv=bytes(16), flags=MSG_MORE)
    c.send(o1, SP_P[16:32])
    c.send(o2, SP_P[16:32])
    c.read(o2, 32)
    c.read(o1, 32)


@case
def skc_change_op_midstream(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    crypt(c, o, SP_P[:16], iv=SP_IV, flags=MSG_MORE)
    crypt(c, o, SP_P[16:32], op=ALG_OP_DECRYPT)
    c.read(o, 32)


@case
def skc_change_iv_midstream(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    crypt(c, o, SP_P[:16], iv=SP_IV, flags=MSG_MORE)
    crypt(c, o, SP_P[16:32], iv=bytes(16))
    c.read(o, 32)


@case
def skc_change_iv_after_partial_read(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    crypt(c, o, SP_P[:32], iv=SP_IV, flags=MSG_MORE)
    c.read(o, 16)
    crypt(c, o, SP_P[32:48], iv=bytes(16))
    c.read(o, 32)


@case
def skc_recvmsg(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    crypt(c, o, SP_P, iv=SP_IV)
    c.recvmsg(o, [8, 8, 16])
    c.recvmsg(o, [32], MSG_TRUNC)
    crypt(c, o, SP_P[:16], iv=SP_IV)
    c.recvmsg(o, [16], controllen=64)


@case
def skc_write_read(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    crypt(c, o, b"", iv=SP_IV, flags=MSG_MORE)
    c.write(o, SP_P[:32])
    c.read(o, 32)


@case
def skc_sendmsg_iovecs(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    c.sendmsg(o, [SP_P[:7], b"", SP_P[7:23], SP_P[23:32]], [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(SP_IV)])
    c.read(o, 32)


@case
def skc_efault(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    c.sendmsg(o, [(None, 16)], [cmsg_op(ALG_OP_ENCRYPT), cmsg_iv(SP_IV)])
    c.recv(o, 16, MSG_DONTWAIT)
    crypt(c, o, SP_P[:16], iv=SP_IV)
    c.read(o, 16, null=True)
    c.recv(o, 16, MSG_DONTWAIT)


@case
def skc_large(c):
    data = pat(65536, 5)
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    crypt(c, o, data, iv=SP_IV)
    c.read(o, 65536)


@case
def skc_large_chunks(c):
    t, o = opfd(c, "skcipher", "ctr(aes)", key=SP_K)
    crypt(c, o, pat(4096, 6), iv=SP_CTR, flags=MSG_MORE)
    for i in range(7, 14):
        c.send(o, pat(4096, i), MSG_MORE)
    c.send(o, b"")
    c.read(o, 4096 * 8)


@case
def skc_send_over_sndbuf(c):
    t, o = opfd(c, "skcipher", "ctr(aes)", key=SP_K)
    crypt(c, o, pat(1 << 20, 7), iv=SP_CTR)
    c.read(o, 1 << 20)


@case
def skc_poll(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    c.poll(o)
    crypt(c, o, SP_P[:16], iv=SP_IV, flags=MSG_MORE)
    c.poll(o)
    c.send(o, SP_P[16:32])
    c.poll(o)
    c.read(o, 32)
    c.poll(o)


@case
def skc_op_fd_sockopts(c):
    t, o = opfd(c, "skcipher", "cbc(aes)", key=SP_K)
    c.setkey(o, SP_K)
    c.getsockopt(o, SOL_SOCKET, SO_TYPE)
    c.getsockopt(o, SOL_SOCKET, SO_DOMAIN)
    c.bind(o, "skcipher", "ecb(aes)")
    c.fcntl(o, F_GETFL)
    c.shutdown(o)
    c.getsockname(o)


@case
def skc_tfm_io(c):
    t = tfm(c, "skcipher", "cbc(aes)", key=SP_K)
    crypt(c, t, SP_P[:16], iv=SP_IV)
    c.read(t, 16)


@case
def skc_xts_ieee1619(c):
    t, o = opfd(c, "skcipher", "xts(aes)", key=XTS_K1)
    crypt(c, o, bytes(32), iv=bytes(16))
    c.read(o, 32)
    c.close(o)
    c.close(t)
    t2, o2 = opfd(c, "skcipher", "xts(aes)", key=XTS_K2)
    crypt(c, o2, b"\x44" * 32, iv=XTS_IV2)
    c.read(o2, 32)


@case
def skc_xts_ciphertext_stealing(c):
    t, o = opfd(c, "skcipher", "xts(aes)", key=XTS_K15)
    for n in (17, 18, 19, 20, 31, 33):
        crypt(c, o, bytes(range(n)), iv=XTS_IV15)
        c.read(o, n)


@case
def skc_xts_short(c):
    t, o = opfd(c, "skcipher", "xts(aes)", key=XTS_K2)
    crypt(c, o, bytes(15), iv=XTS_IV2)
    c.read(o, 15)
    crypt(c, o, bytes(1), iv=XTS_IV2)
    c.read(o, 1)
    crypt(c, o, bytes(16), iv=XTS_IV2)
    c.read(o, 16)


@case
def skc_xts_roundtrip_256(c):
    t, o = opfd(c, "skcipher", "xts(aes)", key=pat(64, 8))
    crypt(c, o, pat(100, 9), iv=XTS_IV2)
    ct = c.read(o, 100)
    crypt(c, o, ct if ct is not None else bytes(100), op=ALG_OP_DECRYPT, iv=XTS_IV2)
    c.read(o, 100)


def _iv_chain(alg, key, iv, n1, n2):
    def f(c):
        t, o = opfd(c, "skcipher", alg, key=key)
        crypt(c, o, pat(n1, 10), iv=iv)
        c.read(o, n1)
        crypt(c, o, pat(n2, 11))
        c.read(o, n2)
    return f


add("skc_xts_iv_chain", _iv_chain("xts(aes)", XTS_K2, XTS_IV2, 32, 32))
add("skc_xts_generic_iv_chain", _iv_chain("xts(aes-generic)", XTS_K2, XTS_IV2, 32, 32))
add("skc_xts_ecb_generic_iv_chain", _iv_chain("xts(ecb(aes-generic))", XTS_K2, XTS_IV2, 32, 32))
add("skc_cts_iv_chain", _iv_chain("cts(cbc(aes))", CTS_K, bytes(16), 32, 32))
add("skc_cts_iv_chain_odd", _iv_chain("cts(cbc(aes))", CTS_K, bytes(16), 17, 31))
add("skc_cts_generic_iv_chain", _iv_chain("cts(cbc(aes-generic))", CTS_K, bytes(16), 32, 32))
add("skc_cts_generic_iv_chain_odd", _iv_chain("cts(cbc(aes-generic))", CTS_K, bytes(16), 17, 31))
add("skc_cbc_des3_iv_chain", _iv_chain("cbc(des3_ede)", DES3_K, DES3_IV, 16, 16))


@case
def skc_cts_rfc3962(c):
    t, o = opfd(c, "skcipher", "cts(cbc(aes))", key=CTS_K)
    for n in (17, 31, 32, 47, 48, 64):
        crypt(c, o, CTS_P[:n], iv=bytes(16))
        c.read(o, n)


@case
def skc_cts_decrypt(c):
    t, o = opfd(c, "skcipher", "cts(cbc(aes))", key=CTS_K)
    crypt(c, o, h("fc00783e0efdb2c1d445d4c8eff7ed2297687268d6ecccc0c07b25e25ecfe5"), op=ALG_OP_DECRYPT,
          iv=bytes(16))
    c.read(o, 31)


@case
def skc_cts_short(c):
    t, o = opfd(c, "skcipher", "cts(cbc(aes))", key=CTS_K)
    crypt(c, o, CTS_P[:15], iv=bytes(16))
    c.read(o, 15)
    crypt(c, o, CTS_P[:16], iv=bytes(16))
    c.read(o, 16)
    crypt(c, o, b"", iv=bytes(16))
    c.read(o, 16)


@case
def skc_cts_more_split(c):
    t, o = opfd(c, "skcipher", "cts(cbc(aes))", key=CTS_K)
    crypt(c, o, CTS_P[:20], iv=bytes(16), flags=MSG_MORE)
    c.send(o, CTS_P[20:47])
    c.read(o, 47)


@case
def skc_cts_read_less(c):
    t, o = opfd(c, "skcipher", "cts(cbc(aes))", key=CTS_K)
    crypt(c, o, CTS_P[:47], iv=bytes(16))
    c.read(o, 20)
    c.read(o, 47)


@case
def skc_des3_cbc(c):
    t, o = opfd(c, "skcipher", "cbc(des3_ede)", key=DES3_K)
    crypt(c, o, DES3_P, iv=DES3_IV)
    ct = c.read(o, 24)
    crypt(c, o, ct if ct is not None else bytes(24), op=ALG_OP_DECRYPT, iv=DES3_IV)
    c.read(o, 24)


@case
def skc_des3_ecb(c):
    t, o = opfd(c, "skcipher", "ecb(des3_ede)", key=DES3_K)
    crypt(c, o, DES3_P)
    c.read(o, 24)


@case
def skc_des3_iv_wrong_length(c):
    t, o = opfd(c, "skcipher", "cbc(des3_ede)", key=DES3_K)
    crypt(c, o, DES3_P, iv=bytes(16))
    crypt(c, o, DES3_P, iv=bytes(8))
    c.read(o, 24)


@case
def skc_des3_partial(c):
    t, o = opfd(c, "skcipher", "cbc(des3_ede)", key=DES3_K)
    crypt(c, o, DES3_P[:12], iv=DES3_IV)
    c.read(o, 12)
    crypt(c, o, DES3_P[:12], iv=DES3_IV)
    c.read(o, 8)
    c.recv(o, 8, MSG_DONTWAIT)


@case
def skc_aes_key_sizes(c):
    for k in (SP_K, SP_K192, SP_K256):
        t, o = opfd(c, "skcipher", "ecb(aes)", key=k)
        crypt(c, o, SP_P[:16])
        c.read(o, 16)
        c.close(o)
        c.close(t)
