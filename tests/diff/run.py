#!/usr/bin/env python3
"""Run differential AF_ALG cases; record golden lines or check against them.

  run.py CASES.py --record FILE        write the canonical lines of every case
  run.py CASES.py --check FILE         compare with FILE: 'ok - CASE' / 'not ok - CASE'
                                       (+ a short diff), then 'N passed, M failed';
                                       exit status 1 if any case failed
  run.py CASES.py [--only CASE ...]    print the lines to stdout
  --only CASE (repeatable, or comma-separated) restricts any mode to those cases.
  --list prints the case names.  --timeout S: per-call timeout (default 2 s,
  or $UALG_DIFF_TIMEOUT); --case-timeout S: per-case watchdog (default 60 s).
  With --check, a call the golden lines record as blocking (errno=TIMEOUT)
  is given half a second to block, not the whole per-call timeout.

Each case runs in a forked child, so a crash or hang in the implementation
under test (e.g. an LD_PRELOAD shim) shows as a difference in that case only.
Lines in golden files starting with '#' are comments.
"""

import argparse
import difflib
import importlib.util
import os
import select
import signal
import sys
import time

sys.dont_write_bytecode = True  # keep the tree (and the read-only oracle root) clean
HERE = os.path.dirname(os.path.abspath(__file__))


def load_cases(path):
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    sys.path.insert(0, HERE)
    spec = importlib.util.spec_from_file_location("ualg_cases", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    names = [n for n, _ in mod.CASES]
    dups = {n for n in names if names.count(n) > 1}
    if dups:
        sys.exit("duplicate case names: %s" % ", ".join(sorted(dups)))
    return mod.CASES


def run_case(name, fn, call_timeout, case_timeout, blocking=()):
    """Run one case in a child; return its canonical lines.  blocking: the
    steps the golden lines say block (afalg.Recorder)."""
    import afalg
    sys.stdout.flush()
    sys.stderr.flush()
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rfd)
        status = 0
        try:
            def emit(line):
                data = (line + "\n").encode()
                while data:
                    data = data[os.write(wfd, data):]
            rec = afalg.Recorder(name, emit, call_timeout, blocking)
            try:
                fn(rec)
            except Exception as e:  # a case must never raise; report it as a line
                emit("%s - EXCEPTION %s" % (name, type(e).__name__))
                status = 3
            rec.finish()
        except BaseException:
            status = 4
        os._exit(status)
    os.close(wfd)
    buf = b""
    deadline = time.monotonic() + case_timeout
    killed = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            os.kill(pid, signal.SIGKILL)
            killed = True
            break
        r, _, _ = select.select([rfd], [], [], left)
        if r:
            chunk = os.read(rfd, 65536)
            if not chunk:
                break
            buf += chunk
    os.close(rfd)
    _, st = os.waitpid(pid, 0)
    lines = buf.decode(errors="replace").splitlines()
    if killed:
        lines.append("%s - KILLED after %ds" % (name, case_timeout))
    elif os.WIFSIGNALED(st):
        lines.append("%s - SIGNAL %d" % (name, os.WTERMSIG(st)))
    elif os.WEXITSTATUS(st) != 0:
        lines.append("%s - EXIT %d" % (name, os.WEXITSTATUS(st)))
    return lines


def parse_golden(path):
    groups = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            groups.setdefault(line.split(" ", 1)[0], []).append(line)
    return groups


def fields_of(line):
    """A golden line's fields: the call, then each key=value after it."""
    f = line.split(" ")
    d = {"call": f[2] if len(f) > 2 else ""}
    for t in f[3:]:
        k, eq, v = t.partition("=")
        d[k if eq else t] = v
    return d


def differences(exp, got):
    """What differs between two runs of a case: sorted (step, field) pairs,
    field "line" where a step has another number of lines."""
    def by_step(lines):
        d = {}
        for l in lines:
            f = l.split(" ", 2)
            d.setdefault(int(f[1]) if len(f) > 1 and f[1].isdigit() else -1, []).append(l)
        return d
    e, g = by_step(exp or []), by_step(got)
    out = set()
    for s in e.keys() | g.keys():
        a, b = e.get(s, []), g.get(s, [])
        if len(a) != len(b):
            out.add((s, "line"))
            continue
        for x, y in zip(a, b):
            fx, fy = fields_of(x), fields_of(y)
            out |= {(s, k) for k in fx.keys() | fy.keys() if fx.get(k) != fy.get(k)}
    return sorted(out)


