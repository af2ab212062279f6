#!/usr/bin/env bash
# metrics-server (its image is assembled by kcluster from this binary). Built as upstream's
# Makefile does (CGO off, -trimpath), with its version in the binary.
. "$(dirname "$0")/lib.sh"
v=$1 out=$2
use_go
verified_gomod "sigs.k8s.io/metrics-server@$v" >/dev/null
CGO_ENABLED=0 go_install_to "$out" -trimpath -ldflags "-s -w -X k8s.io/client-go/pkg/version.gitVersion=$v" \
  "sigs.k8s.io/metrics-server/cmd/metrics-server@$v"
run_target "$out/metrics-server" --version 2>&1 | grep -F "$v"
