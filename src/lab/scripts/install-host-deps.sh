#!/usr/bin/env bash
# Install the Debian/Ubuntu packages kcluster's lab and test suite need on the controller
# machine. Idempotent: installs only what is missing. Needs root.
#   openssh-client   ssh, ssh-keygen (lab keys, tests that use the OpenSSH client)
#   openssh-server   the sshd binary for the SSH layer's loopback tests (no daemon is started)
#   debootstrap      builds the lab's Debian base root filesystem once
#   systemd-container  systemd-nspawn, which boots each lab host
#   iproute2, iptables, e2fsprogs, procps, xz-utils: bridges/netns, lab plumbing
#   qemu-system-x86  only with WITH_VM=1 (`kcluster lab up --vm`, test/vm/run.sh)
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "install-host-deps: run as root (apt-get needs it)" >&2; exit 2; }
command -v apt-get >/dev/null || { echo "install-host-deps: needs a Debian or Ubuntu machine (apt-get not found)" >&2; exit 2; }
want=(openssh-client openssh-server debootstrap systemd-container iproute2 iptables e2fsprogs procps xz-utils ca-certificates)
[ "${WITH_VM:-0}" = 1 ] && want+=(qemu-system-x86)
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-host-deps: installing ${missing[*]}"
# No package may start a daemon on this machine (openssh-server would start sshd on :22).
policy=/usr/sbin/policy-rc.d
restore_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' > "$policy"; chmod 755 "$policy"; restore_policy=1
fi
# (an if, not &&: a false test as the trap's last command would become the exit status)
cleanup() { if [ "$restore_policy" = 1 ]; then rm -f "$policy"; fi; }
trap cleanup EXIT
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || apt-get update
# --no-install-recommends: systemd-container's recommended packages rewrite /etc/nsswitch.conf.
apt-get install -y -qq --no-install-recommends "${missing[@]}"
