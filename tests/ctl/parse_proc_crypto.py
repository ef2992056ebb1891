#!/usr/bin/env python3
"""Compares `algctl list` with the oracle's /proc/crypto.
usage: parse_proc_crypto.py GOLDEN OURS LACKING

Both are parsed the same way (stanzas of "key : value" lines separated by
blank lines; the parser rejects anything else).  Checks: every stanza of
ours has the fields, in order, that the golden stanzas of its type have;
for each generic name both list, the type and its sizes agree; and the
golden names we lack are exactly those LACKING (tests/ctl/lacking.txt) lists between its
"<!-- lacking -->" markers."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ualgtest import check, finish  # noqa: E402

SIZES = ("type", "blocksize", "digestsize", "min keysize", "max keysize", "ivsize", "maxauthsize",
         "seedsize")


def parse(path):
    stanzas, cur = [], []
    for n, line in enumerate(open(path), 1):
        line = line.rstrip("\n")
        if not line:
            if cur:
                stanzas.append(cur)
            cur = []
            continue
        m = re.fullmatch(r"([a-z][a-z ]*[a-z]) +: (.*)", line)
        if not m or len(m.group(1)) > 12 or line[13:15] != ": ":
            raise SystemExit("%s:%d: not a /proc/crypto line: %r" % (path, n, line))
        cur.append((m.group(1), m.group(2)))
    if cur:
        stanzas.append(cur)
    return stanzas


golden, ours = parse(sys.argv[1]), parse(sys.argv[2])
readme = open(sys.argv[3]).read()
lacking = set(readme.split("<!-- lacking -->")[1].split()) if "<!-- lacking -->" in readme else set()
check("algctl list has %d stanzas" % len(ours), len(ours) > 0)
layout = {}
for st in golden:
    d = dict(st)
    if d.get("selftest"):
        layout.setdefault(d["type"], [k for k, _ in st])
for st in ours:
    d = dict(st)
    want = layout.get(d.get("type"))
    check("%s: the fields of a %s stanza" % (d.get("driver"), d.get("type")), want == [k for k, _ in st])
gnames = {}
for st in golden:
    gnames.setdefault(dict(st)["name"], []).append(dict(st))
onames = {dict(st)["name"]: dict(st) for st in ours}
for name in sorted(set(gnames) & set(onames)):
    o = onames[name]
    # The oracle's only ghash is ghash-clmulni, an ahash over cryptd; a hash
    # socket sees it as it sees our shash.
    agree = any(all((g.get(k) == o.get(k) or (k == "type" and {g.get(k), o.get(k)} == {"ahash", "shash"}))
                    for k in SIZES) for g in gnames[name])
    check("%s: type and sizes as on Linux 6.1" % name, agree)
missing = set(gnames) - set(onames)
check("the golden algorithms we lack are the LACKING list (extra: %s; listed but present: %s)"
      % (" ".join(sorted(missing - lacking)) or "none", " ".join(sorted(lacking - missing)) or "none"),
      missing == lacking)
finish()
