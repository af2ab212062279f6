// The table `kcluster facts` prints: one row per host.
import type { HostFacts } from './host-facts.js';

const gib = (bytes: number): string => `${(bytes / 1024 ** 3).toFixed(1)}G`;

export function factsTable(rows: readonly { host: string; facts?: HostFacts; error?: string }[]): string {
  const header = ['host', 'os', 'kernel', 'arch', 'cpus', 'memory', 'swap', 'cgroup', 'init', 'runtimes', 'addresses'];
  const cells = rows.map((r) => {
    const f = r.facts;
    if (!f) return [r.host, 'UNREACHABLE', '', '', '', '', '', '', '', '', ''];
    return [
      r.host,
      f.os.prettyName,
      f.kernel,
      f.arch,
      String(f.cpus),
      gib(f.memoryBytes),
      f.swapOn ? `on ${gib(f.swapBytes)}` : 'off',
      f.cgroup,
      f.init,
      Object.keys(f.runtimes).join(',') || '-',
      f.addresses.filter((a) => a.family === 'inet' && a.iface !== 'lo').map((a) => a.address).join(','),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  return [header, ...cells].map((row) => row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}
