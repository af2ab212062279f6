#!/usr/bin/env bash
# kcluster's uploader of scheduled etcd snapshots into the state store (src/kubernetes/snapshot-upload),
# for cluster.state.scheduledSnapshots. Its own tests run first: an uploader whose sealing or
# signing is wrong never reaches a bundle.
. "$(dirname "$0")/lib.sh"
v=$1 out=$2
use_go
(cd "$RECIPES/../../src/kubernetes/snapshot-upload" && CGO_ENABLED=0 GOARCH=$HOST_ARCH go test -count=1 . && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$out/kcluster-snapshot-upload" .)
run_target "$out/kcluster-snapshot-upload" -version | grep -F "kcluster-snapshot-upload $v"
