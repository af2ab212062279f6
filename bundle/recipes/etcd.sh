#!/usr/bin/env bash
# etcd, etcdctl and etcdutl from the go.etcd.io/etcd modules.
. "$(dirname "$0")/lib.sh"
v=$1 out=$2 w=$CACHE/src/etcd-$1
use_go
verified_gomod "go.etcd.io/etcd/server/v3@$v" >/dev/null
new_wrapper "$w" kcluster.local/etcdbuild 1.26.0
cd "$w"
tools_go go.etcd.io/etcd/server/v3 go.etcd.io/etcd/etcdctl/v3 go.etcd.io/etcd/etcdutl/v3
printf '\nrequire (\n\tgo.etcd.io/etcd/server/v3 %s\n\tgo.etcd.io/etcd/etcdctl/v3 %s\n\tgo.etcd.io/etcd/etcdutl/v3 %s\n)\n' "$v" "$v" "$v" >> go.mod
go mod tidy
for b in server:etcd etcdctl:etcdctl etcdutl:etcdutl; do
  CGO_ENABLED=0 nice -n 10 go build -trimpath -ldflags '-s -w' -o "$out/${b#*:}" "go.etcd.io/etcd/${b%%:*}/v3"
done
run_target "$out/etcd" --version | grep -F "${v#v}"
