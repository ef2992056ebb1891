#!/usr/bin/env python3
"""algd shared by several users, against a client that speaks the frame
protocol directly (src/proto/proto.h) where the shim would not: identity
through op sockets and rings, algd's own uid, descriptors attached to
requests, key bytes left in the receive buffer, the socket path a client
trusts, the errno of a client whose algd died, and --alg-allow on DRBGs.
Runs its own algd (as root: --user nobody, as deployed).
Prints TAP lines and 'N passed, N failed'."""
import errno, os, signal, socket, struct, subprocess, sys, tempfile, time
from common import check, skip, finish, scan, wait_for
from common import HDR, HELLO, BIND, SETSOCKOPT, ACCEPT, SEND, RECV, frame, call, bind, op_socket, as_uid
from common import connect as proto_connect

ALGD, ALGCTL, RUN = sys.argv[1], sys.argv[2], sys.argv[3]
SHIM = os.path.join(os.path.dirname(os.path.abspath(RUN)), "..", "shim", "libualg-preload.so")
ROOT = os.geteuid() == 0
NOBODY = 65534
ATTACKER, VICTIM = 4242, 4243
TMP = tempfile.mkdtemp(prefix="ualg-attack.")
os.chmod(TMP, 0o711)
SOCK = os.path.join(TMP, "d", "algd.sock")

KEY_ADD, KEY_DEL = 48, 49
RING_SETUP, RING_OPEN, RING_SETKEY_NAMED = 80, 81, 85
BY_NAME = 0x7501


def connect(path=SOCK):
    return proto_connect(path)


def by_name(s, key):
    return call(s, SETSOCKOPT, struct.pack("=iiIIII", 279, BY_NAME, len(key), 0, len(key), 0) + key)[0]


def ring_named(s, typ, alg, key):
    """RING_SETUP, RING_OPEN alg, RING_SETKEY_NAMED key on connection s."""
    s.send(frame(RING_SETUP, struct.pack("=IIQ", 8, 0, 65536)))
    for _ in range(3):
        msg, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(4))
        for lvl, t, d in anc:
            os.close(struct.unpack("=i", d[:4])[0])
        if HDR.unpack(msg[:HDR.size])[3] < 0:
            return ("setup", HDR.unpack(msg[:HDR.size])[3])
    n = alg.encode() + b"\0"
    tid = call(s, RING_OPEN, typ.encode().ljust(14, b"\0") + struct.pack("=HI", 0, len(n)) + n)[0]
    if tid < 0:
        return ("open", tid)
    return call(s, RING_SETKEY_NAMED, struct.pack("=II", tid, len(key)) + key)[0]


def algctl(*args):
    return subprocess.run([ALGCTL, "--socket", SOCK] + list(args), capture_output=True,
                          env=dict(os.environ, LD_PRELOAD=""))




# ---- the tests -----------------------------------------------------------

def test_op_socket_identity():
    """Finding: an op socket is a socketpair algd made, so its SO_PEERCRED
    is algd's own uid; a ring on it must still act as the client."""
    def attack(key):
        tfm = connect()
        if bind(tfm, "hash", "hmac(sha384)"):
            return "bind"
        return ring_named(op_socket(tfm), "hash", "hmac(sha384)", key)
    check("root's own ring on an op socket may use root's key (the path works)",
          attack(b"rootkey") == 0)
    r = as_uid(ATTACKER, attack, b"rootkey")
    check("another user's ring on an op socket cannot use root's key (no allow list): EACCES",
          r == -errno.EACCES, r)
    r = as_uid(ATTACKER, attack, b"victimkey")
    check("... nor the victim's key (allow list: the victim)", r == -errno.EACCES, r)
    r = as_uid(VICTIM, attack, b"victimkey")
    check("the victim's ring on an op socket uses its own key", r == 0, r)

    def tfm_by_name(key):
        tfm = connect()
        bind(tfm, "hash", "hmac(sha384)")
        op = op_socket(tfm)
        r = by_name(tfm, key)
        op.close()
        return r
    r = as_uid(ATTACKER, tfm_by_name, b"rootkey")
    check("UALG_SET_KEY_BY_NAME by another user: EACCES", r == -errno.EACCES, r)


