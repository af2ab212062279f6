#!/bin/bash
# Build the lab's shared, read-only Debian base root filesystem (the lower layer of every host).
# Built into a temp dir beside the target and renamed into place only when complete, so an
# interrupted build never leaves a half base behind.
# Env: BASE_DIR (target dir, ends in .../rootfs), SUITE, MIRROR, PACKAGES (comma separated)
set -euo pipefail
: "${BASE_DIR:?}" "${SUITE:?}" "${MIRROR:?}" "${PACKAGES:?}"
[ -x "$BASE_DIR/usr/bin/systemctl" ] && { echo "base: cached at $BASE_DIR"; exit 0; }
parent=$(dirname "$BASE_DIR")
mkdir -p "$parent"
tmp=$(mktemp -d "$parent/.building.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
R=$tmp/rootfs
debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$R" "$MIRROR"

# Identity is per host (written into each host's upper layer): the base has none.
rm -f "$R"/etc/ssh/ssh_host_*
: > "$R/etc/machine-id"
rm -f "$R/var/lib/dbus/machine-id"; ln -s /etc/machine-id "$R/var/lib/dbus/machine-id"
rm -f "$R/etc/hostname"
cat > "$R/etc/ssh/sshd_config.d/kcluster-lab.conf" <<'C'
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UseDNS no
HostKey /etc/ssh/ssh_host_ed25519_key
C
# Network: systemd-networkd configures host0 from a per-host file.
chroot "$R" systemctl enable systemd-networkd.service >/dev/null 2>&1
chroot "$R" systemctl mask systemd-networkd-wait-online.service >/dev/null 2>&1
# Nothing runs apt or cron jobs behind the tests' back; no real ttys.
for u in apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer fstrim.timer \
         e2scrub_reap.service getty@tty1.service systemd-pstore.service; do
  chroot "$R" systemctl disable "$u" >/dev/null 2>&1 || true
done
chroot "$R" systemctl set-default multi-user.target >/dev/null 2>&1
chroot "$R" apt-get clean
mv "$R" "$tmp/done" && mv -T "$tmp/done" "$BASE_DIR"
echo "base: built $BASE_DIR ($(du -sh "$BASE_DIR" | cut -f1))"
