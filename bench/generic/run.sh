#!/usr/bin/env bash
# Generic converge workload, side by side on the same lab hosts: kcluster, Ansible, pyinfra,
# the ssh2 floor (connect + `true`) and the same reads written by hand (connect + one minimal
# script, no engine). kcluster's first run, then RUNS no-op reruns of kcluster and the two
# floors in turn (k, f, r, k, f, r, ...) so a machine that slows down or speeds up during the
# run moves all three alike, and one more of each around which host CPU per host is read from
# the lab hosts' cgroups; then Ansible and pyinfra, each a first run and RUNS reruns (after
# kcluster's: Ansible's SSH masters keep a session open on every host for 120 s after it has
# run, which the floors and kcluster would otherwise be measured with). Prints a table (also
# written to bench/results/generic-<hosts>.md). Needs root; installs ansible and pyinfra from PyPI into
# /var/cache/kcluster/bench-venv. Also draws bench/results/generic-<hosts>.svg.
# Usage: bash bench/generic/run.sh [HOSTS=20] [RUNS=5]
#   QUICK=1 bash bench/generic/run.sh ...: kcluster and the two floors only (Ansible's no-op
#   runs alone take about 4 minutes each at 20 hosts).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD; HERE=$ROOT/bench/generic
HOSTS=${1:-20}; RUNS=${2:-5}; LAB=kcbench
OTHERS="ansible pyinfra"; [ "${QUICK:-0}" = 1 ] && OTHERS=""
VENV=/var/cache/kcluster/bench-venv
[ -x "$VENV/bin/pyinfra" ] && [ -x "$VENV/bin/ansible-playbook" ] || {
  python3 -m venv "$VENV" && "$VENV/bin/pip" install -q 'ansible==12.3.0' 'pyinfra==3.10.0'
}
[ -f dist/src/index.js ] || npm run --silent build
kc() { node bin/kcluster.js "$@"; }
kc lab down --name "$LAB" >/dev/null 2>&1 || true
kc lab up --name "$LAB" --hosts "$HOSTS" --python --subnet 10.231.5.0/24 >/dev/null
trap 'kc lab down --name "$LAB" >/dev/null 2>&1 || true' EXIT
INV=$HOME/.kcluster/labs/$LAB/inventory.yaml
KEY=$HOME/.kcluster/labs/$LAB/id_ed25519
KH=$HOME/.kcluster/labs/$LAB/known_hosts
WORK=$(mktemp -d)
node -e '
  const y = require("yaml"); const fs = require("fs");
  const inv = y.parse(fs.readFileSync(process.argv[1], "utf8"));
  fs.writeFileSync(process.argv[2] + "/hosts.ini", "[all]\n" + inv.hosts.map(h => `${h.name} ansible_host=${h.address}`).join("\n") + "\n");
  fs.writeFileSync(process.argv[2] + "/inventory.py", "hosts = [\n" + inv.hosts.map(h => `  ("${h.name}", {"ssh_hostname": "${h.address}"}),`).join("\n") + "\n]\n");
' "$INV" "$WORK"
export ANSIBLE_CONFIG=$HERE/ansible/ansible.cfg ANSIBLE_SSH_EXECUTABLE=$HERE/count-ssh.sh
export ANSIBLE_PRIVATE_KEY_FILE=$KEY ANSIBLE_REMOTE_USER=root ANSIBLE_FORKS=$HOSTS
export ANSIBLE_SSH_COMMON_ARGS="-o UserKnownHostsFile=$KH"
now() { date +%s.%N; }
elapsed() { echo "$(now) - $1" | bc; }
run_kcluster() { kc run "$HERE/kcluster-playbook.mjs" -i "$INV" --output json > "$WORK/kc.json"; }
run_ansible() { "$VENV/bin/ansible-playbook" -i "$WORK/hosts.ini" "$HERE/ansible/playbook.yml" > "$WORK/an.log"; }
run_pyinfra() { (cd "$HERE/pyinfra" && "$VENV/bin/pyinfra" -y --parallel "$HOSTS" --user root --key "$KEY" \
  --data ssh_known_hosts_file="$KH" --data ssh_strict_host_key_checking=yes "$WORK/inventory.py" deploy.py > "$WORK/py.log" 2>&1); }
run_floor() { node "$HERE/ssh-floor.mjs" "$INV" > /dev/null; }
run_reads() { node "$HERE/ssh-floor.mjs" "$INV" --reads > /dev/null; }
# CPU time (ms) the lab hosts used in all, from their cgroups (hybrid or unified hierarchy).
HOST_NAMES=$(node -e 'console.log(require("yaml").parse(require("fs").readFileSync(process.argv[1], "utf8")).hosts.map((x) => x.name).join(" "))' "$INV")
hosts_cpu_ms() {
  local total=0 h f
  for h in $HOST_NAMES; do
    f=/sys/fs/cgroup/unified/kcluster-lab/$h/cpu.stat; [ -f "$f" ] || f=/sys/fs/cgroup/kcluster-lab/$h/cpu.stat
    [ -f "$f" ] || { echo n/a; return; }
    total=$(( total + $(awk '/^usage_usec/ {print $2}' "$f") ))
  done
  echo $(( total / 1000 ))
}
# CPU time (ms) this script's finished children had used when `times` wrote FILE (its second
# line). `times` runs in this shell, not in a $(...) subshell, which has no children of its own.
children_cpu_ms() {
  awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); t += p[1] * 60 + p[2] } printf "%d\n", t * 1000 }' "$1"
}
declare -A first med min max times hostcpu ctlcpu
t=$(now); run_kcluster; first[kcluster]=$(elapsed "$t")
record() { times[$1]="${times[$1]:-} $2"; }
for _ in $(seq 1 "$RUNS"); do
  for tool in kcluster floor reads; do t=$(now); "run_$tool"; record "$tool" "$(elapsed "$t")"; done
