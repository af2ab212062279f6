#!/usr/bin/env bash
# build-test-images.sh VERSION OUTDIR
#
# Builds, on this machine, the container images the Conformance specs of Kubernetes VERSION run,
# as image archives that `ctr -n k8s.io images import` (and `docker load`) accept, into OUTDIR:
#
#   agnhost            from its Go source in the k8s.io/kubernetes module (test/images/agnhost),
#                      on a Debian userland: dig, getent, curl, nc (netcat-openbsd), ip/ss
#                      (upstream: Alpine with bind-tools, curl, netcat-openbsd, iproute2), tagged
#                      both as Agnhost and AgnhostPrev of the version's image manifest
#   busybox            Debian's busybox-static, every applet linked in /bin (sysctl too); /bin/sh
#                      is busybox ash, or Debian's bash-static when a variable is named like data-1
#                      (sh-shim.c: Debian's ash 1.35 drops those, upstream's 1.37 keeps them)
#   nginx              Debian's nginx with a minimal configuration (port 80, /usr/share/nginx/html),
#                      tagged as Nginx and NginxNew
#   glibc-dns-testing  Debian's dnsutils (dig) and getent (jessie-dnsutils before v1.36)
#   nonroot            the busybox image as user 1234
#   nonewprivs         test/images/nonewprivs of the kubernetes module (nnp, setuid root) on busybox
#   pause              built from the kubernetes module's build/pause/linux/pause.c
#   nautilus, kitten   agnhost's test-webserver serving the version's test/images/<name>/html
#   sample-apiserver   k8s.io/sample-apiserver (the published module of the same minor) on busybox
#   etcd               go.etcd.io/etcd/server/v3 at the version kubernetes' go.mod requires, in
#                      /usr/local/bin on busybox (the aggregator specs run it beside sample-apiserver)
#
# The images are assembled by kcluster's own bundle/mkimage. Their names follow the version's
# test/utils/image/manifest.go with every registry replaced by kcluster.local/e2e/...:
# OUTDIR/repo-list.yaml is the KUBE_TEST_REPO_LIST file that makes e2e.test use these names
# (no registry is ever contacted; the nodes must have the images imported, run.sh does that).
# OUTDIR/images.txt lists "REFERENCE FILE MANIFEST-DIGEST" per image; OUTDIR/debian-packages.txt
# the Debian packages used. A finished OUTDIR is not built again (delete it to rebuild).
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || { echo "usage: $0 VERSION OUTDIR" >&2; exit 2; }
v=$1 out=$2
check_version "$v"
stamp="$v $(cat "$CONFORMANCE_DIR/build-test-images.sh" "$CONFORMANCE_DIR/lib.sh" | sha256sum | cut -c1-12)"
if [ -f "$out/.complete" ] && [ "$(cat "$out/.complete")" = "$stamp" ]; then
  note "test images for $v already built in $out"
  exit 0
fi

if ! command -v apt-get >/dev/null || ! command -v dpkg-deb >/dev/null; then fail "needs Debian's apt-get and dpkg-deb"; fi
need_packages gcc libc6-dev binutils
use_go
start=$SECONDS
moddir=$(kubernetes_module_dir "$v")
manifest=$moddir/test/utils/image/manifest.go
[ -f "$manifest" ] || fail "k8s.io/kubernetes@$v has no test/utils/image/manifest.go"

work=$(mktemp -d "${TMPDIR:-/tmp}/kc-test-images.XXXXXX")
trap '[ -n "${KEEP_WORK:-}" ] && note "work dir kept: $work" || rm -rf "$work"' EXIT
rm -rf "$out.partial"; mkdir -p "$out.partial"
part=$out.partial

