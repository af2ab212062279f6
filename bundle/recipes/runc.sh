#!/usr/bin/env bash
# runc: needs cgo (nsenter is C) and seccomp; linked static-pie like upstream's `make static`.
. "$(dirname "$0")/lib.sh"
v=$1 out=$2
use_target_cc
need_packages pkg-config
if [ "$ARCH" = "$HOST_ARCH" ]; then
  need_packages libseccomp-dev
else
  # libseccomp of the target, unpacked into a folder pkg-config and the linker read as its root.
  sysroot=$CACHE/src/sysroot-$ARCH debs=$CACHE/src/runc-debs-$ARCH
  rm -rf "$sysroot" "$debs"; mkdir -p "$sysroot" "$debs"
  (cd "$debs" && target_apt_download libseccomp-dev libseccomp2)
  for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$sysroot"; done
  libdir=$sysroot/usr/lib/$(target_triplet)
  export PKG_CONFIG_LIBDIR=$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$sysroot CGO_CFLAGS="-I$sysroot/usr/include" CGO_LDFLAGS="-L$libdir"
fi
use_go
CGO_ENABLED=1 go_install_to "$out" -trimpath -buildmode=pie -tags 'seccomp urfave_cli_no_docs netgo osusergo' \
  -ldflags "-s -w -X main.version=${v#v} -X main.gitCommit=$v -linkmode external -extldflags -static-pie" \
  "github.com/opencontainers/runc@$v"
run_target "$out/runc" --version | grep -F "${v#v}"
