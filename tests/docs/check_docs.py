#!/usr/bin/env python3
"""The documents against the tree: README.md's layout table names every C
file of src/ (and no file that is not there), tests/README.md's table of
groups every group of tests/run-all.sh --list (and no other).

A row of the layout table whose first cell is a folder `src/DIR/` lists
that folder's files in backquotes: `name.c`, or a pattern (`algif_*.c`);
a subfolder named `SUB/` there covers the files under it.  A row of the
groups table names its groups in its first cell (`supervise`, `rfc`).

    python3 tests/docs/check_docs.py          (from anywhere)
"""
import fnmatch
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from ualgtest import check, finish  # noqa: E402


def table_rows(path, heading):
    """The rows of the first table under `## heading`, as lists of cells."""
    rows, inside = [], False
    with open(os.path.join(ROOT, path)) as f:
        for line in f:
            if line.startswith("#"):
                if inside and rows:
                    break
                inside = line.strip().lstrip("#").strip() == heading
                continue
            if inside and line.startswith("|"):
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                if not set(cells[0]) <= set("-: "):
                    rows.append(cells)
            elif inside and rows:
                break
    return rows[1:]     # the header row


def quoted(text):
    return re.findall(r"`([^`]+)`", text)


# README.md's layout: one row per folder of src/, each of its C files named.
layout = {}
for cells in table_rows("README.md", "Layout"):
    for folder in quoted(cells[0]):
        if folder.startswith("src/"):
            layout[folder.rstrip("/")] = " ".join(cells[1:])
src = os.path.join(ROOT, "src")
for d in sorted(os.listdir(src)):
    path = os.path.join(src, d)
    if not os.path.isdir(path):
        continue
    row = layout.get("src/" + d)
    check(f"README.md's layout table has a row for src/{d}/", row is not None)
    if row is None:
        continue
    names = quoted(row)
    files = sorted(f for f in os.listdir(path) if f.endswith(".c"))
    for f in files:
        check(f"README.md's src/{d}/ row names {f}",
              any(fnmatch.fnmatchcase(f, n) for n in names if n.endswith(".c")))
    for sub in sorted(s for s in os.listdir(path) if os.path.isdir(os.path.join(path, s))):
        if any(n.endswith(".c") for n in os.listdir(os.path.join(path, sub))):
            check(f"README.md's src/{d}/ row names {sub}/", sub + "/" in names)
    # A name of the row that matches no file is a file renamed or removed.
    for n in names:
        if re.fullmatch(r"[\w*.-]+\.c", n):
            check(f"src/{d}/{n}, named in README.md, exists", any(fnmatch.fnmatchcase(f, n) for f in files))
for folder in sorted(layout):
    check(f"{folder}/, a row of README.md's layout table, exists", os.path.isdir(os.path.join(ROOT, folder)))

# tests/README.md's groups: those of run-all.sh's list of suites.
listed = subprocess.run([os.path.join(ROOT, "tests", "run-all.sh"), "--list"], check=True,
                        capture_output=True, text=True).stdout.split("\n")
groups = sorted({line.split()[1] for line in listed if line.strip()})
described = set()
for cells in table_rows("tests/README.md", "Running"):
    described.update(quoted(cells[0]))
for g in groups:
    check(f"tests/README.md's table of groups has {g}", g in described)
for g in sorted(described - set(groups)):
    check(f"tests/README.md's group {g} is a group of tests/run-all.sh --list", False)

finish()
