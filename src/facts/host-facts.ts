// What `kcluster facts` shows about each host, read in one command: OS, kernel, CPUs,
// memory, swap, cgroup version, identity, addresses, init system, runtimes, listening ports.
import { shellRaw } from '../ssh/quote.js';
import type { Fact } from '../engine/fact.js';

export interface HostFacts {
  readonly os: { readonly id: string; readonly idLike: readonly string[]; readonly version: string; readonly prettyName: string };
  readonly kernel: string;
  readonly arch: string;
  readonly cpus: number;
  readonly memoryBytes: number;
  readonly swapBytes: number;
  readonly swapOn: boolean;
  readonly cgroup: 'v1' | 'v2' | 'hybrid' | 'unknown';
  readonly machineId: string;
  readonly hostname: string;
  readonly addresses: readonly { readonly iface: string; readonly family: 'inet' | 'inet6'; readonly address: string }[];
  readonly init: string;
  readonly runtimes: Readonly<Record<string, string>>;
  readonly listeningTcpPorts: readonly number[];
}

const SCRIPT = String.raw`
sec() { printf '\n##%s\n' "$1"; }
sec os-release; cat /etc/os-release 2>/dev/null
sec kernel; uname -r
sec arch; uname -m
sec cpus; getconf _NPROCESSORS_ONLN 2>/dev/null || grep -c ^processor /proc/cpuinfo
sec meminfo; grep -E '^(MemTotal|SwapTotal|SwapFree):' /proc/meminfo
sec swaps; tail -n +2 /proc/swaps 2>/dev/null
sec cgroup; if [ -f /sys/fs/cgroup/cgroup.controllers ]; then echo v2; elif [ -d /sys/fs/cgroup/unified ] || grep -q ' cgroup2 ' /proc/mounts; then echo hybrid; elif [ -d /sys/fs/cgroup/memory ] || [ -d /sys/fs/cgroup/cpu ]; then echo v1; else echo unknown; fi
sec machine-id; cat /etc/machine-id 2>/dev/null
sec hostname; cat /proc/sys/kernel/hostname
sec addresses; ip -o addr show 2>/dev/null
sec init; cat /proc/1/comm 2>/dev/null
sec runtimes; for b in containerd dockerd crio runc crun kubelet; do p=$(command -v $b 2>/dev/null) && echo "$b $p"; done
sec ports; if command -v ss >/dev/null 2>&1; then ss -Hltn 2>/dev/null | awk '{print $4}'; else echo '#proc'; cat /proc/net/tcp /proc/net/tcp6 2>/dev/null; fi
`;

function sections(stdout: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of stdout.split('\n##').slice(1)) {
    const nl = part.indexOf('\n');
    out.set(nl < 0 ? part : part.slice(0, nl), nl < 0 ? '' : part.slice(nl + 1).trim());
  }
  return out;
}

function osRelease(text: string): HostFacts['os'] {
  const values = new Map(
    text
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1).replace(/^"|"$/g, '')]),
  );
  return {
    id: values.get('ID') ?? 'unknown',
    idLike: (values.get('ID_LIKE') ?? '').split(/\s+/).filter(Boolean),
    version: values.get('VERSION_ID') ?? '',
    prettyName: values.get('PRETTY_NAME') ?? values.get('NAME') ?? 'unknown',
  };
}

function kib(meminfo: string, key: string): number {
  const m = new RegExp(`^${key}:\\s+([0-9]+)`, 'm').exec(meminfo);
  return m ? Number(m[1]) * 1024 : 0;
}

function ports(text: string): number[] {
  const found = new Set<number>();
  if (text.startsWith('#proc')) {
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] === '0A' && f[1]) found.add(parseInt(f[1].split(':').pop() ?? '0', 16));
    }
  } else {
    for (const line of text.split('\n')) {
      const port = Number(line.slice(line.lastIndexOf(':') + 1));
      if (Number.isInteger(port) && port > 0) found.add(port);
    }
  }
  return [...found].sort((a, b) => a - b);
}

export function parseHostFacts(stdout: string): HostFacts {
  const s = sections(stdout);
  const meminfo = s.get('meminfo') ?? '';
  const cgroup = s.get('cgroup') ?? 'unknown';
  return {
    os: osRelease(s.get('os-release') ?? ''),
    kernel: s.get('kernel') ?? '',
    arch: s.get('arch') ?? '',
    cpus: Number(s.get('cpus') ?? 0),
    memoryBytes: kib(meminfo, 'MemTotal'),
    swapBytes: kib(meminfo, 'SwapTotal'),
    swapOn: (s.get('swaps') ?? '').trim().length > 0,
    cgroup: cgroup === 'v1' || cgroup === 'v2' || cgroup === 'hybrid' ? cgroup : 'unknown',
    machineId: s.get('machine-id') ?? '',
    hostname: s.get('hostname') ?? '',
    addresses: (s.get('addresses') ?? '')
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter((f) => (f[2] === 'inet' || f[2] === 'inet6') && f[3])
      .map((f) => ({ iface: f[1] ?? '', family: f[2] as 'inet' | 'inet6', address: f[3]! })),
    init: s.get('init') ?? '',
    runtimes: Object.fromEntries(
      (s.get('runtimes') ?? '')
        .split('\n')
        .filter(Boolean)
        .map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)]),
    ),
    listeningTcpPorts: ports(s.get('ports') ?? ''),
  };
}

export const hostFacts: Fact<HostFacts> = {
  key: 'host-facts',
  script: shellRaw(SCRIPT),
  parse: (stdout) => parseHostFacts(stdout),
};
