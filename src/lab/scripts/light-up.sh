#!/bin/bash
# Light lab hosts for scale tests: a network namespace + veth on the lab bridge + an overlay
# root + unshare(mount, uts, ipc, pid) + sshd. No systemd: a few MB each, hundreds per machine.
# Env: NAME RUN_DIR HOME_DIR BASE BRIDGE NET COUNT WAIT
set -euo pipefail
: "${NAME:?}" "${RUN_DIR:?}" "${HOME_DIR:?}" "${BASE:?}" "${BRIDGE:?}" "${NET:?}" "${COUNT:?}"
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
ensure_key_and_bridge
: > "$HOME_DIR/known_hosts"
start_host() { # index
  local i=$1 host=$NAME$1 ip=$NET.$((10+$1)) H=$RUN_DIR/hosts/$NAME$1
  local M=$H/root
  mkdir -p "$H/upper" "$H/work" "$M"
  mountpoint -q "$M" || mount -t overlay overlay -o "lowerdir=$BASE,upperdir=$H/upper,workdir=$H/work" "$M"
  echo "$host" > "$M/etc/hostname"
  printf '127.0.0.1 localhost\n%s %s\n' "$ip" "$host" > "$M/etc/hosts"
  [ -s "$M/etc/machine-id" ] || tr -d - < /proc/sys/kernel/random/uuid > "$M/etc/machine-id"
  [ -f "$M/etc/ssh/ssh_host_ed25519_key" ] || ssh-keygen -q -t ed25519 -N '' -C "$host" -f "$M/etc/ssh/ssh_host_ed25519_key"
  install -d -m 700 "$M/root/.ssh"
  install -m 600 "$HOME_DIR/id_ed25519.pub" "$M/root/.ssh/authorized_keys"
  ip netns add "$host"
  echo "$host" > "$H/netns"
  ip link add "kl$host" type veth peer name eth0 netns "$host"
  ip link set "kl$host" master "$BRIDGE" up
  ip -n "$host" link set lo up
  ip -n "$host" addr add "$ip/24" dev eth0
  ip -n "$host" link set eth0 up
  ip -n "$host" route add default via "$NET.1"
  # PID 1 of the new pid namespace is a small shell that reaps orphans and stops sshd on TERM.
  # shellcheck disable=SC2016
  setsid ip netns exec "$host" unshare --mount --uts --ipc --pid --fork --kill-child --propagation private \
    bash -c 'M=$1; hostname "$2"
      mount -t proc proc "$M/proc"; mount -t sysfs sysfs "$M/sys"; mount --rbind /dev "$M/dev"
      mount -t tmpfs -o mode=755 tmpfs "$M/run"; mkdir -p "$M/run/sshd"; mount -t tmpfs tmpfs "$M/tmp"
      exec chroot "$M" /bin/bash -c "trap \"kill -TERM \\\$s; exit 0\" TERM; /usr/sbin/sshd -D -e & s=\$!; while :; do wait; sleep 1; done"' \
    lighthost "$M" "$host" > "$H/log" 2>&1 < /dev/null &
  echo $! > "$H/pid"
}
for i in $(seq 1 "$COUNT"); do start_host "$i"; done
for i in $(seq 1 "$COUNT"); do
  echo "$NET.$((10+i)),$NAME$i $(cut -d' ' -f1,2 "$RUN_DIR/hosts/$NAME$i/root/etc/ssh/ssh_host_ed25519_key.pub")" >> "$HOME_DIR/known_hosts"
done
write_ssh_config
wait_for_ssh log
