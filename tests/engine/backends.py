#!/usr/bin/env python3
"""The in-process engine loads a backend only when a socket wants it.

Run under ualg-run: `backends.py cold` opens one sha256 socket and checks
that no backend module and none of their libraries got mapped; `backends.py
sweep NAMES.c` binds every hash and skcipher driver a backend registers
(build/src/core/backend_names.c), prints each answer as JSON, and with
--expect-loaded checks that each backend whose drivers the program served
itself was loaded.  The caller compares the sweep with UALG_ENGINE=algd's.
"""
import json
import re
import socket
import sys

SOL_ALG, ALG_SET_KEY, ALG_SET_IV, ALG_SET_OP = 279, 1, 2, 3
LIBS = ("libualg-backend-", "libbotan", "libcrypto++", "libIPSec_MB", "libsodium",
        "libisal", "libxxhash", "libzstd", "liblz4", "liblzo2")


def mapped():
    with open("/proc/self/maps") as f:
        return {line.split()[-1].rsplit("/", 1)[-1] for line in f if "/" in line}


def hash_answer(name):
    s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET)
    s.bind(("hash", name))
    for keylen in (0, 16, 32, 8):
        try:
            if keylen:
                s.setsockopt(SOL_ALG, ALG_SET_KEY, bytes(range(keylen)))
            o, _ = s.accept()
            o.sendall(b"abc" * 50)
            return o.recv(256).hex()
        except OSError:
            continue
    return "no key fits"


def skcipher_answer(name):
    s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET)
    s.bind(("skcipher", name))
    for keylen in (16, 32, 24, 8):
        try:
            s.setsockopt(SOL_ALG, ALG_SET_KEY, bytes(range(keylen)))
        except OSError:
            continue
        for ivlen in (16, 0, 8, 24, 32, 12):
            try:
                o, _ = s.accept()
                cmsg = [(SOL_ALG, ALG_SET_OP, (1).to_bytes(4, "little"))]
                if ivlen:
                    cmsg.append((SOL_ALG, ALG_SET_IV, ivlen.to_bytes(4, "little") + bytes(ivlen)))
                o.sendmsg([bytes(64)], cmsg)
                return o.recv(64).hex()
            except OSError:
                continue
    return "no key fits"


def sweep(names, expect_loaded):
    entries = re.findall(r'\{ "([^"]+)", "([^"]+)", "([^"]+)" \}', open(names).read())
    answers, served = {}, set()
    for backend, _, driver in entries:
        for kind, answer in (("hash", hash_answer), ("skcipher", skcipher_answer)):
            try:
                answers[driver] = answer(driver)
            except OSError:
                continue
            break
        if "libualg-backend-%s.so" % backend in mapped():
            served.add(backend)
    print(json.dumps(answers, sort_keys=True))
    if expect_loaded and not served:
        print("no backend module was ever loaded", file=sys.stderr)
        return 1
    return 0


def cold():
    s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET)
    s.bind(("hash", "sha256"))
    o, _ = s.accept()
    o.sendall(b"abc")
    if o.recv(32).hex() != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad":
        print("sha256 answered wrong", file=sys.stderr)
        return 1
    maps = mapped()
    if "libualg-engine.so" not in maps:
        print("the in-process engine did not serve sha256", file=sys.stderr)
        return 1
    extra = sorted(m for m in maps if m.startswith(LIBS))
    if extra:
        print("a sha256 socket mapped: " + " ".join(extra), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["cold"]:
        sys.exit(cold())
    sys.exit(sweep(sys.argv[2], "--expect-loaded" in sys.argv))
