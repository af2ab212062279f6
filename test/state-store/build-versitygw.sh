#!/usr/bin/env bash
# versitygw, the S3 server the state-store tests run against (issue 41), built from source
# through the Go module proxy (a pinned version the checksum database verifies) and cached.
# Chosen over MinIO (AGPL, no longer maintained upstream) and SeaweedFS (about three times the
# packages to build; its conditional writes are atomic only with a filer lock configured):
# versitygw's posix backend publishes a conditional PUT under a lock, and versioning is on only
# with --versioning-dir, which gives the tests a bucket without versioning as well.
# Prints the path of the binary. Idempotent.
set -euo pipefail
version=${VERSITYGW_VERSION:-v1.8.0}
cache=${KCLUSTER_VERSITYGW_CACHE:-/var/cache/kcluster/versitygw}
bin="$cache/bin/versitygw-$version"
mkdir -p "$cache/bin" "$cache/src"
# Test files start servers in parallel: one builds, the others wait for it.
exec 9> "$cache/.build.lock"
flock 9
if [ ! -x "$bin" ]; then
  (cd "$cache/src" && printf 'module kcluster.local/versitygw\n\ngo 1.26.2\n\nrequire github.com/versity/versitygw %s\n' "$version" > go.mod &&
    GOFLAGS=-mod=mod CGO_ENABLED=0 nice -n 10 go build -trimpath -o "$bin.partial" github.com/versity/versitygw/cmd/versitygw) >&2
  mv "$bin.partial" "$bin"
fi
echo "$bin"
