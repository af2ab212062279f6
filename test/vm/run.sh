#!/usr/bin/env bash
# The real-kernel end-to-end test (slow, not part of `npm test`): a QEMU VM with a stock Debian
# kernel (`kcluster lab up --vm`), a single-node cluster installed on it from the offline
# bundle, checked by test/vm/real-kernel.test.ts. Writes its dated result to
# test/vm/results/<date>-<suite>.md (commit it). Run as root in the repository after `npm ci`:
#   bash test/vm/run.sh              SUITE=trixie bash test/vm/run.sh
# Cost here (2 cores, software emulation): about 10 minutes with the bundle and VM base cached;
# the VM base takes about 3 minutes once, the bundle about 45 minutes once.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "$(id -u)" = 0 ] || { echo "test/vm/run.sh: run as root (the lab creates a bridge, taps and VMs)" >&2; exit 2; }
SUITE=${SUITE:-bookworm}
LAB=${LAB:-kcvm}
SUBNET=${SUBNET:-10.231.9.0/24}
WITH_VM=1 bash src/lab/scripts/install-host-deps.sh
[ -d node_modules ] || npm ci
npm run --silent build
BUNDLE=$(node bin/kcluster.js bundle build --test-tools | tail -n 1)
node bin/kcluster.js lab down --name "$LAB" >/dev/null 2>&1 || true
started=$(date +%s)
node bin/kcluster.js lab up --vm --suite "$SUITE" --name "$LAB" --hosts 1 --subnet "$SUBNET" --bundle "$BUNDLE"
up_seconds=$(( $(date +%s) - started ))
FIGURES=$(mktemp)
set +e
KCLUSTER_TEST_BUNDLE=$BUNDLE KCLUSTER_VM_LAB=$LAB KCLUSTER_VM_FIGURES=$FIGURES npx vitest run --project vm --reporter=default 2>&1 | tee /tmp/kcluster-vm-test.log
status=${PIPESTATUS[0]}
set -e
accel=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).accelerator ?? "")' "$HOME/.kcluster/labs/$LAB/lab.json")
[ -n "${KEEP_VM:-}" ] || node bin/kcluster.js lab down --name "$LAB"
out=test/vm/results/$(date -u +%F)-$SUITE.md
# Read before the result file is opened (writing it would count as a change of its own).
dirty=$(git diff --quiet || echo ' (with uncommitted changes)')
{
  echo "# Real-kernel e2e, $(date -u +'%F %H:%M UTC'), Debian $SUITE guest"
  echo
  echo "Command: \`SUITE=$SUITE bash test/vm/run.sh\` at $(git rev-parse --short HEAD)$dirty,"
  echo "on $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB. VMs: $accel."
  echo
  echo "Result: $([ "$status" = 0 ] && echo passed || echo "FAILED (exit $status)")"
  echo
  echo "| figure | value |"
  echo "|---|---|"
  echo "| lab up --vm (image from the cached base, boot, ssh ready) | ${up_seconds} s |"
  node -e 'const f=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")||"{}"); for (const [k,v] of Object.entries(f)) console.log(`| ${k} | ${v} |`)' "$FIGURES" 2>/dev/null || true
  echo
  echo "Tests:"
  echo
  grep -E '✓|×' /tmp/kcluster-vm-test.log | sed -e 's/\x1b\[[0-9;]*m//g' -e 's/^ */- /'
} > "$out"
rm -f "$FIGURES"
echo "test/vm/run.sh: result in $out"
exit "$status"
