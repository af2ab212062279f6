# Sourced by every recipe: strict mode, the build caches, the pinned Go toolchain from the
# module proxy, and helpers for wrapper modules. A recipe is run by `kcluster bundle build`
# as `bash RECIPE VERSION OUTDIR`, in a fresh process, with its whole output in its log file.
#
# Environment given by kcluster:
#   KCLUSTER_BUILD_CACHE   the build cache (sources, Go caches, stage outputs)
#   KCLUSTER_GO_TOOLCHAIN  the Go toolchain, e.g. go1.26.8 (only for recipes that use Go)
#   KCLUSTER_ARCH          the target architecture, as Go and Debian name it (amd64, arm64):
#                          this machine's for tools that run here (mkimage, helm)
set -euo pipefail

CACHE=${KCLUSTER_BUILD_CACHE:?kcluster bundle build sets KCLUSTER_BUILD_CACHE}
ARCH=${KCLUSTER_ARCH:?kcluster bundle build sets KCLUSTER_ARCH}
# The machine the recipes run on: its Go toolchain, its tests, and what runs a target binary.
HOST_ARCH=$(dpkg --print-architecture)
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
    mod=golang.org/toolchain@v0.0.1-$toolchain.linux-$HOST_ARCH
    dir=$(cd "$CACHE" && GO111MODULE=on GOFLAGS= /usr/lib/go/bin/go mod download -json "$mod" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
    [ -x "$dir/bin/go" ] || die "could not download the Go toolchain $mod through the module proxy"
    export PATH=$dir/bin:$PATH
  fi
  go version >/dev/null || die "the Go toolchain $toolchain is not usable"
  # Go builds for the target; a recipe's own tests run here (GOARCH=$HOST_ARCH go test).
  export GOOS=linux GOARCH=$ARCH
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

# Runs a binary built for the target (its version check): directly on a machine of that
# architecture, else through QEMU's user-mode emulator (Debian's qemu-user-static), which runs a
# static binary of another architecture without binfmt_misc or a root of that architecture.
run_target() {
  [ "$ARCH" = "$HOST_ARCH" ] && { "$@"; return; }
  local emulator
  case $ARCH in arm64) emulator=qemu-aarch64-static ;; amd64) emulator=qemu-x86_64-static ;; *) die "no emulator known for $ARCH" ;; esac
  need_packages qemu-user-static
  "$emulator" "$@"
}

# Debian's name for the target's GNU triplet (aarch64-linux-gnu), for cross tools and multiarch paths.
target_triplet() {
  case $ARCH in arm64) echo aarch64-linux-gnu ;; amd64) echo x86_64-linux-gnu ;; *) die "no GNU triplet known for $ARCH" ;; esac
}

# CC and STRIP for the target: this machine's gcc, or Debian's cross compiler for it.
use_target_cc() {
  if [ "$ARCH" = "$HOST_ARCH" ]; then
    need_packages gcc libc6-dev binutils
    CC=gcc STRIP=strip
  else
    local t; t=$(target_triplet)
    need_packages "gcc-$t" "binutils-$t" "libc6-dev-$ARCH-cross"
    CC=$t-gcc STRIP=$t-strip
  fi
  export CC STRIP
}

# Downloads Debian packages of the target's architecture into the current folder, from the
# machine's own apt sources. Another architecture goes through a private apt configuration
# (its own package lists and cache): the system's dpkg and apt settings stay untouched.
target_apt_download() {
  if [ "$ARCH" = "$HOST_ARCH" ]; then apt-get download "$@"; return; fi
  local apt=$CACHE/src/apt-$ARCH
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
  local opts=(-o "APT::Architecture=$ARCH" -o "APT::Architectures=$ARCH" -o "Dir::State::Lists=$apt/lists"
    -o "Dir::State::Status=$apt/status" -o "Dir::Cache=$apt/cache")
  : > "$apt/status"
  apt-get "${opts[@]}" -qq update
  apt-get "${opts[@]}" download "$@"
}

# `go install` into OUT (the stage's output) for the target. Go refuses GOBIN for a
# cross-compiled binary and puts it in $GOPATH/bin/linux_$GOARCH: it is moved from there.
go_install_to() {
  local out=$1; shift
  if [ "$GOARCH" = "$HOST_ARCH" ]; then GOBIN=$out nice -n 10 go install "$@"; return; fi
  local bin=$GOPATH/bin/linux_$GOARCH
  rm -rf "$bin"
  GOBIN='' nice -n 10 go install "$@"
  mv "$bin"/* "$out/"
}
