#!/usr/bin/env bash
# busybox (Debian's static build) for the pods of kcluster's own end-to-end tests: not a cluster
# component, and left out of a bundle unless asked for (--test-tools).
. "$(dirname "$0")/lib.sh"
v=$1 out=$2 debs=$CACHE/src/busybox-debs
rm -rf "$debs"; mkdir -p "$debs" "$out/rootfs"
(cd "$debs" && target_apt_download busybox-static)
dpkg-deb -x "$debs"/busybox-static_*.deb "$out/rootfs"
dpkg-deb -f "$debs"/busybox-static_*.deb Version | tr '+~:' '___' > "$out/version"
run_target "$out/rootfs/bin/busybox" true