# ---------------------------------------------------------------- names from the image manifest
# Every registry field of the manifest's RegistryList -> our prefix (no real registry).
prefix_for() {
  case $1 in
    InvalidRegistry) echo kcluster.invalid/invalid ;;
    PrivateRegistry) echo kcluster.invalid/k8s-authenticated-test ;;
    GcRegistry|GcEtcdRegistry) echo kcluster.local/e2e ;;
    PromoterE2eRegistry) echo kcluster.local/e2e/e2e-test-images ;;
    BuildImageRegistry) echo kcluster.local/e2e/build-image ;;
    SigStorageRegistry) echo kcluster.local/e2e/sig-storage ;;
    DockerLibraryRegistry) echo kcluster.local/e2e/library ;;
    CloudProviderGcpRegistry) echo kcluster.local/e2e/cloud-provider-gcp ;;
    *) echo "kcluster.local/e2e/$2" ;;   # a registry field newer than this script: its YAML key
  esac
}
fields=$(sed -n 's/^[[:space:]]*\([A-Za-z0-9]*Registry\)[[:space:]]*string[[:space:]]*`yaml:"\([A-Za-z0-9]*\)"`.*/\1 \2/p' "$manifest")
[ -n "$fields" ] || fail "cannot read the RegistryList fields of $manifest"
{
  echo "# KUBE_TEST_REPO_LIST for e2e.test $v: the images build-test-images.sh built"
  while read -r field key; do echo "$key: $(prefix_for "$field" "$key")"; done <<< "$fields"
} > "$part/repo-list.yaml"

# image_ref ID: the reference e2e.test uses for the manifest's image ID (empty if none).
image_ref() {
  local line field name tag key
  line=$(sed -n 's/^[[:space:]]*configs\['"$1"'\] = Config{list\.\([A-Za-z0-9]*\), "\([^"]*\)", "\([^"]*\)"}.*/\1 \2 \3/p' "$manifest")
  [ -n "$line" ] || return 0
  read -r field name tag <<< "$line"
  key=$(awk -v f="$field" '$1 == f { print $2 }' <<< "$fields")
  [ -n "$key" ] || fail "$manifest: image $1 uses unknown registry field $field"
  echo "$(prefix_for "$field" "$key")/$name:$tag"
}

# ---------------------------------------------------------------- tools
note "building mkimage (bundle/mkimage) and agnhost $v"
(cd "$REPO_ROOT/bundle/mkimage" && CGO_ENABLED=0 go build -trimpath -o "$work/mkimage" .) || fail "cannot build bundle/mkimage"
w=$(conformance_wrapper "$v")
agnhost_version=$(tr -d ' \n' < "$moddir/test/images/agnhost/VERSION")
(cd "$w" && CGO_ENABLED=0 nice -n 15 go build -trimpath -tags "$K8S_TAGS" \
  -ldflags "-s -w -X main.Version=$agnhost_version" -o "$work/agnhost.bin" k8s.io/kubernetes/test/images/agnhost) \
  || fail "cannot build agnhost from k8s.io/kubernetes@$v"
