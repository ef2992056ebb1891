#!/bin/bash
# Re-records every golden file under tests/golden/ in ONE boot of the real
# Linux 6.1 kernel (Debian's, under qemu) via shared/kernel-oracle.sh.
#   usage (from anywhere, e.g. the repository root):  tests/oracle/record.sh [OUTDIR]
#   ORACLE=path/to/kernel-oracle.sh overrides the oracle (default: ../shared/
#   beside the repository, as in CI).  NO_COPY=1 records into OUTDIR only.
# Files: hash_skcipher.txt aead_rng.txt surface.txt more_algs.txt kcapi.txt kcapi-aead.txt clients.txt
#        python-test-socket.txt python-test-socket-full.txt proc-crypto.txt crypto-user.txt alg-names.txt kernel_names.txt
#        adiantum_aegis.txt
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ORACLE=${ORACLE:-$REPO/../shared/kernel-oracle.sh}
# Under software emulation, with crypto modules loaded (and self-tested) on
# demand, the whole recording takes longer than the oracle's default 900 s.
export ORACLE_TIMEOUT=${ORACLE_TIMEOUT:-3600}
OUT=${1:-$(mktemp -d "${TMPDIR:-/tmp}/ualg-oracle-out.XXXXXX")}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
FILES="hash_skcipher.txt aead_rng.txt surface.txt more_algs.txt kcapi.txt kcapi-aead.txt clients.txt python-test-socket.txt python-test-socket-full.txt proc-crypto.txt crypto-user.txt alg-names.txt kernel_names.txt adiantum_aegis.txt"
for f in $FILES inner.log; do rm -f "$OUT/$f"; done

echo "record.sh: booting the oracle, output in $OUT" >&2
"$ORACLE" "$OUT" "bash '$REPO/tests/oracle/inner.sh' '$REPO'" > "$OUT/oracle.log" 2>&1 || true
grep '^inner:' "$OUT/oracle.log" >&2 || true
rc=$(sed -n 's/^ORACLE_RC=//p' "$OUT/oracle.log" | tail -n 1)
if [ "$rc" != 0 ]; then
    echo "record.sh: oracle run failed (ORACLE_RC=${rc:-none}); see $OUT/oracle.log" >&2
    tail -n 20 "$OUT/oracle.log" >&2
    exit 1
fi
for f in $FILES; do
    [ -s "$OUT/$f" ] || { echo "record.sh: $OUT/$f missing or empty" >&2; exit 1; }
done
if [ "${NO_COPY:-0}" != 1 ]; then
    mkdir -p "$REPO/tests/golden"
    for f in $FILES; do cp "$OUT/$f" "$REPO/tests/golden/$f"; done
    echo "record.sh: copied $FILES into tests/golden/" >&2
fi
