#!/usr/bin/env python3
"""A raw NETLINK_CRYPTO (crypto_user) client: runs one fixed scenario of
requests and prints, for each, the replies' structure as JSON lines.

  nlclient.py record  > golden       (on the oracle, or under ualg-run)
  nlclient.py check GOLDEN           (under ualg-run: compares with GOLDEN)

Each reply datagram is decoded into its netlink messages: type, flags, length,
whether seq and pid echo the request, the crypto_user_alg fields and every
attribute with its type, length and decoded report structure.  check accepts
differences only where two implementations legitimately differ: driver and
module names, priorities, refcnt, and cra_flags bits other than the type
(CRYPTO_ALG_ASYNC, KERN_DRIVER_ONLY...); and, for the dump, the set of
algorithms (each message must still have the layout of its type).
Privileged steps run as root; the unprivileged ones in a child that drops to
uid/gid 65534 before opening its socket (the kernel checks the opener)."""
import errno
import json
import os
import socket
import struct
import sys

NETLINK_CRYPTO = 21
NLM_F_REQUEST, NLM_F_MULTI, NLM_F_ACK = 1, 2, 4
NLM_F_DUMP = 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
NEWALG, DELALG, UPDATEALG, GETALG, DELRNG, GETSTAT = range(0x10, 0x16)
PRIORITY_VAL = 1
ATTR_NAMES = {1: "PRIORITY_VAL", 2: "REPORT_LARVAL", 3: "REPORT_HASH",
              4: "REPORT_BLKCIPHER", 5: "REPORT_AEAD", 6: "REPORT_COMPRESS",
              7: "REPORT_RNG", 8: "REPORT_CIPHER", 9: "REPORT_AKCIPHER",
              10: "REPORT_KPP", 11: "REPORT_ACOMP"}
# Report structures of <linux/cryptouser.h>: field names and struct format.
REPORTS = {
    "REPORT_LARVAL": (("type",), "64s"),
    "REPORT_HASH": (("type", "blocksize", "digestsize"), "64sII"),
    "REPORT_BLKCIPHER": (("type", "geniv", "blocksize", "min_keysize", "max_keysize", "ivsize"), "64s64sIIII"),
    "REPORT_AEAD": (("type", "geniv", "blocksize", "maxauthsize", "ivsize"), "64s64sIII"),
    "REPORT_COMPRESS": (("type",), "64s"),
    "REPORT_RNG": (("type", "seedsize"), "64sI"),
    "REPORT_CIPHER": (("type", "blocksize", "min_keysize", "max_keysize"), "64sIII"),
    "REPORT_AKCIPHER": (("type",), "64s"),
    "REPORT_KPP": (("type",), "64s"),
    "REPORT_ACOMP": (("type",), "64s"),
}
CRU = "64s64s64sIIII"
CRU_LEN = struct.calcsize(CRU)  # 208

# Generic names registered both on Linux 6.1 at boot and in algd.
NAMES = ["sha1", "sha224", "sha256", "sha384", "sha512", "md5", "sha3-224", "sha3-256",
         "sha3-384", "sha3-512", "hmac(sha256)", "hmac(sha512)", "aes", "des3_ede",
         "ecb(aes)", "cbc(aes)", "ctr(aes)", "xts(aes)", "cts(cbc(aes))", "ecb(des3_ede)",
         "cbc(des3_ede)", "gcm(aes)"]


def cstr(b):
    return b.split(b"\0", 1)[0].decode("latin-1")


def cru(name="", driver="", typ=0, mask=0, raw_name=None):
    n = raw_name if raw_name is not None else name.encode()
    return struct.pack(CRU, n, driver.encode(), b"", typ, mask, 0, 0)


def attr(typ, payload):
    a = struct.pack("HH", 4 + len(payload), typ) + payload
    return a + b"\0" * (-len(a) % 4)


def nlmsg(typ, flags, seq, payload):
    return struct.pack("IHHII", 16 + len(payload), typ, flags, seq, 0) + payload