"$work/agnhost.bin" --version 2>&1 | grep -qF "$agnhost_version" || fail "agnhost does not report version $agnhost_version"
(cd "$w" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$work/nnp" k8s.io/kubernetes/test/images/nonewprivs) \
  || fail "cannot build nonewprivs from k8s.io/kubernetes@$v"
(cd "$w" && CGO_ENABLED=0 nice -n 15 go build -trimpath -tags "$K8S_TAGS" -ldflags "-s -w $(version_ldflags "$v")" \
  -o "$work/sample-apiserver" k8s.io/sample-apiserver) || fail "cannot build k8s.io/sample-apiserver for $v"
(cd "$w" && CGO_ENABLED=0 nice -n 15 go build -trimpath -ldflags "-s -w" -o "$work/etcd" go.etcd.io/etcd/server/v3) \
  || fail "cannot build etcd (go.etcd.io/etcd/server/v3) for $v"
note "building pause and the /bin/sh shim"
gcc -Os -Wall -static -DVERSION="$v-kcluster-e2e" -o "$work/pause" "$moddir/build/pause/linux/pause.c" || fail "cannot compile pause.c"
gcc -Os -Wall -Werror -static -o "$work/sh-shim" "$CONFORMANCE_DIR/sh-shim.c" || fail "cannot compile sh-shim.c"
strip "$work/pause" "$work/sh-shim"

# ---------------------------------------------------------------- Debian packages
if ! apt-cache show busybox-static >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get update -qq || fail "apt-get update failed"
fi
# Package scripts never run in these images: leave out what only they (or dpkg) use.
NOT_IN_IMAGES='debconf|cdebconf|debconf-2.0|dpkg|install-info|tar|libdebian-installer4|libnewt0.52|libslang2|libtextwrap1|readline-common|perl-base|lsb-base|init-system-helpers|sensible-utils|adduser|passwd|libpam.*'
closure() {
  apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances "$@" | grep -v '^[ <]' | sort -u | grep -vxE "$NOT_IN_IMAGES" || true
}
debs=$work/debs; mkdir -p "$debs"; chmod 0755 "$work" "$debs"   # apt downloads as user _apt
# shellcheck disable=SC2046
(cd "$debs" && apt-get download -q 2> >(grep -v 'unsandboxed as root' >&2) $(closure busybox-static bash-static bind9-dnsutils libc-bin curl \
  netcat-openbsd iproute2 nginx) >/dev/null) || fail "apt-get download failed"
deb_of() { local f; f=$(ls "$debs/$1"_*.deb 2>/dev/null | head -n 1); [ -n "$f" ] || fail "no .deb for $1"; echo "$f"; }

# rootfs DIR PACKAGE...: the packages and their dependencies unpacked, then a minimal /etc.
rootfs() {
  local dir=$1 p deb; shift
  mkdir -p "$dir"
  # busybox-static and bash-static without their package-script dependencies (passwd, debianutils).
  for p in busybox-static bash-static $([ $# -eq 0 ] || closure "$@"); do
    deb=$(deb_of "$p")
    dpkg-deb -x "$deb" "$dir"
    dpkg-deb -f "$deb" Package Version | paste -sd' ' >> "$dir.packages"
  done
  rm -rf "$dir/usr/share/doc" "$dir/usr/share/man" "$dir/usr/share/info" "$dir/usr/share/locale" \
    "$dir/usr/share/lintian" "$dir/usr/share/bug" "$dir/etc/init.d" "$dir/etc/logrotate.d" \
    "$dir/lib/systemd" "$dir/usr/lib/systemd" "$dir/etc/systemd"
  mkdir -p "$dir"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,etc,root,run,var/tmp,proc,sys,dev} "$dir/tmp"
  chmod 1777 "$dir/tmp" "$dir/var/tmp"
  # /bin/sh: busybox ash, or bash when a variable is named like "data-1" (sh-shim.c says why).
  cp "$work/sh-shim" "$dir/bin/sh"; ln -sf bash-static "$dir/bin/bash"
  # Alternatives that package scripts would set up.
  [ -e "$dir/bin/nc.openbsd" ] && ln -sf nc.openbsd "$dir/bin/nc"
  # Every busybox applet whose name no package provides, in /bin as in upstream's busybox image
  # (specs run /bin/sysctl, /bin/sleep, /bin/true; Debian's --list-full would put some in /sbin).
  local name d found
  for name in $("$dir/bin/busybox" --list); do
    found=
    for d in bin sbin usr/bin usr/sbin usr/local/bin; do
      if [ -e "$dir/$d/$name" ] || [ -L "$dir/$d/$name" ]; then found=1; break; fi
    done
    [ -n "$found" ] || ln -s busybox "$dir/bin/$name"
  done
  cat > "$dir/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
daemon:x:1:1:daemon:/usr/sbin:/bin/false
bin:x:2:2:bin:/bin:/bin/false
sys:x:3:3:sys:/dev:/bin/false
www-data:x:33:33:www-data:/var/www:/bin/false
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
EOF
  cat > "$dir/etc/group" <<'EOF'
root:x:0:
daemon:x:1:
bin:x:2:
sys:x:3:
tty:x:5:
www-data:x:33:
nogroup:x:65534:
EOF
  printf 'passwd: files\ngroup: files\nshadow: files\nhosts: files dns\nnetworks: files\nprotocols: files\nservices: files\n' > "$dir/etc/nsswitch.conf"
  # ld.so.cache, without ldconfig's aux-cache (inode numbers and times: images would differ on each build).
  if [ -f "$dir/etc/ld.so.conf" ]; then ldconfig -r "$dir"; rm -f "$dir/var/cache/ldconfig/aux-cache"; fi
  # What the e2e specs run in these images, checked here: a stand-in that lacks one fails loudly.
  chroot "$dir" /bin/sh -c 'for c in /bin/sh /bin/bash /bin/sysctl /bin/sleep /bin/true /bin/false env cat ls seq nslookup wget hostname id grep; do command -v $c >/dev/null || { echo "missing $c"; exit 1; }; done' \
    || fail "image rootfs $dir lacks a command"
  [ "$(env -i data-1=value-1 "$(command -v chroot)" "$dir" /bin/sh -c env | grep -c '^data-1=value-1$')" = 1 ] \
    || fail "/bin/sh of $dir drops environment variables named data-1"
  # ... and ash's messages otherwise (the read-only-rootfs spec compares "/bin/sh: can't create ...").
  case $(chroot "$dir" /bin/sh -c 'echo x > /nonexistent/x' 2>&1) in
    "/bin/sh: can't create /nonexistent/x: "*) ;;
    *) fail "/bin/sh of $dir does not speak as busybox ash: $(chroot "$dir" /bin/sh -c 'echo x > /nonexistent/x' 2>&1)" ;;
  esac
}

