#!/usr/bin/env python3
"""algd as a security boundary, under faults and hostile clients.

Runs under ualg-run (AF_ALG goes to algd through the shim) and starts its
own algd instances, which it kills and restarts.  Checks confinement
(seccomp, privileges, socket permissions, the SO_PEERCRED policy), that a
client killed mid-operation leaves nothing behind, that clients of a
killed algd get an errno instead of hanging, 1000 op sockets across 50
processes, a client that never reads, and that no key stays in algd's
memory once its socket is closed.  Prints TAP lines and 'N passed, N failed'.

Expected values come from Python's hashlib/hmac, never from algd.  Waits
are bounded but generous: nothing depends on timing."""
import errno
import hashlib
import hmac
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ualgtest import check, finish, skip, wait_for  # noqa: E402

ALGD = sys.argv[1]
TMP = tempfile.mkdtemp(prefix="ualg-faults.")
os.chmod(TMP, 0o711)    # clients of other uids (test_policy) pass through
ROOT = os.geteuid() == 0
EXTRA = os.environ.get("UALG_ALGD_OPTS", "").split()


class Algd:
    def __init__(self, name, *opts, user=True):
        self.path = os.path.join(TMP, name, "algd.sock")
        self.opts = list(opts) + EXTRA + (["--user", "nobody"] if ROOT and user else [])
        self.start()

    def start(self):
        r, w = os.pipe()
        self.log = open(os.path.join(TMP, os.path.basename(os.path.dirname(self.path)) + ".log"), "a")
        self.proc = subprocess.Popen(
            [ALGD, "--socket", self.path, "--ready-fd", str(w)] + self.opts,
            pass_fds=[w], stderr=self.log, env=dict(os.environ, LD_PRELOAD=""))
        os.close(w)
        ready = os.read(r, 1)
        os.close(r)
        assert ready == b"1", "algd did not start"
        self.pid = self.proc.pid

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait()

    def fds(self):
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def fd_kinds(self):
        """What algd's descriptors are, counted by kind, for failure details."""
        kinds = {}
        for fd in os.listdir(f"/proc/{self.pid}/fd"):
            try:
                k = os.readlink(f"/proc/{self.pid}/fd/{fd}").split(":")[0]
            except OSError:
                continue
            kinds[k] = kinds.get(k, 0) + 1
        return kinds

    def status(self, field):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return line.split(":", 1)[1].split()
        return []

    def rss_kib(self):
        return int(self.status("VmRSS")[0])

    def env(self):
        return dict(os.environ, UALG_SOCKET=self.path)


def client(algd, code, *args, user=None, env=None):
    """A Python client process under the shim (inherited LD_PRELOAD), with
    env's variables added."""
    pre = (lambda: (os.setgroups([]), os.setgid(user), os.setuid(user))) if user else None
    # Another uid may not reach this interpreter (e.g. under /root).
    python = "/usr/bin/python3" if user and os.path.exists("/usr/bin/python3") else sys.executable
    return subprocess.Popen([python, "-c", CLIENT_LIB + code] + [str(a) for a in args],
                            env=dict(algd.env(), **(env or {})), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, preexec_fn=pre)


CLIENT_LIB = r'''
import hashlib, hmac, os, socket, sys
def tfm(typ, name, key=None):
    s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)
    s.bind((typ, name))
    if key is not None:
        s.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, key)
    return s
def say(*a):
    print(*a, flush=True)
'''


# ---- confinement -------------------------------------------------------

