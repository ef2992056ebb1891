#!/bin/bash
# The Debian packages installed for real with dpkg -i, used, and purged,
# in a throwaway copy of this machine: a private mount namespace with an
# overlay over / (the upper layer on a tmpfs), chrooted into, so that the
# host's own files and package database never change.  What runs there is
# what an administrator would do after `apt install ./ualg*.deb`: the
# maintainer scripts, the tmpfiles entry, algd started on its unit's socket
# (systemd-socket-activate stands in for systemd as init, which this machine
# lacks), programs reaching it with no UALG_SOCKET, algctl, man, the native
# API through ualg.pc, algctl preload enable (then a program without
# ualg-run), and dpkg --purge leaving nothing behind.
# Usage: tests/deploy/dpkg-root.sh DEBDIR  (the seed's hash sample is built
# there from examples/seed/hash-sample.c)
# (needs root and mount namespaces; prints TAP-style lines and "N passed,
# N failed").  Run inside the root by itself with --inside.
set -u

if [ "${1:-}" = --inside ]; then
	# ---- in the chroot: /tmp/ualg holds the packages and the sample's source
	passed=0 failed=0 act=""
	trap '[ -n "$act" ] && kill $act 2>/dev/null' EXIT
	result() {
		if [ "$2" = 0 ]; then passed=$((passed + 1)); echo "ok - $1"
		else failed=$((failed + 1)); echo "not ok - $1"; fi
	}
	unset UALG_SOCKET UALG_ALGD LD_PRELOAD XDG_RUNTIME_DIR
	cd /tmp/ualg || exit 1
	cc -o hash-sample hash-sample.c || exit 1
	dpkg -i ./libualg0_*.deb ./ualg_*.deb ./libualg-dev_*.deb > dpkg.log 2>&1
	rc=$?; [ $rc = 0 ] || sed 's/^/    /' dpkg.log | tail -n 20
	result "dpkg -i libualg0 ualg libualg-dev" $rc
	for p in ualg libualg0 libualg-dev; do
		[ "$(dpkg-query -W -f '${Status}' $p 2>/dev/null)" = "install ok installed" ]
		result "dpkg-query: $p is installed" $?
	done
	[ -L /etc/systemd/system/sockets.target.wants/algd.socket ]
	result "the postinst enabled algd.socket (sockets.target.wants)" $?
	systemd-tmpfiles --create /usr/lib/tmpfiles.d/ualg.conf && [ -d /run/ualg ]
	result "the tmpfiles entry makes /run/ualg" $?
	listen=$(sed -n 's/^ListenSequentialPacket=//p' /lib/systemd/system/algd.socket)
	exec_start=$(sed -n 's/^ExecStart=//p' /lib/systemd/system/algd.service)
	# The unit's DynamicUser, as a fixed unprivileged user here.
	UALG_PRELOAD_MODE=off systemd-socket-activate --seqpacket -l "$listen" $exec_start --user nobody \
		> act.log 2>&1 &
	act=$!
	for _ in $(seq 100); do [ -S "$listen" ] && break; sleep 0.1; done
	out=$(ualg-run ./hash-sample 2>&1)
	[ "$out" = a9993e364706816aba3e25717850c26c9cd0d89d ]
	result "the unit's algd on $listen serves /usr/bin/ualg-run with no UALG_SOCKET: $out" $?
	out=$(printf abc | ualg-run kcapi-dgst -c sha256 --hex 2>&1)
	[ "$out" = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad ]
	result "kcapi-dgst -c sha256 under the installed ualg-run: $out" $?
	algctl list 2>&1 | grep -q '^driver *: sha256-'
	result "algctl list reaches the system algd (a sha256 driver listed)" $?
	man -P cat algctl 2>/dev/null | grep -q 'preload enable'
	result "man algctl renders the installed page" $?
	cc -o ring-sample /usr/share/doc/libualg-dev/examples/ring-sample.c \
		$(pkg-config --cflags --libs ualg) > cc.log 2>&1 &&
	out=$(./ring-sample 2>&1) && [ "$out" = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad ]
	result "the example built with pkg-config ualg hashes \"abc\" through the system algd: $out" $?
	algctl preload enable > /dev/null 2>&1 && grep -q 'ualg/libualg-preload.so' /etc/ld.so.preload
	result "algctl preload enable puts the packaged shim in /etc/ld.so.preload" $?
	out=$(./hash-sample 2>&1)
	[ "$out" = a9993e364706816aba3e25717850c26c9cd0d89d ]
	result "then a program without ualg-run is served (mode auto, no AF_ALG in the kernel): $out" $?
	algctl preload disable > /dev/null 2>&1 && [ ! -e /etc/ld.so.preload ]
	result "algctl preload disable takes it out again" $?
	kill $act 2>/dev/null; wait $act 2>/dev/null; act=""
	dpkg --purge libualg-dev ualg libualg0 > purge.log 2>&1
	rc=$?; [ $rc = 0 ] || sed 's/^/    /' purge.log | tail -n 20
	result "dpkg --purge of the three packages" $rc
	left=""
	for f in /usr/sbin/algd /usr/bin/ualg-run /usr/include/ualg.h /etc/ualg \
		/lib/systemd/system/algd.socket /etc/systemd/system/sockets.target.wants/algd.socket; do
		[ -e "$f" ] || [ -L "$f" ] && left="$left $f"
	done
	[ -z "$left" ]; result "nothing left after the purge${left:+:$left}" $?
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
	exit
fi

DEBS=$(cd "${1:?usage: dpkg-root.sh DEBDIR}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
SELF=$HERE/$(basename "$0")
SAMPLE=$HERE/../../examples/seed/hash-sample.c
W=$(mktemp -d "${TMPDIR:-/tmp}/ualg-dpkg.XXXXXX")
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/layer" "$W/root"
# Everything below happens in the namespace's own mounts, gone with it.
unshare --mount --propagation private bash -s "$W" "$DEBS" "$SAMPLE" "$SELF" <<'EOF'
set -eu
W=$1 DEBS=$2 SAMPLE=$3 SELF=$4
M=$W/root
mount -t tmpfs -o size=1g tmpfs "$W/layer"
mkdir "$W/layer/upper" "$W/layer/work"
mount -t overlay overlay -o "lowerdir=/,upperdir=$W/layer/upper,workdir=$W/layer/work" "$M"
mount -t proc proc "$M/proc"
mount --rbind /dev "$M/dev"
mount -t tmpfs tmpfs "$M/run"
mount -t tmpfs tmpfs "$M/tmp"
mkdir "$M/tmp/ualg"
cp "$DEBS"/libualg0_*.deb "$DEBS"/ualg_*.deb "$DEBS"/libualg-dev_*.deb "$M/tmp/ualg/"
cp "$SAMPLE" "$M/tmp/ualg/hash-sample.c"
cp "$SELF" "$M/tmp/ualg/dpkg-root.sh"
set +e
chroot "$M" /bin/bash /tmp/ualg/dpkg-root.sh --inside
EOF