# mkimage REFERENCE ROOTFS [mkimage flags...]: OUTDIR/<name>-<tag>.tar, listed in images.txt.
images=()
image() {
  local ref=$1 dir=$2 file line; shift 2
  [ -n "$ref" ] || return 0
  file=$(echo "${ref#kcluster.local/e2e/}" | tr '/:' '_-').tar
  line=$("$work/mkimage" -name "$ref" -arch "$(dpkg --print-architecture)" -out "$part/$file" -layer "$dir" "$@") || fail "mkimage $ref failed"
  echo "$ref $file ${line##* }" >> "$part/images.txt"
  images+=("$ref")
}

# ---------------------------------------------------------------- the images
note "assembling the image root file systems"
: > "$part/images.txt"
rootfs "$work/busybox"
image "$(image_ref BusyBox)" "$work/busybox" -cmd sh

rootfs "$work/agnhost" bind9-dnsutils libc-bin curl netcat-openbsd iproute2
cp "$work/agnhost.bin" "$work/agnhost/agnhost"
ln -s agnhost "$work/agnhost/agnhost-2"
cp "$moddir/test/images/agnhost/porter/localhost.crt" "$moddir/test/images/agnhost/porter/localhost.key" "$work/agnhost/"
chmod 0644 "$work/agnhost/localhost.crt" "$work/agnhost/localhost.key"
mkdir -p "$work/agnhost/uploads"
# agnhost's /bin/sh is bash: busybox's ash runs its own applets before any file on PATH, so
# `sh -c '... | nc -v ...'` got busybox's nc, which has no -v (measured: the NodePort spec failed
# with "nc: invalid option -- 'v'"); upstream's Alpine shell runs netcat-openbsd.
ln -sf bash-static "$work/agnhost/bin/sh"
# A user and group the SupplementalGroups specs expect in the image.
echo 'user-defined-in-image:x:1000:1000::/home/user-defined-in-image:/bin/sh' >> "$work/agnhost/etc/passwd"
printf 'user-defined-in-image:x:1000:\ngroup-defined-in-image:x:50000:user-defined-in-image\n' >> "$work/agnhost/etc/group"
chroot "$work/agnhost" /bin/sh -c 'dig -v && getent passwd root && curl --version && command -v nc && ss -V && /agnhost --version' >/dev/null 2>&1 \
  || fail "the agnhost rootfs cannot run dig/getent/curl/nc/ss/agnhost"
image "$(image_ref Agnhost)" "$work/agnhost" -entrypoint /agnhost -cmd pause
image "$(image_ref AgnhostPrev)" "$work/agnhost" -entrypoint /agnhost -cmd pause

rootfs "$work/dnsutils" bind9-dnsutils libc-bin
chroot "$work/dnsutils" /bin/sh -c 'dig -v && getent passwd root' >/dev/null 2>&1 || fail "the dnsutils rootfs cannot run dig/getent"
image "$(image_ref GlibcDnsTesting)" "$work/dnsutils" -cmd bash
image "$(image_ref JessieDnsutils)" "$work/dnsutils" -cmd bash

