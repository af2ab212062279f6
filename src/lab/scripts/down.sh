#!/bin/bash
# Stop every host of a lab and remove everything `up` created; the base root filesystem and
# the apt cache stay. Env: NAME RUN_DIR HOME_DIR BRIDGE
set -uo pipefail
: "${NAME:?}" "${RUN_DIR:?}" "${HOME_DIR:?}" "${BRIDGE:?}"
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
pids=()
for H in "$RUN_DIR"/hosts/*/; do
  [ -f "$H/pid" ] || continue
  p=$(cat "$H/pid")
  if [ -f "$H/netns" ]; then
    # Light host: unshare ignores SIGTERM while it waits; TERM the namespace's PID 1 (its
    # child) instead, and SIGKILL unshare after a grace period (--kill-child ends the rest).
    c=$(pgrep -P "$p" 2>/dev/null || true); [ -n "$c" ] && kill -TERM $c 2>/dev/null
    pids+=("$p")
  # SIGTERM to `systemd-nspawn --boot` is an orderly poweroff of the container.
  elif alive "$p"; then kill -TERM "$p" 2>/dev/null && pids+=("$p"); fi
done
for p in "${pids[@]}"; do
  for _ in $(seq 1 150); do alive "$p" || break; sleep 0.1; done
  alive "$p" && kill -KILL "$p" 2>/dev/null
done
# Still running: kill the host's whole cgroup at once (SIGKILL to nspawn alone would leave the
# container's init running, re-parented).
for H in "$RUN_DIR"/hosts/*/; do
  [ -d "$H" ] || continue
  cg=/sys/fs/cgroup/unified/kcluster-lab/$(basename "$H")
  if [ -f "$cg/cgroup.events" ] && grep -q 'populated 1' "$cg/cgroup.events"; then
    echo "force-killing $(basename "$H")"
    echo 1 > "$cg/cgroup.kill"
    for _ in $(seq 1 50); do grep -q 'populated 0' "$cg/cgroup.events" && break; sleep 0.1; done
  fi
done
parents=()
for H in "$RUN_DIR"/hosts/*/; do
  [ -d "$H" ] || continue
  host=$(basename "$H")
  if [ -f "$H/netns" ]; then
    # Delete the veth pair by its outer end first: a namespace's deletion takes its devices
    # with it only later, in the kernel's own cleanup work, so the pair would outlive `down`.
    ip link show "kl$host" >/dev/null 2>&1 && ip link del "kl$host"
    ip netns del "$(cat "$H/netns")" 2>/dev/null
  fi
  # Anything mounted below the host (its root, runtimes' leftovers), deepest first.
  grep -o " ${H%/}/[^ ]*" /proc/mounts | sort -r | while read -r m; do umount "$m" 2>/dev/null || umount -l "$m"; done
  for d in $(cat "$H/cgroups" 2>/dev/null); do
    [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null
    parents+=("$(dirname "$d")")
  done
  rm -rf "$H" "/run/systemd/nspawn/propagate/$host"
done
for d in $(printf '%s\n' "${parents[@]}" | sort -u); do rmdir "$d" 2>/dev/null; done
if [ -f "$RUN_DIR/aptproxy.pid" ]; then
  p=$(cat "$RUN_DIR/aptproxy.pid"); alive "$p" && kill -TERM "$p"
  for _ in $(seq 1 30); do alive "$p" || break; sleep 0.1; done
fi
ip link show "$BRIDGE" >/dev/null 2>&1 && ip link del "$BRIDGE"
rm -rf "$RUN_DIR"
rm -f "$HOME_DIR/known_hosts" "$HOME_DIR/ssh_config" "$HOME_DIR/inventory.yaml" "$HOME_DIR/lab.json" "$HOME_DIR/admin.conf"
# The lab's cluster state (its inventory's stateDir): PKI, keys and logs of a cluster whose hosts are gone.
rm -rf "$HOME_DIR/state"
[ -z "$(ls -A /run/systemd/nspawn/propagate 2>/dev/null)" ] && rm -rf /run/systemd/nspawn
exit 0
