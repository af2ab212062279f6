#!/usr/bin/env bash
# Build a Vagrant box for the libvirt provider offline, from the Debian root that `kcluster lab
# up --vm` already caches (debootstrap from this machine's own apt mirror, stock kernel), and
# add it as kcluster/<suite>. No download from a box catalogue: this is the box for machines
# without one (air-gapped, or this project's lab machine).
#
#   bash vagrant/build-box.sh                 # kcluster/bookworm
#   SUITE=trixie bash vagrant/build-box.sh    # kcluster/trixie
#
# The box has no boot loader: libvirt boots its kernel directly (`lv.kernel`, `lv.initrd` and
# `lv.cmd_line` in the box's own Vagrantfile), from files installed under /var/lib/libvirt/boot,
# where the QEMU user can read them. It therefore works on the machine that built it.
# Inside: a `vagrant` user with Vagrant's insecure key (Vagrant replaces it at the first `up`)
# and passwordless sudo, ssh host keys made at first boot, systemd-networkd with DHCP on every
# interface Vagrant does not configure itself. Cached under $CACHE_DIR by a key of the base and
# this recipe; a second run with nothing changed only checks that the box is added.
# Run as root (debootstrap for the base, chroot to add the user).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SUITE=${SUITE:-bookworm}
BOX_NAME=${BOX_NAME:-kcluster/$SUITE}
CACHE_DIR=${CACHE_DIR:-/var/cache/kcluster/vagrant-box}
BOOT_DIR=${BOOT_DIR:-/var/lib/libvirt/boot}
DISK_SIZE_GB=${DISK_SIZE_GB:-16}
# Bump when the recipe below changes (invalidates the cached box).
RECIPE_VERSION=2

[ "$(id -u)" = 0 ] || { echo "build-box.sh: run as root (chroot into the Debian root to add the vagrant user)" >&2; exit 2; }
for tool in vagrant qemu-img mke2fs; do
  command -v "$tool" >/dev/null || { echo "build-box.sh: $tool is missing: apt-get install vagrant vagrant-libvirt qemu-utils e2fsprogs" >&2; exit 2; }
done
insecure_key=$(ls /usr/share/rubygems-integration/all/gems/vagrant-*/keys/vagrant.pub /opt/vagrant/embedded/gems/gems/vagrant-*/keys/vagrant.pub 2>/dev/null | head -1 || true)
[ -n "$insecure_key" ] || { echo "build-box.sh: Vagrant's insecure public key (keys/vagrant.pub in the vagrant gem) not found" >&2; exit 2; }