def decode_attrs(data):
    out = []
    while len(data) >= 4:
        alen, atyp = struct.unpack_from("HH", data)
        if alen < 4 or alen > len(data):
            out.append({"bad_attr": alen})
            break
        name = ATTR_NAMES.get(atyp, str(atyp))
        body = data[4:alen]
        a = {"attr": name, "len": alen}
        if name == "PRIORITY_VAL" and len(body) == 4:
            a["value"] = struct.unpack("I", body)[0]
        elif name in REPORTS:
            fields, fmt = REPORTS[name]
            if len(body) == struct.calcsize(fmt):
                vals = struct.unpack(fmt, body)
                a["value"] = {f: (cstr(v) if isinstance(v, bytes) else v) for f, v in zip(fields, vals)}
        out.append(a)
        data = data[(alen + 3) & ~3:]
    return out


def decode(dgram, req_seq, portid, req=b""):
    msgs = []
    off = 0
    while off + 16 <= len(dgram):
        ln, typ, flags, seq, pid = struct.unpack_from("IHHII", dgram, off)
        m = {"type": typ, "flags": flags, "len": ln, "seq_ok": seq == req_seq, "pid_ok": pid == portid}
        body = dgram[off + 16:off + ln]
        if typ == NLMSG_ERROR and len(body) >= 20:
            err = struct.unpack_from("i", body)[0]
            m["error"] = errno.errorcode.get(-err, str(err)) if err else 0
            rl, rt, rf, rs, _ = struct.unpack_from("IHHII", body, 4)
            m["echo"] = {"len": rl, "type": rt, "flags": rf, "body": len(body) - 20}
            m["echo_ok"] = body[4:] == req[:len(body) - 4]
        elif typ == NLMSG_DONE:
            m["done"] = struct.unpack_from("i", body)[0] if len(body) >= 4 else None
        elif typ == GETALG and len(body) >= CRU_LEN:
            n, d, mod, t, mk, ref, fl = struct.unpack_from(CRU, body)
            m["cru"] = {"name": cstr(n), "driver": cstr(d), "module": cstr(mod), "type": t,
                        "mask": mk, "refcnt": ref, "flags": fl}
            m["attrs"] = decode_attrs(body[CRU_LEN:])
        else:
            m["body"] = len(body)
        msgs.append(m)
        if ln < 16:
            break
        off += (ln + 3) & ~3
    return {"size": len(dgram), "msgs": msgs}


class Client:
    def __init__(self):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_CRYPTO)
        self.s.bind((0, 0))
        self.portid = self.s.getsockname()[0]
        self.seq = 0

    def ask(self, typ, flags, payload, raw=None, until_done=False):
        """Sends one request and collects every reply datagram until none is
        pending (or NLMSG_DONE/NLMSG_ERROR for dumps)."""
        self.seq += 1
        msg = raw if raw is not None else nlmsg(typ, flags, self.seq, payload)
        if raw is not None:
            msg = msg[:8] + struct.pack("I", self.seq) + msg[12:]
        self.s.send(msg)
        out = []
        while True:
            try:
                d = self.s.recv(1 << 17, 0 if until_done or not out else socket.MSG_DONTWAIT)
            except BlockingIOError:
                break
            out.append(decode(d, self.seq, self.portid, msg))
            last = out[-1]["msgs"][-1]["type"] if out[-1]["msgs"] else None
            if until_done and last in (NLMSG_DONE, NLMSG_ERROR):
                break
            if not until_done and last == NLMSG_ERROR:
                break
            if not until_done and typ == GETALG and not (flags & NLM_F_ACK):
                break
        return out

    def quiet(self, msg):
        """Sends msg and reports whether anything came back."""
        self.s.send(msg)
        try:
            self.s.recv(1 << 16, socket.MSG_DONTWAIT)
            return "reply"
        except BlockingIOError:
            return "none"

    def driver_of(self, name):
        r = self.ask(GETALG, NLM_F_REQUEST, cru(name))
        m = r[0]["msgs"][0]
        return m["cru"]["driver"] if "cru" in m else None


