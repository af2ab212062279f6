#!/usr/bin/env bash
# build-e2e-test.sh VERSION OUTDIR
#
# Builds the upstream Kubernetes end-to-end test binary e2e.test (the Go test binary of package
# k8s.io/kubernetes/test/e2e) for VERSION (v1.MINOR.PATCH) through the Go module proxy, with the
# kubectl its [sig-cli] specs call and the ginkgo CLI (for parallel runs), and puts the three in
# OUTDIR. The binaries are kept by version under
#   /var/cache/kcluster/conformance/e2e-test/VERSION/   (KCLUSTER_CONFORMANCE_CACHE)
# and not built again when present. Like bundle/recipes/kubernetes.sh: the same wrapper module
# recipe, Go toolchain, build caches (/var/cache/kcluster/build/go: a bundle build of the same
# version has compiled most packages already), -trimpath, CGO_ENABLED=0, the same build tags.
# Cold: about 900 MB of modules and a long compile on 2 cores (see CHANGELOG.md for measured times).
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || { echo "usage: $0 VERSION OUTDIR" >&2; exit 2; }
v=$1 out=$2
check_version "$v"
keep=$CONFORMANCE_CACHE/e2e-test/$v
binaries="e2e.test kubectl ginkgo"

have_all() { local b; for b in $binaries; do [ -x "$1/$b" ] || return 1; done; }

if ! have_all "$keep"; then
  use_go
  start=$SECONDS
  w=$(conformance_wrapper "$v")
  ld=$(version_ldflags "$v")
  partial=$keep.partial
  rm -rf "$partial"; mkdir -p "$partial"
  cd "$w"
  note "building e2e.test $v (go test -c k8s.io/kubernetes/test/e2e)"
  CGO_ENABLED=0 nice -n 10 go test -c -vet=off -trimpath -tags "$K8S_TAGS" -ldflags "-s -w $ld" \
    -o "$partial/e2e.test" k8s.io/kubernetes/test/e2e \
    || fail "go test -c k8s.io/kubernetes/test/e2e@$v failed (log above)"
  note "building kubectl and ginkgo"
  CGO_ENABLED=0 nice -n 10 go build -trimpath -tags "$K8S_TAGS" -ldflags "-s -w $ld" \
    -o "$partial/" k8s.io/kubernetes/cmd/kubectl github.com/onsi/ginkgo/v2/ginkgo \
    || fail "building kubectl/ginkgo for $v failed (log above)"
  { "$partial/e2e.test" --help 2>&1 || true; } | grep -q -- -ginkgo.focus || fail "the e2e.test just built does not run"
  "$partial/kubectl" version --client | grep -qF "$v" || fail "kubectl does not report $v"
  "$partial/ginkgo" version >/dev/null || fail "the ginkgo CLI just built does not run"
  echo "$v" > "$partial/version"
  rm -rf "$keep"; mv "$partial" "$keep"
  note "built in $((SECONDS - start)) s: $keep"
fi
for b in $binaries version; do place "$keep/$b" "$out"; done
echo "$out/e2e.test"
