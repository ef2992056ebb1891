"""Helpers shared by the differential case files."""

from afalg import cmsg_op, cmsg_iv, ALG_OP_ENCRYPT


class Cases(list):
    """A case file's CASES: (name, function) pairs in definition order."""

    def case(self, fn):
        self.append((fn.__name__, fn))
        return fn

    def add(self, name, fn):
        self.append((name, fn))


def pat(n, seed=0):
    """Deterministic test data."""
    return bytes(((i * 131 + seed * 7 + (i >> 8)) & 0xff) for i in range(n))


def h(s):
    return bytes.fromhex(s.replace(" ", ""))


def tfm(c, typ, name, key=None):
    t = c.socket()
    c.bind(t, typ, name)
    if key is not None:
        c.setkey(t, key)
    return t


def opfd(c, typ, name, key=None):
    t = tfm(c, typ, name, key)
    return t, c.accept(t)


def crypt(c, o, data, op=ALG_OP_ENCRYPT, iv=None, flags=0):
    cm = [cmsg_op(op)] + ([cmsg_iv(iv)] if iv is not None else [])
    return c.sendmsg(o, data, cm, flags)
