#!/usr/bin/env bash
# Install the Debian/Ubuntu packages kcluster's lab and test suite need on the controller
# machine. Idempotent: installs only what is missing. Needs root.
#   openssh-client   ssh, ssh-keygen (lab keys, tests that use the OpenSSH client)
#   openssh-server   the sshd binary for the SSH layer's loopback tests (no daemon is started)
#   debootstrap      builds the lab's Debian base root filesystem once
#   systemd-container  systemd-nspawn, which boots each lab host
#   iproute2, iptables, e2fsprogs, procps, xz-utils: bridges/netns, lab plumbing
#   shellcheck       the unit test that checks every shell snippet kcluster embeds
#   qemu-system-x86  only with WITH_VM=1 (`kcluster lab deps --vm`: for `lab up --vm`, test/vm/run.sh)
#   vagrant, vagrant-libvirt, libvirt-daemon-system, dnsmasq-base, qemu-utils: only with
#                    WITH_VAGRANT=1 (`kcluster lab deps --vagrant`: vagrant/, test/vagrant/run.sh). libvirt's package defines a
#                    NAT network "default": its definition is moved aside before libvirtd first
#                    starts, so nothing here ever turns on IP forwarding.
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "install-host-deps: run as root (apt-get needs it)" >&2; exit 2; }
command -v apt-get >/dev/null || { echo "install-host-deps: needs a Debian or Ubuntu machine (apt-get not found)" >&2; exit 2; }
want=(openssh-client openssh-server debootstrap systemd-container iproute2 iptables e2fsprogs procps xz-utils ca-certificates shellcheck)
if [ "${WITH_VM:-0}" = 1 ] || [ "${WITH_VAGRANT:-0}" = 1 ]; then want+=(qemu-system-x86); fi
if [ "${WITH_VAGRANT:-0}" = 1 ]; then want+=(qemu-utils vagrant vagrant-libvirt libvirt-daemon-system dnsmasq-base); fi
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-host-deps: installing ${missing[*]}"
# No package may start a daemon on this machine (openssh-server would start sshd on :22).
policy=${POLICY_RC_D:-/usr/sbin/policy-rc.d}  # (another path only for the test that runs this script with stand-ins)
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
if [ "${WITH_VAGRANT:-0}" = 1 ] && [ -f /etc/libvirt/qemu/networks/default.xml ] && ! pgrep -x libvirtd >/dev/null; then
  mv /etc/libvirt/qemu/networks/default.xml /etc/libvirt/qemu/networks/default.xml.kcluster-off
  rm -f /etc/libvirt/qemu/networks/autostart/default.xml
  echo "install-host-deps: libvirt's NAT network \"default\" moved aside (/etc/libvirt/qemu/networks/default.xml.kcluster-off)"
fi