def test_confinement(algd):
    seccomp = algd.status("Seccomp")
    if "--no-seccomp" in EXTRA:
        skip("seccomp filter (--no-seccomp)")
    else:
        check("algd runs under a seccomp filter (Seccomp: 2, NoNewPrivs: 1)",
              seccomp == ["2"] and algd.status("NoNewPrivs") == ["1"], f"{seccomp}")
    if ROOT:
        nobody = int(subprocess.run(["id", "-u", "nobody"], capture_output=True,
                                    text=True).stdout)
        uids = [int(u) for u in algd.status("Uid")]
        gids = algd.status("Groups")
        check("started as root, algd runs as nobody with no groups",
              uids == [nobody] * 4 and gids == [], f"uids {uids} groups {gids}")
    with open(f"/proc/{algd.pid}/limits") as f:
        core = [l for l in f if l.startswith("Max core file size")]
    check("algd can write no core file (RLIMIT_CORE 0)", core and core[0].split()[4] == "0")
    d = os.stat(os.path.dirname(algd.path)).st_mode & 0o777
    s = os.stat(algd.path).st_mode & 0o777
    check(f"socket dir 0700, socket 0600 (got {d:o}, {s:o})", d == 0o700 and s == 0o600)


def test_bad_allow_lists():
    for spec in ["uid:12x", "uid:", "uid:-1", "uid:4294967295", "uid:01", "gid:no_such_group_x",
                 "pid:1", "uid:1,", ",uid:1", "uid:1 ", "uid:A"]:
        p = subprocess.run([ALGD, "--socket", os.path.join(TMP, "never", "s"), "--allow", spec],
                           capture_output=True)
        check(f"--allow {spec!r} is refused at start-up", p.returncode == 2, f"rc {p.returncode}")


PEER_CLIENT = r'''
try:
    s = tfm("hash", "sha256")
except OSError as e:
    say("errno", e.errno); sys.exit(0)
op, _ = s.accept(); op.sendall(b"abc")
say("digest", op.recv(64).hex())
'''


def test_policy():
    if not ROOT:
        skip("SO_PEERCRED policy (needs root to run clients as other uids)")
        return
    algd = Algd("policy", "--allow", "uid:4242,gid:4343")
    d = os.stat(os.path.dirname(algd.path)).st_mode & 0o777
    s = os.stat(algd.path).st_mode & 0o777
    check(f"with an --allow list: dir 0711, socket 0666 (got {d:o}, {s:o})",
          d == 0o711 and s == 0o666)
    want = "digest " + hashlib.sha256(b"abc").hexdigest()
    for uid, expect in [(4242, want), (4343, want), (4244, "errno 13")]:
        out = client(algd, PEER_CLIENT, user=uid).communicate(timeout=30)[0].strip()
        # gid 4343 is uid 4343's group (setgid(user) above)
        check(f"uid {uid}: {expect.split()[0]} as the policy says", out == expect, out)
    algd.stop()


# ---- per-algorithm rules (--alg-allow) --------------------------------

ALG_RULE_CLIENT = r'''
import ctypes, errno
for typ, name in [("skcipher", "cbc(aes)"), ("skcipher", "cbc-aes-openssl"), ("aead", "gcm(aes)"),
                  ("skcipher", "xts(ecb(aes-openssl))"), ("hash", "hmac(sha256)"),
                  ("hash", "hmac-sha256-openssl"), ("hash", "sha256"), ("skcipher", "cbc(des3_ede)")]:
    try:
        tfm(typ, name)
        say(name, 0)
    except OSError as e:
        say(name, e.errno)
lib = ctypes.CDLL(sys.argv[1])
ring = ctypes.create_string_buffer(4096)
rc = lib.ualg_ring_init_at(ring, 8, 65536, os.environ["UALG_SOCKET"].encode())
say("ring", rc if rc else lib.ualg_ring_open_tfm(ring, b"aead", b"gcm(aes)", None))
'''


SWITCH_CLIENT = r'''
def one_shot():
    s = tfm("skcipher", "cbc(aes)", b"k" * 16)
    try:
        op, _ = s.accept()
        op.sendmsg_afalg([b"x" * 16], op=socket.ALG_OP_ENCRYPT, iv=b"\0" * 16)
        op.recv(16)
        op.close()
    finally:
        s.close()
def become(uid):
    os.seteuid(0)
    os.setgroups([])
    os.setresgid(uid, uid, 0)
    os.setresuid(uid, uid, 0)
def use():
    try:
        one_shot()
        say(0)
    except OSError as e:
        say(e.errno)
become(4242)
for _ in range(3):
    use()
become(4243)
use()
'''


