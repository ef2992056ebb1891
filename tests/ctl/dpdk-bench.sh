#!/bin/bash
# make bench's DPDK rows (ualg-bench --dpdk), for each DPDK software device:
# 64 KiB cbc(aes) through algd's driver of the device, by the native ring
# (one request per round trip, and pipelined batches) and by AF_ALG,
# against the same device driven directly with DPDK's API in ualg-bench;
# and 64 B operations through the native ring's batches (bursts on the
# device) against the device driven directly with bursts of 32.  A table
# and summary lines per device.  A benchmark, not a test; prints why and
# exits 0 when algd has no DPDK or EAL does not start here.
# usage: tests/ctl/dpdk-bench.sh [DEVICE...]  (BUILD=build dir; default crypto_openssl
#        and crypto_aesni_mb where DPDK has it; BENCH_SECONDS per measurement)
set -u
B=${BUILD:-build}
cd "$(dirname "$0")/../.." || exit 1
DEVS="$*"
if [ -z "$DEVS" ]; then
	DEVS=crypto_openssl
	for pmd in /usr/lib/*/dpdk/pmds-*/librte_crypto_ipsec_mb.so; do
		[ -e "$pmd" ] && DEVS="$DEVS crypto_aesni_mb"
	done
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/ualg-dpdk-bench.XXXXXX")
chmod 755 "$T"
export UALG_SOCKET=$T/algd.sock
PID=
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$T"' EXIT
VDEVS=
for d in $DEVS; do VDEVS="$VDEVS --vdev $d"; done
echo "dpdk-eal --no-huge --no-pci $VDEVS --log-level=*:warning" > "$T/algd.conf"
chmod 644 "$T/algd.conf"
"$B/src/algd/algd" --config "$T/algd.conf" --socket "$UALG_SOCKET" --ready-fd 3 3>"$T/ready" 2>"$T/log" &
PID=$!
for _ in $(seq 300); do [ -s "$T/ready" ] && break; sleep 0.1; done
if ! [ -s "$T/ready" ] || grep -q "without DPDK\|EAL did not start" "$T/log"; then
	echo "dpdk-bench: no DPDK devices in algd here:"; sed 's/^/    /' "$T/log"; exit 0
fi
for d in $DEVS; do
	echo "== $d"
	UALG_ENGINE=algd "$B/src/tools/ualg-bench" --dpdk "$d" --seconds "${BENCH_SECONDS:-0.5}"
done
exit 0
