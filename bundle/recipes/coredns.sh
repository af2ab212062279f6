#!/usr/bin/env bash
# CoreDNS (its image is assembled by kcluster from this binary).
. "$(dirname "$0")/lib.sh"
v=$1 out=$2
use_go
CGO_ENABLED=0 go_install_to "$out" -trimpath -ldflags "-s -w -X github.com/coredns/coredns/coremain.GitCommit=$v" \
  "github.com/coredns/coredns@$v"
run_target "$out/coredns" -version | grep -F "${v#v}"
