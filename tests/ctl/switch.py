#!/usr/bin/env python3
"""Under ualg-run: changing a priority with algctl switches which driver new
AF_ALG sockets of "cbc(aes)" use, and back; seen in algctl's refcnt and
statistics.  usage: switch.py ALGCTL SOCKET DRIVER_A DRIVER_B
DRIVER_A is the default for cbc(aes); DRIVER_B gets a priority above it,
then its own back.  Every encryption must give NIST SP 800-38A F.2.1."""
import json
import os
import socket
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ualgtest import check, finish, tfm  # noqa: E402

ALGCTL, SOCK, A, B = sys.argv[1:5]
KEY = bytes.fromhex("2b7e151628aed2a6abf7158809cf4f3c")
IV = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
PT = bytes.fromhex("6bc1bee22e409f96e93d7e117393172a")
CT = bytes.fromhex("7649abac8119b246cee98e9b12e9197d")


def algctl(*args):
    return subprocess.run([ALGCTL, "--socket", SOCK] + list(args), capture_output=True, text=True)


def state():
    recs = json.loads(algctl("--json", "show", "cbc(aes)").stdout)
    return {r["driver"]: (r["refcnt"], r["stats"]["ops"], r["priority"]) for r in recs}


def open_cbc():
    t = tfm("skcipher", "cbc(aes)", KEY)
    op, _ = t.accept()
    op.sendmsg_afalg([PT], op=socket.ALG_OP_ENCRYPT, iv=IV)
    check("cbc(aes) encryption gives SP 800-38A F.2.1", op.recv(16) == CT)
    return t, op


def used(before, after):
    """The drivers whose refcnt and operation count both grew."""
    return sorted(d for d in after if d in before and after[d][0] > before[d][0] and after[d][1] > before[d][1])


s0 = state()
check("both %s and %s are listed for cbc(aes)" % (A, B), A in s0 and B in s0)
prio_a, prio_b = s0[A][2], s0[B][2]
check("%s is the default (priority %d > %d)" % (A, prio_a, prio_b), prio_a > prio_b)

first = open_cbc()
s1 = state()
check("a new socket uses %s: %r" % (A, used(s0, s1)), used(s0, s1) == [A])

r = algctl("priority", B, str(prio_a + 100))
check("algctl priority %s %d: %s" % (B, prio_a + 100, r.stderr.strip()), r.returncode == 0)
second = open_cbc()
s2 = state()
check("after the change a new socket uses %s: %r" % (B, used(s1, s2)), used(s1, s2) == [B])
check("the older socket keeps %s" % A, s2[A][0] == s1[A][0])

# Sockets stay open to the end: refcnts then only grow, whatever the
# moment algd notices a close.
r = algctl("priority", B, str(prio_b))
check("algctl priority %s %d (back)" % (B, prio_b), r.returncode == 0)
s3 = state()
third = open_cbc()
s4 = state()
check("changed back, a new socket uses %s again: %r" % (A, used(s3, s4)), used(s3, s4) == [A])
for sk in first + second + third:
    sk.close()
finish()