def steps_root(c, emit):
    for n in NAMES:
        emit("getalg " + n, c.ask(GETALG, NLM_F_REQUEST, cru(n)))
    emit("getalg sha256 with NLM_F_ACK", c.ask(GETALG, NLM_F_REQUEST | NLM_F_ACK, cru("sha256")))
    emit("getalg by driver of sha256", c.ask(GETALG, NLM_F_REQUEST, cru("", c.driver_of("sha256"))))
    emit("getalg unknown name", c.ask(GETALG, NLM_F_REQUEST, cru("no-such-alg")))
    emit("getalg unknown driver", c.ask(GETALG, NLM_F_REQUEST, cru("", "no-such-driver")))
    emit("getalg uninstantiated template", c.ask(GETALG, NLM_F_REQUEST, cru("ctr(des3_ede)")))
    emit("getalg header only", c.ask(GETALG, NLM_F_REQUEST, b""))
    emit("getalg short body", c.ask(GETALG, NLM_F_REQUEST, cru("sha256")[:100]))
    emit("getalg name not terminated", c.ask(GETALG, NLM_F_REQUEST, cru(raw_name=b"a" * 64)))
    emit("getalg trailing bad attribute", c.ask(GETALG, NLM_F_REQUEST, cru("sha1") + struct.pack("HH", 40, 1)))
    emit("type 0x16 (past CRYPTO_MSG_MAX)", c.ask(0x16, NLM_F_REQUEST, cru("sha1")))
    emit("type 0x30", c.ask(0x30, NLM_F_REQUEST, cru("sha1")))
    emit("getstat", c.ask(GETSTAT, NLM_F_REQUEST, cru("sha1")))
    emit("no NLM_F_REQUEST", [{"quiet": c.quiet(nlmsg(GETALG, 0, 99, cru("sha1")))}])
    emit("control type below 0x10 with ack", c.ask(5, NLM_F_REQUEST | NLM_F_ACK, cru("sha1")))
    emit("dump", c.ask(GETALG, NLM_F_REQUEST | NLM_F_DUMP, cru(), until_done=True))
    emit("dump header only", c.ask(GETALG, NLM_F_REQUEST | NLM_F_DUMP, b"", until_done=True))

    drv = c.driver_of("sha256")
    prio = struct.pack("I", 123)
    emit("updatealg priority without driver", c.ask(UPDATEALG, NLM_F_REQUEST, cru("sha256") + attr(PRIORITY_VAL, prio)))
    emit("updatealg unknown driver", c.ask(UPDATEALG, NLM_F_REQUEST, cru("", "no-such-driver") + attr(PRIORITY_VAL, prio)))
    emit("updatealg short priority", c.ask(UPDATEALG, NLM_F_REQUEST, cru("", drv) + attr(PRIORITY_VAL, b"\1\0")))
    old = c.ask(GETALG, NLM_F_REQUEST, cru("", drv))[0]["msgs"][0]["attrs"][0]["value"]
    emit("updatealg priority 123 with ack", c.ask(UPDATEALG, NLM_F_REQUEST | NLM_F_ACK, cru("", drv) + attr(PRIORITY_VAL, prio)))
    r = c.ask(GETALG, NLM_F_REQUEST, cru("", drv))
    emit("getalg after update", r)
    emit("updated priority", [{"priority": r[0]["msgs"][0]["attrs"][0]["value"]}])
    emit("updatealg back", c.ask(UPDATEALG, NLM_F_REQUEST | NLM_F_ACK, cru("", drv) + attr(PRIORITY_VAL, struct.pack("I", old))))
    # From here on only failing requests and changes that undo themselves.
    # (The update itself need not leave things as they were: the kernel
    # drops the instances built on the driver, hmac(sha256-avx2) among them.)
    SNAPSHOT.append(snapshot(c))
    emit("updatealg header only", c.ask(UPDATEALG, NLM_F_REQUEST, b""))

    emit("newalg existing", c.ask(NEWALG, NLM_F_REQUEST | NLM_F_ACK, cru("sha256")))
    emit("newalg unknown", c.ask(NEWALG, NLM_F_REQUEST | NLM_F_ACK, cru("cbc(sha256)")))
    emit("newalg priority without driver", c.ask(NEWALG, NLM_F_REQUEST | NLM_F_ACK, cru("ctr(des3_ede)") + attr(PRIORITY_VAL, prio)))
    emit("newalg ctr(des3_ede)", c.ask(NEWALG, NLM_F_REQUEST | NLM_F_ACK, cru("ctr(des3_ede)")))
    emit("getalg ctr(des3_ede) after newalg", c.ask(GETALG, NLM_F_REQUEST, cru("ctr(des3_ede)")))
    inst = c.driver_of("ctr(des3_ede)")
    emit("delalg of a registered driver (not an instance)", c.ask(DELALG, NLM_F_REQUEST | NLM_F_ACK, cru("", drv)))
    emit("delalg unknown", c.ask(DELALG, NLM_F_REQUEST | NLM_F_ACK, cru("", "no-such-driver")))
    busy = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)
    busy.bind(("skcipher", "ctr(des3_ede)"))
    emit("delalg instance in use", c.ask(DELALG, NLM_F_REQUEST | NLM_F_ACK, cru("", inst)))
    busy.close()
    emit("delalg instance", c.ask(DELALG, NLM_F_REQUEST | NLM_F_ACK, cru("", inst)))
    emit("getalg ctr(des3_ede) after delalg", c.ask(GETALG, NLM_F_REQUEST, cru("ctr(des3_ede)")))
    emit("delalg header only", c.ask(DELALG, NLM_F_REQUEST, b""))
    emit("updatealg name not terminated", c.ask(UPDATEALG, NLM_F_REQUEST, cru(raw_name=b"a" * 64)))
    emit("delrng header only with ack", c.ask(DELRNG, NLM_F_REQUEST | NLM_F_ACK, b""))


