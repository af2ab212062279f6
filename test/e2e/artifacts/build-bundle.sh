#!/usr/bin/env bash
# Build kcluster's offline bundle from source, using only the Go module proxy and Debian's
# packages (what this machine reaches), exactly as an air-gapped user would build theirs.
#
#   test/e2e/artifacts/build-bundle.sh            # prints the bundle directory on the last line
#
# Versions come from versions.json next to this script. Every component is one stage whose
# output is cached under $KCLUSTER_BUILD_CACHE (default /var/cache/kcluster/build), keyed by
# component, version and a hash of the stage's recipe: a warm machine rebuilds nothing, a new
# version rebuilds only its stage. Stages run one at a time (Go already uses every core) and
# write to a temporary directory renamed into place when complete, so an interrupted build
# never leaves a half stage behind. Needs root only to install build packages with apt-get.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
VERSIONS=$HERE/versions.json
CACHE=${KCLUSTER_BUILD_CACHE:-/var/cache/kcluster/build}
mkdir -p "$CACHE/out" "$CACHE/src" "$CACHE/logs" "$CACHE/bundles"

log() { printf 'build-bundle: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
version_of() { node -e 'const v=require(process.argv[1]); const k=process.argv[2].split("."); let x=v; for (const p of k) x=x[p]; if (x===undefined) process.exit(3); console.log(Array.isArray(x) ? x.join(" ") : x)' "$VERSIONS" "$1"; }

GO_TOOLCHAIN=$(version_of go)
ARCH=$(version_of arch)
K8S_VERSIONS=$(version_of kubernetes)
REPO=$(version_of imageRepository)
[ "$(uname -m)" = x86_64 ] && [ "$ARCH" = amd64 ] || die "this script builds $ARCH binaries natively; run it on an $ARCH machine"

# --- build prerequisites ------------------------------------------------------------------
need_packages() {
  local missing=()
  for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" = 0 ] || die "missing build packages (${missing[*]}); install them as root: apt-get install ${missing[*]}"
  log "installing build packages: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
need_packages gcc libc6-dev libseccomp-dev pkg-config binutils ca-certificates

export GOPATH=$CACHE/go/path GOMODCACHE=$CACHE/go/mod GOCACHE=$CACHE/go/build
export GOFLAGS=-buildvcs=false GOTOOLCHAIN=$GO_TOOLCHAIN GOTELEMETRY=off

# The pinned toolchain comes from the module proxy. Any go >= 1.21 switches to it by itself
# (GOTOOLCHAIN); without a usable go, Debian's 1.19 downloads the toolchain module.
ensure_go() {
  if command -v go >/dev/null && go version >/dev/null 2>&1; then
    local have; have=$(GOTOOLCHAIN=local go env GOVERSION 2>/dev/null || echo go1.0)
    case $have in go1.2[1-9]*|go1.[3-9]*) return 0 ;; esac
  fi
  need_packages golang-go
  local mod=golang.org/toolchain@v0.0.1-$GO_TOOLCHAIN.linux-$ARCH dir
  dir=$(cd "$CACHE" && GO111MODULE=on GOFLAGS= /usr/lib/go/bin/go mod download -json "$mod" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  [ -x "$dir/bin/go" ] || die "could not download the Go toolchain $mod through the module proxy"
  export PATH=$dir/bin:$PATH
}
ensure_go
go version >/dev/null || die "the Go toolchain $GO_TOOLCHAIN is not usable"
# No silent fallback to git: a module the proxy does not serve must fail here, by name.
proxy=$(go env GOPROXY)
case $proxy in direct*|off*) ;; *) export GOPROXY=${proxy%%,*} ;; esac
log "Go $(go env GOVERSION), caches under $CACHE"

