// The table `kcluster facts` prints: one row per host.
import type { HostFacts } from './host-facts.js';
import { textTable } from '../util/text-table.js';

const gib = (bytes: number): string => `${(bytes / 1024 ** 3).toFixed(1)}G`;

export interface FactsRow {
  readonly host: string;
  readonly facts?: HostFacts;
  /** Shown in the os column when there are no facts: "UNREACHABLE", "FAILED". */
  readonly error?: string;
}

/** Runtimes with their version number when `--version` gave one: "containerd 1.7.22". */
function runtimes(facts: HostFacts): string {
  const list = Object.entries(facts.runtimes).map(([name, r]) => {
    const version = /\bv?(\d+\.\d+(?:\.\d+)?)/.exec(r.version ?? '')?.[1];
    return version ? `${name} ${version}` : name;
  });
  return list.join(',') || '-';
}

export function factsTable(rows: readonly FactsRow[]): string {
  const header = ['host', 'os', 'kernel', 'arch', 'cpus', 'memory', 'swap', 'cgroup', 'init', 'runtimes', 'addresses'];
  const cells = rows.map((r) => {
    const f = r.facts;
    if (!f) return [r.host, r.error ?? '?', '', '', '', '', '', '', '', '', ''];
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
      runtimes(f),
      f.addresses
        .filter((a) => a.family === 'inet' && a.iface !== 'lo')
        .map((a) => a.address)
        .join(','),
    ];
  });
  return textTable([header, ...cells]);
}
