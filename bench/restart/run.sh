#!/usr/bin/env bash
# Control-plane restarts on a running cluster, timed: one lab cluster (1 control plane + 1
# worker, privileged lab hosts, from the bundle) installed once, then RUNS rounds of
#   - a flag change of the API server (`cluster.apiServer.extraArgs`, alternating
#     --event-ttl between two values): `kcluster apply`, which restarts kube-apiserver only;
#   - `kcluster certs renew --yes`: every leaf reissued, all four static pods restarted.
# Each is timed as a whole and by its control-plane play (from the run's NDJSON events).
# With KCLUSTER_BEFORE=<another built checkout>, each round runs both kclusters in turn on the
# same cluster (before, after, before, after, ...), so a change is compared under the same load.
# Prints a line per run and writes a dated results file under bench/results/ (Markdown + TSV).
# Usage (root, after `npm ci`): bash bench/restart/run.sh [RUNS=3]; BUNDLE=path skips `bundle build`.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${1:-3}
[ "$(id -u)" = 0 ] || { echo "bench/restart: run as root (lab hosts are systemd-nspawn containers)" >&2; exit 2; }
kc_at() { local checkout=$1; shift; node "$checkout/bin/kcluster.js" "$@"; }
npm run --silent build
AFTER=$PWD
BEFORE=${KCLUSTER_BEFORE:-}
REVISION=$(git describe --always --dirty)
BUNDLE=${BUNDLE:-$(kc_at "$AFTER" bundle build | tail -n 1)}
LAB=kcbr
LAB_DIR=$HOME/.kcluster/labs/$LAB
INVENTORY=$LAB_DIR/inventory.yaml
DAY=$(date -u +%F)
OUT=bench/results
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/kcluster-bench-restart.XXXXXX)
trap 'kc_at "$AFTER" lab down --name "$LAB" >/dev/null 2>&1 || true' EXIT

kc_at "$AFTER" lab down --name "$LAB" >/dev/null 2>&1 || true
kc_at "$AFTER" lab up --name "$LAB" --hosts 2 --control-planes 1 --privileged --bundle "$BUNDLE" --subnet 10.231.17.0/24 >/dev/null
kc_at "$AFTER" apply -i "$INVENTORY" -o json > "$WORK/install.ndjson"
cp "$INVENTORY" "$WORK/inventory.base.yaml"

with_event_ttl() { # value: the inventory with that --event-ttl for the API server
  node -e '
    const { readFileSync, writeFileSync } = require("node:fs");
    const { parseDocument } = require("yaml");
    const doc = parseDocument(readFileSync(process.argv[1], "utf8"));
    doc.setIn(["cluster", "apiServer", "extraArgs", "event-ttl"], process.argv[3]);
    writeFileSync(process.argv[2], doc.toString());
  ' "$WORK/inventory.base.yaml" "$INVENTORY" "$1"
}
play_seconds() { # ndjson play: that play's duration (bench/play-durations.mjs), "-" when it did not run
  node --input-type=module -e '
    import { playDurations } from "./bench/play-durations.mjs";
    const ms = playDurations(process.argv[1]).find(([play]) => play === process.argv[2])?.[1];
    console.log(ms === undefined ? "-" : (ms / 1000).toFixed(1));
  ' "$1" "$2"
}
now_ms() { date +%s%3N; }
timed() { # label checkout ndjson command...: runs it, prints seconds, fails the bench on a non-zero exit
  local label=$1 checkout=$2 log=$3; shift 3
  local t0 t1
  t0=$(now_ms)
  kc_at "$checkout" "$@" -o json > "$log" 2> "$log.stderr" || { echo "bench/restart: $label failed (exit $?); see $log.stderr" >&2; tail -n 5 "$log.stderr" >&2; exit 1; }
  t1=$(now_ms)
  echo "scale=1; ($t1 - $t0) / 1000" | bc
}

printf 'run\tkcluster\tflag change s\tflag change control plane s\tcerts renew s\tcerts renew control plane s\n' > "$WORK/runs.tsv"
ttl=1h0m0s
for run in $(seq 1 "$RUNS"); do
  for side in ${BEFORE:+before} after; do
    checkout=$AFTER; [ "$side" = before ] && checkout=$BEFORE
    ttl=$([ "$ttl" = 1h0m0s ] && echo 2h0m0s || echo 1h0m0s)
    with_event_ttl "$ttl"
    flag=$(timed "apply (--event-ttl=$ttl)" "$checkout" "$WORK/flag-$run-$side.ndjson" apply -i "$INVENTORY")
    flag_cp=$(play_seconds "$WORK/flag-$run-$side.ndjson" 'control plane')
    renew=$(timed 'certs renew' "$checkout" "$WORK/renew-$run-$side.ndjson" certs renew -i "$INVENTORY" --yes)
    renew_cp=$(play_seconds "$WORK/renew-$run-$side.ndjson" 'control planes, one at a time')
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$run" "$side" "$flag" "$flag_cp" "$renew" "$renew_cp" >> "$WORK/runs.tsv"
    printf 'run %s (%s): flag change %s s (control plane %s s); certs renew %s s (control planes %s s)\n' "$run" "$side" "$flag" "$flag_cp" "$renew" "$renew_cp"
  done
done
node bench/restart/summarize.mjs "$WORK/runs.tsv" "$OUT/$DAY-restart-$REVISION" "$REVISION" "${BEFORE:+$(git -C "$BEFORE" describe --always --dirty)}"
rm -rf "$WORK"
