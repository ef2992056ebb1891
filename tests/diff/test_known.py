#!/usr/bin/env python3
"""run.py's known differences explain what they name and nothing else: a
listed case (iovec_many_recv) runs against copies of its golden lines,
under ualg-run (argv[1]).  As recorded it is a known difference; a change
on another step, or in a field of a listed step that the entry does not
name, fails it; an entry for a case that matches is stale and fails.
Prints TAP-style lines and 'N passed, N failed'."""
import os, re, subprocess, sys, tempfile

RUN = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "golden", "surface.txt")
KNOWN = os.path.join(HERE, "known-differences.txt")
CASE = "iovec_many_recv"
sys.path.insert(0, os.path.join(HERE, ".."))
from ualgtest import check, finish  # noqa: E402


def run(golden_lines, known_text, only=CASE):
    """run.py --check on golden_lines with known_text: (exit status, output)."""
    with tempfile.TemporaryDirectory() as d:
        g, k = os.path.join(d, "golden.txt"), os.path.join(d, "known.txt")
        with open(g, "w") as f:
            f.write("\n".join(golden_lines) + "\n")
        with open(k, "w") as f:
            f.write(known_text)
        p = subprocess.run([RUN, "python3", os.path.join(HERE, "run.py"), os.path.join(HERE, "cases_surface.py"),
                            "--only", only, "--check", g, "--known", k], capture_output=True, text=True)
        return p.returncode, p.stdout


with open(GOLDEN) as f:
    golden = [l.rstrip("\n") for l in f if l.startswith(CASE + " ")]
with open(KNOWN) as f:
    known = f.read()


def edited(step, pattern, repl):
    out = [re.sub(pattern, repl, l) if l.startswith(f"{CASE} {step} ") else l for l in golden]
    assert out != golden, f"step {step} has no {pattern}"
    return out


rc, out = run(golden, known)
check("as recorded, the listed case is its known difference", rc == 0 and "# TODO known difference" in out, out)
rc, out = run(edited(3, r"errno=0", "errno=EINVAL"), known)
check("an errno changed on another step fails it, and says where",
      rc == 1 and "differs in 3:errno," in out and "TODO" not in out, out)
rc, out = run(edited(8, r"^(\S+ \S+ )recvmsg\(", r"\1recv("), known)
check("the call changed on a listed step, a field its entry does not name, fails it",
      rc == 1 and "8:call+" in out and "TODO" not in out, out)
rc, out = run([l for l in open(GOLDEN).read().split("\n") if l.startswith("iovec_many_hash ")],
              "iovec_many_hash 3:errno a difference that is not there\n", only="iovec_many_hash")
check("an entry for a case that matches is stale and fails", rc == 1 and "now matches" in out, out)
finish()
