#!/bin/bash
# Build a bootable disk for one lab VM (QEMU, direct kernel boot) from a stock Debian root.
#
# 1. Base (cached): a Debian root made with debootstrap --variant=minbase from this machine's own
#    apt mirror, with a stock kernel (linux-image-amd64) and an initrd that has the virtio and
#    ext4 drivers. Built in a temp dir beside the target and renamed into place when complete.
#    Cached under $CACHE_DIR/<suite>-<hash of package list and recipe version>/rootfs.
# 2. Per VM: a copy of the base gets its identity (hostname, machine-id, ssh host key, static
#    address, root's authorized_keys, fstab) and becomes a sparse ext4 image with
#    `mke2fs -d` (no loop mounts). vmlinuz and initrd.img are copied out for -kernel/-initrd.
#
# Env (all optional):
#   VM_DIR     per-VM output dir            (default /var/lib/kcluster/vm/$VM_NAME)
#   VM_NAME    hostname                     (default kcvm1)
#   VM_IP      address/prefix of the VM     (default 10.232.0.11/24)
#   VM_GW      default gateway (the machine's bridge side; needed by Kubernetes) (default 10.232.0.1)
#   VM_DISK_SIZE                            (default 8G; sparse)
#   SSH_KEY    private key whose .pub is authorized for root (default $VM_DIR/id_ed25519, created)
#   MIRROR     Debian mirror URL            (default: read from this machine's apt sources)
#   SUITE      (default bookworm)   CACHE_DIR (default /var/cache/kcluster/vm-base)
#   EXTRA_PACKAGES  comma separated, added to the base (changes the cache key)
#   VM_APT_PROXY    e.g. http://10.232.0.1:3142: apt proxy written into the VM's apt.conf.d
#   BASE_ONLY=1     build (or find) the cached base only and print its path as the last line
#                   (vagrant/build-box.sh makes its box from it)
# Output in $VM_DIR: disk.img vmlinuz initrd.img id_ed25519[.pub] known_hosts ssh_config vm.env
set -euo pipefail