def steps_unprivileged(c, emit, drv):
    emit("unprivileged getalg sha1", c.ask(GETALG, NLM_F_REQUEST, cru("sha1")))
    emit("unprivileged updatealg", c.ask(UPDATEALG, NLM_F_REQUEST | NLM_F_ACK, cru("", drv) + attr(PRIORITY_VAL, struct.pack("I", 1))))
    emit("unprivileged newalg", c.ask(NEWALG, NLM_F_REQUEST | NLM_F_ACK, cru("ctr(des3_ede)")))
    emit("unprivileged delalg", c.ask(DELALG, NLM_F_REQUEST | NLM_F_ACK, cru("", drv)))
    emit("unprivileged updatealg name not terminated", c.ask(UPDATEALG, NLM_F_REQUEST, cru(raw_name=b"a" * 64)))
    emit("unprivileged delrng", c.ask(DELRNG, NLM_F_REQUEST | NLM_F_ACK, b""))
    emit("unprivileged dump", c.ask(GETALG, NLM_F_REQUEST | NLM_F_DUMP, cru(), until_done=True))


def steps_drivers(c, emit):
    """crypto_user on kernel driver names (a base algorithm's and a
    template instance's over them) and on the scheduling wrappers pcrypt
    and cryptd.  Run after the snapshot comparison: instantiating these
    leaves spawns registered, whose driver names are the implementation's."""
    for d in ("sha1-generic", "aes-generic", "md5-generic"):
        emit("driver %s getalg" % d, c.ask(GETALG, NLM_F_REQUEST, cru("", d)))
        emit("driver %s newalg" % d, c.ask(NEWALG, NLM_F_REQUEST | NLM_F_ACK, cru("", d)))
        emit("driver %s delalg" % d, c.ask(DELALG, NLM_F_REQUEST | NLM_F_ACK, cru("", d)))
    for d in ("hmac(sha1-generic)", "cbc(aes-generic)", "hmac(md5-generic)"):
        emit("driver %s newalg" % d, c.ask(NEWALG, NLM_F_REQUEST | NLM_F_ACK, cru("", d)))
        emit("driver %s newalg again" % d, c.ask(NEWALG, NLM_F_REQUEST | NLM_F_ACK, cru("", d)))
        emit("driver %s getalg" % d, c.ask(GETALG, NLM_F_REQUEST, cru("", d)))
        emit("driver %s delalg" % d, c.ask(DELALG, NLM_F_REQUEST | NLM_F_ACK, cru("", d)))
        emit("driver %s delalg again" % d, c.ask(DELALG, NLM_F_REQUEST | NLM_F_ACK, cru("", d)))
        emit("driver %s getalg after delalg" % d, c.ask(GETALG, NLM_F_REQUEST, cru("", d)))
    # pkcs1pad takes its rsa as a spawn (by driver name too) and its hash
    # as a name it compares (rsa_lookup_asn1()): libkcapi's test name exists.
    for d in ("pkcs1pad(rsa-generic,sha256)", "pkcs1pad(rsa-generic,sha256-generic)",
              "pkcs1pad(rsa-nosuch,sha256)", "pkcs1pad(rsa-generic,nosuch)"):
        emit("driver %s newalg" % d, c.ask(NEWALG, NLM_F_REQUEST | NLM_F_ACK, cru("", d)))
        emit("name %s newalg" % d, c.ask(NEWALG, NLM_F_REQUEST | NLM_F_ACK, cru(d)))
    pc = "pcrypt(authenc(hmac(sha256-generic),cbc(aes-generic)))"
    emit("pcrypt newalg by driver, aead type", c.ask(NEWALG, NLM_F_REQUEST | NLM_F_ACK, cru("", pc, 3, 0xf)))
    emit("pcrypt getalg", c.ask(GETALG, NLM_F_REQUEST, cru("", pc)))
    emit("pcrypt newalg again", c.ask(NEWALG, NLM_F_REQUEST | NLM_F_ACK, cru("", pc, 3, 0xf)))
    emit("pcrypt delalg", c.ask(DELALG, NLM_F_REQUEST | NLM_F_ACK, cru("", pc)))
    emit("pcrypt delalg again", c.ask(DELALG, NLM_F_REQUEST | NLM_F_ACK, cru("", pc)))
    emit("pcrypt newalg by name, aead type",
         c.ask(NEWALG, NLM_F_REQUEST | NLM_F_ACK, cru("pcrypt(gcm(aes))", "", 3, 0xf)))
    emit("pcrypt getalg by name", c.ask(GETALG, NLM_F_REQUEST, cru("pcrypt(gcm(aes))")))
    emit("pcrypt newalg without a type", c.ask(NEWALG, NLM_F_REQUEST | NLM_F_ACK, cru("pcrypt(rfc4106(gcm(aes)))")))
    emit("pcrypt of a hash", c.ask(NEWALG, NLM_F_REQUEST | NLM_F_ACK, cru("pcrypt(sha256)", "", 0xe, 0xf)))
    emit("cryptd newalg hash", c.ask(NEWALG, NLM_F_REQUEST | NLM_F_ACK, cru("cryptd(sha256)")))
    emit("cryptd getalg hash", c.ask(GETALG, NLM_F_REQUEST, cru("cryptd(sha256)")))
    emit("cryptd newalg skcipher", c.ask(NEWALG, NLM_F_REQUEST | NLM_F_ACK, cru("cryptd(cbc(aes))", "", 5, 0xf)))
    emit("cryptd getalg skcipher", c.ask(GETALG, NLM_F_REQUEST, cru("cryptd(cbc(aes))")))
    emit("cryptd delalg hash by driver",
         c.ask(DELALG, NLM_F_REQUEST | NLM_F_ACK, cru("", c.driver_of("cryptd(sha256)") or "cryptd(sha256)")))
    emit("cryptd getalg hash after delalg", c.ask(GETALG, NLM_F_REQUEST, cru("cryptd(sha256)")))


