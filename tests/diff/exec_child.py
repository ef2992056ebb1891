"""The program a differential case exec()s (Recorder.exec): runs one function
of a case file on fds inherited across execve, printing canonical lines
numbered x1, x2... on stdout.
usage: exec_child.py CASES.py FUNCTION CASE TIMEOUT NAME=FD...
"""
import importlib.util
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import afalg  # noqa: E402


def main():
    path, func, case, timeout = sys.argv[1:5]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec = importlib.util.spec_from_file_location("ualg_exec_cases", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fds = {}
    for a in sys.argv[5:]:
        name, _, num = a.partition("=")
        fds[name] = afalg.Fd(name, int(num))

    def emit(line):
        sys.stdout.write(line + "\n")
        sys.stdout.flush()
    rec = afalg.Recorder(case, emit, float(timeout))
    rec.prefix = "x"
    getattr(mod, func)(rec, fds)


if __name__ == "__main__":
    main()