def test_alg_rules_through_op_socket():
    """--alg-allow aes=uid:VICTIM: a ring on an op socket is the client's."""
    def attack():
        tfm = connect()
        if bind(tfm, "hash", "sha1"):
            return "bind"
        op = op_socket(tfm)
        op.send(frame(RING_SETUP, struct.pack("=IIQ", 8, 0, 65536)))
        for _ in range(3):
            msg, anc, _, _ = op.recvmsg(4096, socket.CMSG_SPACE(4))
            for lvl, t, d in anc:
                os.close(struct.unpack("=i", d[:4])[0])
        n = b"cbc(aes)\0"
        return call(op, RING_OPEN, b"skcipher".ljust(14, b"\0") + struct.pack("=HI", 0, len(n)) + n)[0]
    r = as_uid(ATTACKER, attack)
    check("--alg-allow aes: a ring on an op socket of another user cannot open cbc(aes): EACCES",
          r == -errno.EACCES, r)
    r = as_uid(VICTIM, attack)
    check("... the allowed user's can", isinstance(r, int) and r >= 0, r)


def test_algd_uid():
    """Finding: sharing the uid algd dropped to (nobody) gave key use and
    key administration."""
    def use():
        tfm = connect()
        bind(tfm, "hash", "hmac(sha384)")
        return by_name(tfm, b"rootkey")

    def delete():
        s = connect()
        return call(s, KEY_DEL, struct.pack("=II", 7, 0) + b"rootkey")[0]

    def add():
        s = connect()
        return call(s, KEY_ADD, struct.pack("=IIII", 3, 0, 4, 0) + b"xyz" + b"1234")[0]
    r = as_uid(NOBODY, use)
    check("algd's uid (nobody) may not use a key with an empty allow list: EACCES",
          r == -errno.EACCES, r)
    r = as_uid(NOBODY, delete)
    check("algd's uid may not delete root's key: EPERM", r == -errno.EPERM, r)
    r = as_uid(NOBODY, add)
    check("algd's uid may not add keys: EPERM", r == -errno.EPERM, r)
    lst = algctl("key", "list")
    check("root's key is still there", b"rootkey" in lst.stdout, lst.stdout + lst.stderr)


def lingering_socket(secs):
    """A loopback TCP connection whose client end has unsent data and
    SO_LINGER {1, secs}: its last close sleeps that long.  (listener,
    client, peer); the peer reads nothing."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    cli = socket.socket()
    cli.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    cli.connect(srv.getsockname())
    peer, _ = srv.accept()
    peer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    cli.setblocking(False)
    try:
        while True:
            cli.send(b"x" * 65536)
    except BlockingIOError:
        pass
    cli.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, secs))
    return srv, cli, peer


def test_attached_fds(pid):
    """Finding: a frame with a socket attached whose close lingers froze the
    event loop for the linger time."""
    srv, cli, peer = lingering_socket(3)
    base = len(os.listdir(f"/proc/{pid}/fd"))
    s = connect()
    n = b"sha256\0"
    body = b"hash".ljust(14, b"\0") + struct.pack("=HIII", 0, 0, 0, len(n)) + n
    # algd stopped meanwhile, so that its close is the socket's last
    os.kill(pid, signal.SIGSTOP)
    s.sendmsg([frame(BIND, body)],
              [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", cli.fileno()))])
    cli.close()
    os.kill(pid, signal.SIGCONT)
    t0 = time.monotonic()
    other = connect()
    r = bind(other, "hash", "sha256")
    dt = time.monotonic() - t0
    check(f"another client is served at once after a lingering socket was attached ({dt:.2f} s)",
          r == 0 and dt < 1.0)
    try:
        m = s.recv(64)
        closed = not m or HDR.unpack(m[:HDR.size])[3] < 0 and not s.recv(64)
    except (ConnectionResetError, socket.timeout):
        closed = True
    check("a request carrying a descriptor ends that client (a bind that would succeed)", closed)
    # With both clients gone, algd holds what it held before: the
    # attached descriptor too is closed (its close lingers 3 s).
    other.close()
    gone = wait_for(lambda: len(os.listdir(f"/proc/{pid}/fd")) <= base)
    check("... and the descriptor is closed in algd", gone,
          f"{base} -> {len(os.listdir(f'/proc/{pid}/fd'))} descriptors")
    peer.close()
    srv.close()


def test_attached_fds_flood(pid):
    """Finding: a socket whose close lingers for two minutes stopped algd's
    closing of attached descriptors; the next 16384 waited, and the rest
    were left open for good (alice's accept got EMFILE)."""
    idle = len(os.listdir(f"/proc/{pid}/fd"))
    srv, cli, peer = lingering_socket(120)
    s = connect()
    # algd stopped meanwhile, so that its close is the socket's last
    os.kill(pid, signal.SIGSTOP)
    try:
        s.sendmsg([frame(BIND, b"")], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", cli.fileno()))])
        cli.close()
    finally:
        os.kill(pid, signal.SIGCONT)
    s.close()
    r, w = os.pipe()
    many = struct.pack("253i", *([r] * 253))
    for _ in range(80):
        s = connect()
        s.sendmsg([frame(BIND, b"")], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, many)])
        try:
            s.recv(64)
        except (ConnectionResetError, socket.timeout):
            pass
        s.close()
    os.close(r)
    os.close(w)
    for _ in range(100):
        now = len(os.listdir(f"/proc/{pid}/fd"))
        if now <= idle:
            break
        time.sleep(0.05)
    check(f"after 80 x 253 descriptors and a lingering socket algd holds its idle count ({idle} -> {now})",
          now <= idle)
    other = connect()
    ok = bind(other, "hash", "sha256") == 0
    op = op_socket(other) if ok else None
    check("... and another client binds and accepts", op is not None)
    for x in (op, other, peer, srv):
        if x:
            x.close()


