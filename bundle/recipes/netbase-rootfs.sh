#!/usr/bin/env bash
# Debian's iptables (nft), nft and conntrack for the kube-proxy and flannel images, from the
# machine's own apt sources (their versions go into the bundle's lock file). nft is what
# kube-proxy's nftables mode runs (cluster.kubeProxy.mode).
. "$(dirname "$0")/lib.sh"
v=$1 out=$2 debs=$CACHE/src/debs
rm -rf "$debs"; mkdir -p "$debs" "$out/rootfs"
(cd "$debs" && target_apt_download conntrack iptables libc6 libgcc-s1 libip4tc2 libip6tc2 libmnl0 \
    libnetfilter-conntrack3 libnfnetlink0 libnftnl11 libxtables12 netbase \
    nftables libnftables1 libedit2 libbsd0 libmd0 libtinfo6 libgmp10 libjansson4)
for deb in "$debs"/*.deb; do
  dpkg-deb -x "$deb" "$out/rootfs"
  dpkg-deb -f "$deb" Package Version | paste -sd' ' >> "$out/debian-packages.txt"
done
rm -rf "$out/rootfs/usr/share/doc" "$out/rootfs/usr/share/man" "$out/rootfs/usr/share/locale" \
  "$out/rootfs/usr/share/lintian" "$out/rootfs/usr/lib/$(target_triplet)/gconv"
# Package scripts do not run here: choose the nft variants the alternatives system would.
for t in iptables iptables-save iptables-restore ip6tables ip6tables-save ip6tables-restore; do
  ln -sf xtables-nft-multi "$out/rootfs/usr/sbin/$t"
done
if [ "$ARCH" = "$HOST_ARCH" ]; then
  chroot "$out/rootfs" /usr/sbin/iptables --version | grep -F nf_tables
  chroot "$out/rootfs" /usr/sbin/nft --version
else
  # Under user-mode emulation iptables and nft cannot open their netlink socket, even to print
  # their version: check instead that every library each needs resolves inside the root (the
  # root's dynamic loader, run by QEMU with the root as its library prefix).
  case $ARCH in arm64) loader=/lib/ld-linux-aarch64.so.1 ;; amd64) loader=/lib64/ld-linux-x86-64.so.2 ;; esac
  for b in /usr/sbin/xtables-nft-multi /usr/sbin/nft /usr/sbin/conntrack; do
    QEMU_LD_PREFIX=$out/rootfs run_target "$out/rootfs$loader" --list "$b"
  done
fi
