#!/usr/bin/env bash
# kcluster's node-local API server load balancer (src/kubernetes/apiproxy), for HA without a load
# balancer, and the health check of the API's virtual IP (-check).
. "$(dirname "$0")/lib.sh"
v=$1 out=$2
use_go
(cd "$RECIPES/../../src/kubernetes/apiproxy" && GOARCH=$HOST_ARCH go test ./... && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$out/kcluster-apiproxy" .)
run_target "$out/kcluster-apiproxy" -version | grep -F "kcluster-apiproxy $v"
