#!/usr/bin/env python3
"""Which kernel algorithm names bind, and how many of the kernel's ualg binds.

  coverage.py bind [NAMES]             binds each "TYPE NAME" of NAMES (default
                                       tests/coverage/names.txt) on an AF_ALG
                                       socket and prints "TYPE NAME RESULT",
                                       RESULT 0 or the errno's name.  Run it on
                                       Linux (the oracle records it into
                                       tests/golden/alg-names.txt) or under
                                       ualg-run.
  coverage.py compare KERNEL OURS      of the names KERNEL (a recording) binds,
                                       counts those OURS binds; every name
                                       the kernel binds and OURS does not must
                                       be listed as refused in man/ualg.7
                                       (between the "refused-names" markers).
                                       Prints the percentage and exits 1 below
                                       --min (default 95) or on an undocumented
                                       miss.
  coverage.py check KERNEL [--min N]   bind, then compare with KERNEL (run under
                                       ualg-run: what make check does).
"""
import argparse
import errno
import os
import re
import socket
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, os.pardir, os.pardir))


def read_names(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                t, n = line.split(None, 1)
                out.append((t, n))
    return out


def bind_one(typ, name):
    s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)
    try:
        s.bind((typ, name))
        return "0"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
    finally:
        s.close()


def read_results(path):
    res = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3:
                res[(parts[0], parts[1])] = parts[2]
    return res


def documented_refusals(man):
    """Names listed between '.\\" refused-names begin' and '... end'."""
    with open(man) as f:
        text = f.read()
    m = re.search(r'refused-names begin(.*?)refused-names end', text, re.S)
    if not m:
        return set()
    names = set()
    for tok in re.findall(r'\\fB(.*?)\\fR', m.group(1)):
        names.add(tok.replace("\\-", "-").replace("\\(", "(").replace("\\)", ")"))
    return names


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("bind")
    b.add_argument("names", nargs="?", default=os.path.join(HERE, "names.txt"))
    c = sub.add_parser("compare")
    c.add_argument("kernel")
    c.add_argument("ours")
    c.add_argument("--min", type=float, default=95.0)
    c.add_argument("--man", default=os.path.join(REPO, "man", "ualg.7"))
    k = sub.add_parser("check")
    k.add_argument("kernel")
    k.add_argument("--names", default=os.path.join(HERE, "names.txt"))
    k.add_argument("--min", type=float, default=95.0)
    k.add_argument("--man", default=os.path.join(REPO, "man", "ualg.7"))
    args = ap.parse_args()

    if args.cmd == "check":
        ours = {(t, n): bind_one(t, n) for t, n in read_names(args.names)}
        return compare(read_results(args.kernel), ours, args.min, args.man)

    if args.cmd == "bind":
        for t, n in read_names(args.names):
            print(t, n, bind_one(t, n), flush=True)
        return 0

    return compare(read_results(args.kernel), read_results(args.ours), args.min, args.man)


def compare(kern, ours, minimum, man):
    kbound = [k for k, v in kern.items() if v == "0"]
    if not kbound:
        print("compare: the kernel's recording binds nothing", file=sys.stderr)
        return 1
    both = [k for k in kbound if ours.get(k) == "0"]
    missing = sorted(k for k in kbound if ours.get(k) != "0")
    extra = sorted(k for k, v in ours.items() if v == "0" and kern.get(k) != "0")
    refused = documented_refusals(man)
    undocumented = [k for k in missing if k[1] not in refused]
    pct = 100.0 * len(both) / len(kbound)
    print("coverage: the kernel binds %d of %d names; ualg binds %d of those (%.1f%%) "
          "and %d the kernel does not" % (len(kbound), len(kern), len(both), pct, len(extra)))
    for t, n in missing:
        print("  refused: %s %s (%s)%s" % (t, n, ours.get((t, n), "not run"),
                                           "" if n in refused else "  NOT DOCUMENTED"))
    for t, n in extra:
        print("  ualg only: %s %s" % (t, n))
    ok = pct >= minimum and not undocumented
    print("coverage: %s (minimum %.1f%%%s)" % ("ok" if ok else "FAILED", minimum,
          ", %d refusals not in %s" % (len(undocumented), man) if undocumented else ""))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
