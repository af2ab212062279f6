#!/bin/bash
# Start lab hosts: each a `systemd-nspawn --boot` container on its own overlayfs over the
# shared base, in its own network namespace on the lab bridge. Driven by src/lab/lab-up.ts.
# A host whose container still runs is left alone: run again, it boots only the hosts that
# stopped (killed or powered off), each with the disk it had.
# Env: NAME RUN_DIR HOME_DIR BASE BRIDGE NET (first three octets) COUNT PRIVILEGED(0|1)
#      IPV6_PREFIX (the lab's IPv6 /64 without its host part, e.g. fd00:231:30::; empty: IPv4 only)
#      APT_PROXY_CMD (node entry of the apt proxy; empty: none) WAIT (seconds)
#      INIT_ARGS (space separated, for the hosts' systemd: see src/lab/container-init-args.ts)
set -euo pipefail
: "${NAME:?}" "${RUN_DIR:?}" "${HOME_DIR:?}" "${BASE:?}" "${BRIDGE:?}" "${NET:?}" "${COUNT:?}"
PRIVILEGED=${PRIVILEGED:-0}
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
ensure_key_and_bridge
# All hosts are uid 0 of one kernel and share its inotify instance limit (default 128).
[ "$(sysctl -n fs.inotify.max_user_instances)" -ge 8192 ] || sysctl -qw fs.inotify.max_user_instances=8192

if [ -n "${APT_PROXY_CMD:-}" ] && ! { [ -f "$RUN_DIR/aptproxy.pid" ] && kill -0 "$(cat "$RUN_DIR/aptproxy.pid")" 2>/dev/null; }; then
  mkdir -p /var/cache/kcluster/apt
  setsid node "$APT_PROXY_CMD" "$NET.1" 3142 /var/cache/kcluster/apt > "$RUN_DIR/aptproxy.log" 2>&1 < /dev/null &
  echo $! > "$RUN_DIR/aptproxy.pid"
fi

read -ra init_args <<< "${INIT_ARGS:-}"
v1ctl=$(awk -F: '$2!="" && $2!~/name=/ {print $2":"$3}' /proc/self/cgroup)
hosts_file=$(printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n%s.1 labgw\n' "$NET"
             for i in $(seq 1 "$COUNT"); do echo "$NET.$((10+i)) $NAME$i"; done)
