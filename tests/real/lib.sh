# Helpers shared by the real-client scripts (sourced, not run).
#   gen NAME BYTES ...   deterministic input files (SHA-256 counter stream)
#   show FILE            a one-word summary of a file's contents
#   run OUTFILE 'cmd'    runs cmd (with a timeout), prints "cmd rc=N out=..."
#                        (OUTFILE - means the command's stdout)

gen() {
    python3 - "$@" <<'PY'
import hashlib, sys
args = sys.argv[1:]
for name, n in zip(args[::2], args[1::2]):
    n, out, i = int(n), bytearray(), 0
    while len(out) < n:
        out += hashlib.sha256(b"ualg-kcapi-data" + i.to_bytes(8, "big")).digest()
        i += 1
    open(name, "wb").write(bytes(out[:n]))
PY
}

# text:HEX for a one-line hex file (a --hex digest), the hex of the bytes
# if <= 64 bytes, else sha256:HEX len=N; "(empty)" or "missing".
show() {
    local n
    n=$(stat -c %s "$1" 2>/dev/null || echo missing)
    if [ "$n" = missing ]; then echo "missing"
    elif [ "$n" -eq 0 ]; then echo "(empty)"
    elif [ "$n" -le 257 ] && LC_ALL=C grep -qxE '[0-9a-f]+' "$1" && [ "$(wc -l < "$1")" -le 1 ]; then
        echo "text:$(tr -d '\n' < "$1")"
    elif [ "$n" -le 64 ]; then od -An -v -tx1 "$1" | tr -d ' \n'; echo
    else echo "sha256:$(sha256sum "$1" | cut -d' ' -f1) len=$n"
    fi
}

run() {
    local of=$1 cmd=$2 rc
    rm -f out.stdout "$of" 2>/dev/null
    timeout "${KCAPI_TIMEOUT:-120}" bash -o pipefail -c "$cmd" > out.stdout 2> out.stderr < /dev/null
    rc=$?
    [ "$of" = - ] && of=out.stdout
    if [ "$rc" -ne 0 ] && [ -s out.stderr ]; then
        echo "$cmd rc=$rc out=$(show "$of") err=$(head -n 1 out.stderr | tr -c 'A-Za-z0-9.:()=-' '_' | cut -c1-120)"
    else
        echo "$cmd rc=$rc out=$(show "$of")"
    fi
}