def test_alg_policy():
    for spec in ["aes", "=uid:1", "aes=", "a b=uid:1", "aes=uid:x", "x" * 128 + "=uid:1"]:
        p = subprocess.run([ALGD, "--socket", os.path.join(TMP, "never", "s"), "--alg-allow", spec],
                           capture_output=True)
        check(f"--alg-allow {spec[:20]!r} is refused at start-up", p.returncode == 2,
              f"rc {p.returncode}")
    if not ROOT:
        skip("--alg-allow (needs root to run clients as other uids)")
        return
    algd = Algd("algpolicy", "--allow", "uid:4242,uid:4243", "--alg-allow", "aes=uid:4242",
                "--alg-allow", "hmac(sha256)=uid:4243")
    libualg = os.path.join(os.path.dirname(os.path.dirname(ALGD)), "lib", "libualg.so")
    A = errno.EACCES
    # A rule on aes covers what is built on it, whole-mode drivers included;
    # a rule on hmac(sha256) covers its driver; sha256 and des3 are open.
    want = {4242: [0, 0, 0, 0, A, A, 0, 0], 4243: [A, A, A, A, 0, 0, 0, 0]}
    for uid in (4242, 4243):
        out = client(algd, ALG_RULE_CLIENT, libualg, user=uid).communicate(timeout=60)[0].split("\n")
        got = [int(line.split()[-1]) for line in out[:8] if line.split()]
        check(f"uid {uid}: binds as the rules say (errnos {got})", got == want[uid], out)
        ring = out[8].split()[-1] if len(out) > 8 and out[8] else "?"
        # ualg_ring_open_tfm answers -errno, or the transform's id (>= 0).
        ok = (int(ring) >= 0) if uid == 4242 else (ring == str(-A))
        check(f"uid {uid}: the native ring's open of gcm(aes) as the rules say ({ring})", ok)
    # A connection the shim keeps for its next op socket is its opener's:
    # once the process is another uid, a new op socket is not made on it.
    out = client(algd, SWITCH_CLIENT, env={"UALG_ENGINE": "algd"}).communicate(timeout=60)[0]
    check("a process that was uid 4242 and is now 4243: cbc(aes) one-shot use allowed, then "
          f"refused ({out.split()})", out.split() == ["0", "0", "0", str(A)], out)
    algd.stop()


# ---- clients killed mid-operation --------------------------------------

MID_OP_CLIENT = r'''
key = bytes(range(32))
sk = tfm("skcipher", "cbc(aes)", key)
op, _ = sk.accept()
op.sendmsg_afalg([b"x" * 4000], op=socket.ALG_OP_ENCRYPT, iv=b"\0" * 16, flags=socket.MSG_MORE)
h = tfm("hash", "hmac(sha256)", key)
hop, _ = h.accept()
hop.send(b"partial", socket.MSG_MORE)
extra = [sk.accept()[0] for _ in range(5)]
say("ready")
sys.stdin.readline()
'''


def test_sigkill_clients(algd):
    base = algd.fds()
    rss = []
    for round_ in range(4):
        procs = [client(algd, MID_OP_CLIENT) for _ in range(10)]
        ready = all(p.stdout.readline().strip() == "ready" for p in procs)
        # algd may hold a short-lived descriptor of its own at any instant
        # (ASan opens /proc files, a connection is mid-accept): wait until
        # the count settles on what the clients hold, and report what it was.
        wait_for(lambda: algd.fds() - base == 10 * 9, timeout=5)
        held = algd.fds()
        kinds = algd.fd_kinds()
        for p in procs:
            p.kill()
            p.wait()
        back = wait_for(lambda: algd.fds() == base)
        if round_ == 0:
            check(f"10 clients mid-operation held {held - base} sockets in algd", ready and
                  held - base == 10 * 9, f"ready {ready}, {kinds}")
            check("SIGKILLed clients: algd closes every socket (fd count back to baseline)",
                  back, f"{algd.fds()} fds, baseline {base}")
        rss.append(algd.rss_kib())
    # Rounds 2-4 reuse what round 1 freed: no growth beyond allocator noise.
    check(f"memory does not grow over kill rounds (VmRSS KiB {rss})",
          max(rss[1:]) <= rss[0] + 1024)
    check("algd alive after the killed clients", algd.proc.poll() is None)