rootfs "$work/nginx" nginx
mkdir -p "$work/nginx"/{var/log/nginx,var/lib/nginx,var/cache/nginx,usr/share/nginx/html}
echo 'nginx:x:101:101:nginx:/nonexistent:/bin/false' >> "$work/nginx/etc/passwd"
echo 'nginx:x:101:' >> "$work/nginx/etc/group"
rm -rf "$work/nginx/etc/nginx/sites-enabled" "$work/nginx/etc/nginx/conf.d" "$work/nginx/etc/nginx/modules-enabled"
cat > "$work/nginx/etc/nginx/nginx.conf" <<'EOF'
# kcluster's stand-in for the e2e nginx image: one server on port 80, logs to the container's output.
user nginx;
worker_processes 2;
error_log /dev/stderr notice;
pid /run/nginx.pid;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log /dev/stdout;
  sendfile on;
  keepalive_timeout 65;
  server {
    listen 80;
    server_name localhost;
    location / { root /usr/share/nginx/html; index index.html index.htm; }
  }
}
EOF
[ -f "$work/nginx/usr/share/nginx/html/index.html" ] \
  || printf '<!DOCTYPE html>\n<html><head><title>Welcome to nginx!</title></head><body><h1>Welcome to nginx!</h1></body></html>\n' > "$work/nginx/usr/share/nginx/html/index.html"
chroot "$work/nginx" /usr/sbin/nginx -t >/dev/null 2>&1 || fail "nginx -t fails in the nginx rootfs: $(chroot "$work/nginx" /usr/sbin/nginx -t 2>&1 | tail -n 2)"
image "$(image_ref Nginx)" "$work/nginx" -cmd "nginx,-g,daemon off;"
image "$(image_ref NginxNew)" "$work/nginx" -cmd "nginx,-g,daemon off;"

# nonroot: busybox as user 1234; nonewprivs: a setuid-root program that prints its effective uid.
image "$(image_ref NonRoot)" "$work/busybox" -cmd sh -user 1234
rootfs "$work/nonewprivs"
mkdir -p "$work/nonewprivs/usr/local/bin"
install -m 4755 "$work/nnp" "$work/nonewprivs/usr/local/bin/nnp"
image "$(image_ref Nonewprivs)" "$work/nonewprivs" -cmd nnp

# nautilus and kitten: agnhost serving / over HTTP on port 80, with the version's data.json and picture there.
for name in Nautilus Kitten; do
  lower=$(tr 'A-Z' 'a-z' <<< "$name")
  [ -d "$moddir/test/images/$lower/html" ] || fail "k8s.io/kubernetes@$v has no test/images/$lower/html"
  mkdir -p "$work/$lower-html"; cp "$moddir/test/images/$lower/html/"* "$work/$lower-html/"; chmod 0644 "$work/$lower-html/"*
  image "$(image_ref "$name")" "$work/agnhost" -layer "$work/$lower-html" -entrypoint /agnhost -cmd test-webserver
done

# The aggregator specs: sample-apiserver, and the etcd it stores in (run as /usr/local/bin/etcd).
mkdir -p "$work/sample-apiserver-root" "$work/etcd-root/usr/local/bin"
cp "$work/sample-apiserver" "$work/sample-apiserver-root/sample-apiserver"
cp "$work/etcd" "$work/etcd-root/usr/local/bin/etcd"
"$work/etcd" --version | grep -q '^etcd Version: ' || fail "the etcd built does not run"
image "$(image_ref APIServer)" "$work/busybox" -layer "$work/sample-apiserver-root" -entrypoint /sample-apiserver
image "$(image_ref Etcd)" "$work/busybox" -layer "$work/etcd-root" -cmd /usr/local/bin/etcd

mkdir -p "$work/pause-root"; cp "$work/pause" "$work/pause-root/pause"
image "$(image_ref Pause)" "$work/pause-root" -entrypoint /pause -user 65535:65535

for f in "$work"/*.packages; do sed "s#^#$(basename "$f" .packages): #" "$f"; done > "$part/debian-packages.txt"
echo "$stamp" > "$part/.complete"
rm -rf "$out"; mv "$part" "$out"
note "built ${#images[@]} images for $v in $((SECONDS - start)) s into $out:"
cat "$out/images.txt" >&2
