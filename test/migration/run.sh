#!/usr/bin/env bash
# Hardening a cluster that an older kcluster installed (slow, not part of `npm test`: two
# installs): test/migration/hardening.test.ts, with the offline bundle (built or reused from
# /var/cache/kcluster/build). Writes its dated result to test/migration/results/<date>.md
# (commit it). Run as root in the repository after `npm ci`:   npm run test:migration
# Cost here (2 cores, bundle cached): about 10 minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "$(id -u)" = 0 ] || { echo "test/migration/run.sh: run as root (lab hosts are systemd-nspawn containers)" >&2; exit 2; }
bash src/lab/scripts/install-host-deps.sh
[ -d node_modules ] || npm ci
npm run --silent build
bash test/cis/build-kube-bench.sh >/dev/null
BUNDLE=${KCLUSTER_TEST_BUNDLE:-$(node bin/kcluster.js bundle build --test-tools | tail -n 1)}
log=$(mktemp /tmp/kcluster-migration.XXXXXX.log)
set +e
KCLUSTER_TEST_BUNDLE=$BUNDLE npx vitest run --project migration --reporter=default 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
out=test/migration/results/$(date -u +%F).md
dirty=$(git diff --quiet || echo ' (with uncommitted changes)')
{
  echo "# Hardening an existing cluster, $(date -u +'%F %H:%M UTC')"
  echo
  echo "Command: \`npm run test:migration\` at $(git rev-parse --short HEAD)$dirty, on $(nproc) cores."
  echo "The cluster was installed by kcluster at $(grep -o "BEFORE_HARDENING = '[0-9a-f]*'" test/migration/hardening.test.ts | grep -o "[0-9a-f]\{12\}" | head -1) (before the CIS work), then converged by this one."
  echo
  echo "Result: $([ "$status" = 0 ] && echo passed || echo "FAILED (exit $status)")"
  echo
  echo "Figures:"
  echo
  sed -e 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^(hardening apply|kube-bench)' | sed -e 's/^/- /'
  echo
  echo "Tests:"
  echo
  grep -E '✓|×' "$log" | sed -e 's/\x1b\[[0-9;]*m//g' -e 's/^ */- /'
} > "$out"
rm -f "$log"
echo "test/migration/run.sh: result in $out"
exit "$status"