# ---- algd killed and restarted -----------------------------------------

RESTART_CLIENT = r'''
import errno, select
def one_shot():
    t = tfm("hash", "sha256")
    o, _ = t.accept()
    o.sendall(b"abc")
    d = o.recv(64)
    o.close()
    t.close()
    return d
for _ in range(3):              # connections the shim keeps (UALG_ENGINE=algd)
    one_shot()
h = tfm("hash", "sha256")
op, _ = h.accept()
say("ready")
sys.stdin.readline()            # algd has been killed meanwhile
for what, call in [("send", lambda: op.send(b"abc")), ("recv", lambda: op.recv(64)),
                   ("accept", lambda: h.accept()),
                   ("setkey", lambda: h.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, b"k"))]:
    try:
        r = call()
        say(what, "returned", r if not isinstance(r, tuple) else "a socket")
    except OSError as e:
        say(what, "errno", errno.errorcode.get(e.errno, e.errno))
sys.stdin.readline()            # algd has been restarted
say("new", one_shot().hex())
'''

# Only uses before algd is killed, and one after it is back: the first
# new socket meets the connection the shim kept (UALG_ENGINE=algd), dead.
RESTART_KEPT_CLIENT = RESTART_CLIENT.split("h = tfm(")[0] + r'''
say("ready")
sys.stdin.readline()            # algd has been killed and restarted
say("new", one_shot().hex())
'''


def test_restart(algd, engine=None):
    env = {"UALG_ENGINE": engine} if engine else None
    procs = [client(algd, RESTART_CLIENT, env=env) for _ in range(3)]
    kept = client(algd, RESTART_KEPT_CLIENT, env=env)
    ready = all(p.stdout.readline().strip() == "ready" for p in procs + [kept])
    algd.kill()
    outs = []
    for p in procs:
        p.stdin.write("\n")
        p.stdin.flush()
    for p in procs:
        lines = [p.stdout.readline().strip() for _ in range(4)]
        outs.append(lines)
    algd.start()
    for p in procs + [kept]:
        p.stdin.write("\n")
        p.stdin.flush()
    finals = []
    for p in procs + [kept]:
        try:
            finals.append(p.communicate(timeout=30)[0].strip())
        except subprocess.TimeoutExpired:
            p.kill()
            finals.append("hang")
    clean = {"EPIPE", "ECONNRESET", "ENOTCONN", "EBADF"}
    # An op socket the program serves itself (the in-process engine)
    # needs algd no more: it hashes on, and its transform socket, kept in
    # the program since the uses before it, accepts more.  A key on that
    # transform socket (in the program under both engines) is EBUSY
    # first, as in the kernel, while the op socket lives.
    served = {"send returned 3", "recv returned %r" % hashlib.sha256(b"abc").digest()}
    engine = engine or os.environ.get("UALG_ENGINE", "auto")
    inproc = engine != "algd"
    ok = ready and all(len(lines) == 4 and all(
        (l.split()[1] == "errno" and l.split()[2] in clean) or l == "recv returned b''" or
        (inproc and i < 2 and l in served) or (inproc and i == 2 and l == "accept returned a socket") or
        (i == 3 and l == "setkey errno EBUSY")
        for i, l in enumerate(lines)) for lines in outs)
    check(f"engine {engine}: after algd is killed, held sockets fail with EPIPE/ECONNRESET or EOF "
          "(in-process op sockets work on), no hang", ok, repr(outs[0]))
    want = "new " + hashlib.sha256(b"abc").hexdigest()
    check(f"engine {engine}: after algd restarts, new sockets in the same processes work (the "
          "connections kept from before it are given up)", all(f == want for f in finals), repr(finals))


