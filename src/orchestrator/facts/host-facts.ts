// What `kcluster facts` shows about each host, read by one POSIX sh script in one command:
// OS, kernel, CPUs, memory, swap, cgroup version, identity, addresses, init system, container
// runtimes and listening TCP ports. Sections are framed by "@@kc-host:<name>" lines.
import { shellRaw } from '../ssh/quote.js';
import type { Fact } from '../engine/fact.js';
import { parseOsRelease } from '../os/os-release.js';

export interface HostAddress {
  readonly iface: string;
  readonly family: 'inet' | 'inet6';
  /** With its prefix length: "10.0.0.5/24". */
  readonly address: string;
}

export interface RuntimeBinary {
  readonly path: string;
  /** First line of `<binary> --version`, when it answered. */
  readonly version?: string;
}

export interface HostFacts {
  readonly os: { readonly id: string; readonly idLike: readonly string[]; readonly version: string; readonly prettyName: string };
  readonly kernel: string;
  readonly arch: string;
  readonly cpus: number;
  readonly memoryBytes: number;
  readonly swapBytes: number;
  /** Some swap device or file is active (/proc/swaps lists it). */
  readonly swapOn: boolean;
  readonly cgroup: 'v1' | 'v2' | 'hybrid' | 'unknown';
  readonly machineId: string;
  readonly hostname: string;
  readonly addresses: readonly HostAddress[];
  /** PID 1's command name: "systemd", "init", "tini"... */
  readonly init: string;
  readonly runtimes: Readonly<Record<string, RuntimeBinary>>;
  readonly listeningTcpPorts: readonly number[];
}

const MARK = '@@kc-host:';

// Our constant text (no user input): built with shellRaw. Each probe tolerates a missing
// tool so that one absent binary never hides the other sections.
export const HOST_FACTS_SCRIPT = String.raw`LC_ALL=C; export LC_ALL
sec() { printf '\n${MARK}%s\n' "$1"; }
sec os-release; cat /etc/os-release 2>/dev/null || cat /usr/lib/os-release 2>/dev/null
sec kernel; uname -r
sec arch; uname -m
sec cpus; getconf _NPROCESSORS_ONLN 2>/dev/null || grep -c '^processor' /proc/cpuinfo
sec meminfo; grep -E '^(MemTotal|SwapTotal|SwapFree):' /proc/meminfo
sec swaps; tail -n +2 /proc/swaps 2>/dev/null
sec cgroup
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then echo v2
elif [ -d /sys/fs/cgroup/unified ] && grep -q ' /sys/fs/cgroup/unified cgroup2 ' /proc/mounts 2>/dev/null; then echo hybrid
elif [ -d /sys/fs/cgroup/memory ] || [ -d /sys/fs/cgroup/cpu ] || [ -d /sys/fs/cgroup/cpu,cpuacct ]; then echo v1
else echo unknown; fi
sec machine-id; cat /etc/machine-id 2>/dev/null
sec hostname; cat /proc/sys/kernel/hostname 2>/dev/null || uname -n
sec addresses; ip -o addr show 2>/dev/null
sec init; cat /proc/1/comm 2>/dev/null
sec runtimes
for b in containerd dockerd crio runc crun; do
  p=$(command -v "$b" 2>/dev/null) || continue
  case $p in /*) ;; *) continue ;; esac
  v=$("$p" --version 2>/dev/null | head -n 1)
  printf '%s|%s|%s\n' "$b" "$p" "$v"
done
sec ports
if command -v ss >/dev/null 2>&1; then echo ss; ss -Hltn 2>/dev/null
else echo proc; cat /proc/net/tcp /proc/net/tcp6 2>/dev/null; fi
sec end
`;

function sections(stdout: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of stdout.split(`\n${MARK}`).slice(1)) {
    const nl = part.indexOf('\n');
    out.set(nl < 0 ? part : part.slice(0, nl), nl < 0 ? '' : part.slice(nl + 1).trim());
  }
  return out;
}

function kib(meminfo: string, key: string): number {
  const m = new RegExp(`^${key}:\\s+([0-9]+)`, 'm').exec(meminfo);
  return m ? Number(m[1]) * 1024 : 0;
}

/** `ip -o addr`: "2: eth0    inet 10.0.0.5/24 brd ... scope global eth0\ ...". */
export function parseAddresses(text: string): HostAddress[] {
  return text
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => (f[2] === 'inet' || f[2] === 'inet6') && f[3] && f[1])
    .map((f) => ({ iface: f[1]!.replace(/@.*$/, ''), family: f[2] as 'inet' | 'inet6', address: f[3]! }));
}

/** `ss -Hltn` lines (local address in column 4) or /proc/net/tcp{,6} rows in state 0A (LISTEN). */
export function parsePorts(text: string): number[] {
  const [source, ...lines] = text.split('\n');
  const found = new Set<number>();
  for (const line of lines) {
    const f = line.trim().split(/\s+/);
    if (source === 'proc') {
      if (f[3] === '0A' && f[1]) found.add(parseInt(f[1].split(':').pop() ?? '', 16));
    } else if (source === 'ss' && f[3]) {
      found.add(Number(f[3].slice(f[3].lastIndexOf(':') + 1)));
    }
  }
  return [...found].filter((p) => Number.isInteger(p) && p > 0 && p < 65536).sort((a, b) => a - b);
}

function parseRuntimes(text: string): Record<string, RuntimeBinary> {
  const out: Record<string, RuntimeBinary> = {};
  for (const line of text.split('\n')) {
    const [name, path, ...version] = line.split('|');
    if (!name || !path) continue;
    const v = version.join('|').trim();
    out[name] = v ? { path, version: v } : { path };
  }
  return out;
}

export function parseHostFacts(stdout: string): HostFacts {
  const s = sections(stdout);
  if (!s.has('end')) throw new Error('host facts output is cut short (no end marker)');
  const release = parseOsRelease(s.get('os-release') ?? '');
  const meminfo = s.get('meminfo') ?? '';
  const cgroup = s.get('cgroup') ?? 'unknown';
  const cpus = Number(s.get('cpus') ?? '');
  return {
    os: { id: release.id, idLike: release.idLike, version: release.versionId, prettyName: release.prettyName },
    kernel: s.get('kernel') ?? '',
    arch: s.get('arch') ?? '',
    cpus: Number.isInteger(cpus) ? cpus : 0,
    memoryBytes: kib(meminfo, 'MemTotal'),
    swapBytes: kib(meminfo, 'SwapTotal'),
    swapOn: (s.get('swaps') ?? '').split('\n').some((l) => l.trim() !== ''),
    cgroup: cgroup === 'v1' || cgroup === 'v2' || cgroup === 'hybrid' ? cgroup : 'unknown',
    machineId: s.get('machine-id') ?? '',
    hostname: s.get('hostname') ?? '',
    addresses: parseAddresses(s.get('addresses') ?? ''),
    init: s.get('init') ?? '',
    runtimes: parseRuntimes(s.get('runtimes') ?? ''),
    listeningTcpPorts: parsePorts(s.get('ports') ?? ''),
  };
}

export const hostFacts: Fact<HostFacts> = {
  key: 'host-facts',
  script: shellRaw(HOST_FACTS_SCRIPT),
  parse: (stdout) => parseHostFacts(stdout),
  // Listeners on ephemeral ports come and go by themselves (a kcluster-relay server idling out
  // after an install, any client's own): they would make every plan file stale. The ports a
  // role needs free are checked again when the plan is carried out (preflight's check runs on
  // the live facts), so leaving them out of the plan's fingerprint loses no refusal.
  volatile: ['listeningTcpPorts'],
};
