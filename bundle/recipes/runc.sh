#!/usr/bin/env bash
# runc: needs cgo (nsenter is C) and seccomp; linked static-pie like upstream's `make static`.
. "$(dirname "$0")/lib.sh"
v=$1 out=$2
need_packages gcc libc6-dev libseccomp-dev pkg-config
use_go
GOBIN=$out CGO_ENABLED=1 nice -n 10 go install -trimpath -buildmode=pie -tags 'seccomp urfave_cli_no_docs netgo osusergo' \
  -ldflags "-s -w -X main.version=${v#v} -X main.gitCommit=$v -linkmode external -extldflags -static-pie" \
  "github.com/opencontainers/runc@$v"
"$out/runc" --version | grep -F "${v#v}"
