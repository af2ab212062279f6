#!/bin/bash
# Start one lab VM (made by vm-image.sh) under QEMU software emulation (TCG: this machine's
# /dev/kvm cannot run stock kernels) on the private bridge $BRIDGE, and wait for ssh.
# The machine's side of the bridge is $BRIDGE_ADDR; nothing is forwarded or NATed: the VM can
# reach only the machine's bridge address.
# Env (optional): VM_DIR (default /var/lib/kcluster/vm/$VM_NAME), VM_NAME (default kcvm1),
#   BRIDGE (kcvm0), BRIDGE_ADDR (10.232.0.1/24), TAP (<bridge>t<n>), VM_MEM (3072), VM_CPUS (2),
#   WAIT (seconds to wait for ssh, default 900), QEMU_ACCEL (tcg,tb-size=256), VM_APPEND (extra kernel args)
# tsc=reliable: under TCG the kernel otherwise marks the TSC unstable and falls back to hpet, where
# every clock_gettime is a trap (1.1 us vs 0.09 us measured); Go programs (kubelet, etcd) read the clock a lot.
set -euo pipefail
VM_NAME=${VM_NAME:-kcvm1}
VM_DIR=${VM_DIR:-/var/lib/kcluster/vm/$VM_NAME}
BRIDGE=${BRIDGE:-kcvm0}
BRIDGE_ADDR=${BRIDGE_ADDR:-10.232.0.1/24}
VM_MEM=${VM_MEM:-3072}
VM_CPUS=${VM_CPUS:-2}
WAIT=${WAIT:-900}
QEMU_ACCEL=${QEMU_ACCEL:-tcg,tb-size=256}
# shellcheck disable=SC1091
. "$VM_DIR/vm.env"   # VM_ADDR, SSH_KEY (written by vm-image.sh)
n=${VM_ADDR##*.}
TAP=${TAP:-${BRIDGE}t$n}
MAC=$(printf '52:54:00:e8:%02x:%02x' $(( (n >> 8) & 255 )) $(( n & 255 )))
PIDFILE=$VM_DIR/qemu.pid

if [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
  echo "vm-up: $VM_NAME already running (pid $(cat "$PIDFILE"))" >&2; exit 1
fi

if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
  ip link add "$BRIDGE" type bridge
  # IPv4 only on the lab bridge (no link-local IPv6 chatter).
  sysctl -qw "net.ipv6.conf.$BRIDGE.disable_ipv6=1" 2>/dev/null || true
  ip addr add "$BRIDGE_ADDR" dev "$BRIDGE"
  ip link set "$BRIDGE" up
fi
ip link show "$TAP" >/dev/null 2>&1 && ip link del "$TAP"
ip tuntap add dev "$TAP" mode tap
sysctl -qw "net.ipv6.conf.$TAP.disable_ipv6=1" 2>/dev/null || true
ip link set "$TAP" master "$BRIDGE" up

rm -f "$PIDFILE" "$VM_DIR/console.log"
start=$(date +%s.%N)
qemu-system-x86_64 -name "$VM_NAME" -nodefaults -machine pc -accel "$QEMU_ACCEL" -cpu max \
  -smp "$VM_CPUS" -m "$VM_MEM" ${VM_UUID:+-uuid "$VM_UUID"} \
  -kernel "$VM_DIR/vmlinuz" -initrd "$VM_DIR/initrd.img" \
  -append "root=LABEL=root rw console=ttyS0 panic=10 tsc=reliable ${VM_APPEND:-}" \
  -drive "file=$VM_DIR/disk.img,if=virtio,format=raw,cache=unsafe,discard=unmap" \
  -netdev "tap,id=n0,ifname=$TAP,script=no,downscript=no" \
  -device "virtio-net-pci,netdev=n0,mac=$MAC,romfile=" \
  -device virtio-rng-pci \
  -display none -vga none -monitor none -serial "file:$VM_DIR/console.log" \
  -qmp "unix:$VM_DIR/qmp.sock,server=on,wait=off" \
  -daemonize -pidfile "$PIDFILE"
echo "vm-up: $VM_NAME started (pid $(cat "$PIDFILE"), console $VM_DIR/console.log), waiting for ssh root@$VM_ADDR"

deadline=$((SECONDS + WAIT))
until ssh -F "$VM_DIR/ssh_config" -o ConnectTimeout=3 "$VM_NAME" true 2>/dev/null; do
  kill -0 "$(cat "$PIDFILE")" 2>/dev/null || { echo "vm-up: qemu exited; see $VM_DIR/console.log" >&2; exit 1; }
  [ $SECONDS -lt $deadline ] || { echo "vm-up: no ssh after ${WAIT}s; see $VM_DIR/console.log" >&2; exit 1; }
  sleep 2
done
echo "vm-up: $VM_NAME ssh-ready after $(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN{printf "%.1f", a-b}') s"
echo "vm-up: ssh -F $VM_DIR/ssh_config $VM_NAME   (= ssh -i $SSH_KEY -o UserKnownHostsFile=$VM_DIR/known_hosts root@$VM_ADDR)"
