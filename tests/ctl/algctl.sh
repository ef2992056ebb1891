#!/bin/bash
# algctl and algd's administration against an algd of its own (so that the
# priorities it changes touch no other test): /proc/crypto-format listing,
# exit codes, SO_PEERCRED authorization, the config file (strict parsing,
# SIGHUP, save), disable, add/del, the priority switch seen by new sockets,
# and the NETLINK_CRYPTO replies against the oracle's.  Ends with
# "N passed, N failed".  usage: tests/ctl/algctl.sh  (BUILD=build dir)
set -u
B=${BUILD:-build}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO" || exit 1
ALGD=${ALGD:-$B/src/algd/algd} ALGCTL=$B/src/tools/algctl RUN=$B/src/tools/ualg-run
T=$(mktemp -d "${TMPDIR:-/tmp}/ualg-ctl.XXXXXX")
chmod 755 "$T"		# nobody must reach the socket for the EPERM checks
SOCK=$T/algd.sock CONF=$T/algd.conf
NOBODY="setpriv --reuid 65534 --regid 65534 --clear-groups"
passed=0 failed=0 PID=

result() {	# status name
	if [ "$1" = 0 ]; then passed=$((passed + 1)); echo "ok - $2"
	else failed=$((failed + 1)); echo "not ok - $2"; fi
}
ctl() { "$ALGCTL" --socket "$SOCK" "$@"; }
prio() { ctl --json show "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["priority"])'; }
stop_algd() { [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null; PID=; }
start_algd() {
	rm -f "$T/ready"
	"$ALGD" --config "$CONF" --ready-fd 3 3>"$T/ready" 2>>"$T/algd.log" &
	PID=$!
	for _ in $(seq 100); do [ -s "$T/ready" ] && break; sleep 0.1; done
	chmod 777 "$SOCK"
}
# SIGHUP is asynchronous: wait (up to 10 s) for algd to log the outcome.
hup() {
	local before; before=$(grep -c "$1" "$T/algd.log")
	kill -HUP "$PID"
	for _ in $(seq 100); do
		[ "$(grep -c "$1" "$T/algd.log")" -gt "$before" ] && return 0
		sleep 0.1
	done
	return 1
}
trap 'stop_algd; rm -rf "$T"' EXIT

# --- strict parsing: each bad file is refused with its line -----------------
n=0
for bad in 'priority sha1-openssl abc' 'priority sha1-openssl -1' 'priority sha1-openssl 1 2' \
	   'prio sha1-openssl 1' 'disable' 'admin-group no-such-group-x' 'socket relative/path' \
	   "priority sha1-openssl $(printf '%0300d' 1)" 'priority sha1-openssl 2147483648'; do
	n=$((n + 1))
	printf '# comment\n%s\n' "$bad" > "$T/bad.conf"
	"$ALGD" --config "$T/bad.conf" --list > /dev/null 2> "$T/err"
	rc=$?
	[ $rc = 1 ] && grep -q "bad.conf:2:" "$T/err"
	result $? "config line '${bad:0:40}' is refused with its line number (rc $rc)"
done

# --- the config names the socket and a priority --------------------------------
printf 'socket %s\n# a comment\n\npriority sha1-openssl 250   # trailing comment\n' "$SOCK" > "$CONF"
start_algd
[ -S "$SOCK" ]; result $? "algd listens on the config file's socket"
[ "$(prio sha1-openssl)" = 250 ]; result $? "the config file's priority applies"

# --- listing ------------------------------------------------------------------
ctl list > "$T/list"; result $? "algctl list"
[ "$(grep -c '^driver' "$T/list")" = "$("$ALGD" --list | wc -l)" ]
result $? "algctl list holds every registered driver"
python3 tests/ctl/parse_proc_crypto.py tests/golden/proc-crypto.txt "$T/list" tests/ctl/lacking.txt > "$T/cmp"
rc=$?; grep -v '^ok' "$T/cmp" | sed 's/^/    /'
result $rc "algctl list parses as /proc/crypto; vs Linux 6.1 only tests/ctl/lacking.txt's algorithms differ ($(tail -n1 "$T/cmp"))"
ctl --json list | python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d) > 20 and all("stats" in r for r in d)'
result $? "algctl --json list is JSON with statistics"
ctl show sha256 | grep -q '^driver       : sha256-openssl$'; result $? "algctl show sha256"
ctl stats | grep -q '^sha256-openssl '; result $? "algctl stats"

# --- NETLINK_CRYPTO against the oracle's replies (no admin group yet) -----------------------------------------
UALG_SOCKET=$SOCK "$RUN" python3 tests/netlink/nlclient.py check tests/golden/crypto-user.txt > "$T/nl" 2>&1
rc=$?; grep -v '^ok' "$T/nl" | sed 's/^/    /'
result $rc "NETLINK_CRYPTO replies match tests/golden/crypto-user.txt: $(tail -n1 "$T/nl")"
UALG_SOCKET=$SOCK "$RUN" "$B/tests/nlquery" sha1 sha224 sha256 sha384 sha512 md5 sha3-224 sha3-256 \
	sha3-384 sha3-512 'hmac(sha256)' 'hmac(sha512)' aes des3_ede 'ecb(aes)' 'cbc(aes)' 'ctr(aes)' \
	'xts(aes)' 'cts(cbc(aes))' 'ecb(des3_ede)' 'cbc(des3_ede)' 'gcm(aes)' > "$T/nlc" 2>&1
python3 tests/netlink/check_raw.py tests/golden/crypto-user.txt < "$T/nlc" > "$T/nlc.out" 2>&1
rc=$?; grep -v '^ok' "$T/nlc.out" | sed 's/^/    /'
result $rc "C netlink client (tests/netlink/nlquery.c) gets the replies Linux 6.1 gave: $(tail -n1 "$T/nlc.out")"

# --- exit codes -----------------------------------------------------------------
ctl show no-such-alg 2>/dev/null; [ $? = 1 ]; result $? "show of an unknown name exits 1"
ctl frobnicate 2>/dev/null; [ $? = 2 ]; result $? "an unknown command exits 2"
ctl priority sha1-openssl 12x 2>/dev/null; [ $? = 2 ]; result $? "a bad priority exits 2"
"$ALGCTL" --socket "$T/none.sock" list 2>/dev/null; [ $? = 3 ]; result $? "no algd exits 3"
ctl priority no-such-driver 5 2>/dev/null; [ $? = 1 ]; result $? "priority of an unknown driver exits 1"

# --- authorization ------------------------------------------------------------------
$NOBODY "$ALGCTL" --socket "$SOCK" list > /dev/null; result $? "nobody may list"
$NOBODY "$ALGCTL" --socket "$SOCK" priority sha1-openssl 10 2> "$T/err"
[ $? = 1 ] && grep -q "only root or algd's admin group" "$T/err" && [ "$(prio sha1-openssl)" = 250 ]
result $? "nobody's priority change is refused (EPERM) and changes nothing"
$NOBODY "$ALGCTL" --socket "$SOCK" add 'ctr(des3_ede)' 2>/dev/null; [ $? = 1 ]
result $? "nobody's add is refused"
echo 'admin-group nogroup' >> "$CONF"
hup "configuration reloaded" || echo "    (no reload logged)"
$NOBODY "$ALGCTL" --socket "$SOCK" priority sha1-openssl 10 && [ "$(prio sha1-openssl)" = 10 ]
result $? "after SIGHUP with admin-group nogroup, nobody may change a priority"

# --- a bad reload keeps the settings in force ---------------------------------------
cp "$CONF" "$T/good.conf"
echo 'priority sha1-openssl' >> "$CONF"
hup "not reloaded"; rc=$?
[ $rc = 0 ] && $NOBODY "$ALGCTL" --socket "$SOCK" priority sha1-openssl 11 && [ "$(prio sha1-openssl)" = 11 ]
result $? "a config that does not parse is not applied on SIGHUP; the old one stays"
cp "$T/good.conf" "$CONF"

# --- save, and the next start reads it --------------------------------------------
ctl priority sha256-openssl 333 && ctl save && grep -qx 'priority sha256-openssl 333' "$CONF" &&
	grep -qx "socket $SOCK" "$CONF" && grep -qx 'admin-group 65534' "$CONF"
result $? "algctl save writes priorities, socket and admin group"
stop_algd; start_algd
[ "$(prio sha256-openssl)" = 333 ]; result $? "a restarted algd has the saved priority"

# --- disable, add, del ---------------------------------------------------------------
# crc32 has one driver (zlib's; sha1, sha2 and sha3 have several: OpenSSL's
# EVP and low-level ones, Nettle's, intel-ipsec-mb's).
hash_crc32() { UALG_SOCKET=$SOCK "$RUN" python3 -c 'import socket; s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET); s.bind(("hash", "crc32"))' 2>/dev/null; }
ctl disable crc32-zlib && ! hash_crc32; result $? "a disabled driver is not found by bind()"
ctl enable crc32-zlib && hash_crc32; result $? "enabled again, it is"
ctl disable crc32-zlib && ctl save && grep -qx 'disable crc32-zlib' "$CONF"
result $? "algctl save writes the disabled drivers"
stop_algd; start_algd
! hash_crc32; result $? "disabled in the config file, a driver stays out of lookups after a restart"
sed -i '/^disable crc32-zlib$/d' "$CONF"
hup "configuration reloaded" && hash_crc32
result $? "a reload re-enables a driver the file no longer disables"
ctl add 'ctr(des3_ede)' && ctl show 'ctr(des3_ede)' | grep -q '^driver       : ctr(des3_ede-openssl)$'
result $? "algctl add instantiates a template"
ctl add 'ctr(des3_ede)' 2>/dev/null; [ $? = 1 ]; result $? "adding it again exits 1 (EEXIST)"
ctl del sha1-openssl 2> "$T/err"; [ $? = 1 ] && grep -q "not a template instance" "$T/err"
result $? "del of a driver's own algorithm is refused"
ctl del 'ctr(des3_ede-openssl)' && ! ctl show 'ctr(des3_ede)' 2>/dev/null
result $? "algctl del removes an unused instance"

out=$(UALG_SOCKET=$SOCK "$RUN" python3 tests/ctl/gcm_driver.py gcm-aes-nettle 2>&1)
result $? "AF_ALG aead on Nettle's GCM: $out"

# --- the priority switch, seen by new sockets ----------------------------------------
# It reads the choice off algd's per-driver operation counts, which count
# what algd serves: the sockets go through algd's engine.
UALG_ENGINE=algd UALG_SOCKET=$SOCK "$RUN" python3 tests/ctl/switch.py "$ALGCTL" "$SOCK" cbc-aes-openssl cbc-aes-nettle > "$T/sw" 2>&1
rc=$?; sed 's/^/    /' "$T/sw"
result $rc "priority switch between OpenSSL and Nettle: $(tail -n1 "$T/sw")"

kill -0 "$PID" 2>/dev/null; result $? "algd survived"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
