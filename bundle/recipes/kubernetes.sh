#!/usr/bin/env bash
# Kubernetes server and client binaries (kube-apiserver, kube-controller-manager, kube-scheduler,
# kube-proxy, kubelet, kubectl) from the k8s.io/kubernetes module, plus the pause container's C
# source that the module carries (build/pause/linux/pause.c, for the pause recipe).
. "$(dirname "$0")/lib.sh"
v=$1 out=$2 w=$CACHE/src/kubernetes-$1
use_go
gomod=$(verified_gomod "k8s.io/kubernetes@$v")
gover=$(sed -n 's/^go //p' "$gomod")
minor=${v#v1.}; minor=${minor%%.*}
new_wrapper "$w" kcluster.local/k8sbuild "$gover"
cd "$w"
# godebug defaults come only from the main module: keep kubernetes' own.
grep '^godebug ' "$gomod" >> go.mod || true
printf '\nrequire k8s.io/kubernetes %s\n\nreplace (\n' "$v" >> go.mod
# kubernetes replaces its staging modules with ./staging paths that are not in its module zip;
# the published k8s.io/* v0.<minor>.<patch> modules hold the same code.
sed -n 's#^\t\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\t\1 => \1 v0.'"${v#v1.}"'#p' "$gomod" >> go.mod
echo ')' >> go.mod
commands="kube-apiserver kube-controller-manager kube-scheduler kube-proxy kubelet kubectl"
packages=$(for c in $commands; do printf 'k8s.io/kubernetes/cmd/%s ' "$c"; done)
# shellcheck disable=SC2086
tools_go $packages
go mod tidy
when=$(go list -m -json "k8s.io/kubernetes@$v" | sed -n 's/.*"Time": "\(.*\)".*/\1/p')
ld="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ld="$ld -X $p.gitVersion=$v -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean -X $p.buildDate=$when"
done
# shellcheck disable=SC2086
CGO_ENABLED=0 nice -n 10 go build -trimpath -tags selinux,notest,grpcnotrace -ldflags "$ld" -o "$out/" $packages
run_target "$out/kubectl" version --client | grep -F "$v"
run_target "$out/kubelet" --version | grep -F "$v"
cp "$(module_dir "k8s.io/kubernetes@$v")/build/pause/linux/pause.c" "$out/.pause.c"