def test_rxbuf_wiped(pid):
    """Finding: key bytes of a malformed frame stayed in algd's receive
    buffer."""
    k1, k2 = os.urandom(32), os.urandom(32)
    pad = b"\0" * 400	# the key beyond what the next small frames overwrite
    s = connect()
    bind(s, "skcipher", "cbc(aes)")
    # vallen says 31 but more follows: dispatch refuses the frame
    s.send(frame(SETSOCKOPT, struct.pack("=iiIIII", 279, 1, 32, 0, 31, 0) + pad + k1))
    s.settimeout(5)
    try:
        while s.recv(64):
            pass
    except OSError:
        pass
    s2 = connect()
    bind(s2, "skcipher", "cbc(aes)")
    body = struct.pack("=iiIIII", 279, 1, 232, 0, 232, 0) + pad[:200] + k2  # k2 ends before k1
    s2.send(HDR.pack(HDR.size + len(body) + 1, SETSOCKOPT, 0, 0, 0) + body)  # len off by one
    try:
        while s2.recv(64):
            pass
    except OSError:
        pass
    try:
        wait_for(lambda: scan(pid, k1) + scan(pid, k2) == 0, timeout=5)
        h1, h2 = scan(pid, k1), scan(pid, k2)
    except OSError as e:
        skip(f"memory scan ({e.strerror})")
        return
    check("a refused request's key is wiped from algd's receive buffer", h1 == 0, f"{h1} copies")
    check("a malformed frame's key is wiped from algd's receive buffer", h2 == 0, f"{h2} copies")


