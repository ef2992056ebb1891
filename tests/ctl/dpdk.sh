#!/bin/bash
# DPDK cryptodev devices as algd drivers, against an algd of its own with
# DPDK's software devices (crypto_openssl, and crypto_aesni_mb where
# DPDK has it; no hugepages, no PCI), under the sandbox (as nobody when
# run as root): every device driver passes its self-test, answers by its
# driver name as the kernel's algorithm of that name (dpdk_vectors.py),
# a ring's batches of hashes and AEADs (encryptions and decryptions) in
# bursts answer as the standard vectors (test-ualg --only), templates
# over a device's cipher keep to their own requests, algd.conf's
# priority lines and algctl priority move it, and algctl stats
# shows which driver served a socket; EAL arguments EAL refuses leave
# algd running without the devices.  UALG_ALGD_WRAP (check-valgrind)
# runs its algd under a tool, whose verdict is algd's exit status at
# SIGTERM.  Exits 77 when algd was built
# without DPDK or EAL cannot start here.  Ends with "N passed, N failed".
# usage: tests/ctl/dpdk.sh  (BUILD=build dir)
set -u
B=${BUILD:-build}
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/ualg-dpdk.XXXXXX")
chmod 755 "$T"
export UALG_SOCKET=$T/algd.sock
CTL="$B/src/tools/algctl"
WRAP=${UALG_ALGD_WRAP:-}	# check-valgrind: algd under valgrind
passed=0 failed=0 PID=
result() { if [ "$1" = 0 ]; then passed=$((passed + 1)); echo "ok - $2"
	else failed=$((failed + 1)); echo "not ok - $2"; fi; }
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$T"' EXIT
skip() { echo "# skipped: $1"; echo "0 passed, 0 failed"; exit 77; }

VDEVS="--vdev crypto_openssl"
for pmd in /usr/lib/*/dpdk/pmds-*/librte_crypto_ipsec_mb.so; do
	[ -e "$pmd" ] && VDEVS="$VDEVS --vdev crypto_aesni_mb"
done
cat > "$T/algd.conf" <<C
dpdk-eal --no-huge --no-pci $VDEVS --log-level=*:warning
priority sha256-dpdk-crypto_openssl 151
C
chmod 644 "$T/algd.conf"
$WRAP "$B/src/algd/algd" --config "$T/algd.conf" --list > "$T/list" 2> "$T/log"
if grep -q "built without DPDK" "$T/log"; then skip "algd built without DPDK (libdpdk-dev, meson -Ddpdk)"; fi
if grep -q "EAL did not start" "$T/log"; then sed 's/^/    /' "$T/log"; skip "DPDK's EAL does not start here"; fi

OPTS=${UALG_ALGD_OPTS:-}
[ "$(id -u)" = 0 ] && OPTS="$OPTS --user nobody"
$WRAP "$B/src/algd/algd" -v --config "$T/algd.conf" --socket "$UALG_SOCKET" --ready-fd 3 $OPTS 3>"$T/ready" 2>>"$T/log" &
PID=$!
for _ in $(seq 300); do [ -s "$T/ready" ] && break; sleep 0.1; done
[ -s "$T/ready" ]; result $? "algd starts with DPDK's devices ($VDEVS)"
"$CTL" list > "$T/proc"
n=$(grep -c '^driver *: .*-dpdk-crypto_' "$T/proc")
[ "$n" -ge 12 ]; result $? "algctl list shows the devices' drivers ($n)"
grep -A1 '^driver *: cbc-aes-dpdk-crypto_openssl$' "$T/proc" | grep -q '^module *: dpdk'
result $? "their module is dpdk"
# below every driver of the core by default: generic names stay theirs
prio=$("$CTL" --json show cbc-aes-dpdk-crypto_openssl | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["priority"])')
[ "$prio" = 150 ]; result $? "a software device's drivers at priority 150 (got $prio)"
prio=$("$CTL" --json show sha256-dpdk-crypto_openssl | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["priority"])')
[ "$prio" = 151 ]; result $? "algd.conf's priority line applies to a device's driver (got $prio)"

"$CTL" --json list > "$T/json"
"$B/src/tools/ualg-run" python3 tests/ctl/dpdk_vectors.py < "$T/json" > "$T/vec" 2>&1
sed 's/^/    /' "$T/vec"
set -- $(grep -E '^[0-9]+ passed, [0-9]+ failed' "$T/vec" | tail -n 1)
passed=$((passed + ${1:-0})); failed=$((failed + ${3:-1}))

