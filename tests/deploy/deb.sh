#!/bin/bash
# `make deb`: builds the Debian packages with dpkg-buildpackage -b from a
# copy of the tree (so that nothing is written beside it), puts them in
# OUT, then checks them without installing them on this host: the file
# lists (dpkg-deb -c), that apt could install them here with their
# dependencies (apt-get --simulate), and, unpacked with dpkg -x, that the
# packaged algd starts by socket activation and serves the packaged
# ualg-run and libualg (built through the packaged ualg.pc).
# Usage: tests/deploy/deb.sh OUT   (ends "N passed, N failed")
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$(mkdir -p "${1:?usage: deb.sh OUT}" && cd "$1" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/ualg-deb.XXXXXX")
passed=0 failed=0 act=""
trap '[ -n "$act" ] && kill $act 2>/dev/null; rm -rf "$W"' EXIT
result() {
	if [ "$2" = 0 ]; then passed=$((passed + 1)); echo "ok - $1"
	else failed=$((failed + 1)); echo "not ok - $1"; fi
}
unset UALG_SOCKET LD_PRELOAD

# ---- build from a copy of the tracked and untracked (not ignored) files
mkdir -p "$W/src"
if git -C "$REPO" rev-parse --git-dir > /dev/null 2>&1; then
	(cd "$REPO" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$W/src")
else	# a tree without git: everything but the build directories
	tar -C "$REPO" --exclude='./build' --exclude='./build-*' --exclude='./obj-*' -cf - . | tar -C "$W/src" -xf -
fi
(cd "$W/src" && dpkg-buildpackage -b -uc -us) > "$OUT/build.log" 2>&1
rc=$?
[ $rc = 0 ] || tail -n 40 "$OUT/build.log"
result "dpkg-buildpackage -b -uc -us" $rc
rm -f "$OUT"/*.deb
cp "$W"/*.deb "$OUT"/ 2>/dev/null
ls "$OUT"/*.deb 2>/dev/null | sed 's/^/    /'
deb() { ls "$OUT"/"$1"_*.deb 2>/dev/null | head -n 1; }
for p in ualg libualg0 libualg-dev; do
	[ -n "$(deb $p)" ]; result "package $p built" $?
done

# ---- what each package holds
has() {	# package path-regex...
	local list p=$1; shift
	list=$(dpkg-deb -c "$(deb "$p")" | awk '{ print $6 }')
	for f; do grep -qE "^\./$f\$" <<< "$list" || { echo "    $p lacks $f"; return 1; }; done
}
has ualg usr/sbin/algd usr/bin/algctl usr/bin/ualg-run usr/bin/ualg-bench \
	'usr/lib/x86_64-linux-gnu/ualg/libualg-preload.so' 'usr/lib/x86_64-linux-gnu/ualg/libualg-engine.so' 'usr/lib/x86_64-linux-gnu/ualg/libualg-cryptodev.so' \
	usr/lib/x86_64-linux-gnu/ualg/libualg-backend-{checksum,sodium,ipsecmb,compress,botan,cryptopp}.so \
	usr/share/man/man7/ualg-cryptodev.7.gz lib/systemd/system/algd.socket \
	lib/systemd/system/algd.service usr/lib/tmpfiles.d/ualg.conf etc/ualg/algd.conf \
	etc/ualg/preload.conf usr/share/man/man8/algd.8.gz usr/share/man/man5/algd.conf.5.gz usr/share/man/man8/algctl.8.gz \
	usr/share/man/man1/ualg-run.1.gz usr/share/man/man1/ualg-bench.1.gz usr/share/man/man7/ualg.7.gz
result "ualg holds algd, algctl, ualg-run, ualg-bench, the shim, the units, tmpfiles, config, man pages" $?
has libualg0 'usr/lib/x86_64-linux-gnu/libualg.so.0(.1.0)?'
result "libualg0 holds libualg.so.0" $?
has libualg-dev usr/include/ualg.h usr/include/ualg_cryptodev.h 'usr/lib/x86_64-linux-gnu/pkgconfig/ualg.pc' \
	'usr/lib/x86_64-linux-gnu/libualg.so' usr/share/man/man3/libualg.3.gz \
	usr/share/doc/libualg-dev/examples/ring-sample.c
result "libualg-dev holds the headers, ualg.pc, libualg.so, libualg.3, the example" $?
dpkg-deb -I "$(deb ualg)" | grep -qE '^ Depends:.*libualg0.*libc6|^ Depends:.*libc6.*libualg0'
result "ualg depends on libc6 and libualg0 (shlibs)" $?
ctrl=$W/ctrl; dpkg-deb -e "$(deb ualg)" "$ctrl"
grep -q 'algd.socket' "$ctrl/postinst" && grep -q '/etc/ualg/algd.conf' "$ctrl/conffiles"
result "ualg's maintainer scripts enable algd.socket; /etc/ualg/*.conf are conffiles" $?

# ---- installable here with its dependencies (nothing is installed)
apt-get install --simulate --no-install-recommends "$(deb ualg)" "$(deb libualg0)" "$(deb libualg-dev)" \
	> "$W/apt.log" 2>&1
rc=$?; [ $rc = 0 ] || tail -n 10 "$W/apt.log"
result "apt-get install --simulate of the three packages" $rc

# ---- unpacked: socket activation, ualg-run, pkg-config
X=$W/root
for p in ualg libualg0 libualg-dev; do dpkg -x "$(deb $p)" "$X"; done
SOCK=$W/algd.sock
USER_OPT=(); [ "$(id -u)" = 0 ] && USER_OPT=(--user nobody)
systemd-socket-activate --seqpacket -l "$SOCK" "$X/usr/sbin/algd" --config "$X/etc/ualg/algd.conf" \
	"${USER_OPT[@]}" > "$W/act.log" 2>&1 &
act=$!
for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.1; done
out=$(printf abc | UALG_SOCKET=$SOCK UALG_ALGD=/nonexistent "$X/usr/bin/ualg-run" kcapi-dgst -c sha1 --hex 2>&1)
[ "$out" = a9993e364706816aba3e25717850c26c9cd0d89d ]
result "packaged algd (socket-activated) and ualg-run: kcapi-dgst -c sha1 of \"abc\": $out" $?
flags=$(PKG_CONFIG_PATH=$X/usr/lib/x86_64-linux-gnu/pkgconfig PKG_CONFIG_SYSROOT_DIR=$X pkg-config --cflags --libs ualg)
cc -o "$W/ring-sample" "$X/usr/share/doc/libualg-dev/examples/ring-sample.c" $flags &&
out=$(UALG_SOCKET=$SOCK LD_LIBRARY_PATH=$X/usr/lib/x86_64-linux-gnu "$W/ring-sample" 2>&1) &&
[ "$out" = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad ]
result "packaged libualg-dev: the example built through ualg.pc hashes \"abc\": $out" $?
if command -v lintian > /dev/null; then
	lintian --tag-display-limit 0 "$(deb ualg)" "$(deb libualg0)" "$(deb libualg-dev)" > "$W/lintian.log" 2>&1
	grep -E '^[EW]:' "$W/lintian.log" | sed 's/^/    /'
	! grep -qE '^[EW]:' "$W/lintian.log"; result "lintian: no errors or warnings" $?
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