SUITE=${SUITE:-bookworm}
CACHE_DIR=${CACHE_DIR:-/var/cache/kcluster/vm-base}
VM_NAME=${VM_NAME:-kcvm1}
VM_DIR=${VM_DIR:-/var/lib/kcluster/vm/$VM_NAME}
VM_IP=${VM_IP:-10.232.0.11/24}
VM_GW=${VM_GW:-10.232.0.1}
VM_DISK_SIZE=${VM_DISK_SIZE:-8G}
SSH_KEY=${SSH_KEY:-$VM_DIR/id_ed25519}
case $VM_IP in */*) ;; *) VM_IP=$VM_IP/24 ;; esac
ADDR=${VM_IP%/*}

# Bump when the base recipe below changes (invalidates the cache).
RECIPE_VERSION=5
PACKAGES="linux-image-amd64,initramfs-tools,systemd,systemd-sysv,udev,dbus,libpam-systemd,openssh-server,\
iproute2,iptables,kmod,procps,ca-certificates,sudo,conntrack,apparmor,e2fsprogs,iputils-ping,curl,socat,less,gnupg,zstd"
[ -n "${EXTRA_PACKAGES:-}" ] && PACKAGES="$PACKAGES,$EXTRA_PACKAGES"

# The Debian mirror this machine's apt uses (first URI ending in /debian, else first debian non-security URI).
apt_mirror() {
  local uris
  uris=$( { [ -f /etc/apt/sources.list ] && awk '$1=="deb"{for(i=2;i<=NF;i++) if($i ~ /^https?:\/\//){print $i; break}}' /etc/apt/sources.list
            for f in /etc/apt/sources.list.d/*.list; do [ -f "$f" ] && awk '$1=="deb"{for(i=2;i<=NF;i++) if($i ~ /^https?:\/\//){print $i; break}}' "$f"; done
            for f in /etc/apt/sources.list.d/*.sources; do [ -f "$f" ] && awk 'tolower($1)=="uris:"{for(i=2;i<=NF;i++) print $i}' "$f"; done
          } 2>/dev/null | grep -E '^https?://' || true)
  { grep -E '/debian/?$' <<<"$uris" || grep debian <<<"$uris" | grep -v security || true; } | head -1
}

key=$(printf '%s\n%s\n%s\n' "$SUITE" "$PACKAGES" "$RECIPE_VERSION" | sha256sum | cut -c1-12)
BASE_DIR=$CACHE_DIR/$SUITE-$key/rootfs

# Remove a failed build dir, but never through a mount left inside it (/dev, /sys are bound in).
cleanup_build() {
  local d=$1 m
  for m in proc sys dev; do umount -R "$d/rootfs/$m" 2>/dev/null || true; done
  if grep -q " $d/" /proc/mounts; then echo "vm-base: mounts left under $d, not removing it" >&2; return; fi
  rm -rf --one-file-system "$d"
}

build_base() {
  local mirror=${MIRROR:-$(apt_mirror)}
  [ -n "$mirror" ] || { echo "no Debian mirror in /etc/apt/sources.list*" >&2; exit 1; }
  local parent; parent=$(dirname "$BASE_DIR")
  mkdir -p "$parent"
  local tmp; tmp=$(mktemp -d "$parent/.building.XXXXXX")
  # shellcheck disable=SC2064
  trap "cleanup_build '$tmp'" EXIT
  local R=$tmp/rootfs
  echo "vm-base: debootstrap $SUITE (this takes a few minutes)"
  debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$R" "$mirror" >"$tmp/debootstrap.log" 2>&1 \
    || { tail -30 "$tmp/debootstrap.log" >&2; exit 1; }

  # fstab before the initrd is made, so that initramfs-tools includes fsck.ext4 and checks the root
  echo "LABEL=root / ext4 rw,errors=remount-ro 0 1" > "$R/etc/fstab"
  # (the fsck hook cannot resolve LABEL=root at build time: name the type)
  echo "FSTYPE=ext4" > "$R/etc/initramfs-tools/conf.d/kcluster-vm"
  # initrd: make sure the virtio and ext4 drivers are in it whatever MODULES= says.
  printf '%s\n' virtio_pci virtio_blk virtio_net virtio_rng ext4 >> "$R/etc/initramfs-tools/modules"
  mount -t proc proc "$R/proc"; mount --rbind /sys "$R/sys"; mount --rbind /dev "$R/dev"
  chroot "$R" update-initramfs -u -k all >"$tmp/initramfs.log" 2>&1 || { cat "$tmp/initramfs.log" >&2; exit 1; }
  local initrd; initrd=$(ls "$R"/boot/initrd.img-* | head -1)
  local listing; listing=$(chroot "$R" lsinitramfs "/boot/$(basename "$initrd")")
  # A driver is either a module in the initrd or built into the kernel (trixie's 6.12 builds virtio_pci in).
  local builtin; builtin=$(cat "$R"/lib/modules/*/modules.builtin 2>/dev/null || true)
  for m in virtio_pci virtio_blk virtio_net ext4; do
    grep -q "/$m\.ko" <<<"$listing" || grep -q "/$m\.ko\$" <<<"$builtin" || { echo "vm-base: $m is neither in the initrd nor built into the kernel" >&2; exit 1; }
  done
  grep -q 'fsck.ext4$' <<<"$listing" || echo "vm-base: warning: no fsck.ext4 in the initrd" >&2
  umount -R "$R/proc" "$R/sys" "$R/dev"

  # Identity is per VM: the base has none.
  rm -f "$R"/etc/ssh/ssh_host_*
  : > "$R/etc/machine-id"
  rm -f "$R/var/lib/dbus/machine-id"; ln -s /etc/machine-id "$R/var/lib/dbus/machine-id"
  rm -f "$R/etc/hostname"
  cat > "$R/etc/ssh/sshd_config.d/kcluster-vm.conf" <<'C'
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UseDNS no
HostKey /etc/ssh/ssh_host_ed25519_key
C
  chroot "$R" systemctl enable systemd-networkd.service >/dev/null 2>&1
  chroot "$R" systemctl mask systemd-networkd-wait-online.service >/dev/null 2>&1
  for u in apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer fstrim.timer \
           e2scrub_reap.service getty@tty1.service systemd-pstore.service; do
    chroot "$R" systemctl disable "$u" >/dev/null 2>&1 || true
  done
  chroot "$R" systemctl set-default multi-user.target >/dev/null 2>&1
  # No DNS on the lab bridge; a resolv.conf must exist (kubelet, CoreDNS read it).
  rm -f "$R/etc/resolv.conf"; printf 'nameserver %s\n' "$VM_GW" > "$R/etc/resolv.conf"
  chroot "$R" apt-get clean
  mv "$R" "$tmp/done" && mv -T "$tmp/done" "$BASE_DIR"
  trap - EXIT; cleanup_build "$tmp"
  echo "vm-base: built $BASE_DIR ($(du -sh "$BASE_DIR" | cut -f1))"
}

if [ -x "$BASE_DIR/usr/bin/systemctl" ] && ls "$BASE_DIR"/boot/vmlinuz-* >/dev/null 2>&1; then
  echo "vm-base: cached at $BASE_DIR"
