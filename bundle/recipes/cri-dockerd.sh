#!/usr/bin/env bash
# cri-dockerd, the CRI shim for the Docker runtime.
. "$(dirname "$0")/lib.sh"
v=$1 out=$2 w=$CACHE/src/cri-dockerd-$1
use_go
gomod=$(verified_gomod "github.com/Mirantis/cri-dockerd@$v")
new_wrapper "$w" kcluster.local/cridockerdbuild 1.26.0
cd "$w"
tools_go github.com/Mirantis/cri-dockerd
printf '\nrequire github.com/Mirantis/cri-dockerd %s\n\n' "$v" >> go.mod
# Its own replace directives pin the Kubernetes libraries it was written against.
awk '/^replace \($/{on=1} on{print} on&&/^\)$/{on=0} /^replace [^(]/{print}' "$gomod" | grep -v '=> \.' >> go.mod
# `go mod tidy` trips over an ambiguous import in test-only dependencies; get + build resolves.
go get "github.com/Mirantis/cri-dockerd@$v"
CGO_ENABLED=0 nice -n 10 go build -mod=mod -trimpath -ldflags "-s -w -X github.com/Mirantis/cri-dockerd/cmd/version.Version=${v#v}" -o "$out/cri-dockerd" github.com/Mirantis/cri-dockerd
"$out/cri-dockerd" --version 2>&1 | head -n 2