base=$(BASE_ONLY=1 SUITE="$SUITE" bash "$here/../src/lab/scripts/vm-image.sh" | tail -n 1)
[ -x "$base/usr/bin/systemctl" ] || { echo "build-box.sh: no Debian root at '$base'" >&2; exit 1; }
kernel=$(ls "$base"/boot/vmlinuz-* | sort -V | tail -1)
kver=${kernel##*/vmlinuz-}
key=$(printf '%s\n%s\n%s\n%s\n' "$base" "$kver" "$RECIPE_VERSION" "$DISK_SIZE_GB" | sha256sum | cut -c1-12)
box_file=$CACHE_DIR/$SUITE-$key.box
boot_kernel=$BOOT_DIR/kcluster-$SUITE-$kver-vmlinuz
boot_initrd=$BOOT_DIR/kcluster-$SUITE-$kver-initrd.img

if [ ! -f "$box_file" ]; then
  mkdir -p "$CACHE_DIR"
  work=$(mktemp -d "$CACHE_DIR/.building.XXXXXX")
  trap 'rm -rf --one-file-system "$work"' EXIT
  R=$work/rootfs
  echo "build-box: box $BOX_NAME from $base (kernel $kver)"
  cp -a "$base" "$R"
  chroot "$R" useradd --create-home --shell /bin/bash vagrant
  install -d -m 700 "$R/home/vagrant/.ssh"
  install -m 600 "$insecure_key" "$R/home/vagrant/.ssh/authorized_keys"
  chroot "$R" chown -R vagrant:vagrant /home/vagrant/.ssh
  echo 'vagrant ALL=(ALL) NOPASSWD:ALL' > "$R/etc/sudoers.d/vagrant"
  chmod 440 "$R/etc/sudoers.d/vagrant"
  # Each VM gets its own host keys at first boot (the base has none).
  cat > "$R/etc/systemd/system/kcluster-ssh-host-keys.service" <<'U'
[Unit]
Description=Make this machine's ssh host keys at first boot
ConditionPathExists=!/etc/ssh/ssh_host_ed25519_key
Before=ssh.service

[Service]
Type=oneshot
ExecStart=/usr/bin/ssh-keygen -A

[Install]
WantedBy=multi-user.target
U
  chroot "$R" systemctl enable kcluster-ssh-host-keys.service >/dev/null 2>&1
  # DHCP on the VM's network cards that nothing else configures: the first one is Vagrant's
  # management network. "99-" so that the files Vagrant writes for a private network
  # (50-vagrant-*) win. By name, not Type=ether: that would match the veth pairs of pods too,
  # and networkd takes a link it manages out of its bridge (cni0 then has no port).
  cat > "$R/etc/systemd/network/99-dhcp.network" <<'N'
[Match]
Name=en* eth*

[Network]
DHCP=ipv4
LinkLocalAddressing=no
IPv6AcceptRA=no
N
  # The Vagrantfile writes the real name server (the host's side of the private network).
  echo 'nameserver 127.0.0.53' > "$R/etc/resolv.conf"
  : > "$R/etc/machine-id"
  mke2fs -q -F -t ext4 -d "$R" -L root "$work/disk.raw" "${DISK_SIZE_GB}G"
  qemu-img convert -f raw -O qcow2 "$work/disk.raw" "$work/box.img"
  rm -f "$work/disk.raw"
  printf '{"provider":"libvirt","format":"qcow2","virtual_size":%s}\n' "$DISK_SIZE_GB" > "$work/metadata.json"
  cat > "$work/Vagrantfile" <<V
# The kcluster/$SUITE box (vagrant/build-box.sh): no boot loader, libvirt boots the kernel directly.
Vagrant.configure('2') do |config|
  config.vm.provider :libvirt do |lv|
    lv.kernel = '$boot_kernel'
    lv.initrd = '$boot_initrd'
    lv.cmd_line = 'root=LABEL=root rw console=ttyS0 panic=10 tsc=reliable'
  end
end
V
  cp "$kernel" "$work/vmlinuz"
  cp "$(ls "$R"/boot/initrd.img-"$kver")" "$work/initrd.img"
  tar -C "$work" -cf "$work/box.tar" metadata.json Vagrantfile box.img vmlinuz initrd.img
  mv "$work/box.tar" "$box_file"
  echo "build-box: $box_file ($(du -h "$box_file" | cut -f1))"
fi

# The kernel and initrd the box's Vagrantfile names (taken from the box file itself).
if [ ! -f "$boot_kernel" ] || [ ! -f "$boot_initrd" ]; then
  mkdir -p "$BOOT_DIR"
  tar -C "$BOOT_DIR" -xf "$box_file" vmlinuz initrd.img
  mv "$BOOT_DIR/vmlinuz" "$boot_kernel"
  mv "$BOOT_DIR/initrd.img" "$boot_initrd"
  chmod 644 "$boot_kernel" "$boot_initrd"
fi

# Added once per box file: the marker in Vagrant's box folder names the file it came from.
box_dir=${VAGRANT_HOME:-$HOME/.vagrant.d}/boxes/${BOX_NAME//\//-VAGRANTSLASH-}/0/libvirt
if [ "$(cat "$box_dir/kcluster-box-file" 2>/dev/null || true)" != "$box_file" ]; then
  vagrant box add --force --name "$BOX_NAME" --provider libvirt "$box_file"
  echo "$box_file" > "$box_dir/kcluster-box-file"
  # (vagrant-libvirt uploads the box into libvirt's pool at the next `up`, under a name with
  # the time it was added: a rebuilt box never reuses an old upload. Old uploads stay in the
  # pool until removed: virsh vol-list default.)
fi
echo "build-box: $BOX_NAME is added (vagrant box list)"
