#!/usr/bin/env bash
# The CNI plugins flannel delegates to: bridge, loopback, host-local, portmap.
. "$(dirname "$0")/lib.sh"
v=$1 out=$2 m=github.com/containernetworking/plugins
use_go
CGO_ENABLED=0 go_install_to "$out" -trimpath \
  -ldflags "-s -w -X $m/pkg/utils/buildversion.BuildVersion=$v" \
  "$m/plugins/main/bridge@$v" "$m/plugins/main/loopback@$v" "$m/plugins/ipam/host-local@$v" "$m/plugins/meta/portmap@$v"
run_target "$out/bridge" 2>&1 | grep -F "$v"
