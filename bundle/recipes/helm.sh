#!/usr/bin/env bash
# Helm, the binary kcluster runs on the controller for cluster.charts (install, upgrade,
# uninstall, template). Built as upstream's Makefile builds it (CGO off, -trimpath, -s -w, its
# version in internal/version), for the machine the bundle is built on: the controller's.
. "$(dirname "$0")/lib.sh"
v=$1 out=$2
use_go
verified_gomod "helm.sh/helm/v4@$v" >/dev/null
CGO_ENABLED=0 go_install_to "$out" -trimpath \
  -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=$v -X helm.sh/helm/v4/internal/version.metadata= -X helm.sh/helm/v4/internal/version.gitTreeState=clean" \
  "helm.sh/helm/v4/cmd/helm@$v"
"$out/helm" version --template '{{.Version}}' | grep -Fx "$v"
