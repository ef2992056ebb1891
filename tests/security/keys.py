#!/usr/bin/env python3
"""Named keys (algctl key add/del/list, UALG_SET_KEY_BY_NAME, keyring
"ualg:NAME" references), run under ualg-run against an algd of its own.
Vectors: RFC 3602 case 1 (cbc(aes)) and RFC 4231 case 2 (hmac(sha256)).
Prints TAP lines and 'N passed, N failed'."""
import ctypes, errno, os, socket, subprocess, sys, tempfile
from common import check, skip, finish, scan, wait_for

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ualgtest import read_all, tfm  # noqa: E402

ALGD, ALGCTL, LIBUALG = sys.argv[1], sys.argv[2], sys.argv[3]
TMP = tempfile.mkdtemp(prefix="ualg-keys.")
os.chmod(TMP, 0o711)
ROOT = os.geteuid() == 0
SOCK = os.path.join(TMP, "d", "algd.sock")
BY_NAME = 0x7501
K = bytes.fromhex("06a9214036b8a15b512e03d534120006")
IV = bytes.fromhex("3dafba429d9eb430b422da802c9fac41")
P, C = b"Single block msg", bytes.fromhex("e353779c1079aeb82708942dbe77181a")
HK, HM = b"Jefe", b"what do ya want for nothing?"
HD = bytes.fromhex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")


def algctl(*args, user=None):
    pre = (lambda: (os.setgroups([]), os.setgid(user), os.setuid(user))) if user else None
    return subprocess.run([ALGCTL, "--socket", SOCK] + list(args), capture_output=True,
                          preexec_fn=pre, env=dict(os.environ, LD_PRELOAD=""))


def by_name(s, name):
    try:
        s.setsockopt(socket.SOL_ALG, BY_NAME, name)
        return 0
    except OSError as e:
        return e.errno


r, w = os.pipe()
opts = ["--allow", "uid:4242"] + (["--user", "nobody"] if ROOT else [])
proc = subprocess.Popen([ALGD, "--socket", SOCK, "--ready-fd", str(w)] + opts, pass_fds=[w],
                        env=dict(os.environ, LD_PRELOAD=""), stderr=subprocess.DEVNULL)
