#!/usr/bin/env bash
# kube-bench, built from source through the Go module proxy (a pinned version that the checksum
# database verifies) and cached with its config directory, taken from the same module. Prints
# the cache directory, which holds bin/kube-bench-VERSION and cfg-VERSION. Idempotent.
set -euo pipefail
version=${KUBE_BENCH_VERSION:-v0.15.1}
cache=${KCLUSTER_KUBE_BENCH_CACHE:-/var/cache/kcluster/kube-bench}
mkdir -p "$cache/bin" "$cache/src"
if [ ! -x "$cache/bin/kube-bench-$version" ] || [ ! -d "$cache/cfg-$version" ]; then
  # kube-bench's go.mod needs a newer Go than Debian's: GOTOOLCHAIN fetches it from the proxy.
  (cd "$cache/src" && printf 'module kcluster.local/kube-bench\n\ngo 1.26.2\n\nrequire github.com/aquasecurity/kube-bench %s\n' "$version" > go.mod &&
    GOFLAGS=-mod=mod CGO_ENABLED=0 nice -n 10 go build -ldflags "-X github.com/aquasecurity/kube-bench/cmd.KubeBenchVersion=$version" \
      -o "$cache/bin/kube-bench-$version.partial" github.com/aquasecurity/kube-bench) >&2
  rm -rf "$cache/cfg-$version" "$cache/cfg-$version.partial"
  cp -r "$(cd "$cache/src" && go env GOMODCACHE)/github.com/aquasecurity/kube-bench@$version/cfg" "$cache/cfg-$version.partial"
  chmod -R u+w "$cache/cfg-$version.partial"
  mv "$cache/cfg-$version.partial" "$cache/cfg-$version"
  mv "$cache/bin/kube-bench-$version.partial" "$cache/bin/kube-bench-$version"
fi
echo "$cache"
