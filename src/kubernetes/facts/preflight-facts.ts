// What preflight needs besides the host facts, in one script: kernel features checked by
// effect (not by lsmod: many kernels build them in), commands kcluster relies on, traces of a
// previous installation, the clock, and the MAC of each interface.
import { shellRaw } from '../../orchestrator/ssh/quote.js';
import type { Fact } from '../../orchestrator/engine/fact.js';
import { MANIFESTS_DIR } from './static-pods.js';

export const CLUSTER_MARKER = '/var/lib/kcluster/cluster';

/**
 * The commands every node needs that the bundle does not bring, with the Debian (and Ubuntu)
 * package of each: a minimal Debian with systemd and an SSH server lacks only iproute2 of these.
 */
export const REQUIRED_COMMANDS = {
  mount: 'mount',
  umount: 'mount',
  stat: 'coreutils',
  sha256sum: 'coreutils',
  base64: 'coreutils',
  mktemp: 'coreutils',
  sync: 'coreutils',
  systemctl: 'systemd',
  journalctl: 'systemd',
  ip: 'iproute2',
} as const;

export interface PreflightFacts {
  readonly overlayfs: boolean;
  readonly bridgeNetfilter: boolean;
  readonly loadableModules: boolean;
  /** modprobe is there (Debian's kmod): without it no module is loaded, present or not. */
  readonly modprobe: boolean;
  /** `modprobe -n` finds the module for the running kernel (the runtime role loads it). */
  readonly overlayLoadable: boolean;
  readonly bridgeNetfilterLoadable: boolean;
  readonly missingCommands: readonly string[];
  /** Cluster name in kcluster's marker, when this host already belongs to a kcluster cluster. */
  readonly markerCluster?: string;
  /** Files in /etc/kubernetes/manifests not written by kcluster; kubeconfigs/pki present. */
  readonly foreignManifests: readonly string[];
  readonly kubernetesDirExists: boolean;
  readonly epochSeconds: number;
  /** interface -> MAC */
  readonly macs: Readonly<Record<string, string>>;
}

const SCRIPT = `LC_ALL=C; export LC_ALL
grep -qw overlay /proc/filesystems 2>/dev/null && echo "overlay yes" || echo "overlay no"
[ -d /proc/sys/net/bridge ] && echo "bridge-nf yes" || echo "bridge-nf no"
[ -e /proc/modules ] && echo "modules yes" || echo "modules no"
command -v modprobe >/dev/null 2>&1 && echo "modprobe yes"
for m in overlay br_netfilter; do [ -e /proc/modules ] && modprobe -n -q -- "$m" 2>/dev/null && echo "loadable $m"; done
for c in ${'$'}{REQ}; do command -v "$c" >/dev/null 2>&1 || echo "missing $c"; done
[ -f ${CLUSTER_MARKER} ] && echo "marker $(head -n 1 ${CLUSTER_MARKER})"
[ -d /etc/kubernetes ] && echo "k8s-dir yes"
for f in ${MANIFESTS_DIR}/*; do [ -f "$f" ] || continue; grep -q 'Managed by kcluster' "$f" || echo "foreign $f"; done
echo "epoch $(date +%s)"
for d in /sys/class/net/*; do n=${'$'}{d##*/}; [ "$n" = lo ] && continue; echo "mac $n $(cat "$d/address" 2>/dev/null)"; done
echo end`;

export function parsePreflightFacts(stdout: string): PreflightFacts {
  const lines = stdout.split('\n');
  if (!lines.includes('end')) throw new Error('preflight facts output is cut short');
  const value = (key: string): string | undefined => lines.find((l) => l.startsWith(`${key} `))?.slice(key.length + 1);
  const all = (key: string): string[] => lines.filter((l) => l.startsWith(`${key} `)).map((l) => l.slice(key.length + 1));
  const macs: Record<string, string> = {};
  for (const entry of all('mac')) {
    const [iface = '', mac = ''] = entry.split(' ');
    if (mac !== '') macs[iface] = mac;
  }
  const marker = value('marker');
  return {
    overlayfs: value('overlay') === 'yes',
    bridgeNetfilter: value('bridge-nf') === 'yes',
    loadableModules: value('modules') === 'yes',
    modprobe: value('modprobe') === 'yes',
    overlayLoadable: all('loadable').includes('overlay'),
    bridgeNetfilterLoadable: all('loadable').includes('br_netfilter'),
    missingCommands: all('missing'),
    ...(marker !== undefined ? { markerCluster: marker } : {}),
    foreignManifests: all('foreign'),
    kubernetesDirExists: value('k8s-dir') === 'yes',
    epochSeconds: Number(value('epoch') ?? 'NaN'),
    macs,
  };
}

export const preflightFacts: Fact<PreflightFacts> = {
  key: 'preflight',
  become: true,
  script: shellRaw(`REQ="${Object.keys(REQUIRED_COMMANDS).join(' ')}"\n${SCRIPT}`),
  parse: parsePreflightFacts,
  // The host's clock moves by itself: a plan file must not call the host changed for it.
  volatile: ['epochSeconds'],
};
