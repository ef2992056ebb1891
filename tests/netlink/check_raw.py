#!/usr/bin/env python3
"""Checks the C client's replies (nlquery's output) against the golden
file recorded on Linux 6.1, with nlclient.py's decoder and rules.
usage: nlquery NAME... | check_raw.py GOLDEN"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nlclient  # noqa: E402


def read_steps(lines):
    steps = []
    for line in lines:
        line = line.rstrip("\n")
        if line.startswith("STEP "):
            name, seq, portid = line[5:].split("\t")
            steps.append({"step": name, "replies": [], "seq": int(seq), "portid": int(portid)})
        elif line.startswith("DGRAM ") and steps:
            s = steps[-1]
            s["replies"].append(nlclient.decode(bytes.fromhex(line[6:]), s["seq"], s["portid"]))
        else:
            raise SystemExit("check_raw: unexpected line %r" % line[:60])
    return [{"step": s["step"], "replies": s["replies"]} for s in steps]


def main():
    with open(sys.argv[1]) as f:
        golden = {s["step"]: s for s in map(json.loads, filter(str.strip, f))}
    got = read_steps(sys.stdin)
    passed = failed = 0
    for s in got:
        want = golden.get(s["step"])
        errs = nlclient.compare([want], [s]) if want else ["not in the golden file"]
        if errs or not s["replies"]:
            failed += 1
            print("not ok - C client %s\n    %s" % (s["step"], "\n    ".join(errs or ["no reply"])))
        else:
            passed += 1
            print("ok - C client %s" % s["step"])
    if len(got) < 21:
        failed += 1
        print("not ok - C client ran only %d steps" % len(got))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
