#!/usr/bin/env bash
# Lab figures on this machine: time to bring up N full (systemd) hosts and M light hosts,
# memory per host (MemAvailable before/after, divided by N), and teardown time.
# Usage (root): bash bench/lab-scale.sh [FULL_HOSTS=20] [LIGHT_HOSTS=200]
set -euo pipefail
cd "$(dirname "$0")/.."
FULL=${1:-20}; LIGHT=${2:-200}
kc() { node bin/kcluster.js "$@"; }
avail() { awk '/^MemAvailable:/ {print $2}' /proc/meminfo; }
measure() { # name hosts extra-args...
  local name=$1 n=$2; shift 2
  kc lab down --name "$name" >/dev/null 2>&1 || true
  sync; local before; before=$(avail)
  local t0; t0=$(date +%s.%N)
  kc lab up --name "$name" --hosts "$n" "$@" >/dev/null
  local t1; t1=$(date +%s.%N)
  sleep 5; local after; after=$(avail)
  local t2; t2=$(date +%s.%N)
  kc lab down --name "$name" >/dev/null
  local t3; t3=$(date +%s.%N)
  printf '%-28s up %6.1f s   memory %6.1f MB/host   down %5.1f s\n' "$name: $n hosts $*" \
    "$(echo "$t1 - $t0" | bc)" "$(echo "($before - $after) / 1024 / $n" | bc -l)" "$(echo "$t3 - $t2" | bc)"
}
measure kcb3 3 --subnet 10.231.4.0/24
measure kcb "$FULL" --subnet 10.231.4.0/24
measure kcbl "$LIGHT" --light --subnet 10.231.4.0/24
