#!/usr/bin/env bash
# containerd, ctr and the runc shim from the containerd v2 module.
. "$(dirname "$0")/lib.sh"
v=$1 out=$2 p=github.com/containerd/containerd/v2
use_go
CGO_ENABLED=0 go_install_to "$out" -trimpath -tags 'urfave_cli_no_docs no_btrfs' \
  -ldflags "-s -w -X $p/version.Version=$v -X $p/version.Package=$p" \
  "$p/cmd/containerd@$v" "$p/cmd/ctr@$v" "$p/cmd/containerd-shim-runc-v2@$v"
run_target "$out/containerd" --version | grep -F "$v"
