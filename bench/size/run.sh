#!/usr/bin/env bash
# Cluster size: 1 control plane with 2, 5 and 9 workers (or the sizes given) on fresh
# privileged lab hosts from the bundle. For each size, on new lab hosts:
#   - `kcluster apply -o json` from empty hosts: its wall time, when every Node is Ready (apply
#     itself ends once the addons are Ready), each play's duration from its events;
#   - a converged rerun, RERUNS times: wall time (min / median / max), changes (0 expected:
#     checked), round trips per host (the run-end event's per-host roundTrips);
#   - for each apply: the controller's CPU time (user + sys) and peak RSS (GNU time), the bytes
#     the machine sent into the lab bridge (its tx_bytes: all the controller sends the hosts)
#     and the bytes kcluster counted itself (the run-end event's bytesSent, summed);
#   - for each apply, the CPU time of the lab hosts (their cgroups' usage_usec, summed) and of
#     the whole machine (/proc/stat): what the controller and the hosts used, and what other
#     processes on the machine took from them (the machine is shared: the results say it);
#   - memory a lab host costs: MemAvailable before lab up, after it, and after the install,
#     divided by the hosts.
# It stops at the first size the machine cannot hold (not enough MemAvailable for the hosts,
# going by the last size's cost per host) or that fails, and says so in the results.
# Prints a table, writes bench/results/DATE-size-REVISION.md and .tsv, the plot -size.svg
# (install and rerun time against nodes, bench/plot.mjs) and the largest installed size's
# `kcluster report timeline` chart (-timeline.svg).
# Usage (root, after `npm ci`): bash bench/size/run.sh ["2 5 9"] [RERUNS=5]
#   BUNDLE=path skips `bundle build`; LAB and SUBNET pick the lab (default kcsize,
#   10.231.26.0/24); LOCK=file holds that flock around each size (lab up to lab down) and
#   releases it between sizes, for a machine where others take turns with heavy work.
set -euo pipefail
cd "$(dirname "$0")/../.."
SIZES=${1:-2 5 9}
RERUNS=${2:-5}
LAB=${LAB:-kcsize}
SUBNET=${SUBNET:-10.231.26.0/24}
[ "$(id -u)" = 0 ] || { echo "bench/size: run as root (lab hosts are systemd-nspawn containers)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/size: needs GNU time at /usr/bin/time (apt-get install time)" >&2; exit 2; }
kc() { node bin/kcluster.js "$@"; }
npm run --silent build
REVISION=$(git describe --always --dirty)
BUNDLE=${BUNDLE:-$(kc bundle build | tail -n 1)}
INVENTORY=$HOME/.kcluster/labs/$LAB/inventory.yaml
BRIDGE=kc-$LAB
KUBECTL=$(node -e 'const b=process.argv[1]; const l=require(b+"/kcluster-bundle.json"); const k=l.artifacts.filter(a=>a.name==="kubectl").sort((x,y)=>x.version.localeCompare(y.version,undefined,{numeric:true})).pop(); console.log(b+"/"+k.path)' "$BUNDLE")
DAY=$(date -u +%F)
OUT=bench/results
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/kcluster-bench-size.XXXXXX)
trap 'kc lab down --name "$LAB" >/dev/null 2>&1 || true' EXIT

now_ms() { date +%s%3N; }
avail_kb() { awk '/^MemAvailable:/ {print $2}' /proc/meminfo; }
bridge_tx() { cat "/sys/class/net/$BRIDGE/statistics/tx_bytes"; }
CLK_TCK=$(getconf CLK_TCK)
# machine_cpu: busy and all CPU time of the machine so far, in clock ticks (/proc/stat's cpu line)
machine_cpu() { awk '/^cpu / {busy = $2 + $3 + $4 + $7 + $8 + $9; print busy, busy + $5 + $6}' /proc/stat; }
# hosts_cpu_us HOSTS: CPU time the lab hosts used so far (each host's cgroup, as bench/generic/host-cpu.mjs)
hosts_cpu_us() {
  local i sum=0 file
  for i in $(seq 1 "$1"); do
    file=/sys/fs/cgroup/unified/kcluster-lab/$LAB$i/cpu.stat
    [ -f "$file" ] || file=/sys/fs/cgroup/kcluster-lab/$LAB$i/cpu.stat
    sum=$((sum + $(awk '/^usage_usec/ {print $2}' "$file")))
  done
  echo "$sum"
}
stop() { # reason: recorded for the results, then no larger size is tried
  echo "$1" > "$WORK/stopped"
  echo "bench/size: stopped: $1" >&2
}
# timed_apply NAME HOSTS: `kcluster apply -o json` under GNU time; appends a row to applies.tsv:
# name, exit, wall ms, user s, sys s, max RSS kB, bridge tx bytes, lab hosts' CPU us,
# machine busy CPU ms, machine all CPU ms
timed_apply() {
  local name=$1 hosts=$2 t0 t1 tx0 tx1 h0 h1 busy0 all0 busy1 all1 rc=0
  tx0=$(bridge_tx); h0=$(hosts_cpu_us "$hosts"); read -r busy0 all0 < <(machine_cpu); t0=$(now_ms)
  /usr/bin/time -f '%U\t%S\t%M' -o "$WORK/$name.time" node bin/kcluster.js apply -i "$INVENTORY" -o json > "$WORK/$name.ndjson" 2> "$WORK/$name.stderr" || rc=$?
  t1=$(now_ms); tx1=$(bridge_tx); h1=$(hosts_cpu_us "$hosts"); read -r busy1 all1 < <(machine_cpu)
  # GNU time writes "Command exited with non-zero status N" above its line when the command fails.
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$rc" "$((t1 - t0))" "$(tail -n 1 "$WORK/$name.time")" "$((tx1 - tx0))" "$((h1 - h0))" \
    "$(((busy1 - busy0) * 1000 / CLK_TCK))" "$(((all1 - all0) * 1000 / CLK_TCK))" >> "$WORK/applies.tsv"
  return "$rc"
}

