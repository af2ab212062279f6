#!/usr/bin/env bash
# Artifact fan-out (issue 32): fresh installs of 1 control plane + N-1 workers on new privileged
# lab hosts from the bundle, with cluster.artifacts.fanOut true and false, one install each
# (the sizes and modes are arguments). For each install: `kcluster apply -o json` wall time, the
# bytes kcluster sent the hosts over SSH (the run-end event's bytesSent, summed over hosts: the
# controller's own link), the bytes the machine sent into the lab bridge (its tx_bytes: what the
# controller sent, SSH framing included; host-to-host relays are forwarded by the bridge and not
# counted there), and from the run's debug log how many copies were relayed, sent by the
# controller and relays that failed. With 1 or 2 hosts fan-out does not apply (the controller
# sends up to 2 copies itself): both modes take the same path.
# Writes bench/results/DATE-fanout-REVISION.md and .tsv, and the plot .svg (bench/plot.mjs fanout).
# Usage (root, after `npm ci`): bash bench/fanout/run.sh ["1 5 10"] ["on off"]
#   BUNDLE=path skips `bundle build`; LAB and SUBNET pick the lab (default kcfan, 10.231.28.0/24);
#   LOCK=file holds that flock around each install (lab up to lab down) and releases it between.
set -euo pipefail
cd "$(dirname "$0")/../.."
SIZES=${1:-1 5 10}
MODES=${2:-on off}
LAB=${LAB:-kcfan}
SUBNET=${SUBNET:-10.231.28.0/24}
[ "$(id -u)" = 0 ] || { echo "bench/fanout: run as root (lab hosts are systemd-nspawn containers)" >&2; exit 2; }
kc() { node bin/kcluster.js "$@"; }
npm run --silent build
REVISION=$(git describe --always --dirty)
BUNDLE=${BUNDLE:-$(kc bundle build | tail -n 1)}
INVENTORY=$HOME/.kcluster/labs/$LAB/inventory.yaml
BRIDGE=kc-$LAB
DAY=$(date -u +%F)
OUT=bench/results
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/kcluster-bench-fanout.XXXXXX)
trap 'kc lab down --name "$LAB" >/dev/null 2>&1 || true' EXIT
now_ms() { date +%s%3N; }
bridge_tx() { cat "/sys/class/net/$BRIDGE/statistics/tx_bytes"; }

printf 'hosts\tfanOut\texit\tapply_ms\tkcluster_sent_bytes\tbridge_tx_bytes\trelayed\tfrom_controller\trelay_failed\n' > "$WORK/fanout.tsv"
for hosts in $SIZES; do
  for mode in $MODES; do
    name=$hosts-$mode
    if [ -n "${LOCK:-}" ]; then exec 9> "$LOCK"; flock 9; fi
    kc lab down --name "$LAB" >/dev/null 2>&1 || true
    kc lab up --name "$LAB" --hosts "$hosts" --control-planes 1 --privileged --bundle "$BUNDLE" --subnet "$SUBNET" > "$WORK/lab-up-$name.log" 2>&1
    value=$([ "$mode" = on ] && echo true || echo false)
    # The lab's inventory names the bundle under cluster.artifacts: the switch goes beside it.
    sed -i "s|^\(\( *\)bundle: .*\)$|\1\n\2fanOut: $value|" "$INVENTORY"
    grep -q "fanOut: $value" "$INVENTORY" || { echo "bench/fanout: could not set fanOut in $INVENTORY" >&2; exit 1; }
    sleep 3
    rc=0
    tx0=$(bridge_tx); t0=$(now_ms)
    kc apply -i "$INVENTORY" -o json > "$WORK/$name.ndjson" 2> "$WORK/$name.stderr" || rc=$?
    t1=$(now_ms); tx1=$(bridge_tx)
    log=$(sed -n 's/.*"debugLog":"\([^"]*\)".*/\1/p' "$WORK/$name.ndjson" | head -n 1)
    cp "$log" "$WORK/$name.debug.log" 2>/dev/null || : > "$WORK/$name.debug.log"
    sent=$(node -e '
      const lines = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map((l) => JSON.parse(l));
      const end = lines.find((e) => e.type === "run-end");
      console.log(end ? end.summary.hosts.reduce((s, h) => s + h.bytesSent, 0) : -1);' "$WORK/$name.ndjson")
    relayed=$(grep -c ': relayed from ' "$WORK/$name.debug.log" || true)
    controller=$(grep -c ': sent from the controller (' "$WORK/$name.debug.log" || true)
    failed=$(grep -c ': relay from .* failed: ' "$WORK/$name.debug.log" || true)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$hosts" "$value" "$rc" "$((t1 - t0))" "$sent" "$((tx1 - tx0))" "$relayed" "$controller" "$failed" >> "$WORK/fanout.tsv"
    echo "$hosts hosts, fanOut $value: exit $rc, apply $(((t1 - t0) / 1000)) s, kcluster sent $((sent / 1000000)) MB, bridge $(((tx1 - tx0) / 1000000)) MB, relayed $relayed, from the controller $controller, failed relays $failed"
    kc lab down --name "$LAB" >/dev/null 2>&1 || true
    if [ -n "${LOCK:-}" ]; then flock -u 9; exec 9>&-; fi
  done
done
node bench/fanout/summarize.mjs "$WORK/fanout.tsv" "$OUT/$DAY-fanout-$REVISION" "$REVISION" "$SIZES" "$MODES"
node bench/plot.mjs fanout "$OUT/$DAY-fanout-$REVISION.tsv" > "$OUT/$DAY-fanout-$REVISION.svg"
echo "plot: $OUT/$DAY-fanout-$REVISION.svg"
echo "raw data (NDJSON logs, debug logs, stderr): $WORK"
