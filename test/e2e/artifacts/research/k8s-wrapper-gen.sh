#!/bin/sh
# usage: gen.sh 1.35.8  -> writes go.mod + tools.go in cwd
set -e
V=$1; S=v0.${V#1.}
KMOD=$(go mod download -json k8s.io/kubernetes@v$V | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
GOVER=$(sed -n 's/^go //p' "$KMOD")
{
  echo "module kcluster.local/k8sbuild"
  echo
  echo "go $GOVER"
  echo
  # godebug defaults are taken only from the MAIN module: copy kubernetes' own
  grep '^godebug ' "$KMOD" || true
  echo
  echo "require k8s.io/kubernetes v$V"
  echo
  echo "replace ("
  sed -n 's#^\t\(k8s.io/[a-z-]*\) => ./staging/.*#\t\1 => \1 '"$S"'#p' "$KMOD"
  echo ")"
} > go.mod
cat > tools.go <<'T'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
T
