// The reset role: removes from a host everything kcluster installed (services, containers,
// mounts, network interfaces and kube iptables rules, files, binaries), after stopping the
// kubelet and every pod. One task: the fact lists what is left, the plan names it, apply runs
// the removal script, and the verify step re-reads the fact (nothing may be left).
// See README.md beside this file.
import { noChange, type Change } from '../../src/orchestrator/engine/change.js';
import type { Fact } from '../../src/orchestrator/engine/fact.js';
import type { Role, Task } from '../../src/orchestrator/engine/types.js';
import { ARTIFACT_RECORD_DIR } from '../../src/orchestrator/facts/installed-binary.js';
import { INSTALL_DIRS } from '../../src/kubernetes/artifacts/required-artifacts.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';
import { shellRaw, type ShellCommand } from '../../src/orchestrator/ssh/quote.js';
import { ETCD_USER, ETCD_USER_COMMENT } from '../../src/kubernetes/etcd/etcd-user.js';

/** Files and directories kcluster (or what it runs) creates; removed whole. */
export const RESET_PATHS = [
  '/etc/kubernetes',
  '/var/lib/kubelet',
  '/var/lib/etcd',
  '/var/log/pods',
  '/var/log/containers',
  '/etc/cni/net.d/10-flannel.conflist',
  '/var/lib/cni',
  '/run/flannel',
  '/etc/crictl.yaml',
  '/etc/systemd/system/containerd.service',
  '/etc/systemd/system/kubelet.service',
  '/etc/systemd/system/kcluster-apiproxy.service',
  // The API's virtual IP (cluster.apiEndpoint.virtualIp): keepalived's unit and settings.
  '/etc/systemd/system/kcluster-keepalived.service',
  '/etc/kcluster/keepalived.conf',
  '/etc/systemd/system/kcluster-etcd-snapshot.service',
  '/etc/systemd/system/kcluster-etcd-snapshot.timer',
  '/usr/local/sbin/kcluster-etcd-snapshot',
  // Holds the control planes' store upload credential (cluster.state.scheduledSnapshots).
  '/etc/kcluster/snapshot-upload.json',
  '/etc/systemd/system/cri-docker.service',
  '/var/lib/cri-dockerd',
  '/etc/docker/daemon.json',
  '/etc/sysctl.d/90-kcluster-bridge-nf.conf',
  '/etc/sysctl.d/90-kcluster-ip-forward.conf',
  // Dual-stack clusters only (roles/kubelet).
  '/etc/sysctl.d/90-kcluster-bridge-nf-ipv6.conf',
  '/etc/sysctl.d/90-kcluster-ipv6-forwarding.conf',
] as const;
/**
 * containerd's own state: kcluster's when it installed containerd; Docker Engine's (an OS
 * package, kept) when dockerd is installed (/usr/bin or /usr/sbin), and then left alone.
 */
export const CONTAINERD_PATHS = ['/etc/containerd', '/var/lib/containerd', '/run/containerd'] as const;
const UNITS = ['kubelet.service', 'kcluster-apiproxy.service', 'kcluster-keepalived.service', 'cri-docker.service', 'kcluster-etcd-snapshot.timer'] as const;
const ownContainerd = `kc_containerd=; [ -x /usr/bin/dockerd ] || [ -x /usr/sbin/dockerd ] || kc_containerd="containerd.service ${CONTAINERD_PATHS.join(' ')}"`;
const k8sDockerContainers = `docker ps -aq --filter name=^k8s_ 2>/dev/null`;
/** flannel-v6.1 is flannel's IPv6 vxlan device in a dual-stack cluster. */
const LINKS = ['cni0', 'flannel.1', 'flannel-v6.1'] as const;
const MOUNT_PREFIXES = '^(/var/lib/kubelet/|/run/containerd/|/var/lib/containerd/|/run/netns/cni-)';
const KUBE_RULES = '(KUBE-|FLANNEL|CNI-)';
const BINARY_DIRS = `^(${Object.values(INSTALL_DIRS).join('|')})/`;

const paths = RESET_PATHS.join(' ');