else
  build_base
fi
if [ -n "${BASE_ONLY:-}" ]; then echo "$BASE_DIR"; exit 0; fi

# ---- per VM ----
if [ -f "$VM_DIR/qemu.pid" ] && kill -0 "$(cat "$VM_DIR/qemu.pid")" 2>/dev/null; then
  echo "vm-image: $VM_NAME is running (pid $(cat "$VM_DIR/qemu.pid")); stop it with vm-down.sh first" >&2; exit 1
fi
mkdir -p "$VM_DIR"; chmod 700 "$VM_DIR"
[ -f "$SSH_KEY" ] || ssh-keygen -q -t ed25519 -N '' -C "kcluster-vm-$VM_NAME" -f "$SSH_KEY"
work=$(mktemp -d "$VM_DIR/.image.XXXXXX")
trap 'rm -rf "$work"' EXIT
R=$work/rootfs
cp -a "$BASE_DIR" "$R"

echo "$VM_NAME" > "$R/etc/hostname"
cat > "$R/etc/hosts" <<H
127.0.0.1 localhost
$ADDR $VM_NAME
::1 localhost ip6-localhost ip6-loopback
H
[ -e "$R/etc/default/locale" ] || : > "$R/etc/default/locale"   # silences pam_env at every ssh login
od -An -tx1 -N16 /dev/urandom | tr -d ' \n' > "$R/etc/machine-id"; echo >> "$R/etc/machine-id"
cat > "$R/etc/systemd/network/10-lab.network" <<N
[Match]
Type=ether
Name=en* eth*

[Network]
Address=$VM_IP
Gateway=$VM_GW
LinkLocalAddressing=no
IPv6AcceptRA=no
N
echo "LABEL=root / ext4 rw,errors=remount-ro 0 1" > "$R/etc/fstab"
# apt inside the VM goes only through a proxy on the machine's side of the bridge (e.g. the lab's
# apt-proxy.js on $VM_GW:3142); without one the VM has no route to any mirror.
if [ -n "${VM_APT_PROXY:-}" ]; then
  echo "Acquire::http::Proxy \"$VM_APT_PROXY\";" > "$R/etc/apt/apt.conf.d/01kcluster-vm-proxy"
fi
install -d -m 700 "$R/root/.ssh"
install -m 600 "$SSH_KEY.pub" "$R/root/.ssh/authorized_keys"
rm -f "$R"/etc/ssh/ssh_host_*
ssh-keygen -q -t ed25519 -N '' -C "root@$VM_NAME" -f "$R/etc/ssh/ssh_host_ed25519_key"
echo "$ADDR $(cut -d' ' -f1,2 "$R/etc/ssh/ssh_host_ed25519_key.pub")" > "$VM_DIR/known_hosts"

cp "$(ls "$R"/boot/vmlinuz-* | sort -V | tail -1)" "$work/vmlinuz"
cp "$(ls "$R"/boot/initrd.img-* | sort -V | tail -1)" "$work/initrd.img"
rm -f "$work/disk.img"
mke2fs -q -F -t ext4 -d "$R" -L root "$work/disk.img" "$VM_DISK_SIZE"
mv "$work/disk.img" "$work/vmlinuz" "$work/initrd.img" "$VM_DIR/"

printf 'Host %s\n  HostName %s\n  User root\n  IdentityFile %s\n  UserKnownHostsFile %s\n  StrictHostKeyChecking yes\n  BatchMode yes\n  ConnectTimeout 5\n  LogLevel ERROR\n' \
  "$VM_NAME" "$ADDR" "$SSH_KEY" "$VM_DIR/known_hosts" > "$VM_DIR/ssh_config"
# SMBIOS uuid (/sys/class/dmi/id/product_uuid) must differ between nodes (kubeadm-style checks): derive it from the machine-id.
uuid=$(sed -E 's/^(.{8})(.{4})(.{4})(.{4})(.{12})$/\1-\2-\3-\4-\5/' "$R/etc/machine-id")
printf 'VM_NAME=%s\nVM_ADDR=%s\nVM_GW=%s\nSSH_KEY=%s\nVM_UUID=%s\n' "$VM_NAME" "$ADDR" "$VM_GW" "$SSH_KEY" "$uuid" > "$VM_DIR/vm.env"
echo "vm-image: $VM_DIR/disk.img ($VM_DISK_SIZE sparse, $(du -sh "$VM_DIR/disk.img" | cut -f1) used), kernel $(basename "$(ls "$BASE_DIR"/boot/vmlinuz-* | sort -V | tail -1)")"
