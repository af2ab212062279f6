#!/usr/bin/env bash
# The CIS Kubernetes Benchmark on a lab cluster, with kube-bench built from source through the
# Go module proxy (cached in /var/cache/kcluster/kube-bench). Runs every target on each control
# plane (master, controlplane, etcd, node, policies) and `node` on each worker, and writes the
# JSON and a summary under test/cis/results/. Usage:
#   bash test/cis/kube-bench.sh LAB_DIR        (e.g. ~/.kcluster/labs/kce2e, a cluster kcluster installed)
set -euo pipefail
lab=${1:?usage: test/cis/kube-bench.sh LAB_DIR}
version=v0.15.1
cache=${KCLUSTER_KUBE_BENCH_CACHE:-/var/cache/kcluster/kube-bench}
here=$(cd "$(dirname "$0")" && pwd)
out=$here/results/$(date -u +%Y-%m-%d)
mkdir -p "$out"
KUBE_BENCH_VERSION=$version KCLUSTER_KUBE_BENCH_CACHE=$cache bash "$here/build-kube-bench.sh" >/dev/null

ssh_to() { ssh -F "$lab/ssh_config" "$@"; }
hosts=$(awk '/^Host / && $2 !~ /[*]/ {print $2}' "$lab/ssh_config")
inventory=$lab/inventory.yaml
summary=$out/summary.md
{
  echo "# CIS Kubernetes Benchmark (kube-bench $version, cis-1.12), $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  echo "Cluster: $inventory ($(git -C "$here/../.." rev-parse --short HEAD))"
  echo
  echo '| host | targets | PASS | FAIL | WARN | INFO |'
  echo '|---|---|---|---|---|---|'
} > "$summary"
for host in $hosts; do
  if ssh_to "$host" test -f /etc/kubernetes/manifests/kube-apiserver.yaml; then targets=master,controlplane,etcd,node,policies; else targets=node; fi
  tar -C "$cache" -cf - "bin/kube-bench-$version" "cfg-$version" | ssh_to "$host" 'rm -rf /opt/kube-bench && mkdir -p /opt/kube-bench && tar -C /opt/kube-bench -xf -'
  # The policies checks read the API with kubectl and jq (lab hosts only: this is a test lab).
  [ "$targets" = node ] || ssh_to "$host" 'command -v jq >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq jq >/dev/null'
  ssh_to "$host" "KUBECONFIG=/etc/kubernetes/admin.conf PATH=/usr/local/bin:\$PATH /opt/kube-bench/bin/kube-bench-$version run --config-dir /opt/kube-bench/cfg-$version --benchmark cis-1.12 --targets $targets --json" > "$out/$host.json"
  node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const t = r.Totals; console.log(`| ${process.argv[2]} | ${process.argv[3]} | ${t.total_pass} | ${t.total_fail} | ${t.total_warn} | ${t.total_info} |`);
  ' "$out/$host.json" "$host" "$targets" >> "$summary"
done
{
  echo
  echo '## Every FAIL and WARN'
  echo
  echo '| host | check | status | title |'
  echo '|---|---|---|---|'
  for host in $hosts; do
    node -e '
      const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
      for (const c of r.Controls) for (const g of c.tests) for (const x of g.results) if (x.status === "FAIL" || x.status === "WARN") console.log(`| ${process.argv[2]} | ${x.test_number} | ${x.status} | ${x.test_desc.replace(/\|/g, "/")} |`);
    ' "$out/$host.json" "$host"
  done
} >> "$summary"
cat "$summary"
