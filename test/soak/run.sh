#!/usr/bin/env bash
# `npm run soak -- --seed N --steps M [--topology single|ha] [--fault-rate P] [--keep]`: the seeded lifecycle soak
# (docs/developers/soak.md). TypeScript runs here only through vitest, so the arguments become
# the environment of its `soak` project. Needs root and the test bundle (KCLUSTER_TEST_BUNDLE).
set -euo pipefail
cd "$(dirname "$0")/../.."
usage() { echo "usage: npm run soak -- --seed N --steps M [--topology single|ha] [--fault-rate P] [--keep]" >&2; exit 2; }
SEED='' STEPS='' TOPOLOGY=single FAULT_RATE='' KEEP=0
while [ $# -gt 0 ]; do
  case "$1" in
    --seed) [ $# -ge 2 ] || usage; SEED=$2; shift 2 ;;
    --steps) [ $# -ge 2 ] || usage; STEPS=$2; shift 2 ;;
    --topology) [ $# -ge 2 ] || usage; TOPOLOGY=$2; shift 2 ;;
    --fault-rate) [ $# -ge 2 ] || usage; FAULT_RATE=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    -h | --help) usage ;;
    *) echo "npm run soak: unknown argument $1" >&2; usage ;;
  esac
done
if [ -z "$SEED" ] || [ -z "$STEPS" ]; then usage; fi
[ "$(id -u)" = 0 ] || { echo "npm run soak: lab hosts need root; run it with sudo" >&2; exit 2; }
[ -n "${KCLUSTER_TEST_BUNDLE:-}" ] || { echo "npm run soak: set KCLUSTER_TEST_BUNDLE to the folder \`kcluster bundle build --upgrade-pair --every-component --test-tools\` prints" >&2; exit 2; }
npm run --silent build
KCLUSTER_SOAK_SEED=$SEED KCLUSTER_SOAK_STEPS=$STEPS KCLUSTER_SOAK_TOPOLOGY=$TOPOLOGY KCLUSTER_SOAK_FAULT_RATE=$FAULT_RATE KCLUSTER_SOAK_KEEP=$KEEP \
  exec npx vitest run --project soak