: > "$WORK/applies.tsv"
: > "$WORK/sizes.tsv"
kb_per_host=0
for workers in $SIZES; do
  hosts=$((workers + 1))
  if [ -n "${LOCK:-}" ]; then exec 9> "$LOCK"; flock 9; fi
  kc lab down --name "$LAB" >/dev/null 2>&1 || true
  sync
  before=$(avail_kb)
  # Room for the hosts at the last size's cost per host, and 1 GiB for the controller.
  need=$((kb_per_host * hosts + 1048576))
  if [ "$kb_per_host" -gt 0 ] && [ "$before" -lt "$need" ]; then
    stop "$hosts nodes: $((before / 1024)) MB available, about $((need / 1024)) MB needed at $((kb_per_host / 1024)) MB per host measured at the size before"
    break
  fi
  t0=$(now_ms)
  if ! kc lab up --name "$LAB" --hosts "$hosts" --control-planes 1 --privileged --bundle "$BUNDLE" --subnet "$SUBNET" > "$WORK/lab-up-$hosts.log" 2>&1; then
    stop "$hosts nodes: lab up failed: $(tail -n 2 "$WORK/lab-up-$hosts.log" | tr '\n' ' ')"
    break
  fi
  lab_up_ms=$(($(now_ms) - t0))
  sleep 5
  after_up=$(avail_kb)
  echo "$hosts nodes: lab up in $((lab_up_ms / 1000)) s; installing"
  t0=$(now_ms)
  if ! timed_apply "install-$hosts" "$hosts"; then
    stop "$hosts nodes: the install failed (exit $(tail -n 1 "$WORK/applies.tsv" | cut -f 2)): $(grep -v '^ *$' "$WORK/install-$hosts.stderr" | tail -n 3 | tr '\n' ' ')"
    break
  fi
  kc kubeconfig -i "$INVENTORY" --file "$WORK/admin.conf" >/dev/null
  ready=-1
  for _ in $(seq 1 600); do
    if "$KUBECTL" --kubeconfig "$WORK/admin.conf" get nodes --no-headers 2>/dev/null | awk -v n="$hosts" '$2 != "Ready" {bad=1} END {exit bad || NR != n}'; then
      ready=$(($(now_ms) - t0)); break
    fi
    sleep 0.2
  done
  if [ "$ready" -lt 0 ]; then
    stop "$hosts nodes: apply succeeded but not every Node was Ready within 2 minutes after it"
    break
  fi
  sleep 5
  after_install=$(avail_kb)
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$hosts" "$lab_up_ms" "$ready" "$before" "$after_up" "$after_install" >> "$WORK/sizes.tsv"
  for run in $(seq 1 "$RERUNS"); do
    if ! timed_apply "rerun-$hosts-$run" "$hosts"; then
      stop "$hosts nodes: converged rerun $run failed: $(grep -v '^ *$' "$WORK/rerun-$hosts-$run.stderr" | tail -n 3 | tr '\n' ' ')"
      break 2
    fi
  done
  kb_per_host=$(((before - after_install) / hosts))
  echo "$hosts nodes: all Ready at $((ready / 1000)) s; $((kb_per_host / 1024)) MB per host"
  kc lab down --name "$LAB" >/dev/null 2>&1 || true
  if [ -n "${LOCK:-}" ]; then flock -u 9; exec 9>&-; fi
done
kc lab down --name "$LAB" >/dev/null 2>&1 || true
if [ -n "${LOCK:-}" ]; then exec 9>&-; fi
node bench/size/summarize.mjs "$WORK" "$OUT/$DAY-size-$REVISION" "$REVISION" "$SIZES" "$RERUNS"
echo "raw data (NDJSON logs, GNU time, stderr): $WORK"