done
# Host CPU, and kcluster's round trips and memory, before Ansible and pyinfra run: Ansible's
# ControlPersist masters keep a login session open on every host for 120 s after it ends.
for tool in kcluster floor reads; do
  before=$(hosts_cpu_ms); times > "$WORK/times.0"; "run_$tool"; times > "$WORK/times.1"; after=$(hosts_cpu_ms)
  if [ "$before" = n/a ]; then hostcpu[$tool]=n/a; else hostcpu[$tool]=$(( (after - before) / HOSTS )); fi
  ctlcpu[$tool]=$(( $(children_cpu_ms "$WORK/times.1") - $(children_cpu_ms "$WORK/times.0") ))
done
kc_rt=$(node -e 'const l=require("fs").readFileSync(process.argv[1],"utf8").trim().split("\n").map(JSON.parse).find(e=>e.type==="run-end"); const h=l.summary.hosts; console.log(Math.max(...h.map(x=>x.roundTrips)) + " (changed " + h.reduce((a,x)=>a+x.changed,0) + ")")' "$WORK/kc.json")
kc_mem=$( { /usr/bin/time -f '%M' node bin/kcluster.js run "$HERE/kcluster-playbook.mjs" -i "$INV" --output json > /dev/null; } 2>&1 | tail -1 )
for tool in $OTHERS; do
  t=$(now); "run_$tool"; first[$tool]=$(elapsed "$t")
  for _ in $(seq 1 "$RUNS"); do
    [ "$tool" = ansible ] && : > "$WORK/ssh.count" && export KCBENCH_SSH_COUNT=$WORK/ssh.count
    t=$(now); "run_$tool"; record "$tool" "$(elapsed "$t")"
  done
done
for tool in kcluster $OTHERS floor reads; do
  sorted=$(printf '%s\n' ${times[$tool]} | sort -n)
  min[$tool]=$(echo "$sorted" | head -1); max[$tool]=$(echo "$sorted" | tail -1)
  med[$tool]=$(echo "$sorted" | sed -n "$(( (RUNS + 1) / 2 ))p")
done
an_rt=; if [ -f "$WORK/ssh.count" ]; then an_rt=$(( $(wc -l < "$WORK/ssh.count") / HOSTS )); fi
ratio() { if [ -n "${med[$1]:-}" ] && [ -n "${med[$2]:-}" ]; then echo "scale=2; ${med[$1]} / ${med[$2]}" | bc; else echo -; fi; }
row() { # tool label round-trips host-cpu controller-cpu
  if [ -z "${med[$1]:-}" ]; then echo "| $2 | not run (QUICK=1) | | | | | | |"; return; fi
  printf '| %s | %s | %.2f | %.2f | %.2f | %s | %s | %s |\n' "$2" "$( [ -n "${first[$1]:-}" ] && printf '%.2f' "${first[$1]}" || echo -)" "${med[$1]}" "${min[$1]}" "${max[$1]}" "$3" "$4" "$5"
}
mkdir -p bench/results
out=bench/results/generic-$HOSTS.md
{
  echo "Generic workload (15 files + 5 unit files, 5 packages, 5 units, 5 sysctls), $HOSTS lab hosts, $RUNS no-op runs each, $(nproc) cores, $(date -u +%F)"
  echo
  echo "| tool | first run (s) | no-op median (s) | min | max | round trips / host (no-op) | host CPU / host (ms, no-op) | controller CPU (ms, no-op) |"
  echo "|---|---|---|---|---|---|---|---|"
  row kcluster kcluster "$kc_rt" "${hostcpu[kcluster]}" "${ctlcpu[kcluster]}"
  row ansible "ansible $("$VENV/bin/ansible" --version | head -1 | grep -o '2\.[0-9.]*')" "${an_rt:-?} ssh invocations" - -
  row pyinfra "pyinfra $("$VENV/bin/pyinfra" --version | grep -o '[0-9.]*$')" "n/a (one connection)" - -
  row floor "ssh2 floor (connect + true)" 1 "${hostcpu[floor]}" "${ctlcpu[floor]}"
  row reads "ssh2 + the same reads by hand (no engine)" 1 "${hostcpu[reads]}" "${ctlcpu[reads]}"
  echo
  echo "no-op ratios: ansible/kcluster $(ratio ansible kcluster)x, pyinfra/kcluster $(ratio pyinfra kcluster)x, kcluster/floor $(ratio kcluster floor)x, reads by hand/floor $(ratio reads floor)x, kcluster/reads by hand $(ratio kcluster reads)x; kcluster controller max RSS ${kc_mem} KB"
  if [ "${hostcpu[kcluster]}" != n/a ]; then
    cpu() { echo $(( ${ctlcpu[$1]} + ${hostcpu[$1]} * HOSTS )); }
    echo
    echo "CPU of one no-op run, controller and all hosts together (ms): kcluster $(cpu kcluster), reads by hand $(cpu reads), floor $(cpu floor); the lab hosts share the controller's $(nproc) cores, so wall time follows this sum"
  fi
} | tee "$out"
for tool in kcluster pyinfra ansible floor reads; do
  if [ -n "${med[$tool]:-}" ]; then
    printf '%s\t%s\n' "$(case $tool in floor) echo 'ssh2 floor' ;; reads) echo 'reads by hand' ;; *) echo "$tool" ;; esac)" "${med[$tool]}"
  fi
done > "bench/results/generic-$HOSTS.tsv"
node bench/plot.mjs generic "bench/results/generic-$HOSTS.tsv" > "bench/results/generic-$HOSTS.svg"
echo "plot: bench/results/generic-$HOSTS.svg"
rm -rf "$WORK"
