#!/usr/bin/env bash
# Generic converge workload, side by side on the same lab hosts: kcluster, Ansible, pyinfra,
# and the ssh2 floor. First run once each, then RUNS no-op reruns each; prints a table (also
# written to bench/results/generic-<hosts>.md). Needs root; installs ansible and pyinfra from
# PyPI into /var/cache/kcluster/bench-venv. Also draws bench/results/generic-<hosts>.svg.
# Usage: bash bench/generic/run.sh [HOSTS=20] [RUNS=5]
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD; HERE=$ROOT/bench/generic
HOSTS=${1:-20}; RUNS=${2:-5}; LAB=kcbench
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
declare -A first med min max
for tool in kcluster ansible pyinfra; do
  t=$(now); "run_$tool"; first[$tool]=$(elapsed "$t")
done
for tool in kcluster ansible pyinfra floor; do
  times=()
  for _ in $(seq 1 "$RUNS"); do
    [ "$tool" = ansible ] && : > "$WORK/ssh.count" && export KCBENCH_SSH_COUNT=$WORK/ssh.count
    t=$(now); "run_$tool"; times+=("$(elapsed "$t")")
  done
  sorted=$(printf '%s\n' "${times[@]}" | sort -n)
  min[$tool]=$(echo "$sorted" | head -1); max[$tool]=$(echo "$sorted" | tail -1)
  med[$tool]=$(echo "$sorted" | sed -n "$(( (RUNS + 1) / 2 ))p")
done
kc_rt=$(node -e 'const l=require("fs").readFileSync(process.argv[1],"utf8").trim().split("\n").map(JSON.parse).find(e=>e.type==="run-end"); const h=l.summary.hosts; console.log(Math.max(...h.map(x=>x.roundTrips)) + " (changed " + h.reduce((a,x)=>a+x.changed,0) + ")")' "$WORK/kc.json")
an_rt=$(( $(wc -l < "$WORK/ssh.count") / HOSTS ))
kc_mem=$( { /usr/bin/time -f '%M' node bin/kcluster.js run "$HERE/kcluster-playbook.mjs" -i "$INV" --output json > /dev/null; } 2>&1 | tail -1 )
ratio() { echo "scale=1; ${med[$1]} / ${med[$2]}" | bc; }
mkdir -p bench/results
out=bench/results/generic-$HOSTS.md
{
  echo "Generic workload (15 files + 5 unit files, 5 packages, 5 units, 5 sysctls), $HOSTS lab hosts, $RUNS no-op runs each, $(nproc) cores, $(date -u +%F)"
  echo
  echo "| tool | first run (s) | no-op median (s) | min | max | round trips / host (no-op) |"
  echo "|---|---|---|---|---|---|"
  printf '| kcluster | %.2f | %.2f | %.2f | %.2f | %s |\n' "${first[kcluster]}" "${med[kcluster]}" "${min[kcluster]}" "${max[kcluster]}" "$kc_rt"
  printf '| ansible %s | %.2f | %.2f | %.2f | %.2f | %s ssh invocations |\n' "$("$VENV/bin/ansible" --version | head -1 | grep -o '2\.[0-9.]*')" "${first[ansible]}" "${med[ansible]}" "${min[ansible]}" "${max[ansible]}" "$an_rt"
  printf '| pyinfra %s | %.2f | %.2f | %.2f | %.2f | n/a (one connection) |\n' "$("$VENV/bin/pyinfra" --version | grep -o '[0-9.]*$')" "${first[pyinfra]}" "${med[pyinfra]}" "${min[pyinfra]}" "${max[pyinfra]}"
  printf '| ssh2 floor (connect + true) | - | %.2f | %.2f | %.2f | 1 |\n' "${med[floor]}" "${min[floor]}" "${max[floor]}"
  echo
  echo "no-op ratios: ansible/kcluster $(ratio ansible kcluster)x, pyinfra/kcluster $(ratio pyinfra kcluster)x, kcluster/floor $(ratio kcluster floor)x; kcluster controller max RSS ${kc_mem} KB"
} | tee "$out"
printf 'kcluster\t%s\npyinfra\t%s\nansible\t%s\nssh2 floor\t%s\n' "${med[kcluster]}" "${med[pyinfra]}" "${med[ansible]}" "${med[floor]}" > "bench/results/generic-$HOSTS.tsv"
node bench/plot.mjs generic "bench/results/generic-$HOSTS.tsv" > "bench/results/generic-$HOSTS.svg"
echo "plot: bench/results/generic-$HOSTS.svg"
rm -rf "$WORK"
