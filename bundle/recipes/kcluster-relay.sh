#!/usr/bin/env bash
# kcluster's artifact relay between nodes (src/kubernetes/relay), for cluster.artifacts.fanOut.
# Its own tests run first: a relay that does not check sums never reaches a bundle.
. "$(dirname "$0")/lib.sh"
v=$1 out=$2
use_go
(cd "$RECIPES/../../src/kubernetes/relay" && CGO_ENABLED=0 GOARCH=$HOST_ARCH go test -count=1 . && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$out/kcluster-relay" .)
run_target "$out/kcluster-relay" -version | grep -F "kcluster-relay $v"
