# shellcheck shell=bash
# Sourced by the conformance scripts: the bundle recipes' helpers (bundle/recipes/lib.sh: strict
# mode, the pinned Go toolchain from the module proxy, the shared build caches) and the wrapper
# module that pins k8s.io/kubernetes for e2e.test, kubectl and agnhost.
#
# Environment (all optional):
#   KCLUSTER_BUILD_CACHE    the bundle build's cache, shared (default /var/cache/kcluster/build)
#   KCLUSTER_CONFORMANCE_CACHE  where e2e.test and the test images are kept by version
#                           (default /var/cache/kcluster/conformance)
#   KCLUSTER_GO_TOOLCHAIN   Go toolchain (default: the bundle build's, from component-versions.ts)
set -euo pipefail

CONFORMANCE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$CONFORMANCE_DIR/../.." && pwd)

fail() { printf '%s: error: %s\n' "$(basename "$0")" "$*" >&2; exit 1; }
note() { printf '%s: %s\n' "$(basename "$0")" "$*" >&2; }

[ "$(uname -m)" = x86_64 ] || fail "only amd64 is supported (the bundle build is amd64 only)"
export KCLUSTER_BUILD_CACHE=${KCLUSTER_BUILD_CACHE:-/var/cache/kcluster/build}
export KCLUSTER_ARCH=amd64
if [ -z "${KCLUSTER_GO_TOOLCHAIN:-}" ]; then
  KCLUSTER_GO_TOOLCHAIN=$(sed -n "s/.*goToolchain: '\(go[0-9.]*\)'.*/\1/p" "$REPO_ROOT/src/kubernetes/artifacts/component-versions.ts" | head -n 1)
  [ -n "$KCLUSTER_GO_TOOLCHAIN" ] || fail "cannot read goToolchain from src/kubernetes/artifacts/component-versions.ts; set KCLUSTER_GO_TOOLCHAIN"
fi
export KCLUSTER_GO_TOOLCHAIN
# shellcheck disable=SC2034  # used by the scripts that source this file
CONFORMANCE_CACHE=${KCLUSTER_CONFORMANCE_CACHE:-/var/cache/kcluster/conformance}

# shellcheck source=../../bundle/recipes/lib.sh
. "$REPO_ROOT/bundle/recipes/lib.sh"
# lib.sh's die() says "recipe:"; ours names the script.
die() { fail "$@"; }

# The build tags of the bundle's kubernetes recipe, so that the Go build cache is shared.
# shellcheck disable=SC2034
K8S_TAGS=selinux,notest,grpcnotrace

check_version() {
  [[ $1 =~ ^v1\.[0-9]+\.[0-9]+$ ]] || fail "version '$1' is not of the form v1.MINOR.PATCH"
}

# conformance_wrapper VERSION: prints the wrapper module directory, after creating it (once per
# version): like bundle/recipes/kubernetes.sh, a throw-away main module requiring
# k8s.io/kubernetes VERSION, the staging k8s.io/* modules replaced by the published
# v0.MINOR.PATCH ones, kubernetes' own godebug line. tools.go imports every package
# test/e2e's test files import (go mod tidy tracks no tests of dependencies), agnhost,
# kubectl, the ginkgo CLI, and the sample-apiserver and etcd of the aggregator specs' images, so
# all are pinned by one go.sum (etcd at the version kubernetes' own go.mod requires).
conformance_wrapper() {
  local v=$1 w gomod gover pkgs moddir stamp
  w=$CACHE/src/conformance-$v
  stamp="$v $(sha256sum "$CONFORMANCE_DIR/lib.sh" | cut -c1-12)"
  if [ -f "$w/.complete" ] && [ "$(cat "$w/.complete")" = "$stamp" ]; then echo "$w"; return 0; fi
  gomod=$(verified_gomod "k8s.io/kubernetes@$v")
  gover=$(sed -n 's/^go //p' "$gomod")
  moddir=$(module_dir "k8s.io/kubernetes@$v")
  [ -d "$moddir/test/e2e" ] || fail "k8s.io/kubernetes@$v has no test/e2e"
  new_wrapper "$w" kcluster.local/conformance "$gover"
  (
    cd "$w"
    grep '^godebug ' "$gomod" >> go.mod || true
    printf '\nrequire k8s.io/kubernetes %s\n\nreplace (\n' "$v" >> go.mod
    sed -n 's#^\t\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\t\1 => \1 v0.'"${v#v1.}"'#p' "$gomod" >> go.mod
    echo ')' >> go.mod
    # The non-standard-library imports of test/e2e's *_test.go files.
    pkgs=$(cat "$moddir"/test/e2e/*_test.go | sed -n '/^import (/,/^)/p' \
      | sed -n 's#^[[:space:]]*\(_ \|[A-Za-z0-9_]* \)\{0,1\}"\([a-z0-9.-]*\.[a-z]*/[^"]*\)".*#\2#p' | sort -u)
    # shellcheck disable=SC2086
    tools_go k8s.io/kubernetes/test/e2e $pkgs k8s.io/kubernetes/test/images/agnhost \
      k8s.io/kubernetes/cmd/kubectl github.com/onsi/ginkgo/v2/ginkgo k8s.io/sample-apiserver go.etcd.io/etcd/server/v3
    go mod tidy
  ) >&2
  echo "$stamp" > "$w/.complete"
  echo "$w"
}

# The kubernetes module's directory for VERSION (downloaded and verified if needed).
kubernetes_module_dir() {
  verified_gomod "k8s.io/kubernetes@$1" >/dev/null
  module_dir "k8s.io/kubernetes@$1"
}

# Version -X flags of the bundle's kubernetes recipe.
version_ldflags() {
  local v=$1 minor when p ld=
  minor=${v#v1.}; minor=${minor%%.*}
  when=$(go list -m -json "k8s.io/kubernetes@$v" | sed -n 's/.*"Time": "\(.*\)".*/\1/p')
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld="$ld -X $p.gitVersion=$v -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean -X $p.buildDate=$when"
  done
  echo "$ld"
}

# Copies FILE into DIR (a hard link when on the same file system).
place() { mkdir -p "$2"; ln -f "$1" "$2/" 2>/dev/null || cp -f "$1" "$2/"; }