# ---- many sockets ---------------------------------------------------------

MANY_CLIENT = r'''
i = int(sys.argv[1])
key = b"key-%d" % i
h = tfm("hash", "hmac(sha256)", key)
ops = [h.accept()[0] for _ in range(20)]
say("ready")
sys.stdin.readline()
bad = 0
for j, op in enumerate(ops):
    msg = b"message %d %d" % (i, j)
    op.sendall(msg)
    bad += op.recv(64) != hmac.new(key, msg, hashlib.sha256).digest()
say("done", bad)
'''


def test_many(algd):
    base = algd.fds()
    procs = [client(algd, MANY_CLIENT, i) for i in range(50)]
    ready = sum(p.stdout.readline().strip() == "ready" for p in procs)
    # An op socket's set-up may go ahead of its answer (src/shim/client.c):
    # a client may say ready before algd has accepted its last connections.
    wait_for(lambda: algd.fds() - base >= 1050, timeout=10)
    held = algd.fds() - base
    for p in procs:
        p.stdin.write("\n")
        p.stdin.flush()
    outs = [p.communicate(timeout=60)[0].strip() for p in procs]
    check(f"50 processes hold 1000 op + 50 transform sockets at once (algd holds {held})",
          ready == 50 and held >= 1050)
    check("each of the 1000 op sockets computes its own HMAC (hashlib reference)",
          outs == ["done 0"] * 50, repr([o for o in outs if o != "done 0"][:2]))
    check("all 1050 sockets released", wait_for(lambda: algd.fds() == base))


def test_limit():
    algd = Algd("limit", "--max-sockets", "8")
    code = r'''
import errno
h = tfm("hash", "sha256")
ops = []
try:
    for _ in range(10):
        ops.append(h.accept()[0])
except OSError as e:
    say(len(ops), errno.errorcode[e.errno])
try:
    more = [tfm("hash", "sha256") for _ in range(3)]
    more[0].accept()
    say("socket ok")
except OSError as e:
    say("socket", errno.errorcode[e.errno])
del ops[0]
# algd frees the slot once it sees the close: accept again while it does
# not, for 10 s at most.
import time
end = time.monotonic() + 10
while True:
    try:
        ops.append(h.accept()[0])
        break
    except OSError as e:
        if e.errno != errno.EMFILE or time.monotonic() > end:
            raise
        time.sleep(0.02)
ops[-1].sendall(b"abc"); say(ops[-1].recv(64).hex())
'''
    out = client(algd, code).communicate(timeout=30)[0].split("\n")
    # The limit is on what algd holds.  Under the in-process engine a new
    # transform socket of a name algd has already decided stays in the
    # program (src/shim/local.c), which algd does not count.  Under algd's
    # a new socket's greeting is sent ahead (src/shim/client.c): algd's
    # refusal is the answer of socket() or of the socket's next call.
    inproc = os.environ.get("UALG_ENGINE", "auto") != "algd"
    want = ["7 EMFILE", "socket ok" if inproc else "socket EMFILE", hashlib.sha256(b"abc").hexdigest()]
    check("--max-sockets 8: the 9th socket algd holds (accept or socket) fails with EMFILE, "
          "a freed one can be reused", out[:3] == want, repr(out))
    algd.stop()


# ---- a client that never reads -------------------------------------------

HDR = struct.Struct("=IHHiI")


def raw_frame(typ, body=b""):
    return HDR.pack(HDR.size + len(body), typ, 0, 0, 0) + body


