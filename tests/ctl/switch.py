#!/usr/bin/env python3
"""Under ualg-run: changing a priority with algctl switches which driver new
AF_ALG sockets of "cbc(aes)" use, and back; seen in algctl's refcnt and
statistics.  usage: switch.py ALGCTL SOCKET DRIVER_A DRIVER_B
DRIVER_A is the default for cbc(aes); DRIVER_B gets a priority above it,
then its own back.  Every encryption must give NIST SP 800-38A F.2.1."""
import json
import socket
import subprocess
import sys

ALGCTL, SOCK, A, B = sys.argv[1:5]
KEY = bytes.fromhex("2b7e151628aed2a6abf7158809cf4f3c")
IV = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
PT = bytes.fromhex("6bc1bee22e409f96e93d7e117393172a")
CT = bytes.fromhex("7649abac8119b246cee98e9b12e9197d")
passed = failed = 0


def check(ok, what):
    global passed, failed
    print(("ok - " if ok else "not ok - ") + what)
    passed, failed = passed + ok, failed + (not ok)


def algctl(*args):
    return subprocess.run([ALGCTL, "--socket", SOCK] + list(args), capture_output=True, text=True)


def state():
    recs = json.loads(algctl("--json", "show", "cbc(aes)").stdout)
    return {r["driver"]: (r["refcnt"], r["stats"]["ops"], r["priority"]) for r in recs}


def open_cbc():
    t = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)
    t.bind(("skcipher", "cbc(aes)"))
    t.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, KEY)
    op, _ = t.accept()
    op.sendmsg_afalg([PT], op=socket.ALG_OP_ENCRYPT, iv=IV)
    check(op.recv(16) == CT, "cbc(aes) encryption gives SP 800-38A F.2.1")
    return t, op


def used(before, after):
    """The drivers whose refcnt and operation count both grew."""
    return sorted(d for d in after if d in before and after[d][0] > before[d][0] and after[d][1] > before[d][1])


s0 = state()
check(A in s0 and B in s0, "both %s and %s are listed for cbc(aes)" % (A, B))
prio_a, prio_b = s0[A][2], s0[B][2]
check(prio_a > prio_b, "%s is the default (priority %d > %d)" % (A, prio_a, prio_b))

first = open_cbc()
s1 = state()
check(used(s0, s1) == [A], "a new socket uses %s: %r" % (A, used(s0, s1)))

r = algctl("priority", B, str(prio_a + 100))
check(r.returncode == 0, "algctl priority %s %d: %s" % (B, prio_a + 100, r.stderr.strip()))
second = open_cbc()
s2 = state()
check(used(s1, s2) == [B], "after the change a new socket uses %s: %r" % (B, used(s1, s2)))
check(s2[A][0] == s1[A][0], "the older socket keeps %s" % A)

# Sockets stay open to the end: refcnts then only grow, whatever the
# moment algd notices a close.
r = algctl("priority", B, str(prio_b))
check(r.returncode == 0, "algctl priority %s %d (back)" % (B, prio_b))
s3 = state()
third = open_cbc()
s4 = state()
check(used(s3, s4) == [A], "changed back, a new socket uses %s again: %r" % (A, used(s3, s4)))
for sk in first + second + third:
    sk.close()
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
