#!/usr/bin/env bash
# The end-to-end tests that do not fit CI's budget (40 minutes warm) beside `npm test` (docs/developers/tests.md):
# the README's install and quick start run as written (test/e2e/quick-start.test.ts), the CA
# rotation of an HA cluster under traffic followed by the service-account key's
# (test/e2e/ca-rotation.test.ts; CI rotates a single control plane's CAs in help-examples), and
# kube-proxy and flannel in nftables mode: Conformance, NetworkPolicy specs, mode switches (test/e2e/nftables.test.ts),
# and a dual-stack IPv4/IPv6 cluster with upstream's dual-stack specs, with kube-proxy in iptables
# and then in nftables mode (test/e2e/dual-stack.test.ts).
# Needs root, like npm test; the bundle is the one npm test builds (cached).
set -uo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "npm run test:extended: lab hosts need root; run it with sudo" >&2; exit 2; }
[ -d node_modules ] || npm ci || exit 1
npm run --silent build || exit 1
BUNDLE=$(node bin/kcluster.js bundle build --upgrade-pair --every-component --test-tools | tail -n 1) || exit 1
KCLUSTER_E2E_EXTENDED=1 KCLUSTER_TEST_BUNDLE="$BUNDLE" npx vitest run --project e2e test/e2e/quick-start.test.ts test/e2e/ca-rotation.test.ts test/e2e/nftables.test.ts test/e2e/dual-stack.test.ts
status=$?
# The dual-stack cluster again with kube-proxy (and flannel) in nftables mode.
KCLUSTER_E2E_EXTENDED=1 KCLUSTER_E2E_PROXY_MODE=nftables KCLUSTER_TEST_BUNDLE="$BUNDLE" npx vitest run --project e2e test/e2e/dual-stack.test.ts || status=1
exit "$status"