# the native ring's batches go to a device in bursts: ualg-bench's
# native paths submit a batch first and compare it with OpenSSL's answer
for dev in crypto_openssl $(echo "$VDEVS" | grep -o crypto_aesni_mb); do
	for alg in 'cbc(aes)' 'ctr(aes)'; do
		drv=$(echo "$alg" | tr '()' '- ' | tr -d ' ')-dpdk-$dev
		UALG_ENGINE=algd "$B/src/tools/ualg-bench" --alg "$alg" --size 256 --driver "$drv" --seconds 0.02 \
			--no-parallel --no-memory > "$T/bench" 2>&1
		grep -q 'native-batch  *[0-9]' "$T/bench" && ! grep -q MISMATCH "$T/bench"
		result $? "a ring batch of $alg through $drv: as OpenSSL" || sed 's/^/    /' "$T/bench"
	done
done

# a template over a device's cipher (cts, essiv) runs its own requests, not
# the device's bursts, which would skip what the template adds: one block
# of cts(cbc) is cbc's, essiv's IV is its own (no reference here: its rows
# only have to be there), and algd stays up
UALG_ENGINE=algd "$B/src/tools/ualg-bench" --alg 'cbc(aes)' --size 16 --driver 'cts(cbc-aes-dpdk-crypto_openssl)' \
	--seconds 0.02 --repeat 1 --no-parallel --no-memory > "$T/bench" 2>&1
UALG_ENGINE=algd "$B/src/tools/ualg-bench" --alg 'cbc(aes)' --size 256 --driver 'essiv(cbc-aes-dpdk-crypto_openssl,sha256)' \
	--seconds 0.02 --repeat 1 --no-parallel --no-memory > "$T/bench2" 2>&1
[ "$(grep -c 'native-[a-z]*  *[0-9]' "$T/bench")" = 2 ] && ! grep -q MISMATCH "$T/bench" &&
	[ "$(grep -c 'native-[a-z]*  *[0-9]' "$T/bench2")" = 2 ] && kill -0 $PID
result $? "the ring's cts and essiv over cbc-aes-dpdk-crypto_openssl, one at a time and batched" ||
	sed 's/^/    /' "$T/bench" "$T/bench2"