/** The etcd user, only when kcluster made it (its comment says so). */
const ownEtcdUser = `getent passwd ${ETCD_USER} | cut -d: -f5 | grep -qx '${ETCD_USER_COMMENT}'`;

/** The binaries kcluster recorded installing, one path per line (records live beside them). */
const recordedBinaries = `for r in ${ARTIFACT_RECORD_DIR}/*.sha256; do [ -e "$r" ] || continue; p=$(basename "$r" .sha256 | tr _ /); printf '%s\\n' "$p"; done | grep -E '${BINARY_DIRS}'`;

/** A path that is a mount point (a separate disk for /var/lib/containerd...) is emptied, not removed. */
const isMount = `is_mount() { awk -v p="$1" '$2 == p { found = 1 } END { exit !found }' /proc/mounts; }`;

const leftoversScript: ShellCommand = shellRaw(`${isMount}
${ownContainerd}
for p in ${paths} \${kc_containerd#containerd.service} /var/lib/etcd.before-restore-*; do
  if is_mount "$p"; then [ -n "$(ls -A "$p" 2>/dev/null)" ] && echo "path $p/*"; elif [ -e "$p" ] || [ -L "$p" ]; then echo "path $p"; fi
done
${recordedBinaries} | while read -r p; do [ -e "$p" ] && echo "binary $p"; done
[ -d /var/lib/kcluster ] && echo "path /var/lib/kcluster"
${ownEtcdUser} && echo "user ${ETCD_USER}"
for u in ${UNITS.join(' ')} \${kc_containerd%% *}; do s=$(systemctl is-active "$u" 2>/dev/null); [ "$s" = active ] || [ "$s" = activating ] && echo "unit $u"; done
if command -v docker >/dev/null 2>&1; then n=$(${k8sDockerContainers} | wc -l); [ "$n" -gt 0 ] && echo "containers docker $n"; fi
for l in ${LINKS.join(' ')}; do [ -e "/sys/class/net/$l" ] && echo "link $l"; done
awk '{print $2}' /proc/mounts | grep -E '${MOUNT_PREFIXES}' | sed 's/^/mount /'
for t in iptables ip6tables; do command -v "$t-save" >/dev/null 2>&1 || continue; n=$("$t-save" 2>/dev/null | grep -cE '${KUBE_RULES}'); [ "$n" -gt 0 ] && echo "rules $t $n"; done
n=$(find /sys/fs/cgroup -path '*kubepods*' -name cgroup.procs -exec cat {} + 2>/dev/null | wc -l); [ "$n" -gt 0 ] && echo "processes kubepods $n"
true`);

