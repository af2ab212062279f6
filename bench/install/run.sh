#!/usr/bin/env bash
# Fresh installs on empty lab hosts, timed: for each run, new lab hosts, `kcluster apply -o json`
# from the bundle, then the time until every Node is Ready (apply itself ends once kube-proxy,
# flannel and CoreDNS are Ready). Prints a line per run and the median, writes a dated results
# file under bench/results/ (Markdown table, TSV of every play's duration per run, and the
# timeline and SVG chart of the median run from `kcluster report timeline`).
# Usage (root, after `npm ci`): bash bench/install/run.sh [RUNS=5] [TOPOLOGY=single|ha]
#   single: 1 control plane + 2 workers (npm run lab-cluster's cluster); ha: 3 control planes +
#   1 worker, no load balancer (the node-local proxy). BUNDLE=path to skip `bundle build`;
#   KCLUSTER=path of another kcluster checkout (built) to time instead of this one, for a
#   before/after comparison in the same session (the results file names it).
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${1:-5}
TOPOLOGY=${2:-single}
case "$TOPOLOGY" in
  single) HOSTS=3; CPS=1 ;;
  ha) HOSTS=4; CPS=3 ;;
  *) echo "bench/install: TOPOLOGY must be single or ha (got $TOPOLOGY)" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "bench/install: run as root (lab hosts are systemd-nspawn containers)" >&2; exit 2; }
KCLUSTER=${KCLUSTER:-$PWD}
kc() { node "$KCLUSTER/bin/kcluster.js" "$@"; }
npm run --silent build
REVISION=$(git -C "$KCLUSTER" describe --always --dirty)
BUNDLE=${BUNDLE:-$(kc bundle build | tail -n 1)}
LAB=kcbi
LAB_DIR=$HOME/.kcluster/labs/$LAB
INVENTORY=$LAB_DIR/inventory.yaml
KUBECTL=$(node -e 'const b=process.argv[1]; const l=require(b+"/kcluster-bundle.json"); const k=l.artifacts.filter(a=>a.name==="kubectl").sort((x,y)=>x.version.localeCompare(y.version,undefined,{numeric:true})).pop(); console.log(b+"/"+k.path)' "$BUNDLE")
DAY=$(date -u +%F)
OUT=bench/results
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/kcluster-bench-install.XXXXXX)
trap 'kc lab down --name "$LAB" >/dev/null 2>&1 || true' EXIT

now_ms() { date +%s%3N; }
for run in $(seq 1 "$RUNS"); do
  kc lab down --name "$LAB" >/dev/null 2>&1 || true
  kc lab up --name "$LAB" --hosts "$HOSTS" --control-planes "$CPS" --privileged --bundle "$BUNDLE" --subnet 10.231.5.0/24 >/dev/null
  t0=$(now_ms)
  rc=0
  kc apply -i "$INVENTORY" -o json > "$WORK/run-$run.ndjson" 2> "$WORK/run-$run.stderr" || rc=$?
  t1=$(now_ms)
  ready=-1
  if [ "$rc" = 0 ]; then
    kc kubeconfig -i "$INVENTORY" --file "$WORK/admin.conf" >/dev/null
    for _ in $(seq 1 300); do
      if "$KUBECTL" --kubeconfig "$WORK/admin.conf" get nodes --no-headers 2>/dev/null | awk '$2 != "Ready" {bad=1} END {exit bad || NR == 0}'; then
        ready=$(( $(now_ms) - t0 )); break
      fi
      sleep 0.2
    done
  fi
  printf '%s\t%s\t%s\t%s\n' "$run" "$rc" "$((t1 - t0))" "$ready" >> "$WORK/runs.tsv"
  printf 'run %s: apply exit %s in %.1f s; all nodes Ready at %.1f s\n' "$run" "$rc" "$(echo "($t1 - $t0) / 1000" | bc -l)" "$(echo "$ready / 1000" | bc -l)"
done
kc lab down --name "$LAB" >/dev/null 2>&1 || true
node bench/install/summarize.mjs "$WORK" "$OUT/$DAY-install-$TOPOLOGY-$REVISION" "$TOPOLOGY" "$HOSTS" "$CPS" "$REVISION"
rm -rf "$WORK"