SNAPSHOT = []


def snapshot(c):
    """What the requests must leave as they found it: every algorithm's
    names and priority."""
    return sorted((m["cru"]["name"], m["cru"]["driver"], m["attrs"][0].get("value"))
                  for d in c.ask(GETALG, NLM_F_REQUEST | NLM_F_DUMP, cru(), until_done=True)
                  for m in d["msgs"] if "cru" in m)


def run_all():
    results = []

    def emit(step, replies):
        results.append({"step": step, "replies": replies})
    c = Client()
    steps_root(c, emit)
    drv = c.driver_of("sha256")
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rfd)
        sub = []
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            steps_unprivileged(Client(), lambda s, r: sub.append({"step": s, "replies": r}), drv)
        except Exception as e:  # reported as a step, so that check fails
            sub.append({"step": "unprivileged child", "replies": [{"exception": repr(e)}]})
        os.write(wfd, json.dumps(sub).encode())
        os._exit(0)
    os.close(wfd)
    data = b""
    while True:
        b = os.read(rfd, 1 << 16)
        if not b:
            break
        data += b
    os.waitpid(pid, 0)
    results += json.loads(data)
    after = snapshot(c)
    before = SNAPSHOT[0]
    emit("malformed and refused requests changed no algorithm (nor did newalg + delalg)",
         [{"added": sorted(set(after) - set(before)), "removed": sorted(set(before) - set(after))}])
    steps_drivers(c, emit)
    return results


