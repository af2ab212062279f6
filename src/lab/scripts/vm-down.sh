#!/bin/bash
# Stop a lab VM started by vm-up.sh (clean poweroff over ssh if possible, else TERM/KILL by its
# pidfile) and remove its tap device and the bridge (the bridge only once no port is left).
# Env (optional): VM_DIR, VM_NAME (kcvm1), BRIDGE (kcvm0), TAP
set -uo pipefail
VM_NAME=${VM_NAME:-kcvm1}
VM_DIR=${VM_DIR:-/var/lib/kcluster/vm/$VM_NAME}
BRIDGE=${BRIDGE:-kcvm0}
# shellcheck disable=SC1091
[ -f "$VM_DIR/vm.env" ] && . "$VM_DIR/vm.env"
n=${VM_ADDR##*.}
TAP=${TAP:-${BRIDGE}t$n}
PIDFILE=$VM_DIR/qemu.pid

if [ -f "$PIDFILE" ] && pid=$(cat "$PIDFILE") && kill -0 "$pid" 2>/dev/null; then
  timeout 10 ssh -F "$VM_DIR/ssh_config" "$VM_NAME" 'systemctl poweroff' >/dev/null 2>&1 || true
  for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 1 10); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  fi
fi
rm -f "$PIDFILE" "$VM_DIR/qmp.sock"
ip link show "$TAP" >/dev/null 2>&1 && ip link del "$TAP"
if ip link show "$BRIDGE" >/dev/null 2>&1 && [ -z "$(ls "/sys/class/net/$BRIDGE/brif" 2>/dev/null)" ]; then
  ip link del "$BRIDGE"
fi
echo "vm-down: $VM_NAME stopped"