def test_hijack():
    """Finding: a client trusted /tmp/ualg-UID made by another user."""
    shared = os.path.join(TMP, "tmp")
    os.mkdir(shared)
    os.chmod(shared, 0o1777)
    d = os.path.join(shared, f"ualg-{VICTIM}")
    seen = os.path.join(TMP, "seen")
    open(seen, "wb").close()
    os.chmod(seen, 0o666)
    r, w = os.pipe()
    fpid = os.fork()
    if fpid == 0:	# the attacker's fake algd, recording what comes
        try:
            os.close(r)
            os.setgroups([])
            os.setgid(ATTACKER)
            os.setuid(ATTACKER)
            os.mkdir(d, 0o755)
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            s.bind(os.path.join(d, "algd.sock"))
            os.chmod(os.path.join(d, "algd.sock"), 0o777)
            s.listen(8)
            os.write(w, b"1")
            os.close(w)
            while True:
                c, _ = s.accept()
                c.settimeout(3)
                with open(seen, "ab") as f:
                    f.write(c.recv(4096))
                c.close()
        finally:
            os._exit(0)
    os.close(w)
    os.read(r, 1)
    os.close(r)
    env = dict(os.environ, LD_PRELOAD="", UALG_SOCKET=os.path.join(d, "algd.sock"))
    code = ("import socket\ntry:\n s=socket.socket(socket.AF_ALG,socket.SOCK_SEQPACKET,0)\n"
            " s.bind(('skcipher','cbc(aes)')); print('bound')\nexcept OSError as e: print(e.errno)\n")

    def victim(argv):
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=20,
                              preexec_fn=lambda: (os.setgroups([]), os.setgid(VICTIM),
                                                  os.setuid(VICTIM)))
    try:
        p = victim([ALGCTL, "key", "list"])
        check("algctl refuses an algd socket in a directory another user made in a shared /tmp",
              p.returncode != 0 and "refusing" in p.stderr, p.stderr)
        p = victim(["env", "LD_PRELOAD=" + SHIM, "python3", "-c", code])
        check("a program under the shim is refused (EACCES) and never reaches that socket",
              p.stdout.strip() == str(errno.EACCES) and "refusing" in p.stderr, p.stdout + p.stderr)
        time.sleep(0.3)
        got = open(seen, "rb").read()
        check("the planted daemon received nothing", got == b"", got[:32])
    finally:
        os.kill(fpid, signal.SIGKILL)
        os.waitpid(fpid, 0)


