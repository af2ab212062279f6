#!/usr/bin/env bash
# The README's first command: a real Kubernetes cluster on this machine, offline.
#   1. the offline bundle for the default Kubernetes version, built from source through the Go
#      module proxy and Debian's packages by `kcluster bundle build` (cached per component in
#      /var/cache/kcluster/build: minutes the first time (bench/cold-start/run.sh measures it), seconds afterwards);
#   2. a privileged 3-host lab (1 control plane, 2 workers) whose inventory installs from it;
#   3. `kcluster apply`, then the admin kubeconfig and the nodes.
# Run as root in the repository, after `npm ci`. LAB=name to use another lab name.
set -euo pipefail
cd "$(dirname "$0")/../../.."
LAB=${LAB:-lab}
[ "$(id -u)" = 0 ] || { echo "lab-cluster: run as root (the lab creates bridges, mounts and containers)" >&2; exit 2; }
node bin/kcluster.js lab deps
BUNDLE=$(node bin/kcluster.js bundle build | tail -n 1)
node bin/kcluster.js artifacts verify --bundle "$BUNDLE"
node bin/kcluster.js lab up --name "$LAB" --privileged --bundle "$BUNDLE"
INVENTORY=$HOME/.kcluster/labs/$LAB/inventory.yaml
node bin/kcluster.js apply -i "$INVENTORY"
node bin/kcluster.js kubeconfig -i "$INVENTORY" --file "$HOME/.kcluster/labs/$LAB/admin.conf"
# The cluster's own kubectl, from the bundle.
VERSION=$(node bin/kcluster.js config -i "$INVENTORY" -o json | node -e 'console.log(JSON.parse(require("fs").readFileSync(0, "utf8")).cluster.kubernetesVersion)')
KUBECTL=$(node -e 'const l=require(process.argv[1]+"/kcluster-bundle.json"); const k=l.artifacts.find(a=>a.name==="kubectl"&&a.version===process.argv[2]); console.log(process.argv[1]+"/"+k.path)' "$BUNDLE" "$VERSION")
for i in $(seq 1 60); do
  "$KUBECTL" --kubeconfig "$HOME/.kcluster/labs/$LAB/admin.conf" get nodes 2>/dev/null | grep -q ' NotReady ' || break
  sleep 2
done
"$KUBECTL" --kubeconfig "$HOME/.kcluster/labs/$LAB/admin.conf" get nodes -o wide
echo
echo "kubectl:    $KUBECTL --kubeconfig $HOME/.kcluster/labs/$LAB/admin.conf"
echo "again:      node bin/kcluster.js apply -i $INVENTORY     (changes nothing)"
echo "tear down:  node bin/kcluster.js lab down --name $LAB"