# ---- comparison ------------------------------------------------------------

TYPE_BITS = 0xf | 0x400  # CRYPTO_ALG_TYPE_MASK and CRYPTO_ALG_TESTED


def attr_shape(a):
    """An attribute as compared: priorities may differ, reports may not."""
    return {k: v for k, v in a.items() if not (a.get("attr") == "PRIORITY_VAL" and k == "value")}


def msg_shape(m, keep_names=True):
    s = {k: v for k, v in m.items() if k not in ("cru", "attrs")}
    if "cru" in m:
        c = m["cru"]
        s["cru"] = {"type": c["type"], "mask": c["mask"], "flags": c["flags"] & TYPE_BITS}
        if keep_names:
            s["cru"]["name"] = c["name"]
        s["attrs"] = [attr_shape(a) for a in m["attrs"]]
    return s


def layouts(replies):
    """(report attribute, message length, attribute lengths) of each GETALG message."""
    out = set()
    for d in replies:
        for m in d["msgs"]:
            if "cru" in m:
                out.add((m["len"], tuple((a.get("attr"), a.get("len")) for a in m["attrs"])))
    return out


def compare_dump(want, got):
    errs = []
    if not got or not want:
        return ["no replies" if not got else "golden has no replies"]
    if [m for m in got[-1]["msgs"]] != [m for m in want[-1]["msgs"]]:
        errs.append("last datagram %r, want %r" % (got[-1]["msgs"], want[-1]["msgs"]))
    known = layouts(want)
    n = 0
    for d in got[:-1]:
        if d["size"] > 65535:
            errs.append("datagram of %d bytes" % d["size"])
        for m in d["msgs"]:
            n += 1
            if m.get("type") != GETALG or m.get("flags") != NLM_F_MULTI or not m.get("seq_ok") \
                    or not m.get("pid_ok"):
                errs.append("dump message %r" % m)
            elif next(iter(layouts([{"msgs": [m]}]))) not in known:
                errs.append("dump message of unknown layout: %r" % m)
    if n < 20:
        errs.append("dump of only %d algorithms" % n)
    return errs


def compare(want_steps, got_steps):
    errs = []
    if [s["step"] for s in want_steps] != [s["step"] for s in got_steps]:
        return ["steps differ: %r" % [s["step"] for s in got_steps]]
    for w, g in zip(want_steps, got_steps):
        step = w["step"]
        if "dump" in step.split():
            e = compare_dump(w["replies"], g["replies"])
        else:
            ws = [dict(d, msgs=[msg_shape(m) for m in d["msgs"]]) if "msgs" in d else d for d in w["replies"]]
            gs = [dict(d, msgs=[msg_shape(m) for m in d["msgs"]]) if "msgs" in d else d for d in g["replies"]]
            e = [] if ws == gs else ["got %s\n      want %s" % (json.dumps(gs), json.dumps(ws))]
        errs += ["%s: %s" % (step, x) for x in e]
    return errs


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "record":
        for s in run_all():
            print(json.dumps(s, sort_keys=True))
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "check":
        with open(sys.argv[2]) as f:
            want = [json.loads(l) for l in f if l.strip()]
        got = run_all()
        wanted = {s["step"]: s for s in want}
        passed = failed = 0
        errs = compare(want, got)
        for s in got:
            mine = [e for e in errs if e.startswith(s["step"] + ": ")]
            if s["step"] not in wanted:
                mine = ["not in the golden file"]
            if mine:
                failed += 1
                print("not ok - netlink %s\n    %s" % (s["step"], "\n    ".join(mine)))
            else:
                passed += 1
                print("ok - netlink %s" % s["step"])
        if len(got) != len(want):
            failed += 1
            print("not ok - netlink: %d steps, golden has %d" % (len(got), len(want)))
        print("%d passed, %d failed" % (passed, failed))
        return 1 if failed else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
