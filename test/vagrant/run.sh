#!/usr/bin/env bash
# vagrant/ as documented, end to end (slow, not part of `npm test`): Debian's vagrant and
# vagrant-libvirt, the box vagrant/build-box.sh builds offline, `vagrant up` of 2 VMs
# (1 control plane, 1 worker) on an isolated libvirt network, then test/vagrant/vagrant.test.ts:
# `kcluster facts` reads the inventory the Vagrantfile wrote, `kcluster apply` makes a cluster of
# the VMs from the offline bundle, a second apply changes nothing, a Service answers by name.
# Then `vagrant destroy`. Writes test/vagrant/results/<date>-<suite>.md (commit it).
# Run as root in the repository after `npm ci`:
#   bash test/vagrant/run.sh               SUITE=trixie bash test/vagrant/run.sh
#   KEEP_VMS=1 bash test/vagrant/run.sh    (leaves the VMs up; destroy: cd vagrant && vagrant destroy -f)
# Where libvirtd is not running and there is no systemd (this project's lab machine), it starts
# virtlogd and libvirtd itself and stops them at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "$(id -u)" = 0 ] || { echo "test/vagrant/run.sh: run as root (libvirt's system instance, the box build)" >&2; exit 2; }
SUITE=${SUITE:-bookworm}
WITH_VM=1 WITH_VAGRANT=1 bash src/lab/scripts/install-host-deps.sh
[ -d node_modules ] || npm ci
npm run --silent build
BUNDLE=$(node bin/kcluster.js bundle build --test-tools | tail -n 1)

# udev (Debian's rules) makes /dev/kvm root:kvm 0660. Without udev (this project's lab machine)
# it stays root-only, and libvirt then probes QEMU again at every domain start: minutes each on
# a loaded machine, `vagrant up` seemingly stuck at "Starting domain".
if [ -c /dev/kvm ] && [ "$(stat -c %G:%a /dev/kvm)" != kvm:660 ] && getent group kvm >/dev/null; then
  chgrp kvm /dev/kvm && chmod 0660 /dev/kvm
  echo "test/vagrant/run.sh: /dev/kvm made root:kvm 0660, as udev does on Debian"
fi

started_daemons=()
stop_daemons() {
  local pid
  for pid in "${started_daemons[@]}"; do kill "$pid" 2>/dev/null || true; done
}
if ! virsh -c qemu:///system version >/dev/null 2>&1; then
  if [ -d /run/systemd/system ]; then
    systemctl start libvirtd
  else
    virtlogd -d -p /run/kcluster-virtlogd.pid && started_daemons+=("$(cat /run/kcluster-virtlogd.pid)")
    libvirtd -d -p /run/kcluster-libvirtd.pid && started_daemons+=("$(cat /run/kcluster-libvirtd.pid)")
    for _ in $(seq 30); do virsh -c qemu:///system version >/dev/null 2>&1 && break; sleep 1; done
  fi
fi
trap stop_daemons EXIT

bash vagrant/build-box.sh
export VAGRANT_CWD=$PWD/vagrant KCLUSTER_VMS=2 KCLUSTER_BOX=kcluster/$SUITE KCLUSTER_BUNDLE=$BUNDLE \
  KCLUSTER_SUBNET=${KCLUSTER_SUBNET:-10.231.56} KCLUSTER_LIBVIRT_MGMT_SUBNET=${KCLUSTER_LIBVIRT_MGMT_SUBNET:-10.231.57} \
  KCLUSTER_LIBVIRT_NETWORK=isolated KCLUSTER_MEMORY=${KCLUSTER_MEMORY:-3072} KCLUSTER_WORKER_CPUS=1
vagrant destroy -f >/dev/null 2>&1 || true
rm -f vagrant/inventory.yaml
forward_before=$(sysctl -n net.ipv4.ip_forward)
up_started=$(date +%s)
set +e
vagrant up --provider=libvirt 2>&1 | tee /tmp/kcluster-vagrant-up.log
up_status=${PIPESTATUS[0]}
set -e
up_seconds=$(( $(date +%s) - up_started ))
forward_after=$(sysctl -n net.ipv4.ip_forward)

FIGURES=$(mktemp)
status=$up_status
if [ "$up_status" = 0 ]; then
  # New VMs have new host keys: re-key deliberately, as vagrant/README.md says.
  node bin/kcluster.js trust --refresh -i vagrant/inventory.yaml kc1 kc2
  set +e
  KCLUSTER_TEST_BUNDLE=$BUNDLE KCLUSTER_VAGRANT_FIGURES=$FIGURES npx vitest run --project vagrant --reporter=default 2>&1 | tee /tmp/kcluster-vagrant-test.log
  status=${PIPESTATUS[0]}
  set -e
else
  : > /tmp/kcluster-vagrant-test.log
fi
[ -n "${KEEP_VMS:-}" ] || vagrant destroy -f

out=test/vagrant/results/$(date -u +%F)-$SUITE.md
mkdir -p "$(dirname "$out")"
# Read before the result file is opened (writing it would count as a change of its own).
dirty=$(git diff --quiet || echo ' (with uncommitted changes)')
{
  echo "# Vagrant e2e, $(date -u +'%F %H:%M UTC'), Debian $SUITE box"
  echo
  echo "Command: \`SUITE=$SUITE bash test/vagrant/run.sh\` at $(git rev-parse --short HEAD)$dirty,"
  echo "on $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; $(vagrant --version), vagrant-libvirt $(vagrant plugin list 2>/dev/null | sed -n 's/^vagrant-libvirt (\([^,)]*\).*/\1/p')."
  echo "$(grep -m1 -o 'VMs: .*' /tmp/kcluster-vagrant-up.log | sed 's/\x1b\[[0-9;]*m//g')"
  echo
  echo "Result: $([ "$status" = 0 ] && echo passed || echo "FAILED (exit $status)")"
  echo
  echo "| figure | value |"
  echo "|---|---|"
  echo "| vagrant up of 2 VMs (box in libvirt's pool, boot, ssh, key swap, networks, inventory) | ${up_seconds} s |"
  echo "| net.ipv4.ip_forward on this machine before / after vagrant up | $forward_before / $forward_after |"
  node -e 'const f=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")||"{}"); for (const [k,v] of Object.entries(f)) console.log(`| ${k} | ${v} |`)' "$FIGURES" 2>/dev/null || true
  echo
  echo "Tests:"
  echo
  grep -E '✓|×' /tmp/kcluster-vagrant-test.log | sed -e 's/\x1b\[[0-9;]*m//g' -e 's/^ */- /' || echo "- (not run: vagrant up failed, see /tmp/kcluster-vagrant-up.log)"
} > "$out"
rm -f "$FIGURES"
echo "test/vagrant/run.sh: result in $out"
exit "$status"
