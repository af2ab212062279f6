# Shared by up.sh, light-up.sh and down.sh (sourced): the lab key, the bridge, ssh_config,
# readiness, whether a host's process lives.

# A process that exists and is not a zombie waiting for its parent.
alive() { [ -d "/proc/$1" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]; }

ensure_key_and_bridge() {
  mkdir -p "$RUN_DIR/hosts" "$HOME_DIR"
  chmod 700 "$HOME_DIR"
  [ -f "$HOME_DIR/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C "kcluster-lab-$NAME" -f "$HOME_DIR/id_ed25519"
  if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
    ip link add "$BRIDGE" type bridge
    ip addr add "$NET.1/24" dev "$BRIDGE"
    ip link set "$BRIDGE" up
  fi
  # A lab with IPv6 (IPV6_PREFIX, e.g. fd00:231:30::): the machine's side is ::1. No DAD: the
  # lab's addresses are unique by construction, and a tentative address refuses to be bound.
  if [ -n "${IPV6_PREFIX:-}" ]; then
    sysctl -qw "net.ipv6.conf.$BRIDGE.disable_ipv6=0" "net.ipv6.conf.$BRIDGE.accept_dad=0"
    ip -6 addr replace "${IPV6_PREFIX}1/64" dev "$BRIDGE" nodad
  fi
}

write_ssh_config() {
  {
    printf 'Host %s*\n  User root\n  IdentityFile %s\n  UserKnownHostsFile %s\n  StrictHostKeyChecking yes\n  BatchMode yes\n  ConnectTimeout 3\n  LogLevel ERROR\n' \
      "$NAME" "$HOME_DIR/id_ed25519" "$HOME_DIR/known_hosts"
    for i in $(seq 1 "$COUNT"); do printf 'Host %s%s\n  HostName %s\n' "$NAME" "$i" "$NET.$((10+i))"; done
  } > "$HOME_DIR/ssh_config"
}

# Wait until every host accepts ssh with its known host key; a host whose process died is
# reported with the path of its log.
wait_for_ssh() { # log-file-name
  local deadline=$((SECONDS + ${WAIT:-180})) i host
  for i in $(seq 1 "$COUNT"); do
    host=$NAME$i
    until ssh -F "$HOME_DIR/ssh_config" -o KexAlgorithms=curve25519-sha256 "$host" true 2>/dev/null; do
      kill -0 "$(cat "$RUN_DIR/hosts/$host/pid")" 2>/dev/null || { echo "$host died while starting; see $RUN_DIR/hosts/$host/$1" >&2; exit 1; }
      [ $SECONDS -lt $deadline ] || { echo "$host: no ssh after ${WAIT:-180}s; see $RUN_DIR/hosts/$host/$1" >&2; exit 1; }
      sleep 0.1
    done
  done
}