os.close(w)
assert os.read(r, 1) == b"1"
os.environ["UALG_SOCKET"] = SOCK
try:
    for n, data in [("aes", K), ("hk", HK)]:
        with open(os.path.join(TMP, n), "wb") as f:
            f.write(data)
    p = algctl("key", "add", "rfc3602", "--from-file", os.path.join(TMP, "aes"), "--allow", "uid:4242")
    check("algctl key add from a file", p.returncode == 0, p.stderr)
    p = algctl("key", "add", "rfc4231", "--from-file", os.path.join(TMP, "hk"))
    check("algctl key add, no allow list", p.returncode == 0, p.stderr)
    p = algctl("key", "add", "rfc3602", "--from-file", os.path.join(TMP, "aes"))
    check("adding an existing name: EEXIST", p.returncode == 1 and b"EEXIST" in p.stderr, p.stderr)
    for bad in ["", "-x", "a b", "a:b", "x" * 64, "é"]:
        p = algctl("key", "add", bad, "--from-file", os.path.join(TMP, "aes"))
        check(f"bad name {bad[:10]!r} refused", p.returncode != 0)
    s = tfm("skcipher", "cbc(aes)")
    check("UALG_SET_KEY_BY_NAME rfc3602", by_name(s, b"rfc3602") == 0)
    op, _ = s.accept()
    op.sendmsg_afalg([P], op=socket.ALG_OP_ENCRYPT, iv=IV)
    check("RFC 3602 case 1 with the named key", op.recv(16) == C)
    op.close()
    h = tfm("hash", "hmac(sha256)")
    check("by name with a NUL", by_name(h, b"rfc4231\0") == 0)
    op, _ = h.accept()
    op.sendall(HM)
    check("RFC 4231 case 2 with the named key", op.recv(32) == HD)
    op.close()
    # RFC mode: a named key on an RFC hash transform; its partial
    # state restores on a transform keyed with the same bytes directly.
    def rfc_tfm(name):
        os.environ["UALG_RFC"] = "1"	# read by the shim at socket()
        t = socket.socket(socket.AF_ALG, socket.SOCK_STREAM, 0)
        del os.environ["UALG_RFC"]
        t.bind(("hash", name))
        return t
    rt = rfc_tfm("hmac(sha256)")
    check("RFC mode: UALG_SET_KEY_BY_NAME rfc4231 on an RFC hash transform", by_name(rt, b"rfc4231") == 0)
    rt.listen(0)
    a, _ = rt.accept()
    a.sendall(HM[:11], socket.MSG_MORE)
    st = read_all(a, 512)
    rb = rfc_tfm("hmac(sha256)")
    rb.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, HK)
    rb.listen(0)
    b, _ = rb.accept()
    b.send(st, socket.MSG_OOB)
    b.send(HM[11:])
    check("... its partial state finishes RFC 4231 case 2 on a transform keyed with the same bytes",
          b.recv(32) == HD)
    check("RFC mode: an unknown name is ENOKEY", by_name(rfc_tfm("sha256"), b"nope") == errno.ENOKEY)
    rt = a = rb = b = None
    check("unknown name: ENOKEY", by_name(s, b"nope") == errno.ENOKEY)
    check("bad name: EINVAL", by_name(s, b"a b") == errno.EINVAL)
    x = tfm("skcipher", "xts(aes)")
    check("wrong key length: EINVAL as ALG_SET_KEY", by_name(x, b"rfc3602") == errno.EINVAL)
    lst = algctl("key", "list")
    check("key list shows names and uses",
          lst.returncode == 0 and b"rfc3602" in lst.stdout and b"uid:4242" in lst.stdout, lst.stdout)
    check("key list never prints key bytes", K.hex().encode() not in lst.stdout and
          HK not in lst.stdout and K not in lst.stdout)
    # keyring reference: a "user" key "ualg:rfc3602" whose payload is no secret
    libc = ctypes.CDLL(None, use_errno=True)
    serial = libc.syscall(248, b"user", b"ualg:rfc3602", b"x", 1, -2)
    if serial > 0:
        v = ctypes.c_int32(serial)
        k2 = tfm("skcipher", "cbc(aes)")
        rc = libc.setsockopt(k2.fileno(), 279, 7, ctypes.byref(v), 4)
        op, _ = k2.accept()
        op.sendmsg_afalg([P], op=socket.ALG_OP_ENCRYPT, iv=IV)
        check("ALG_SET_KEY_BY_KEY_SERIAL of a 'ualg:rfc3602' user key: RFC 3602 case 1",
              rc == 0 and op.recv(16) == C)
    else:
        skip("keyring path (add_key failed)")
    if ROOT:
        code = ("import socket,sys\ns=socket.socket(socket.AF_ALG,socket.SOCK_SEQPACKET,0)\n"
                "s.bind(('skcipher','cbc(aes)'))\n"
                "try:\n s.setsockopt(279,0x7501,sys.argv[1].encode()); print(0)\n"
                "except OSError as e: print(e.errno)\n")
        def as_uid(uid, name):
            return subprocess.run(["/usr/bin/python3", "-c", code, name], capture_output=True,
                                  text=True, preexec_fn=lambda: (os.setgroups([]), os.setgid(uid),
                                                                 os.setuid(uid))).stdout.strip()
        check("uid 4242 (on rfc3602's list) may use it", as_uid(4242, "rfc3602") == "0")
        check("uid 4242 not on rfc4231's (empty) list: EACCES",
              as_uid(4242, "rfc4231") == str(errno.EACCES))
        p = algctl("key", "add", "x", "--from-file", "/dev/null", user=4242)
        p = subprocess.run([ALGCTL, "--socket", SOCK, "key", "del", "rfc3602"], capture_output=True,
                           preexec_fn=lambda: (os.setgroups([]), os.setgid(4242), os.setuid(4242)))
        check("uid 4242 (not root, not algd's) cannot delete: EPERM",
              p.returncode == 1 and b"EPERM" in p.stderr, p.stderr)
    else:
        skip("other uids (needs root)")
    # libualg: ualg_ring_setkey_named() and RFC 4231 case 2 through a ring
    lib = ctypes.CDLL(LIBUALG)
    ring = ctypes.create_string_buffer(4096)
    rc = lib.ualg_ring_init_at(ring, 8, 65536, SOCK.encode())
    t = lib.ualg_ring_open_tfm(ring, b"hash", b"hmac(sha256)", None) if rc == 0 else -1
    named = lib.ualg_ring_setkey_named(ring, t, b"rfc4231") if t >= 0 else -1
    out = ctypes.create_string_buffer(32)
    n = lib.ualg_hash_oneshot(ring, t, HM, len(HM), out, 32) if named == 0 else -1
    check("libualg ualg_ring_setkey_named: RFC 4231 case 2", n == 32 and out.raw == HD,
          f"init {rc} open {t} setkey {named} hash {n}")
    check("libualg: unknown name ENOKEY", lib.ualg_ring_setkey_named(ring, t, b"nope") == -errno.ENOKEY)
    lib.ualg_ring_exit(ring)
    try:
        check("while stored, the key is in algd's memory (proves the scan finds it)",
              scan(proc.pid, K) > 0)
    except OSError as e:
        skip(f"memory scan ({e.strerror})")
    p = algctl("key", "del", "rfc3602")
    check("key del", p.returncode == 0, p.stderr)
    check("deleted: ENOKEY", by_name(tfm("skcipher", "cbc(aes)"), b"rfc3602") == errno.ENOKEY)
    # Memory scan (as faults.py): once deleted and every socket keyed with
    # it closed, no copy of the key is left in algd: scanned until none
    # is, for 20 s at most, as algd sees the closes after they return.
    import gc
    s = x = op = h = None
    k2 = None
    gc.collect()
    try:
        wait_for(lambda: scan(proc.pid, K) == 0)
        hits = scan(proc.pid, K)
        check("after key del and close, the key is nowhere in algd's memory", hits == 0, f"{hits}")
    except OSError as e:
        skip(f"memory scan ({e.strerror})")
finally:
    proc.terminate()
    proc.wait()
    subprocess.run(["rm", "-rf", TMP])
finish()
