#!/usr/bin/env bash
# crictl from sigs.k8s.io/cri-tools.
. "$(dirname "$0")/lib.sh"
v=$1 out=$2 w=$CACHE/src/crictl-$1
use_go
verified_gomod "sigs.k8s.io/cri-tools@$v" >/dev/null
new_wrapper "$w" kcluster.local/crictlbuild 1.26.2
cd "$w"
tools_go sigs.k8s.io/cri-tools/cmd/crictl
printf '\nrequire sigs.k8s.io/cri-tools %s\n' "$v" >> go.mod
go mod tidy
CGO_ENABLED=0 nice -n 10 go build -trimpath -ldflags "-s -w -X sigs.k8s.io/cri-tools/pkg/version.Version=$v" -o "$out/crictl" sigs.k8s.io/cri-tools/cmd/crictl
run_target "$out/crictl" --version | grep -F "$v"