: > "$HOME_DIR/known_hosts"
for i in $(seq 1 "$COUNT"); do
  host=$NAME$i; ip=$NET.$((10+i)); H=$RUN_DIR/hosts/$host; M=$H/root
  if [ -f "$H/pid" ] && alive "$(cat "$H/pid")"; then
    echo "$ip,$host $(cut -d' ' -f1,2 "$M/etc/ssh/ssh_host_ed25519_key.pub")" >> "$HOME_DIR/known_hosts"
    continue
  fi
  mkdir -p "$H/upper" "$H/work" "$M"
  mountpoint -q "$M" || mount -t overlay overlay -o "lowerdir=$BASE,upperdir=$H/upper,workdir=$H/work" "$M"
  echo "$host" > "$M/etc/hostname"
  echo "$hosts_file" > "$M/etc/hosts"
  echo "nameserver $NET.1" > "$M/etc/resolv.conf"
  [ -s "$M/etc/machine-id" ] || tr -d - < /proc/sys/kernel/random/uuid > "$M/etc/machine-id"
  [ -f "$M/etc/ssh/ssh_host_ed25519_key" ] || ssh-keygen -q -t ed25519 -N '' -C "$host" -f "$M/etc/ssh/ssh_host_ed25519_key"
  echo "$ip,$host $(cut -d' ' -f1,2 "$M/etc/ssh/ssh_host_ed25519_key.pub")" >> "$HOME_DIR/known_hosts"
  install -d -m 700 "$M/root/.ssh"
  install -m 600 "$HOME_DIR/id_ed25519.pub" "$M/root/.ssh/authorized_keys"
  if [ -n "${APT_PROXY_CMD:-}" ]; then echo "Acquire::http::Proxy \"http://$NET.1:3142\";" > "$M/etc/apt/apt.conf.d/01kcluster-lab-proxy"; fi
  mkdir -p "$M/etc/systemd/network"
  printf '[Match]\nName=host0\n[Network]\nAddress=%s/24\nGateway=%s.1\nLinkLocalAddressing=no\nIPv6AcceptRA=no\n' "$ip" "$NET" \
    > "$M/etc/systemd/network/10-lab.network"
  if [ -n "${IPV6_PREFIX:-}" ]; then
    printf 'Address=%s%s/64\nGateway=%s1\nIPv6DuplicateAddressDetection=0\n' "$IPV6_PREFIX" "$((10+i))" "$IPV6_PREFIX" >> "$M/etc/systemd/network/10-lab.network"
  fi

  # Own cgroup per host (name=systemd and unified), or every --keep-unit container shares one.
  cgdirs="/sys/fs/cgroup/systemd/kcluster-lab/$host /sys/fs/cgroup/unified/kcluster-lab/$host"
  extra=(); envs=(KCLUSTER_LAB=1)
  if [ "$PRIVILEGED" = 1 ]; then
    for cp in $v1ctl; do
      c=${cp%%:*}; p=${cp#*:}; d=/sys/fs/cgroup/$c${p%/}/kcluster-lab/$host
      mkdir -p "$d"
      if [ "$c" = cpuset ]; then  # cpuset children start empty in cgroup v1
        for f in cpuset.cpus cpuset.mems; do
          cat "/sys/fs/cgroup/cpuset${p%/}/$f" > "$(dirname "$d")/$f"; cat "/sys/fs/cgroup/cpuset${p%/}/$f" > "$d/$f"
        done
      fi
      cgdirs="$cgdirs $d"
    done
    mkdir -p "$H/data/docker" "$H/data/containerd"  # ext4-backed, so overlayfs snapshotters work
    extra=(--capability=all --bind=/dev/kmsg --bind="$H/data/docker:/var/lib/docker" --bind="$H/data/containerd:/var/lib/containerd")
    envs+=(SYSTEMD_SECCOMP=0)
    install -m 755 "$(dirname "$0")/runc-lab" "$M/usr/local/sbin/runc-lab"
    mkdir -p "$M/etc/systemd/system/sysinit.target.wants"
    for unit in lab-cgroup-rw.service lab-k8s-sysctl.service; do
      install -m 644 "$(dirname "$0")/$unit" "$M/etc/systemd/system/$unit"
      ln -sf "../$unit" "$M/etc/systemd/system/sysinit.target.wants/$unit"
    done
  fi
  # A host started again: its last boot's veth goes with its network namespace, which the kernel
  # tears down a moment after the last process; nspawn refuses to start while the name exists.
  veth="vb-$host"; veth=${veth:0:15}
  for _ in $(seq 1 50); do ip link show "$veth" >/dev/null 2>&1 || break; sleep 0.1; done
  ip link delete "$veth" 2>/dev/null || true
  # A host started again (killed whole, or powered off) gets empty cgroups, as a booting machine
  # does: the groups its last boot made stay behind in the hierarchies, and the kubelet's
  # cAdvisor then spends seconds on each one it finds before it syncs a single pod.
  for d in $cgdirs; do
    if [ -d "$d" ]; then find "$d" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null || true; fi
    mkdir -p "$d"
  done
  echo "$cgdirs" > "$H/cgroups"
  # shellcheck disable=SC2016
  setsid env "${envs[@]}" bash -c 'for d in $1; do echo $$ > "$d/cgroup.procs"; done; shift; exec "$@"' \
    nspawn "$cgdirs" systemd-nspawn --quiet -D "$M" --boot --machine="$host" --hostname="$host" \
      --network-bridge="$BRIDGE" --register=no --keep-unit --console=read-only \
      --resolv-conf=off --timezone=off --link-journal=no "${extra[@]}" "${init_args[@]}" \
    > "$H/console.log" 2>&1 < /dev/null &
  echo $! > "$H/pid"
done

write_ssh_config

wait_for_ssh console.log