def test_slow_reader(algd):
    slow = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    slow.connect(algd.path)
    slow.send(raw_frame(1, struct.pack("=IHH", 0x55414C47, 1, 1)))
    slow.setblocking(False)
    sent = 0
    try:
        for _ in range(100000):     # POLL requests whose replies are never read
            slow.send(raw_frame(7))
            sent += 1
    except (BlockingIOError, BrokenPipeError, ConnectionResetError):
        pass
    code = r'''
for i in range(200):
    h = tfm("hash", "sha256"); op, _ = h.accept(); op.sendall(b"%d" % i)
    if op.recv(64) != hashlib.sha256(b"%d" % i).digest(): say("bad"); sys.exit(1)
say("200 ok")
'''
    try:
        out = client(algd, code).communicate(timeout=60)[0].strip()
    except subprocess.TimeoutExpired:
        out = "timed out"
    check(f"a client that never reads ({sent} requests queued) does not stop another "
          "client's 200 operations", out == "200 ok", out)
    slow.setblocking(True)
    slow.settimeout(20)
    try:
        while slow.recv(64):
            pass
        dropped = True
    except OSError:
        dropped = True
    except socket.timeout:
        dropped = False
    check("algd dropped the client that never read instead of buffering for it", dropped)
    slow.close()


# ---- keys in algd's memory ------------------------------------------------

def scan(pid, needles):
    """Where each needle occurs in pid's memory: [(needle, mapping flags)]."""
    hits = []
    flags = {}
    with open(f"/proc/{pid}/smaps") as f:
        start = None
        for line in f:
            m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) (\S+)", line)
            if m:
                start, end, perms = int(m[1], 16), int(m[2], 16), m[3]
                flags[start] = [end, perms, ""]
            elif line.startswith("VmFlags:"):
                flags[start][2] = line.split(":", 1)[1].split()
    with open(f"/proc/{pid}/mem", "rb", 0) as mem:
        for start, (end, perms, vmflags) in flags.items():
            if "r" not in perms or end - start > 1 << 30:
                continue
            try:
                mem.seek(start)
                data = mem.read(end - start)
            except OSError:
                continue
            for n in needles:
                if n in data:
                    hits.append((n, vmflags))
    return hits


def scan_allowed(pid):
    """Whether this run may read pid's memory (a skip said where not)."""
    try:
        scan(pid, [b"probe"])
        return True
    except OSError as e:
        skip(f"scan of algd's memory ({e.strerror}; needs root)")
        return False


KEY_CLIENT = r'''
key = bytes.fromhex(sys.argv[1])
s = tfm("skcipher", "cbc(aes)", key); op, _ = s.accept()
op.sendmsg_afalg([b"q" * 64], op=socket.ALG_OP_ENCRYPT, iv=b"\1" * 16); op.recv(64)
h = tfm("hash", "hmac(sha256)", key); hop, _ = h.accept(); hop.sendall(b"m"); hop.recv(32)
say("ready")
sys.stdin.readline()
'''


def test_key_scan(algd):
    if not scan_allowed(algd.pid):
        return
    base = algd.fds()
    key = os.urandom(32)
    p = client(algd, KEY_CLIENT, key.hex())
    ready = p.stdout.readline().strip() == "ready"
    open_hits = scan(algd.pid, [key])
    check(f"while in use, the key is in algd's memory ({len(open_hits)} copies: "
          "proves the scan finds it)", ready and len(open_hits) > 0)
    check("every copy of the key is in locked (lo), no-dump (dd) memory",
          open_hits and all("lo" in f and "dd" in f for _, f in open_hits),
          repr(open_hits))
    p.stdin.write("\n")
    p.stdin.flush()
    p.wait()
    wait_for(lambda: algd.fds() == base)
    after = scan(algd.pid, [key, key[:16], key[16:]])
    check("after the sockets close, no part of the key is anywhere in algd's memory",
          algd.fds() == base and after == [], repr(after))


