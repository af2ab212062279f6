#!/usr/bin/env bash
# The README's first command from a cleared build cache: `npm run lab-cluster` (the bundle the
# default inventory needs, built from source through the Go module proxy and Debian's packages;
# a 3-host lab; `kcluster apply`) with KCLUSTER_BUILD_CACHE pointing at an empty folder, so every
# stage, the Go toolchain and every module are fetched and built again. The lab's base root file
# system (/var/lib/kcluster) is kept: it is the lab's, not the bundle's, and its own cold cost
# is in the results' notes when measured. Prints the figures and writes
# bench/results/DATE-cold-start-REV.md. Usage (root, after `npm ci`): bash bench/cold-start/run.sh
# LAB (default kccold) names the lab; KEEP_CACHE=1 keeps the cold cache folder afterwards.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "$(id -u)" = 0 ] || { echo "cold-start: run as root (the lab creates bridges, mounts and containers)" >&2; exit 2; }
LAB=${LAB:-kccold}
REV=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src roles playbooks bundle || echo -dirty)
DAY=$(date -u +%Y-%m-%d)
CACHE=$(mktemp -d /var/tmp/kcluster-cold-cache.XXXXXX)
LOG=$(mktemp /tmp/kcluster-cold-start.XXXXXX.log)
OUT=bench/results/$DAY-cold-start-$REV.md
cleanup() {
  node bin/kcluster.js lab down --name "$LAB" >/dev/null 2>&1 || true
  [ "${KEEP_CACHE:-0}" = 1 ] || rm -rf "$CACHE"
}
trap cleanup EXIT
node bin/kcluster.js lab down --name "$LAB" >/dev/null 2>&1 || true
start=$(date +%s)
# Each line of the command's output with the seconds since the start, for the phases below.
set +e
KCLUSTER_BUILD_CACHE=$CACHE LAB=$LAB npm run --silent lab-cluster 2>&1 | while IFS= read -r line; do printf '%5d %s\n' "$(($(date +%s) - start))" "$line"; done | tee "$LOG"
code=${PIPESTATUS[0]}
set -e
total=$(($(date +%s) - start))
at() { grep -m1 -E "$1" "$LOG" | awk '{ print $1 }'; }
bundle_done=$(at 'bundle build: bundle (ready|cached):' || true)
{
  echo "# The README's first command from a cleared build cache ($DAY, $REV)"
  echo
  echo "\`bash bench/cold-start/run.sh\`: \`npm run lab-cluster\` with \`KCLUSTER_BUILD_CACHE\` an empty folder (the lab's base root file system kept), on this machine ($(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo))."
  echo
  echo "| what | seconds |"
  echo "|---|---|"
  echo "| exit code | $code |"
  echo "| whole command | $total |"
  echo "| until the bundle's folder was printed (lab deps and the bundle build) | ${bundle_done:-?} |"
  echo "| the rest (verify, lab up, apply, kubeconfig, nodes Ready) | $([ -n "${bundle_done:-}" ] && echo $((total - bundle_done)) || echo '?') |"
  echo
  echo "The build's stages, as it printed them:"
  echo
  echo '```'
  grep -E 'bundle build: ' "$LOG" | head -60
  echo '```'
  echo
  echo "The nodes at the end:"
  echo
  echo '```'
  grep -E ' Ready | NotReady ' "$LOG" | tail -4
  echo '```'
} > "$OUT"
echo "cold-start: $total s (bundle ${bundle_done:-?} s), exit $code; results in $OUT"
exit "$code"