# A module version is usable only when the checksum database verifies it: never turn that off.
verified_gomod() { # module@version -> path of its verified go.mod
  local file
  file=$(go mod download -json "$1" 2>&1 | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p') || true
  [ -n "$file" ] || die "$1: the module proxy does not serve a checksum-verified go.mod; pick another version in $VERSIONS"
  echo "$file"
}
module_dir() { go mod download -json "$1" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p'; }
new_wrapper() { # dir module-name go-version
  rm -rf "$1"; mkdir -p "$1"
  printf 'module %s\n\ngo %s\n' "$2" "$3" > "$1/go.mod"
}
tools_go() { # import paths...
  { echo '//go:build tools'; echo; echo 'package tools'; echo; echo 'import ('; for p in "$@"; do echo "	_ \"$p\""; done; echo ')'; } > tools.go
}

# --- one stage = one component at one version -------------------------------------------------
# stage NAME VERSION RECIPE: runs RECIPE VERSION OUTDIR in a temp dir unless cached; sets STAGE_DIR.
stage() {
  local name=$1 version=$2 recipe=$3 hash dir tmp t0
  hash=$( { declare -f "$recipe" new_wrapper tools_go; echo "$GO_TOOLCHAIN $ARCH $REPO ${STAGE_SOURCE_HASH:-}"; } | sha256sum | cut -c1-12)
  dir=$CACHE/out/$name/$version-$hash
  if [ -e "$dir/.done" ]; then log "$name $version: cached ($dir)"; STAGE_DIR=$dir; return 0; fi
  tmp=$dir.partial
  rm -rf "$tmp"; mkdir -p "$tmp"
  t0=$(date +%s)
  log "$name $version: building (log: $CACHE/logs/$name-$version.log)"
  if ! ( set -euo pipefail; "$recipe" "$version" "$tmp" ) >"$CACHE/logs/$name-$version.log" 2>&1; then
    tail -n 25 "$CACHE/logs/$name-$version.log" >&2
    die "$name $version failed; the whole log is $CACHE/logs/$name-$version.log"
  fi
  echo "$(( $(date +%s) - t0 ))" > "$tmp/.seconds"
  touch "$tmp/.done"
  rm -rf "$dir"; mv "$tmp" "$dir"
  log "$name $version: built in $(cat "$dir/.seconds") s"
  STAGE_DIR=$dir
}

build_kubernetes() {
  local v=$1 out=$2 w=$CACHE/src/kubernetes-$1 gomod gover minor when ld p
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
  tools_go k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kube-proxy k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kubectl
  go mod tidy
  when=$(go list -m -json "k8s.io/kubernetes@$v" | sed -n 's/.*"Time": "\(.*\)".*/\1/p')
  ld="-s -w"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld="$ld -X $p.gitVersion=$v -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean -X $p.buildDate=$when"
  done
  CGO_ENABLED=0 nice -n 10 go build -trimpath -tags selinux,notest,grpcnotrace -ldflags "$ld" -o "$out/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler \
    k8s.io/kubernetes/cmd/kube-proxy k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kubectl
  "$out/kubectl" version --client | grep -F "$v"
  "$out/kubelet" --version | grep -F "$v"
  cp "$(module_dir "k8s.io/kubernetes@$v")/build/pause/linux/pause.c" "$out/.pause.c"
}

build_etcd() {
  local v=$1 out=$2 w=$CACHE/src/etcd-$1 b
  verified_gomod "go.etcd.io/etcd/server/v3@$v" >/dev/null
  new_wrapper "$w" kcluster.local/etcdbuild 1.26.0
  cd "$w"
  tools_go go.etcd.io/etcd/server/v3 go.etcd.io/etcd/etcdctl/v3 go.etcd.io/etcd/etcdutl/v3
  printf '\nrequire (\n\tgo.etcd.io/etcd/server/v3 %s\n\tgo.etcd.io/etcd/etcdctl/v3 %s\n\tgo.etcd.io/etcd/etcdutl/v3 %s\n)\n' "$v" "$v" "$v" >> go.mod
  go mod tidy
  for b in server:etcd etcdctl:etcdctl etcdutl:etcdutl; do
    CGO_ENABLED=0 nice -n 10 go build -trimpath -ldflags '-s -w' -o "$out/${b#*:}" "go.etcd.io/etcd/${b%%:*}/v3"
  done
  "$out/etcd" --version | grep -F "${v#v}"
}

build_containerd() {
  local v=$1 out=$2 p=github.com/containerd/containerd/v2
  GOBIN=$out CGO_ENABLED=0 nice -n 10 go install -trimpath -tags 'urfave_cli_no_docs no_btrfs' \
    -ldflags "-s -w -X $p/version.Version=$v -X $p/version.Package=$p" \
    "$p/cmd/containerd@$v" "$p/cmd/ctr@$v" "$p/cmd/containerd-shim-runc-v2@$v"
  "$out/containerd" --version | grep -F "$v"
}

build_runc() {
  local v=$1 out=$2
  # runc needs cgo (nsenter is C) and seccomp; linked static-pie like upstream's `make static`.
  GOBIN=$out CGO_ENABLED=1 nice -n 10 go install -trimpath -buildmode=pie -tags 'seccomp urfave_cli_no_docs netgo osusergo' \
    -ldflags "-s -w -X main.version=${v#v} -X main.gitCommit=$v -linkmode external -extldflags -static-pie" \
    "github.com/opencontainers/runc@$v"
  "$out/runc" --version | grep -F "${v#v}"
}

build_crictl() {
  local v=$1 out=$2 w=$CACHE/src/crictl-$1
  verified_gomod "sigs.k8s.io/cri-tools@$v" >/dev/null
  new_wrapper "$w" kcluster.local/crictlbuild 1.26.2
  cd "$w"
  tools_go sigs.k8s.io/cri-tools/cmd/crictl
  printf '\nrequire sigs.k8s.io/cri-tools %s\n' "$v" >> go.mod
  go mod tidy
  CGO_ENABLED=0 nice -n 10 go build -trimpath -ldflags "-s -w -X sigs.k8s.io/cri-tools/pkg/version.Version=$v" -o "$out/crictl" sigs.k8s.io/cri-tools/cmd/crictl
  "$out/crictl" --version | grep -F "$v"
}

build_cni_plugins() {
  local v=$1 out=$2 m=github.com/containernetworking/plugins
  GOBIN=$out CGO_ENABLED=0 nice -n 10 go install -trimpath \
    -ldflags "-s -w -X $m/pkg/utils/buildversion.BuildVersion=$v" \
    "$m/plugins/main/bridge@$v" "$m/plugins/main/loopback@$v" "$m/plugins/ipam/host-local@$v" "$m/plugins/meta/portmap@$v"
  "$out/bridge" 2>&1 | grep -F "$v"
}

build_coredns() {
  local v=$1 out=$2
  GOBIN=$out CGO_ENABLED=0 nice -n 10 go install -trimpath -ldflags "-s -w -X github.com/coredns/coredns/coremain.GitCommit=$v" \
    "github.com/coredns/coredns@$v"
  "$out/coredns" -version | grep -F "${v#v}"
}

build_flannel() {
  local v=$1 out=$2 w=$CACHE/src/flannel-$1 src
  verified_gomod "github.com/flannel-io/flannel@$v" >/dev/null
  new_wrapper "$w" kcluster.local/flannelbuild 1.26.0
  cd "$w"
  src=$(module_dir "github.com/flannel-io/flannel@$v")
  # Two backends cannot build here: tencentvpc's SDK is not served by the proxy, and udp needs cgo.
  # kcluster uses vxlan (default) or host-gw, so main.go is built without those two imports.
  sed '/pkg\/backend\/tencentvpc"/d; /pkg\/backend\/udp"/d' "$src/main.go" > main.go
  chmod 0644 main.go
  printf '\nrequire github.com/flannel-io/flannel %s\n' "$v" >> go.mod
  go mod tidy
  CGO_ENABLED=0 nice -n 10 go build -trimpath -ldflags "-s -w -X github.com/flannel-io/flannel/pkg/version.Version=$v" -o "$out/flanneld" .
  "$out/flanneld" --version 2>&1 | grep -F "$v"
}

build_cri_dockerd() {
  local v=$1 out=$2 w=$CACHE/src/cri-dockerd-$1 gomod
  gomod=$(verified_gomod "github.com/Mirantis/cri-dockerd@$v")
  new_wrapper "$w" kcluster.local/cridockerdbuild 1.26.0
  cd "$w"
  tools_go github.com/Mirantis/cri-dockerd
  printf '\nrequire github.com/Mirantis/cri-dockerd %s\n\n' "$v" >> go.mod
  # Its own replace directives pin the Kubernetes libraries it was written against.
  awk '/^replace \($/{on=1} on{print} on&&/^\)$/{on=0} /^replace [^(]/{print}' "$gomod" | grep -v '=> \.' >> go.mod
  # `go mod tidy` trips over an ambiguous import in test-only dependencies; get + build resolves.
  go get "github.com/Mirantis/cri-dockerd@$v"
  CGO_ENABLED=0 nice -n 10 go build -mod=mod -trimpath -ldflags "-s -w -X github.com/Mirantis/cri-dockerd/cmd/version.Version=${v#v}" -o "$out/cri-dockerd" github.com/Mirantis/cri-dockerd
  "$out/cri-dockerd" --version 2>&1 | head -n 2
}

build_pause() {
  local v=$1 out=$2
  # The pause container's C source ships in the kubernetes module (build/pause/linux/pause.c).
  gcc -Os -Wall -Werror -static -DVERSION="v$v-kcluster" -o "$out/pause" "$PAUSE_SOURCE"
  strip "$out/pause"
  "$out/pause" -v 2>&1 | grep -F "$v"
}

# kcluster's node-local API server load balancer (src/apiproxy), for HA without a load balancer.
build_apiproxy() {
  local v=$1 out=$2
  (cd "$HERE/../../../src/apiproxy" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$out/kcluster-apiproxy" .)
  "$out/kcluster-apiproxy" -version | grep -F "kcluster-apiproxy $v"
}

build_mkimage() {
  local v=$1 out=$2
  (cd "$HERE/mkimage" && CGO_ENABLED=0 go build -trimpath -o "$out/mkimage" .)
}

# Debian's iptables (nft) and conntrack for the kube-proxy and flannel images, from the
# machine's own apt sources (the versions are recorded in the bundle's lock file).
build_netbase_rootfs() {
  local v=$1 out=$2 debs=$CACHE/src/debs deb
  rm -rf "$debs"; mkdir -p "$debs" "$out/rootfs"
  (cd "$debs" && apt-get download conntrack iptables libc6 libgcc-s1 libip4tc2 libip6tc2 libmnl0 \
      libnetfilter-conntrack3 libnfnetlink0 libnftnl11 libxtables12 netbase)
  for deb in "$debs"/*.deb; do
    dpkg-deb -x "$deb" "$out/rootfs"
    dpkg-deb -f "$deb" Package Version | paste -sd' ' >> "$out/debian-packages.txt"
  done
  rm -rf "$out/rootfs/usr/share/doc" "$out/rootfs/usr/share/man" "$out/rootfs/usr/share/locale" \
    "$out/rootfs/usr/share/lintian" "$out/rootfs/usr/lib/x86_64-linux-gnu/gconv"
  # Package scripts do not run here: choose the nft variants the alternatives system would.
  for t in iptables iptables-save iptables-restore ip6tables ip6tables-save ip6tables-restore; do
    ln -sf xtables-nft-multi "$out/rootfs/usr/sbin/$t"
  done
  chroot "$out/rootfs" /usr/sbin/iptables --version | grep -F nf_tables
}

# busybox (Debian's static build) for the end-to-end tests' pods: not a cluster component.
build_busybox() {
  local v=$1 out=$2 debs=$CACHE/src/busybox-debs
  rm -rf "$debs"; mkdir -p "$debs" "$out/rootfs"
  (cd "$debs" && apt-get download busybox-static)
  dpkg-deb -x "$debs"/busybox-static_*.deb "$out/rootfs"
  dpkg-deb -f "$debs"/busybox-static_*.deb Version | tr '+~:' '___' > "$out/version"
  "$out/rootfs/bin/busybox" true
}

# A minimal base layer every image shares: users, groups, a writable /tmp, name resolution.
base_layer() {
  local dir=$1
  mkdir -p "$dir/etc" "$dir/tmp" "$dir/var/run"
  chmod 1777 "$dir/tmp"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' > "$dir/etc/passwd"
  printf 'root:x:0:\nnonroot:x:65532:\nnogroup:x:65534:\n' > "$dir/etc/group"
  printf 'hosts: files dns\n' > "$dir/etc/nsswitch.conf"
}

# --- build every component ------------------------------------------------------------------
declare -A DIRS
stage mkimage 1 build_mkimage; MKIMAGE=$STAGE_DIR/mkimage
first=1
for v in $K8S_VERSIONS; do
  stage kubernetes "$v" build_kubernetes; DIRS[kubernetes-$v]=$STAGE_DIR
  if [ $first = 1 ]; then PAUSE_SOURCE=$STAGE_DIR/.pause.c; first=0; fi
done
export PAUSE_SOURCE
stage pause "$(version_of pause)" build_pause; DIRS[pause]=$STAGE_DIR
for c in etcd:etcd containerd:containerd runc:runc crictl:crictl cni-plugins:cniPlugins coredns:coredns flannel:flannel cri-dockerd:criDockerd; do
  name=${c%%:*}; key=${c#*:}
  stage "$name" "$(version_of "$key")" "build_${name//-/_}"; DIRS[$name]=$STAGE_DIR
done
# Its source lives in this repository: the source's hash is part of the stage's cache key.
STAGE_SOURCE_HASH=$(cat "$HERE"/../../../src/apiproxy/*.go "$HERE"/../../../src/apiproxy/go.mod | sha256sum | cut -c1-16)
stage kcluster-apiproxy "$(version_of apiproxy)" build_apiproxy; DIRS[kcluster-apiproxy]=$STAGE_DIR
unset STAGE_SOURCE_HASH
stage netbase-rootfs 1 build_netbase_rootfs; DIRS[netbase]=$STAGE_DIR
stage busybox 1 build_busybox; DIRS[busybox]=$STAGE_DIR

# --- assemble the bundle ------------------------------------------------------------------------
key=$( { for k in $(printf '%s\n' "${!DIRS[@]}" | sort); do echo "$k ${DIRS[$k]}"; done; cat "$HERE/write-lock.mjs" "$MKIMAGE"; } | sha256sum | cut -c1-12)
first_k8s=${K8S_VERSIONS%% *}
bundle=$CACHE/bundles/kcluster-bundle-$first_k8s-$key
if [ -e "$bundle/kcluster-bundle.json" ]; then
  log "bundle cached: $bundle"
  echo "$bundle"; exit 0
fi
tmp=$bundle.partial
rm -rf "$tmp"; mkdir -p "$tmp/images"
images=$tmp/.images.tsv
: > "$images"
put() { # component version source-dir files...
  local c=$1 v=$2 src=$3; shift 3
  mkdir -p "$tmp/$c/$v"
  for f in "$@"; do cp -l "$src/$f" "$tmp/$c/$v/$f" 2>/dev/null || cp "$src/$f" "$tmp/$c/$v/$f"; done
}
image() { # component version name entrypoint user layers...
  local c=$1 v=$2 name=$3 entry=$4 user=$5; shift 5
  local ref=$REPO/$name:$v file=images/$name-$v.tar args=() l
  for l in "$@"; do args+=(-layer "$l"); done
  "$MKIMAGE" -name "$ref" -out "$tmp/$file" ${entry:+-entrypoint "$entry"} ${user:+-user "$user"} "${args[@]}" >/dev/null
  printf '%s\t%s\t%s\t%s\t%s\n' "$file" "$ref" "$c" "$v" "$name" >> "$images"
}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
base_layer "$work/base"
one_layer() { # dir binary-path-in-image source
  mkdir -p "$1/$(dirname "$2")"; cp "$3" "$1/$2"; chmod 0755 "$1/$2"
}
log "assembling the bundle and its images"
for v in $K8S_VERSIONS; do
  d=${DIRS[kubernetes-$v]}
  put kubernetes "$v" "$d" kube-apiserver kube-controller-manager kube-scheduler kube-proxy kubelet kubectl
  for b in kube-apiserver kube-controller-manager kube-scheduler; do
    one_layer "$work/$b-$v" "usr/local/bin/$b" "$d/$b"
    image kubernetes "$v" "$b" "/usr/local/bin/$b" "" "$work/base" "$work/$b-$v"
  done
  one_layer "$work/kube-proxy-$v" usr/local/bin/kube-proxy "$d/kube-proxy"
  image kubernetes "$v" kube-proxy /usr/local/bin/kube-proxy "" "$work/base" "${DIRS[netbase]}/rootfs" "$work/kube-proxy-$v"
done
v=$(version_of etcd); d=${DIRS[etcd]}
put etcd "$v" "$d" etcd etcdctl etcdutl
mkdir -p "$work/etcd/usr/local/bin"; cp "$d/etcd" "$d/etcdctl" "$d/etcdutl" "$work/etcd/usr/local/bin/"
image etcd "$v" etcd /usr/local/bin/etcd "" "$work/base" "$work/etcd"
put containerd "$(version_of containerd)" "${DIRS[containerd]}" containerd ctr containerd-shim-runc-v2
put runc "$(version_of runc)" "${DIRS[runc]}" runc
put crictl "$(version_of crictl)" "${DIRS[crictl]}" crictl
put cni-plugins "$(version_of cniPlugins)" "${DIRS[cni-plugins]}" bridge loopback host-local portmap
put cri-dockerd "$(version_of criDockerd)" "${DIRS[cri-dockerd]}" cri-dockerd
put kcluster-apiproxy "$(version_of apiproxy)" "${DIRS[kcluster-apiproxy]}" kcluster-apiproxy
v=$(version_of coredns); one_layer "$work/coredns" coredns "${DIRS[coredns]}/coredns"
image coredns "$v" coredns /coredns 65532:65532 "$work/base" "$work/coredns"
v=$(version_of flannel); one_layer "$work/flannel" opt/bin/flanneld "${DIRS[flannel]}/flanneld"
image flannel "$v" flannel /opt/bin/flanneld "" "$work/base" "${DIRS[netbase]}/rootfs" "$work/flannel"
v=$(version_of pause); one_layer "$work/pause" pause "${DIRS[pause]}/pause"
image pause "$v" pause /pause 65535:65535 "$work/pause"
v=$(cat "${DIRS[busybox]}/version"); mkdir -p "$work/busybox/bin"; cp "${DIRS[busybox]}/rootfs/bin/busybox" "$work/busybox/bin/busybox"
image test-tools "$v" busybox /bin/busybox "" "$work/base" "$work/busybox"
cp "${DIRS[netbase]}/debian-packages.txt" "$tmp/debian-packages.txt"
node "$HERE/write-lock.mjs" "$tmp" "$ARCH" "$images"
rm -f "$images"
rm -rf "$bundle"; mv "$tmp" "$bundle"
log "bundle ready: $bundle ($(du -sh "$bundle" | cut -f1))"
# Keep the three newest bundles (1.2 GB each); the stage outputs they came from stay cached.
ls -1dt "$CACHE"/bundles/kcluster-bundle-* 2>/dev/null | grep -v '\.partial$' | tail -n +4 | while read -r old; do log "removing an older bundle: $old"; rm -rf "$old"; done
echo "$bundle"