def test_errno_when_algd_dies(proc):
    """Finding: the shim reported EPROTO, not ECONNRESET, when algd died
    with its request unread."""
    code = ("import socket,sys,errno\ns=socket.socket(socket.AF_ALG,socket.SOCK_SEQPACKET,0)\n"
            "s.bind(('hash','sha256'))\nop,_=s.accept()\nprint('ready',flush=True)\n"
            "sys.stdin.readline()\ntry:\n op.send(b'abc'); op.recv(32); print('none')\n"
            "except OSError as e: print(errno.errorcode.get(e.errno,e.errno))\n")
    # On algd's engine: an op socket the program serves itself does not
    # need algd once accepted (docs/engines.md).
    c = subprocess.Popen([RUN, "python3", "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True, env=dict(os.environ, LD_PRELOAD="", UALG_SOCKET=SOCK, UALG_ENGINE="algd"))
    ready = c.stdout.readline().strip()
    os.kill(proc.pid, signal.SIGSTOP)
    c.stdin.write("\n")
    c.stdin.flush()
    time.sleep(0.5)
    os.kill(proc.pid, signal.SIGKILL)
    out = c.stdout.readline().strip()
    c.wait(timeout=20)
    check("algd killed with the request unread: ECONNRESET or EPIPE, not EPROTO",
          ready == "ready" and out in ("ECONNRESET", "EPIPE"), f"{ready} {out}")


def test_instances():
    """Finding: template instances one user built stayed registered after
    it left, without bound."""
    names = [f"authenc(hmac({h}),{m}({c}))" for h in ["sha1", "sha224", "sha384", "md5", "sm3", "rmd160"]
             for m in ["cbc", "ctr", "ecb"]
             for c in ["des3_ede", "sm4", "camellia", "serpent", "twofish", "blowfish", "cast5", "des"]]

    def registry():
        p = algctl("list")
        return sum(l.startswith(b"driver") for l in p.stdout.splitlines()) if p.returncode == 0 else -1

    def build(names):
        bound = 0
        for n in names:
            s = connect()
            bound += bind(s, "aead", n) == 0
            s.close()
        return bound
    before = registry()
    bound = as_uid(ATTACKER, build, names)
    wait_for(lambda: registry() == before)	# algd sees its last close
    after = registry()
    check(f"another user bound {len(names)} distinct template instances", bound == len(names), bound)
    check(f"once it left, none it built is left in the registry ({before} -> {after} entries)",
          after == before)
    # while it stays, what it keeps is capped (128 per uid, server.h)
    def build_and_count(names):
        held = connect()
        for n in names:
            s = connect()
            bind(s, "aead", n)
            s.close()
        return "done"
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([]); os.setgid(ATTACKER); os.setuid(ATTACKER)
            held = connect()
            build_and_count(names)
            os.write(w, b"1")
            time.sleep(30)
        finally:
            os._exit(0)
    os.close(w)
    os.read(r, 1)
    during = registry()
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    check(f"while it stays, what it keeps is capped at 128 instances ({before} -> {during})",
          0 < during - before <= 128)
    check("... and reclaimed once it is gone", wait_for(lambda: registry() == before),
          f"{before} -> {registry()} entries")

    def hold_all(names):
        held, errs = [], set()
        for n in names:
            s = connect()
            r = bind(s, "aead", n)
            held.append(s)
            if r:
                errs.add(r)
        return errs
    r = as_uid(ATTACKER, hold_all, names)
    check("holding all of them in use, it cannot build past 128: ENOMEM", r == {-errno.ENOMEM}, r)
    check("... and what it built is gone with it", wait_for(lambda: registry() == before),
          f"{before} -> {registry()} entries")


def test_drbg_rules():
    """--alg-allow aes / hmac(sha256) / hmac(sha512) cover the DRBGs built
    on them, and stdrng resolving to one (drbg_nopr_hmac_sha512)."""
    def try_bind(name):
        s = connect()
        return bind(s, "rng", name)
    for name in ["drbg_nopr_ctr_aes128", "drbg_pr_ctr_aes256", "drbg_pr_hmac_sha256",
                 "drbg_nopr_hmac_sha256", "stdrng"]:
        r = as_uid(ATTACKER, try_bind, name)
        check(f"--alg-allow aes,hmac(sha256),hmac(sha512): another user binding rng {name}: EACCES",
              r == -errno.EACCES, r)
    r = as_uid(ATTACKER, try_bind, "drbg_nopr_sha256")
    check("... a DRBG built on neither (drbg_nopr_sha256) stays allowed", r == 0, r)
    r = as_uid(VICTIM, try_bind, "drbg_nopr_ctr_aes128")
    check("... the allowed user binds drbg_nopr_ctr_aes128", r == 0, r)


if not ROOT:
    skip("algd shared by several users (needs root)")
    print("0 passed, 0 failed")
    sys.exit(0)

rp, wp = os.pipe()
proc = subprocess.Popen([ALGD, "--socket", SOCK, "--ready-fd", str(wp), "--user", "nobody",
                         "--allow", f"uid:{ATTACKER},uid:{VICTIM},uid:{NOBODY}",
                         "--alg-allow", f"aes=uid:{VICTIM}",
                         "--alg-allow", f"hmac(sha256)=uid:{VICTIM}",
                         "--alg-allow", f"hmac(sha512)=uid:{VICTIM}"],
                        pass_fds=[wp], env=dict(os.environ, LD_PRELOAD=""),
                        stderr=open(os.path.join(TMP, "algd.log"), "wb"))
os.close(wp)
assert os.read(rp, 1) == b"1"
try:
    kf = os.path.join(TMP, "k")
    with open(kf, "wb") as f:
        f.write(os.urandom(64))
    p = algctl("key", "add", "rootkey", "--from-file", kf)
    check("root adds a key with no allow list", p.returncode == 0, p.stderr)
    p = algctl("key", "add", "victimkey", "--from-file", kf, "--allow", f"uid:{VICTIM}")
    check("root adds a key for the victim", p.returncode == 0, p.stderr)
    tests = [test_op_socket_identity, test_alg_rules_through_op_socket, test_algd_uid,
             lambda: test_attached_fds(proc.pid), lambda: test_attached_fds_flood(proc.pid),
             lambda: test_rxbuf_wiped(proc.pid),
             test_hijack, test_instances, test_drbg_rules, lambda: test_errno_when_algd_dies(proc)]
    for t in tests:
        alive = proc.poll() is None
        try:
            t()
        except Exception as e:
            check(f"{getattr(t, '__name__', 'test')} ran to the end", False, repr(e))
        if alive and proc.poll() is not None and t is not tests[-1]:
            # Why it went, for whoever reads the log.
            print(f"# algd exited ({proc.returncode}) during {getattr(t, '__name__', 'a test')}:")
            with open(os.path.join(TMP, "algd.log"), errors="replace") as f:
                for line in f.read().splitlines()[-20:]:
                    print("#   " + line)
finally:
    if proc.poll() is None:
        proc.terminate()
    proc.wait()
    subprocess.run(["rm", "-rf", TMP])
finish()
