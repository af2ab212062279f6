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
# One fix, carried here until a release has it: the streaming server's base URL has no scheme
# ("//[::]:PORT/cri/exec/..."), which kubelets from v1.36 (ExtendWebSocketsToKubelet, their
# WebSocket-to-SPDY translation) dial as https, so `kubectl exec` and attach failed with
# "server gave HTTP response to HTTPS client". The server is plain HTTP on localhost: say so.
src=$(module_dir "github.com/Mirantis/cri-dockerd@$v")
rm -rf cri-dockerd-src; cp -r "$src" cri-dockerd-src; chmod -R u+w cri-dockerd-src
sed -i 's#BaseURL: *&url.URL{Path: "/cri/"},#BaseURL: \&url.URL{Scheme: "http", Path: "/cri/"},#' cri-dockerd-src/cmd/server.go
grep -q 'Scheme: "http", Path: "/cri/"' cri-dockerd-src/cmd/server.go || die "cri-dockerd $v: the streaming base URL fix did not apply (cmd/server.go changed): check whether this version still needs it"
printf '\nreplace github.com/Mirantis/cri-dockerd => ./cri-dockerd-src\n' >> go.mod
CGO_ENABLED=0 nice -n 10 go build -mod=mod -trimpath -ldflags "-s -w -X github.com/Mirantis/cri-dockerd/cmd/version.Version=${v#v}" -o "$out/cri-dockerd" github.com/Mirantis/cri-dockerd
run_target "$out/cri-dockerd" --version 2>&1 | head -n 2
