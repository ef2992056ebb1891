#!/usr/bin/env python3
"""ALG_SET_KEY_BY_KEY_SERIAL (Linux 6.2's option; 6.1 answers ENOPROTOOPT),
run under ualg-run: a "user" key added with add_key(2) holding RFC 3602's
case 1 key encrypts RFC 3602's case 1 block to its published ciphertext;
unknown, revoked and "logon" keys, a short optlen and a key on an op socket
give the errors documented in ualg(7).  Prints TAP lines and a summary."""

import ctypes
import errno
import os
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ualgtest import check, finish, tfm  # noqa: E402

libc = ctypes.CDLL(None, use_errno=True)
SYS_add_key, SYS_keyctl = 248, 250
KEY_SPEC_PROCESS_KEYRING = -2
KEYCTL_REVOKE = 3
SOL_ALG, ALG_SET_KEY_BY_KEY_SERIAL = 279, 7
K = bytes.fromhex("06a9214036b8a15b512e03d534120006")
IV = bytes.fromhex("3dafba429d9eb430b422da802c9fac41")
P, C = b"Single block msg", bytes.fromhex("e353779c1079aeb82708942dbe77181a")


def add_key(typ, desc, payload):
    r = libc.syscall(SYS_add_key, typ, desc, payload, len(payload), KEY_SPEC_PROCESS_KEYRING)
    return r if r >= 0 else -ctypes.get_errno()


def by_serial(s, serial, optlen=4):
    v = ctypes.c_int32(serial)
    r = libc.setsockopt(s.fileno(), SOL_ALG, ALG_SET_KEY_BY_KEY_SERIAL, ctypes.byref(v), optlen)
    return 0 if r == 0 else ctypes.get_errno()


serial = add_key(b"user", b"ualg-test-rfc3602", K)
if serial < 0:
    print("1..0 # SKIP add_key: %s" % os.strerror(-serial))
    sys.exit(0)
t = tfm("skcipher", "cbc(aes)")
check("user key by serial accepted", by_serial(t, serial) == 0)
op, _ = t.accept()
op.sendmsg_afalg([P], op=socket.ALG_OP_ENCRYPT, iv=IV)
check("RFC 3602 case 1 with the key from the keyring", op.recv(16) == C)
check("on an op socket: EOPNOTSUPP (op sockets have no setsockopt)",
      by_serial(op, serial) == errno.EOPNOTSUPP)
op.close()
check("optlen 2: EINVAL", by_serial(t, serial, optlen=2) == errno.EINVAL)
check("unknown serial: ENOKEY", by_serial(t, 0x7ffffff0) == errno.ENOKEY)
libc.syscall(SYS_keyctl, KEYCTL_REVOKE, serial)
check("revoked key: EKEYREVOKED", by_serial(t, serial) == errno.EKEYREVOKED)
logon = add_key(b"logon", b"ualg:logon-test", K)
if logon >= 0:
    check("logon key (not readable from user space): EACCES", by_serial(t, logon) == errno.EACCES)
t.close()
finish()
