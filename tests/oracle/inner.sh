#!/bin/bash
# Runs INSIDE the oracle guest (Linux 6.1 with AF_ALG), with the output folder as
# the current directory; called by tests/oracle/record.sh.  usage: inner.sh REPO
# Writes: proc-crypto.txt crypto-user.txt hash_skcipher.txt aead_rng.txt surface.txt kcapi.txt kcapi-aead.txt clients.txt
#         python-test-socket.txt
#         python-test-socket-full.txt more_algs.txt alg-names.txt kernel_names.txt
#         adiantum_aegis.txt  (and inner.log with statuses)
set -u
REPO=$1
fail=0
note() { echo "inner: $*" | tee -a inner.log; }
: > inner.log
note "kernel $(uname -r)"

# /proc/crypto first, before any test instantiates more algorithms.
cat /proc/crypto > proc-crypto.txt || fail=1
# crypto_user's answers, also from the boot-time registry.
python3 "$REPO/tests/netlink/nlclient.py" record > crypto-user.txt 2>> inner.log || { note "nlclient.py record failed"; fail=1; }

# Which kernel names bind (tests/coverage), before the corpora load more.
python3 "$REPO/tests/coverage/coverage.py" bind > alg-names.txt 2>> inner.log || { note "coverage.py bind failed"; fail=1; }
python3 "$REPO/tests/diff/run.py" "$REPO/tests/diff/cases_kernel_names.py" --timeout 30 --case-timeout 120 \
    --record kernel_names.txt >> inner.log 2>&1 || { note "run.py --record (kernel_names) failed"; fail=1; }
python3 "$REPO/tests/diff/run.py" "$REPO/tests/diff/cases_adiantum_aegis.py" --timeout 30 --case-timeout 300 \
    --record adiantum_aegis.txt >> inner.log 2>&1 || { note "run.py --record (adiantum_aegis) failed"; fail=1; }

python3 "$REPO/tests/diff/run.py" "$REPO/tests/diff/cases_hash_skcipher.py" --record hash_skcipher.txt \
    >> inner.log 2>&1 || { note "run.py --record failed"; fail=1; }
python3 "$REPO/tests/diff/run.py" "$REPO/tests/diff/cases_more_algs.py" --record more_algs.txt \
    >> inner.log 2>&1 || { note "run.py --record (more_algs) failed"; fail=1; }

python3 "$REPO/tests/diff/run.py" "$REPO/tests/diff/cases_aead_rng.py" --record aead_rng.txt \
    >> inner.log 2>&1 || { note "run.py --record (aead, rng) failed"; fail=1; }
python3 "$REPO/tests/diff/run.py" "$REPO/tests/diff/cases_surface.py" --record surface.txt \
    >> inner.log 2>&1 || { note "run.py --record surface failed"; fail=1; }

bash "$REPO/tests/real/kcapi.sh" > kcapi.txt 2>> inner.log || { note "kcapi.sh failed"; fail=1; }
bash "$REPO/tests/real/kcapi-aead.sh" > kcapi-aead.txt 2>> inner.log || { note "kcapi-aead.sh failed"; fail=1; }
bash "$REPO/tests/real/clients.sh" "$REPO/${BUILD:-build}/tests/kcapi-paths" > clients.txt 2>> inner.log \
    || { note "clients.sh failed"; fail=1; }

# Python's own AF_ALG tests; keep only per-test result lines and the summary.
pyfilter() {
    python3 -c '
import re, sys
for line in sys.stdin:
    line = line.rstrip("\n")
    if re.match(r"test_\w+ \(", line) or re.match(r"(OK|FAILED)\b", line):
        print(line)
    elif line.startswith("Ran "):
        print(re.sub(r" in [0-9.]+s$", "", line))
'
}
mkdir -p "$TMPDIR/pytest"
python3 -m test test_socket --tempdir "$TMPDIR/pytest" -v -m 'test_sha256' -m 'test_hmac_sha1' -m 'test_aes_cbc' \
    > py-raw.txt 2>&1; note "python test_socket (3 tests) rc=$?"
pyfilter < py-raw.txt > python-test-socket.txt
python3 -m test test_socket --tempdir "$TMPDIR/pytest" -v -m LinuxKernelCryptoAPI \
    > py-raw-full.txt 2>&1; note "python test_socket LinuxKernelCryptoAPI rc=$?"
pyfilter < py-raw-full.txt > python-test-socket-full.txt
rm -f py-raw.txt py-raw-full.txt
note "done fail=$fail"
exit $fail
