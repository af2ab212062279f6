#!/usr/bin/env bash
# rancher's local-path-provisioner (its image is assembled by kcluster from this binary), built
# as upstream's scripts/build does (CGO off, its version in main.VERSION), and kcluster's helper
# (src/kubernetes/local-path-helper) that creates and deletes the volume folders in its helper
# pod, so that the image needs no shell.
. "$(dirname "$0")/lib.sh"
v=$1 out=$2
use_go
verified_gomod "github.com/rancher/local-path-provisioner@$v" >/dev/null
CGO_ENABLED=0 go_install_to "$out" -trimpath -ldflags "-s -w -X main.VERSION=$v" "github.com/rancher/local-path-provisioner@$v"
run_target "$out/local-path-provisioner" --version 2>&1 | grep -F "$v"
(cd "$RECIPES/../../src/kubernetes/local-path-helper" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$v" -o "$out/kcluster-local-path-helper" .)
run_target "$out/kcluster-local-path-helper" -version | grep -F "kcluster-local-path-helper $v"
