"""What the Python test scripts share: TAP checks ending with the line
"N passed, M failed" that tests/run-all.sh counts, a wait for a state with
a deadline, and AF_ALG sockets as Python's socket module makes them (under
ualg-run, the shim's).

A script in a folder of tests/ finds this module with

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
"""
import socket
import sys
import time

results = []
_numbered = False


def numbered():
    """From now on each check's line carries its number: "ok 3 - NAME"."""
    global _numbered
    _numbered = True


def check(name, ok, why=""):
    """One check: "ok - NAME", or "not ok - NAME (WHY)" (WHY when given).
    Flushed, so that it stands in order with what child processes print."""
    results.append(bool(ok))
    num = f" {len(results)}" if _numbered else ""
    print(("ok" if ok else "not ok") + num + " - " + name + (f" ({why})" if why and not ok else ""), flush=True)


def skip(name):
    """A check this run cannot make: said, and counted neither way."""
    print(f"# skipped: {name}", flush=True)


def finish():
    """The counts line; exits 0 when every check passed, else 1."""
    print(f"{results.count(True)} passed, {results.count(False)} failed")
    sys.exit(0 if all(results) else 1)


def wait_for(cond, timeout=20.0):
    """Polls cond() every 20 ms until it is true or timeout seconds have
    passed; whether it came true.  A check waits for the state it checks
    this way, not for a guessed time."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


def tfm(typ, name, key=None):
    """An AF_ALG transform socket bound to (typ, name), its key set when key
    is given."""
    t = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)
    t.bind((typ, name))
    if key is not None:
        t.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, key)
    return t


def read_all(op, n):
    """n bytes from op, reading until it has them; fewer at end of file."""
    out = b""
    while len(out) < n:
        chunk = op.recv(n - len(out))
        if not chunk:
            break
        out += chunk
    return out