KEPT_KEY_CLIENT = r'''
key = bytes.fromhex(sys.argv[1])
def one_shot(k):
    s = tfm("skcipher", "cbc(aes)", k)
    op, _ = s.accept()
    op.sendmsg_afalg([b"q" * 16], op=socket.ALG_OP_ENCRYPT, iv=b"\1" * 16)
    op.recv(16)
    op.close()
    s.close()
one_shot(b"\0" * 32)    # the first bind asks algd; later op sockets are the program's connections
one_shot(key)
say("closed")
sys.stdin.readline()
'''


def test_key_kept_connection(algd):
    """Under UALG_ENGINE=algd the shim keeps an op socket's connection for
    its next one: the closed socket's key goes as the connection's end
    would take it."""
    if not scan_allowed(algd.pid):
        return
    base = algd.fds()
    key = os.urandom(32)
    p = client(algd, KEPT_KEY_CLIENT, key.hex(), env={"UALG_ENGINE": "algd"})
    ready = p.stdout.readline().strip() == "closed"
    gone = wait_for(lambda: not scan(algd.pid, [key, key[:16], key[16:]]), timeout=5)
    kept = algd.fds() - base
    check("a client closed its sockets and keeps their connection for the next (algd holds it: "
          f"{kept}): no part of the key is anywhere in algd's memory", ready and kept == 1 and gone,
          repr(scan(algd.pid, [key, key[:16], key[16:]])))
    p.stdin.write("\n")
    p.stdin.flush()
    p.wait()


HMAC_KEY_CLIENT = r'''
key = bytes.fromhex(sys.argv[1])
h = tfm("hash", "hmac(sha256)", key)
say("keyed")
sys.stdin.readline()
'''


def test_key_first_call():
    """A function algd calls for the first time right after a key was set
    (here read() of its signalfd, on its first SIGHUP): bound lazily, its
    call would run the dynamic linker's resolver, which saves the vector
    registers on algd's stack, where a key copied with AVX-512 instructions
    may still be.  A fresh algd, so that the call is its first."""
    algd = Algd("firstcall")
    try:
        if not scan_allowed(algd.pid):
            return
        key = os.urandom(32)
        p = client(algd, HMAC_KEY_CLIENT, key.hex())
        # The shim may send the key ahead, unanswered: algd has it once its
        # memory does (a signal while algd still copies it may find the key
        # in no register yet: the check then passes, never fails, wrongly).
        ready = (p.stdout.readline().strip() == "keyed" and
                 wait_for(lambda: scan(algd.pid, [key])))
        algd.proc.send_signal(signal.SIGHUP)
        # Read from algd's signalfd, it is no longer pending.  (A request
        # now could overwrite the stack where the resolver left the key.)
        wait_for(lambda: not int(algd.status("ShdPnd")[0], 16) & 1 << (signal.SIGHUP - 1))
        hits = scan(algd.pid, [key])
        check("after algd's first call of a function, every copy of the key is in locked, "
              "no-dump memory", ready and hits and all("lo" in f and "dd" in f for _, f in hits),
              repr(hits))
        p.stdin.write("\n")
        p.stdin.flush()
        p.wait()
    finally:
        algd.stop()


def main():
    algd = Algd("main")
    try:
        for test in [lambda: test_confinement(algd), test_bad_allow_lists, test_policy,
                     test_alg_policy,
                     lambda: test_key_scan(algd), lambda: test_key_kept_connection(algd),
                     test_key_first_call,
                     lambda: test_sigkill_clients(algd),
                     test_limit, lambda: test_many(algd), lambda: test_slow_reader(algd),
                     lambda: test_restart(algd), lambda: test_restart(algd, "algd")]:
            try:
                test()
            except Exception as e:  # a crash is a failure, and the rest still run
                check(f"test ran to the end: {type(e).__name__}: {e}", False)
        check("algd alive at the end", algd.proc.poll() is None)
    finally:
        algd.stop()
        subprocess.run(["rm", "-rf", TMP])
    finish()


if __name__ == "__main__":
    main()
