#!/usr/bin/env bash
# flanneld. Two backends cannot build here: tencentvpc's SDK is not served by the module proxy,
# and udp needs cgo. kcluster uses vxlan (default) or host-gw, so main.go is built without them.
. "$(dirname "$0")/lib.sh"
v=$1 out=$2 w=$CACHE/src/flannel-$1
use_go
verified_gomod "github.com/flannel-io/flannel@$v" >/dev/null
new_wrapper "$w" kcluster.local/flannelbuild 1.26.0
cd "$w"
src=$(module_dir "github.com/flannel-io/flannel@$v")
sed '/pkg\/backend\/tencentvpc"/d; /pkg\/backend\/udp"/d' "$src/main.go" > main.go
chmod 0644 main.go
printf '\nrequire github.com/flannel-io/flannel %s\n' "$v" >> go.mod
go mod tidy
CGO_ENABLED=0 nice -n 10 go build -trimpath -ldflags "-s -w -X github.com/flannel-io/flannel/pkg/version.Version=$v" -o "$out/flanneld" .
run_target "$out/flanneld" --version 2>&1 | grep -F "$v"
