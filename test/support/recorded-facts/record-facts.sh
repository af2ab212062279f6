#!/usr/bin/env bash
# npm run record:facts: refreshes the fact recordings the role plan unit tests replay
# (test/fixtures/facts/<scenario>/<host>.json). Brings up a 3-host lab "kcrec" on 10.231.7.0/24
# (as root), records, and brings it down; KCLUSTER_RECORD_LAB=<lab dir> uses a lab already up.
set -euo pipefail
cd "$(dirname "$0")/../../.."
npm run --silent build
LAB=${KCLUSTER_RECORD_LAB:-}
if [ -z "$LAB" ]; then
  [ "$(id -u)" = 0 ] || { echo "record:facts: lab hosts need root (or set KCLUSTER_RECORD_LAB to a lab's folder)" >&2; exit 2; }
  node bin/kcluster.js lab up --name kcrec --hosts 3 --subnet 10.231.7.0/24
  trap 'node bin/kcluster.js lab down --name kcrec' EXIT
  LAB=$HOME/.kcluster/labs/kcrec
fi
KCLUSTER_RECORD_LAB=$LAB npx vitest run --project record-facts
if grep -rlE 'PRIVATE KEY|client-key-data|token:' test/fixtures/facts/*/; then
  echo "record:facts: a recording above holds a secret: do not commit it" >&2
  exit 1
fi
