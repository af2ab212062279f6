#!/usr/bin/env bash
# kcluster at 1, 20, 100 and 200 hosts (light lab hosts: network namespace, overlay root,
# sshd) against the ssh2 floor measured in the same run: first run, RUNS no-op reruns
# (min / median / max), round trips per host, controller peak RSS (GNU time, max RSS of the
# whole process). Prints a table and writes bench/results/scale.md, and the plot
# bench/results/scale.svg (from scale.tsv, by bench/plot.mjs).
# Usage (root): bash bench/scale/run.sh ["1 20 100 200"] [RUNS=5]
set -euo pipefail
cd "$(dirname "$0")/../.."
COUNTS=${1:-1 20 100 200}; RUNS=${2:-5}; LAB=kcscale
[ -f dist/src/index.js ] || npm run --silent build
kc() { node bin/kcluster.js "$@"; }
trap 'kc lab down --name "$LAB" >/dev/null 2>&1 || true' EXIT
now() { date +%s.%N; }
elapsed() { echo "$(now) - $1" | bc; }
stats() { sort -n | awk '{a[NR]=$1} END {printf "%.2f %.2f %.2f\n", a[1], a[int((NR+1)/2)], a[NR]}'; }
WORK=$(mktemp -d)
out=bench/results/scale.md; tsv=bench/results/scale.tsv; mkdir -p bench/results
echo "# hosts	kcluster no-op median (s)	floor median (s)	peak RSS (MB)" > "$tsv"
{
  echo "kcluster at scale: 20 templated files per host, light lab hosts, $RUNS no-op runs each, $(nproc) cores, $(date +%F)"
  echo
  echo "| hosts | first run (s) | no-op min / median / max (s) | floor min / median / max (s) | no-op / floor | round trips / host | peak RSS (MB) |"
  echo "|---|---|---|---|---|---|---|"
} > "$out"
for n in $COUNTS; do
  kc lab down --name "$LAB" >/dev/null 2>&1 || true
  kc lab up --name "$LAB" --hosts "$n" --light --subnet 10.231.5.0/24 >/dev/null
  INV=$HOME/.kcluster/labs/$LAB/inventory.yaml
  t=$(now); kc run bench/scale/files-playbook.mjs -i "$INV" --concurrency 256 --output json > "$WORK/first.json"; first=$(elapsed "$t")
  : > "$WORK/kc.times"; : > "$WORK/floor.times"
  for _ in $(seq 1 "$RUNS"); do
    t=$(now); kc run bench/scale/files-playbook.mjs -i "$INV" --concurrency 256 --output json > "$WORK/noop.json"; elapsed "$t" >> "$WORK/kc.times"
    t=$(now); node bench/generic/ssh-floor.mjs "$INV" > /dev/null; elapsed "$t" >> "$WORK/floor.times"
  done
  read -r kmin kmed kmax < <(stats < "$WORK/kc.times")
  read -r fmin fmed fmax < <(stats < "$WORK/floor.times")
  rt=$(node -e 'const e=require("fs").readFileSync(process.argv[1],"utf8").trim().split("\n").map(JSON.parse).find(x=>x.type==="run-end"); const h=e.summary.hosts; console.log(Math.max(...h.map(x=>x.roundTrips)) + " (changed " + h.reduce((a,x)=>a+x.changed,0) + ")")' "$WORK/noop.json")
  rss=$( { /usr/bin/time -f '%M' node bin/kcluster.js run bench/scale/files-playbook.mjs -i "$INV" --concurrency 256 --output json > /dev/null; } 2>&1 | tail -1 )
  printf '| %s | %.2f | %s / %s / %s | %s / %s / %s | %.1fx | %s | %.0f |\n' "$n" "$first" "$kmin" "$kmed" "$kmax" "$fmin" "$fmed" "$fmax" "$(echo "$kmed / $fmed" | bc -l)" "$rt" "$(echo "$rss / 1024" | bc -l)" | tee -a "$out"
  printf '%s\t%s\t%s\t%.0f\n' "$n" "$kmed" "$fmed" "$(echo "$rss / 1024" | bc -l)" >> "$tsv"
done
kc lab down --name "$LAB" >/dev/null 2>&1 || true
node bench/plot.mjs scale "$tsv" > bench/results/scale.svg
echo; cat "$out"; echo "plot: bench/results/scale.svg"