const removalScript: ShellCommand = shellRaw(`set -u
${ownContainerd}
systemctl stop kcluster-etcd-snapshot.timer kcluster-etcd-snapshot.service kubelet.service 2>/dev/null
if [ -S /run/containerd/containerd.sock ] && [ -x /usr/local/bin/crictl ]; then
  timeout 90 /usr/local/bin/crictl --runtime-endpoint unix:///run/containerd/containerd.sock rmp -af >/dev/null 2>&1
fi
# Whatever pod process is left (runtime down or stuck): killed through its cgroup.
find /sys/fs/cgroup -path '*kubepods*' -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -9 2>/dev/null
if [ -S /run/cri-dockerd.sock ] && [ -x /usr/local/bin/crictl ]; then
  timeout 90 /usr/local/bin/crictl --runtime-endpoint unix:///run/cri-dockerd.sock rmp -af >/dev/null 2>&1
fi
systemctl stop cri-docker.service 2>/dev/null
# Docker Engine stays (an OS package): only the Kubernetes containers go.
if command -v docker >/dev/null 2>&1; then ${k8sDockerContainers} | xargs -r docker rm -f >/dev/null 2>&1; fi
systemctl stop kcluster-apiproxy.service kcluster-keepalived.service \${kc_containerd%% *} 2>/dev/null
# keepalived gives the API's virtual IP up when it stops; not when it was killed: then here.
[ -f /etc/kcluster/keepalived.conf ] && awk '/virtual_ipaddress/ { v = 1; next } v && /}/ { v = 0 } v { print $1, $3 }' /etc/kcluster/keepalived.conf |
  while read -r a d; do ip addr del "$a" dev "$d" 2>/dev/null; done
for p in /proc/[0-9]*; do case "$(readlink "$p/exe" 2>/dev/null)" in /usr/local/bin/containerd-shim*|/usr/local/bin/kcluster-relay) kill -9 "\${p#/proc/}" 2>/dev/null;; esac; done
systemctl disable ${UNITS.join(' ')} \${kc_containerd%% *} >/dev/null 2>&1
awk '{print $2}' /proc/mounts | grep -E '${MOUNT_PREFIXES}' | sort -r | while read -r m; do umount "$m" 2>/dev/null || umount -l "$m"; done
rm -f /run/netns/cni-* 2>/dev/null
for l in ${LINKS.join(' ')}; do [ -e "/sys/class/net/$l" ] && ip link delete "$l"; done
for t in iptables ip6tables; do
  command -v "$t-save" >/dev/null 2>&1 || continue
  rules=$("$t-save") || { echo "$t-save failed: kube rules left in place" >&2; continue; }
  printf '%s\\n' "$rules" | grep -qE '${KUBE_RULES}' || continue
  printf '%s\\n' "$rules" | grep -vE '${KUBE_RULES}' | "$t-restore" || echo "$t-restore failed: kube rules left in place" >&2
done
${recordedBinaries} | while read -r p; do rm -f "$p"; done
${isMount}
for p in ${paths} \${kc_containerd#containerd.service} /var/lib/etcd.before-restore-* /var/lib/kcluster; do
  if is_mount "$p"; then find "$p" -mindepth 1 -maxdepth 1 -exec rm -rf {} +; else rm -rf "$p"; fi
done
find /sys/fs/cgroup -depth -type d -path '*kubepods*' -exec rmdir {} + 2>/dev/null
if ${ownEtcdUser}; then userdel ${ETCD_USER}; getent group ${ETCD_USER} >/dev/null && groupdel ${ETCD_USER} 2>/dev/null; fi
systemctl daemon-reload
systemctl reset-failed ${UNITS.join(' ')} \${kc_containerd%% *} >/dev/null 2>&1
true`);

export interface Leftover {
  readonly kind: string;
  readonly what: string;
}

export function parseLeftovers(stdout: string): Leftover[] {
  return stdout
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((line) => {
      const space = line.indexOf(' ');
      if (space < 0) throw new Error(`unexpected reset fact line "${line.slice(0, 120)}"`);
      return { kind: line.slice(0, space), what: line.slice(space + 1) };
    });
}

const leftoversFact: Fact<Leftover[]> = { key: 'reset:leftovers', become: true, script: leftoversScript, parse: parseLeftovers };

export function planReset(leftovers: readonly Leftover[]): Change<null> {
  if (leftovers.length === 0) return noChange('nothing kcluster installs is left on this host');
  const lines = leftovers.map((l) => `${l.kind} ${l.what}`);
  return {
    kind: 'delete',
    summary: `remove ${leftovers.length} things kcluster installed or started (${lines.slice(0, 4).join(', ')}${lines.length > 4 ? ', ...' : ''})`,
    diff: lines.map((l) => `- ${l}`).join('\n') + '\n',
    payload: null,
  };
}

export function resetRole(): Role {
  const task: Task<{ leftovers: Fact<Leftover[]> }, null> = {
    name: 'remove Kubernetes and everything kcluster installed',
    tags: ['reset'],
    facts: () => ({ leftovers: leftoversFact }),
    plan: (facts) => planReset(facts.leftovers),
    apply: async (_change, ctx) => {
      const result = await execChecked(ctx.connection, removalScript, { become: true, label: 'reset', timeoutMs: 300_000 });
      for (const line of result.stderr.split('\n').filter(Boolean)) ctx.log(line);
    },
  };
  return { name: 'reset', tags: ['reset'], tasks: [task] };
}