# which driver served a socket: its stats move
ops() { "$CTL" --json show "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["stats"]["ops"])'; }
cbc() { "$B/src/tools/ualg-run" python3 -c '
import socket
t = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)
t.bind(("skcipher", "cbc(aes)"))
t.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, bytes.fromhex("06a9214036b8a15b512e03d534120006"))
op, _ = t.accept()
op.sendmsg_afalg([b"Single block msg"], op=socket.ALG_OP_ENCRYPT, iv=bytes.fromhex("3dafba429d9eb430b422da802c9fac41"))
print(op.recv(16).hex())'; }
before=$(ops cbc-aes-dpdk-crypto_openssl)
"$CTL" priority cbc-aes-dpdk-crypto_openssl 5000
out=$(UALG_ENGINE=algd cbc)
after=$(ops cbc-aes-dpdk-crypto_openssl)
[ "$out" = e353779c1079aeb82708942dbe77181a ] && [ "$after" -gt "$before" ]
result $? "algctl priority 5000: cbc(aes) served by cbc-aes-dpdk-crypto_openssl (RFC 3602 case 1; ops $before -> $after)"
"$CTL" priority cbc-aes-dpdk-crypto_openssl 150
before=$after
out=$(UALG_ENGINE=algd cbc)
after=$(ops cbc-aes-dpdk-crypto_openssl)
[ "$out" = e353779c1079aeb82708942dbe77181a ] && [ "$after" = "$before" ]
result $? "back at 150: cbc(aes) served by the core's driver again"
# A ring batch's hashes and AEAD encryptions and decryptions go to a
# device in bursts (digest_many, encrypt_many, decrypt_many): with its
# drivers chosen for their names, test-ualg's vectors one at a time and
# three times in a row on one transform (one burst), every completion
# checked, and three decryptions whose middle one's tag is spoilt (refused
# alone, its bytes left as they were).
for dev in crypto_openssl $(echo "$VDEVS" | grep -o crypto_aesni_mb); do
	names=() drvs=() prios=()
	for n in sha1 sha256 sha512 'hmac(sha1)' 'hmac(sha256)' 'gcm(aes)' 'rfc7539(chacha20,poly1305)'; do
		drv=$(echo "$n" | tr '(),' '-  ' | tr -s ' ' '-' | sed 's/-$//')-dpdk-$dev
		grep -qx "driver *: $drv" "$T/proc" || continue
		names+=("$n") drvs+=("$drv")
		prios+=("$("$CTL" --json show "$drv" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["priority"])')")
		"$CTL" priority "$drv" 5000
	done
	UALG_ENGINE=algd "$B/tests/test-ualg" --only "${names[@]}" > "$T/bursts" 2>&1
	rc=0
	grep -qx '[1-9][0-9]* passed, 0 failed' "$T/bursts" && grep -q 'in a row' "$T/bursts" || rc=1
	for n in "${names[@]}"; do	# the AEADs' decryptions ran, and the spoilt tag's
		case $n in gcm*|rfc7539*) grep -qF "$n decryptions: " "$T/bursts" &&
			grep -qF "$n: three decryptions" "$T/bursts" || rc=1 ;; esac
	done
	result $rc "a ring's batches of ${names[*]} on $dev's drivers, in bursts: as the standard vectors" ||
		sed 's/^/    /' "$T/bursts"
	# Several clients at once: a caller's jobs and those of the callers
	# waiting behind it go to the device in one burst (dpdk_job.c); each
	# client still gets its own results, a spoilt tag refused only where
	# it was.  algd says (-v) when a burst first held several callers':
	# the clients go on until it did (2 to 15 s, two runs each at least;
	# under valgrind, where algd's threads run one at a time and may never
	# meet, the two runs or 2 s).
	shared_line="device $dev: a burst of [0-9]* operations from [2-9][0-9]* callers"
	pids=()
	for p in 1 2 3 4; do
		( min=$((SECONDS + 2)) end=$((SECONDS + 15)); runs=0 bad=0
		  [ -n "$WRAP" ] && end=$min
		  while [ $runs -lt 2 ] || { [ $SECONDS -lt $end ] &&
			! { [ $SECONDS -ge $min ] && grep -q "$shared_line" "$T/log"; }; }; do
			UALG_ENGINE=algd "$B/tests/test-ualg" --only "${names[@]}" > "$T/many$p" 2>&1 &&
				grep -qx '[1-9][0-9]* passed, 0 failed' "$T/many$p" || { bad=$((bad + 1)); cp "$T/many$p" "$T/manybad"; }
			runs=$((runs + 1))
		  done
		  echo "$runs $bad" > "$T/many$p.res" ) &
		pids+=($!)
	done
	wait "${pids[@]}"
	runs=0 bad=0
	for p in 1 2 3 4; do read -r r b < "$T/many$p.res"; runs=$((runs + r)) bad=$((bad + b)); done
	shared=$(grep -c "$shared_line" "$T/log")
	[ "$bad" = 0 ] && { [ "$shared" = 1 ] || [ -n "$WRAP" ]; }
	result $? "4 clients at once on $dev's drivers, $runs runs: all as the standard vectors, bursts shared by callers ($shared)" ||
		{ [ -e "$T/manybad" ] && sed 's/^/    /' "$T/manybad"; }
	for i in "${!drvs[@]}"; do "$CTL" priority "${drvs[$i]}" "${prios[$i]}"; done
done

kill -0 $PID; result $? "algd still runs (the seccomp filter let DPDK be)"
# under check-valgrind's wrap, errors and definite leaks make the exit status 99
stop() { kill $PID; wait $PID 2>/dev/null; local rc=$?; PID=; [ "$rc" = 0 ]; result $? "$1 (exit $rc)"; }
stop "algd with DPDK's devices exits 0 on SIGTERM"

# EAL arguments EAL refuses: algd logs it and starts without the devices
rm -f "$T/ready" "$UALG_SOCKET"
echo "dpdk-eal --no-huge --no-pci --no-such-eal-option" > "$T/bad.conf"
chmod 644 "$T/bad.conf"
$WRAP "$B/src/algd/algd" --config "$T/bad.conf" --socket "$UALG_SOCKET" --ready-fd 3 $OPTS 3>"$T/ready" 2>"$T/badlog" >/dev/null &
PID=$!
for _ in $(seq 300); do [ -s "$T/ready" ] && break; sleep 0.1; done
[ -s "$T/ready" ] && grep -q "EAL did not start" "$T/badlog"
result $? "bad EAL arguments: algd logs that EAL did not start and starts"
"$CTL" list > "$T/proc"
! grep -q -- '-dpdk-' "$T/proc" && grep -q '^driver *: cbc-aes-openssl$' "$T/proc"
result $? "without the devices, with the core's drivers"
out=$(UALG_ENGINE=algd cbc)
[ "$out" = e353779c1079aeb82708942dbe77181a ]; result $? "and serves cbc(aes) (RFC 3602 case 1)"
stop "algd without the devices exits 0 on SIGTERM"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
