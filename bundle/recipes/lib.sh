# Sourced by every recipe: strict mode, the build caches, the pinned Go toolchain from the
# module proxy, and helpers for wrapper modules. A recipe is run by `kcluster bundle build`
# as `bash RECIPE VERSION OUTDIR`, in a fresh process, with its whole output in its log file.
#
# Environment given by kcluster:
#   KCLUSTER_BUILD_CACHE   the build cache (sources, Go caches, stage outputs)
#   KCLUSTER_GO_TOOLCHAIN  the Go toolchain, e.g. go1.26.8 (only for recipes that use Go)
#   KCLUSTER_ARCH          the target architecture (amd64: recipes build natively)
set -euo pipefail

CACHE=${KCLUSTER_BUILD_CACHE:?kcluster bundle build sets KCLUSTER_BUILD_CACHE}
ARCH=${KCLUSTER_ARCH:?kcluster bundle build sets KCLUSTER_ARCH}
RECIPES=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$CACHE/src"

die() { printf 'recipe: error: %s\n' "$*" >&2; exit 1; }

# Installs missing Debian packages (root only; otherwise says which ones to install).
need_packages() {
  local missing=() p
  for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" = 0 ] || die "missing build packages (${missing[*]}); install them as root: apt-get install ${missing[*]}"
  echo "installing build packages: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The pinned toolchain comes from the module proxy. Any go >= 1.21 switches to it by itself
# (GOTOOLCHAIN); without a usable go, Debian's 1.19 downloads the toolchain module.
use_go() {
  local toolchain=${KCLUSTER_GO_TOOLCHAIN:?kcluster bundle build sets KCLUSTER_GO_TOOLCHAIN} have mod dir proxy
  need_packages ca-certificates
  export GOPATH=$CACHE/go/path GOMODCACHE=$CACHE/go/mod GOCACHE=$CACHE/go/build
  export GOFLAGS=-buildvcs=false GOTOOLCHAIN=$toolchain GOTELEMETRY=off
  if ! { command -v go >/dev/null && have=$(GOTOOLCHAIN=local go env GOVERSION 2>/dev/null) && case $have in go1.2[1-9]*|go1.[3-9]*) true ;; *) false ;; esac; }; then
    need_packages golang-go
    mod=golang.org/toolchain@v0.0.1-$toolchain.linux-$ARCH
    dir=$(cd "$CACHE" && GO111MODULE=on GOFLAGS= /usr/lib/go/bin/go mod download -json "$mod" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
    [ -x "$dir/bin/go" ] || die "could not download the Go toolchain $mod through the module proxy"
    export PATH=$dir/bin:$PATH
  fi
  go version >/dev/null || die "the Go toolchain $toolchain is not usable"
  # No silent fallback to git: a module the proxy does not serve must fail here, by name.
  proxy=$(go env GOPROXY)
  case $proxy in direct*|off*) ;; *) export GOPROXY=${proxy%%,*} ;; esac
  echo "Go $(go env GOVERSION), caches under $CACHE"
}

# module@version -> path of its go.mod, once the checksum database has verified it (never off).
verified_gomod() {
  local file
  file=$(go mod download -json "$1" 2>&1 | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p') || true
  [ -n "$file" ] || die "$1: the module proxy does not serve a checksum-verified go.mod; pick another version in src/kubernetes/artifacts/component-versions.ts"
  echo "$file"
}

module_dir() { go mod download -json "$1" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p'; }

# A throw-away main module that pins what it builds: new_wrapper DIR MODULE GO-VERSION, then cd.
new_wrapper() {
  rm -rf "$1"; mkdir -p "$1"
  printf 'module %s\n\ngo %s\n' "$2" "$3" > "$1/go.mod"
}

# tools.go importing the given packages, so that `go mod tidy` keeps them.
tools_go() {
  { echo '//go:build tools'; echo; echo 'package tools'; echo; echo 'import ('; for p in "$@"; do echo "	_ \"$p\""; done; echo ')'; } > tools.go
}