def spell(diffs):
    """(step, field) pairs as known-differences.txt writes them: 4:ret+errno,7:data."""
    steps = {}
    for s, f in diffs:
        steps.setdefault(s, []).append(f)
    return ",".join("%d:%s" % (s, "+".join(sorted(fs))) for s, fs in sorted(steps.items()))


def parse_known(path):
    """'CASE STEP:FIELD[+FIELD][,...] reason' lines: {case: (diffs, reason)}."""
    known = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, spec, why = (line.split(" ", 2) + ["", ""])[:3]
            diffs = []
            for part in spec.split(","):
                step, _, fields = part.partition(":")
                if not step.isdigit() or not fields:
                    sys.exit("%s: %s: the second word must list what differs, STEP:FIELD[+FIELD],..."
                             " (e.g. 4:errno,7:ret+data)" % (path, name))
                diffs += [(int(step), fl) for fl in fields.split("+")]
            known[name] = (sorted(diffs), why.strip())
    return known


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--record", metavar="FILE")
    g.add_argument("--check", metavar="FILE")
    g.add_argument("--list", action="store_true")
    ap.add_argument("--only", action="append", default=[], metavar="CASE")
    ap.add_argument("--timeout", type=float, default=float(os.environ.get("UALG_DIFF_TIMEOUT", "2")))
    ap.add_argument("--case-timeout", type=float, default=60)
    ap.add_argument("--diff-lines", type=int, default=30, help="max diff lines shown per failed case")
    ap.add_argument("--known", metavar="FILE",
                    help="documented differences: 'CASE STEP:FIELD[+FIELD],... reason' lines; such a case"
                         " that differs in exactly those fields of those steps is reported as a known"
                         " difference; one that matches, or differs anywhere else, is a failure")
    a = ap.parse_args()

    cases = load_cases(a.cases)
    if a.only:
        want = [w for o in a.only for w in o.split(",") if w]
        known = {n for n, _ in cases}
        unknown = [w for w in want if w not in known]
        if unknown:
            sys.exit("unknown case(s): %s" % ", ".join(unknown))
        cases = [(n, f) for n, f in cases if n in want]
    if a.list:
        for n, _ in cases:
            print(n)
        return 0

    if a.check:
        golden = parse_golden(a.check)
        known = parse_known(a.known) if a.known else {}
        passed = failed = xfail = 0
        for name, fn in cases:
            exp = golden.get(name)
            blocking = [l.split(" ", 2)[1] for l in exp or () if " errno=TIMEOUT" in l]
            got = run_case(name, fn, a.timeout, a.case_timeout, blocking)
            same = exp is not None and got == exp
            if same and name in known:
                failed += 1
                print("not ok - %s # listed as a known difference but now matches: update %s"
                      % (name, a.known))
                continue
            if same:
                passed += 1
                print("ok - %s" % name)
                continue
            diffs = differences(exp, got)
            if name in known and diffs == known[name][0]:
                xfail += 1
                print("not ok - %s # TODO known difference (%s): %s" % (name, spell(diffs), known[name][1]))
                continue
            failed += 1
            if name in known:
                print("not ok - %s # differs in %s, where %s lists %s"
                      % (name, spell(diffs), a.known, spell(known[name][0])))
            else:
                print("not ok - %s # differs in %s" % (name, spell(diffs)))
            if exp is None:
                print("#   no golden lines for this case in %s" % a.check)
                exp = []
            diff = list(difflib.unified_diff(exp, got, "golden", "actual", n=1, lineterm=""))
            for d in diff[:a.diff_lines]:
                print("#   " + d)
            if len(diff) > a.diff_lines:
                print("#   ... %d more diff lines" % (len(diff) - a.diff_lines))
            sys.stdout.flush()
        if xfail:
            print("# %d known differences (see %s)" % (xfail, a.known))
        print("%d passed, %d failed" % (passed, failed))
        return 1 if failed else 0

    out = []
    for name, fn in cases:
        lines = run_case(name, fn, a.timeout, a.case_timeout)
        if a.record:
            out.extend(lines)
        else:
            for l in lines:
                print(l)
            sys.stdout.flush()
    if a.record:
        bad = [l for l in out if " - " in l and l.split(" ", 2)[1] == "-"]
        with open(a.record, "w") as f:
            f.write("# AF_ALG differential golden lines; recorded by tests/diff/run.py on %s %s\n"
                    % (os.uname().sysname, os.uname().release))
            f.write("\n".join(out) + "\n")
        print("recorded %d cases, %d lines into %s" % (len(cases), len(out), a.record))
        for l in bad:
            print("WARNING: " + l, file=sys.stderr)
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
