#!/usr/bin/env bash
# keepalived: Debian's own source package (VRRP only), linked static-pie against glibc with no
# optional libraries: no LVS/IPVS, libnl, SNMP, DBus, iptables/ipset/nftables, systemd, libmagic,
# OpenSSL (VRRP authentication is compiled out; VRRPv3 has none anyway). The source comes from
# deb-src entries derived from the machine's own apt sources, in a private apt configuration.
. "$(dirname "$0")/lib.sh"
v=$1 out=$2 apt=$CACHE/src/keepalived-apt
[ "$ARCH" = "$HOST_ARCH" ] || die "keepalived is built natively only: build an $ARCH bundle with it on an $ARCH machine, or leave apiEndpoint.virtualIp out of $ARCH clusters"
need_packages gcc make libc6-dev pkg-config dpkg-dev file

# Private apt configuration: the system's entries with Types: deb-src (the system's is untouched).
rm -rf "${apt:?}/etc"; mkdir -p "$apt/etc/sources.list.d" "$apt/lists/partial" "$apt/cache/archives/partial"
: > "$apt/etc/sources.list"
[ -f /etc/apt/sources.list ] && sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' /etc/apt/sources.list >> "$apt/etc/sources.list"
for f in /etc/apt/sources.list.d/*.list; do
  [ -f "$f" ] && sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" >> "$apt/etc/sources.list"
done
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && sed -E 's/^Types:.*/Types: deb-src/' "$f" > "$apt/etc/sources.list.d/${f##*/}"
done
aptopts=(-o "Dir::Etc::SourceList=$apt/etc/sources.list" -o "Dir::Etc::SourceParts=$apt/etc/sources.list.d"
  -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache")
apt-get "${aptopts[@]}" -qq update

# The Debian version whose upstream part is $v (the highest if several suites carry one).
debver=$(apt-cache "${aptopts[@]}" showsrc keepalived | sed -n 's/^Version: //p' |
  awk -v u="${v#v}" '{ x = $0; sub(/^[0-9]+:/, "", x); sub(/-[^-]*$/, "", x); if (x == u) print }' | sort -V | tail -n1)
[ -n "$debver" ] || die "no keepalived source package for upstream ${v#v} in the machine's apt sources"
src=$CACHE/src/keepalived-${debver#*:}; rm -rf "$src"; mkdir -p "$src"
# apt checks every file against the signed Sources index. Some mirrors miss the small
# .debian.tar.xz: then build from the verified .orig tarball (2.2.7-1 carries no patches).
(cd "$src" && apt-get "${aptopts[@]}" source --download-only "keepalived=$debver") || true
dsc=$(ls "$src"/keepalived_*.dsc 2>/dev/null) || die "apt-get source did not fetch the .dsc of keepalived $debver"
orig=$src/keepalived_${v#v}.orig.tar.gz
sum=$(sed -n '/^Checksums-Sha256:/,/^[^ ]/p' "$dsc" | awk -v f="${orig##*/}" '$3 == f {print $1}')
if [ -z "$sum" ] || ! echo "$sum  $orig" | sha256sum -c -; then die "${orig##*/} missing or not matching $dsc"; fi
if ls "$src"/keepalived_*.debian.tar.* >/dev/null 2>&1; then
  dpkg-source -x "$dsc" "$src/tree"
  n=0; [ -f "$src/tree/debian/patches/series" ] && n=$(grep -cv '^#' "$src/tree/debian/patches/series" || true)
  patches="Debian patches applied: $n"
else
  mkdir "$src/tree" && tar -xzf "$orig" -C "$src/tree" --strip-components=1
  patches="built from the .orig tarball (the .debian.tar was not served)"
fi

cd "$src/tree" || die "no source tree"
flags=(--prefix=/usr --sysconfdir=/etc --with-init=SYSV
  --disable-lvs --disable-vrrp-auth --disable-iptables --disable-nftables
  --disable-track-process --disable-systemd ac_cv_lib_magic_magic_open=no LDFLAGS=-static-pie)
nice -n 19 ./configure "${flags[@]}" > "$src/configure.log"
grep -q '^Extra Lib *: -lm$' "$src/configure.log" || die "keepalived would link extra libraries: $(grep '^Extra Lib' "$src/configure.log")"
nice -n 19 make -j1
install -D -m 0755 keepalived/keepalived "$out/keepalived"
strip "$out/keepalived"

file "$out/keepalived" | grep -Eq 'static(-pie|ally) linked' || die "keepalived is not statically linked: $(file "$out/keepalived")"
run_target "$out/keepalived" --version 2>&1 | grep -F "Keepalived v${v#v}"
echo "keepalived $debver" > "$out/debian-source.txt"
printf '%s\n' "$patches" "configure ${flags[*]}" > "$out/build-info.txt"
